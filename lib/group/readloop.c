/* readloop.c: tmq-get's reading loop, as a member or not (readloop.h);
 * its decisions are readturn.c's. */
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "store/fstype.h"
#include "flow/partlist.h"
#include "group/readloop.h"
#include "store/directread.h"
#include "util/fswait.h"
#include "util/monoclock.h"
#include "util/notice.h"
#include "group/readturn.h"
#include "store/root.h"
#include "util/stop.h"
#include "codec/timestamp.h"

static void
say(const struct tmq_readloop *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
say(const struct tmq_readloop *l, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (l->spec->notice == NULL || tmq_notice_quiet())
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	l->spec->notice(l->spec->notice_arg, msg);
}

static int
flush_output(void *arg)
{
	struct tmq_output *out = arg;

	/* Output dropped on the way out (a signal, a reader that stopped
	 * reading) is not an error: what the reader took is counted. */
	return fflush(out->f) == 0 || out->interrupted ? 0 : -1;
}

static int
output_taken(void *arg, uint64_t *bytes, struct tmq_error *e)
{
	return tmq_output_taken(arg, bytes, e);
}

/* Is e a network filesystem's server gone away, for a reader that runs
 * on (fstype.h)?  fd: a descriptor on that filesystem. */
static int
outage(const struct tmq_readloop *l, int fd, const struct tmq_error *e)
{
	return l->spec->follow && !tmq_stop && e->code == TMQ_ERR_SYS &&
	    tmq_fs_outage(fd, e->sys);
}

/* Check -P and --from's pairs against one topic, opened once into the
 * consumer (adding it again later finds it there). */
static int
check_partitions(struct tmq_readloop *l, int rootfd, const char *topic,
    struct tmq_error *e)
{
	const struct tmq_readspec *s = l->spec;
	const struct tmq_position *p = s->pos;
	size_t ti;
	unsigned np;

	if (s->parts == NULL && p->kind != TMQ_POS_PAIRS)
		return 0;
	if (tmq_consumer_add_topic(&l->c, rootfd, topic, &ti, e) < 0)
		return -1;
	np = l->c.topics[ti].partitions;
	if (s->parts != NULL &&
	    tmq_partlist_check(s->parts, s->nparts, np, e) < 0)
		return tmq_fail_prefix(e, "%s", topic);
	/* (Sorted: the last is the largest.) */
	if (p->kind == TMQ_POS_PAIRS && p->nat > 0 &&
	    p->at[p->nat - 1].partition >= np)
		return tmq_fail(e, "%s: --from: partition %u does not exist "
		    "(topic has %u)", topic, p->at[p->nat - 1].partition, np);
	return 0;
}

/* What the consumer and the group's consumer are told before setup. */
static void
prepare(struct tmq_readloop *l)
{
	const struct tmq_readspec *s = l->spec;

	l->c.have_until = s->have_until;
	l->c.until = s->until;
	l->c.notice = s->notice;
	l->c.notice_arg = s->notice_arg;
	l->c.no_resolve = s->no_resolve;
	/* A follower (a member too) runs on: its server may go away and come
	 * back (tmq(7), Shared file systems). */
	l->c.retry_outages = s->follow;
	l->c.root = s->root;
	l->c.hup_fd = tmq_output_hup_fd(l->out);
	memset(&l->gc, 0, sizeof l->gc);
	l->gc.lockfd = -1;
	l->gc.reset = s->reset;
	l->gc.session = s->session;
}

/* What the group's consumer is told once it has joined: commits are for
 * what is read from then on. */
static void
prepare_commits(struct tmq_readloop *l)
{
	l->gc.autocommit = l->spec->commit || l->spec->exec;
	l->gc.flush = flush_output;
	l->gc.flush_arg = l->out;
	/* Commit only what the reader took, not what sits in a pipe. */
	l->gc.taken = l->spec->exec ? NULL : output_taken;
	l->gc.taken_arg = l->out;
	tmq_ac_init(&l->ac, l->grouped && (l->spec->commit || l->spec->exec),
	    tmq_now());
}

/* Open the root and set the sources up: the topics' partitions, or the
 * group's share or fixed partitions.  When away is not NULL, a failure
 * because the root's server is away sets it. */
static int
setup(struct tmq_readloop *l, int *away, struct tmq_error *e)
{
	const struct tmq_readspec *s = l->spec;
	int fd, i, rc = 0;

	if (tmq_root_open_opt(s->root, 0, &fd, e) < 0) {
		if (away != NULL && e->code == TMQ_ERR_SYS &&
		    tmq_outage_errno(e->sys) && s->follow && !tmq_stop)
			*away = 1;
		return -1;
	}
	/* On a shared filesystem, a call that blocks is said (fswait.h). */
	if (tmq_read_as_shared(fd))
		tmq_fswait_watch(fd);
	tmq_fswait_begin();
	for (i = 0; i < s->ntopics && rc == 0; i++) {
		const char *topic = s->topics[i];

		rc = check_partitions(l, fd, topic, e);
		if (rc < 0)
			break;
		if (s->group == NULL)
			rc = tmq_consumer_add(&l->c, fd, topic, s->parts,
			    s->nparts, e);
		else if (s->parts != NULL)
			rc = tmq_gc_fixed(&l->gc, &l->c, fd, s->group, topic,
			    s->parts, s->nparts, s->pos->kind == TMQ_POS_NOW, e);
		else
			rc = tmq_gc_join(&l->gc, &l->c, fd, s->group, topic,
			    s->pos->kind == TMQ_POS_NOW, s->window, e);
		if (rc < 0 && away != NULL && outage(l, fd, e))
			*away = 1;
	}
	close(fd);
	if (rc == 0 && s->group == NULL &&
	    tmq_consumer_seek(&l->c, s->pos, e) < 0)
		rc = -1;
	tmq_fswait_end();
	return rc;
}

int
tmq_readloop_open(struct tmq_readloop *l, const struct tmq_readspec *spec,
    struct tmq_output *out, struct tmq_error *e)
{
	memset(l, 0, sizeof *l);
	l->spec = spec;
	l->out = out;
	l->grouped = spec->group != NULL;
	l->gc.lockfd = -1;
	if (tmq_consumer_init(&l->c, e) < 0)
		return -1;
	prepare(l);
	if (setup(l, NULL, e) < 0)
		return -1;
	/* --until now (or later): the ends at the start, whatever the stamps
	 * of what is already there (tmq_consumer_until_ends). */
	if (!l->grouped && spec->have_until && spec->until >= spec->started &&
	    tmq_consumer_until_ends(&l->c, e) < 0)
		return -1;
	prepare_commits(l);
	return 0;
}

/* The group's log failed with e.  When its server is away (outage), say
 * so once, and join the group again, as a new member, once the server is
 * back: the old membership's lock went with the connection, so its
 * partitions are the group's to give again, and what was printed without
 * being committed is delivered again (at least once, as after a restart). */
static enum tmq_turn
group_failed(struct tmq_readloop *l, struct tmq_error *e)
{
	int backoff = tmq_outage_backoff(0), away, out;

	out = l->c.ntopics > 0 && outage(l, l->c.topics[0].dirfd, e);
	if (tmq_gfail_next(out, l->spec->follow, tmq_stop) != TMQ_GFAIL_REJOIN)
		return l->failed = 1, TMQ_TURN_ERROR;
	/* Said once: the consumer may have said it for a partition. */
	if (l->c.away > 0)
		say(l, "group %s: joining again once the server is back (what "
		    "was not committed is read again)", l->spec->group);
	else
		say(l, "group %s: %s: its server is away: joining again once "
		    "it is back (what was not committed is read again)",
		    l->spec->group, e->msg);
	fflush(l->out->f);
	for (;;) {
		/* (c and gc stay whole whenever we return: free ends them) */
		poll(NULL, 0, backoff);
		if (tmq_stop)
			return l->failed = 1, TMQ_TURN_ERROR;
		tmq_gc_close(&l->gc);
		tmq_consumer_free(&l->c);
		if (tmq_consumer_init(&l->c, e) < 0)
			return l->failed = 1, TMQ_TURN_ERROR;
		prepare(l);
		away = 0;
		if (setup(l, &away, e) == 0)
			break;
		if (!away)
			return l->failed = 1, TMQ_TURN_ERROR;
		backoff = tmq_outage_backoff(backoff);
	}
	prepare_commits(l);
	say(l, "group %s: the server is back: joined again", l->spec->group);
	return TMQ_TURN_REJOINED;
}

/* The record returned last was printed: unless its write failed, for a
 * member it is delivered (to commit once its reader takes it), and a
 * commit may be due.  -1 when that went well, else the turn it ends in. */
static int
deliver(struct tmq_readloop *l, struct tmq_error *e)
{
	/* A write that failed ends the reading at once, as cat's does (the
	 * caller finds the error closing its output); for a member, what was
	 * not written is not delivered, and not ours to commit. */
	if (ferror(l->out->f))
		return TMQ_TURN_END;
	if (!l->grouped || l->spec->exec)
		return -1;
	if (tmq_gc_delivered(&l->gc, l->ppartition, l->poffset,
	    tmq_output_pos(l->out), e) < 0)
		return group_failed(l, e);
	if (tmq_ac_count(&l->ac) &&
	    tmq_ac_commit(&l->ac, &l->gc, tmq_now(), e) < 0)
		return group_failed(l, e);
	return -1;
}

/* A turn that waits (idle, or held in a rebalance): the output flushed,
 * the wait's bound set; the end instead when the output's reader went. */
static int
idle_turn(struct tmq_readloop *l)
{
	const struct tmq_readspec *s = l->spec;

	/* Whoever reads our output sees everything before we sleep. */
	if (fflush(l->out->f) != 0)
		return TMQ_TURN_END;
	/* A reader that went away (| head) while nothing came in is not
	 * waited for until the next message would find it gone: a member
	 * would hold its partitions, and what it left in the pipe
	 * uncommitted, meanwhile (tail -f stops too). */
	if (tmq_output_reader_gone(l->out)) {
		l->reader_gone = 1;
		return TMQ_TURN_END;
	}
	l->wait_ms = tmq_idle_wait_ms(l->grouped ? tmq_gc_timeout(&l->gc) : -1,
	    s->have_until, (s->until - tmq_now()) * 1000);
	return TMQ_TURN_IDLE;
}

/* Nothing to read now: the group answered, a commit due made; then the
 * end, another read at once (-1), or an idle turn. */
static int
idle(struct tmq_readloop *l, struct tmq_error *e)
{
	const struct tmq_readspec *s = l->spec;
	struct tmq_idle st = { 0 };
	unsigned gen = l->gc.generation;

	if (l->grouped) {
		if (tmq_gc_poll(&l->gc, e) < 0)
			return group_failed(l, e);
		if (tmq_ac_due(&l->ac, tmq_now()) &&
		    tmq_ac_commit(&l->ac, &l->gc, tmq_now(), e) < 0)
			return group_failed(l, e);
		st.new_share = l->gc.generation != gen;
		st.settled = tmq_gc_settled(&l->gc);
	}
	st.grouped = l->grouped;
	st.done = tmq_consumer_done(&l->c);
	st.all_failed = tmq_consumer_all_failed(&l->c);
	st.follow = s->follow;
	st.have_until = s->have_until;
	st.past_until = s->have_until && l->before >= s->until;
	switch (tmq_idle_next(&st)) {
	case TMQ_IDLE_AGAIN:
		return -1;
	case TMQ_IDLE_END:
		return TMQ_TURN_END;
	case TMQ_IDLE_WAIT:
		break;
	}
	return idle_turn(l);
}

/* A member in a rebalance: hold the reading (readturn.h, TMQ_TURN_HOLD_MAX)
 * and wait, answering the group, until the rebalance ends.  -1: read on;
 * else the turn (an idle one while it holds). */
static int
hold(struct tmq_readloop *l, struct tmq_error *e)
{
	uint64_t r;
	double left;
	int rc;

	if (!l->grouped || l->spec->exec)
		return -1;
	if ((r = tmq_gc_rebalance(&l->gc, &left)) == 0)
		return -1;
	if (r != l->held_in) {
		l->held_in = r;
		l->held_since = tmq_mono();
	}
	if (!tmq_turn_hold(1, tmq_mono() - l->held_since, left))
		return -1;
	if (tmq_gc_poll(&l->gc, e) < 0)
		return group_failed(l, e);
	if (tmq_gc_rebalance(&l->gc, &left) != r)
		return -1;	/* it ended, or another began: look again */
	/* What the reader takes meanwhile is committed as ever. */
	if (tmq_ac_due(&l->ac, tmq_now()) &&
	    tmq_ac_commit(&l->ac, &l->gc, tmq_now(), e) < 0)
		return group_failed(l, e);
	if ((rc = idle_turn(l)) != TMQ_TURN_IDLE)
		return rc;
	/* Not past the hold's end. */
	left = TMQ_TURN_HOLD_MAX - (tmq_mono() - l->held_since);
	if (left < 0)
		left = 0;
	if (l->wait_ms < 0 || l->wait_ms > (int)(left * 1000) + 1)
		l->wait_ms = (int)(left * 1000) + 1;
	return TMQ_TURN_IDLE;
}

enum tmq_turn
tmq_readloop_next(struct tmq_readloop *l, struct tmq_msg *m,
    const struct tmq_topic **t, struct tmq_error *e)
{
	const struct tmq_readspec *s = l->spec;
	size_t src;
	int rc;

	if (l->pending) {
		l->pending = 0;
		if ((rc = deliver(l, e)) >= 0)
			return rc;
	}
	for (;;) {
		if (tmq_stop || (s->count != 0 && l->seen >= s->count))
			return TMQ_TURN_END;
		if (l->grouped && tmq_turn_poll_before_read(l->seen) &&
		    tmq_gc_poll(&l->gc, e) < 0)
			return group_failed(l, e);
		if ((rc = hold(l, e)) >= 0)
			return rc;
		/* The clock before the read: a message stamped before
		 * --until that lands after this read is the only one the
		 * clock may cut off, and only when its writer was that slow. */
		l->before = tmq_now();
		tmq_fswait_begin();
		rc = tmq_consumer_next(&l->c, m, &src, e);
		tmq_fswait_end();
		if (rc == 1 && l->grouped && tmq_gc_due(&l->gc)) {
			/* We may have been stopped long enough to lose this
			 * partition: find out before printing more of it. */
			if (tmq_gc_poll(&l->gc, e) < 0)
				return group_failed(l, e);
			if (!tmq_gc_holds(&l->gc, m->partition))
				continue;
		}
		if (rc == 1) {
			*t = &l->c.topics[l->c.src[src].topic];
			l->pending = 1;
			l->ppartition = m->partition;
			l->poffset = m->offset;
			l->seen++;
			return TMQ_TURN_RECORD;
		}
		if (rc == 2)
			return TMQ_TURN_CORRUPT;
		if (rc < 0)
			return l->failed = 1, TMQ_TURN_ERROR;
		if ((rc = idle(l, e)) >= 0)
			return rc;
	}
}

int
tmq_readloop_wait(struct tmq_readloop *l, struct tmq_error *e)
{
	if (tmq_consumer_wait(&l->c, l->wait_ms, e) < 0)
		return l->failed = 1, -1;
	return 0;
}

int
tmq_readloop_finish(struct tmq_readloop *l, struct tmq_error *e)
{
	struct tmq_error e2;
	int rc = 0;

	if (l->ac.on && !l->spec->exec && !l->failed && !ferror(l->out->f) &&
	    tmq_ac_wait_taken(&l->ac, &l->gc, l->out, e) < 0)
		rc = -1;
	/* The group is left whatever came before: its partitions go to the
	 * others now, not after a session timeout. */
	if (l->grouped && tmq_gc_finish(&l->gc, rc < 0 ? &e2 : e) < 0)
		rc = -1;
	if (rc < 0)
		l->failed = 1;
	return rc;
}

int
tmq_readloop_mark(struct tmq_readloop *l, unsigned partition, uint64_t next,
    struct tmq_error *e)
{
	if (!l->grouped || next == 0 || !tmq_gc_holds(&l->gc, partition))
		return 0;
	if (tmq_gc_delivered(&l->gc, partition, next - 1, 0, e) < 0)
		return l->failed = 1, -1;
	return 1;
}

int
tmq_readloop_rebalancing(const struct tmq_readloop *l)
{
	return l->grouped && tmq_gc_rebalancing(&l->gc);
}

int
tmq_readloop_done(struct tmq_readloop *l, unsigned partition, uint64_t next,
    struct tmq_error *e)
{
	int rc = tmq_readloop_mark(l, partition, next, e);

	if (rc <= 0)
		return rc;
	if (tmq_ac_count(&l->ac) &&
	    tmq_ac_commit(&l->ac, &l->gc, tmq_now(), e) < 0)
		return l->failed = 1, -1;
	return 0;
}

int
tmq_readloop_tend(struct tmq_readloop *l, struct tmq_error *e)
{
	if (!l->grouped)
		return 0;
	if (tmq_gc_due(&l->gc) && tmq_gc_poll(&l->gc, e) < 0)
		return l->failed = 1, -1;
	if (tmq_ac_due(&l->ac, tmq_now()) &&
	    tmq_ac_commit(&l->ac, &l->gc, tmq_now(), e) < 0)
		return l->failed = 1, -1;
	return 0;
}

int
tmq_readloop_holds(const struct tmq_readloop *l, unsigned partition)
{
	return !l->grouped || tmq_gc_holds(&l->gc, partition);
}

int
tmq_readloop_fd(const struct tmq_readloop *l)
{
	return l->c.ifd;
}

int
tmq_readloop_skipped(const struct tmq_readloop *l)
{
	return l->c.failures > 0;
}

void
tmq_readloop_free(struct tmq_readloop *l)
{
	tmq_gc_close(&l->gc);
	tmq_consumer_free(&l->c);
}
