/* groupconsumer.c: group-driven reading (see groupconsumer.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/dotdir.h"
#include "util/fdlimit.h"
#include "group/groupconsumer.h"
#include "util/notice.h"
#include "util/grow.h"
#include "codec/timestamp.h"
#include "store/modes.h"
#include "codec/names.h"
#include "store/partfile.h"
#include "store/regfile.h"

/* The reserve of descriptors (groupconsumer.h): taken back once the
 * group's work is done, the sources giving theirs up for it as need be
 * (best effort: a reserve cut short leaves the group's work the
 * descriptors there are). */
static void
reserve_take(struct tmq_gconsumer *gc)
{
	int fd, room[TMQ_GC_ROOM];
	unsigned n = 0;

	while (gc->nreserve < TMQ_GC_RESERVE) {
		fd = fcntl(gc->c->topics[gc->topic].dirfd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0) {
			if (!tmq_fd_exhausted(errno) ||
			    tmq_consumer_spare_fd(gc->c) < 0)
				break;
			continue;
		}
		gc->reserve[gc->nreserve++] = fd;
	}
	/* And TMQ_GC_ROOM more, let go at once: a source then has what it
	 * opens at once (its file, its index and the folder of that) when
	 * no other source holds a descriptor to give up (all were just
	 * closed for a new share).  Where there is not that much, the
	 * reserve makes room. */
	while (n < TMQ_GC_ROOM) {
		fd = fcntl(gc->c->topics[gc->topic].dirfd, F_DUPFD_CLOEXEC, 0);
		if (fd >= 0)
			room[n++] = fd;
		else if (!tmq_fd_exhausted(errno))
			break;
		else if (tmq_consumer_spare_fd(gc->c) < 0) {
			if (gc->nreserve == 0)
				break;
			close(gc->reserve[--gc->nreserve]);
		}
	}
	while (n > 0)
		close(room[--n]);
}

static void
reserve_drop(struct tmq_gconsumer *gc)
{
	while (gc->nreserve > 0)
		close(gc->reserve[--gc->nreserve]);
}

/* Around the group's work (its log read, written, its locks): the
 * reserve is free meanwhile. */
static void
group_enter(struct tmq_gconsumer *gc)
{
	if (gc->depth++ == 0)
		reserve_drop(gc);
}

static void
group_leave(struct tmq_gconsumer *gc)
{
	if (--gc->depth == 0)
		reserve_take(gc);
}

static int
setup(struct tmq_gconsumer *gc, struct tmq_consumer *c, int rootfd,
    const char *group, const char *topic, struct tmq_error *e)
{
	enum tmq_reset reset = gc->reset;	/* set by the caller */
	double session = gc->session;		/* too */
	unsigned p;

	memset(gc, 0, sizeof *gc);
	gc->reset = reset;
	gc->session = session;
	gc->c = c;
	gc->lockfd = -1;
	gc->g.log.dirfd = -1;
	if (tmq_group_name_check(group, e) < 0)
		return -1;
	if (tmq_consumer_add_topic(c, rootfd, topic, &gc->topic, e) < 0)
		return -1;
	gc->nparts = c->topics[gc->topic].partitions;
	gc->delivered = malloc(gc->nparts * sizeof *gc->delivered);
	gc->sent = malloc(gc->nparts * sizeof *gc->sent);
	gc->reported = calloc(gc->nparts ? gc->nparts : 1, 1);
	if (gc->delivered == NULL || gc->sent == NULL || gc->reported == NULL)
		return tmq_fail(e, "out of memory");
	for (p = 0; p < gc->nparts; p++)
		gc->delivered[p] = gc->sent[p] = -1;
	return 0;
}

/* Watch the group's log too, so a follower wakes for rebalances. */
static int
watch_log(struct tmq_gconsumer *gc, int rootfd, const char *group,
    struct tmq_error *e)
{
	char gt[TMQ_GROUP_LOG_MAX];
	size_t idx;

	return tmq_consumer_add_topic(gc->c, rootfd,
	    tmq_group_log_name(group, gt, sizeof gt), &idx, e);
}

static void
notice(struct tmq_gconsumer *gc, const char *msg)
{
	if (gc->c->notice != NULL && !tmq_notice_quiet())
		gc->c->notice(gc->c->notice_arg, msg);
}

/* A committed offset past the partition's end or before its first offset
 * would skip messages or point at none: say so (once a partition), and
 * go where the policy says.  *off is where to start.  Returns -1 when the
 * partition cannot be read, STOP when the policy is to fail. */
#define STOP (-2)

static int
check_range(struct tmq_gconsumer *gc, const struct tmq_group *g, size_t src,
    unsigned p, int64_t *off, struct tmq_error *e)
{
	uint64_t first, end, to;
	enum tmq_range r;
	char msg[400];

	/* By the source's own reader: its seek to the offset then starts
	 * from what this count learnt (the index's entry near the end),
	 * and reads nothing twice. */
	if (tmq_lr_range(&gc->c->src[src].lr, &first, &end, e) < 0)
		return -1;
	r = tmq_range_of(*off, first, end);
	if (r == TMQ_IN_RANGE)
		return 0;
	tmq_range_describe(g->name, p, *off, first, end, msg, sizeof msg);
	if (gc->reset == TMQ_RESET_FAIL) {
		tmq_fail(e, "%s (--offset-reset fail)", msg);
		return STOP;
	}
	to = gc->reset == TMQ_RESET_NOW ? end : first;
	/* A member's commit of it may then go below that offset, which
	 * is no position (groupfence.h). */
	if (gc->is_member &&
	    tmq_gfence_reset_from(&gc->mb.fence, p, *off, e) < 0)
		return -1;
	if (!gc->reported[p]) {
		char full[512];

		snprintf(full, sizeof full, "%s: reading from %llu "
		    "(--offset-reset %s)", msg, (unsigned long long)to,
		    tmq_reset_name(gc->reset));
		notice(gc, full);
		gc->reported[p] = 1;
	}
	*off = (int64_t)to;
	/* With --commit, the reset is recorded at the next commit: nothing
	 * of this partition was delivered before it. */
	gc->delivered[p] = *off;
	return 0;
}

static int
start_at(struct tmq_gconsumer *gc, const struct tmq_group *g, size_t src,
    unsigned p, struct tmq_error *e)
{
	int64_t off = tmq_gstate_committed(&g->state, p);
	int rc;

	if (off == -1)		/* "now": the end when it is assigned */
		return tmq_lr_seek_end(&gc->c->src[src].lr, e);
	if (off == TMQ_NOT_COMMITTED)
		off = 0;
	else if ((rc = check_range(gc, g, src, p, &off, e)) < 0)
		return rc;
	return tmq_consumer_seek_source(gc->c, src, (uint64_t)off, e);
}

/* Forget the marks of partitions no longer held (held[p] == 0). */
static void
drop_marks(struct tmq_gconsumer *gc, const unsigned char *held)
{
	size_t i, j;

	for (i = j = gc->mhead; i < gc->mtail; i++)
		if (held[gc->marks[i].partition])
			gc->marks[j++] = gc->marks[i];
	gc->mtail = j;
}

/* The member's share changed: commit what we give up, then rebuild the
 * sources, keeping the position of partitions we keep. */
static int commit_now(struct tmq_gconsumer *, struct tmq_error *);

static int
on_assign(void *arg, const unsigned *parts, unsigned n, struct tmq_error *e)
{
	struct tmq_gconsumer *gc = arg;
	struct tmq_consumer *c = gc->c;
	unsigned char *held;
	uint64_t *keep;
	unsigned i, p;
	int rc;
	size_t s;

	/* Partitions lost, not given up (member.c, lose): their new owner
	 * may have committed past what we took; commit none of them. */
	if (gc->autocommit && !gc->mb.lost && commit_now(gc, e) < 0)
		return -1;
	keep = malloc((gc->nparts ? gc->nparts : 1) * (sizeof *keep + 1));
	if (keep == NULL)
		return tmq_fail(e, "out of memory");
	held = (unsigned char *)(keep + (gc->nparts ? gc->nparts : 1));
	for (p = 0; p < gc->nparts; p++)
		keep[p] = UINT64_MAX;
	for (s = 0; s < c->nsrc; s++)
		keep[c->src[s].partition] = tmq_consumer_position(c, s);
	tmq_consumer_clear_sources(c);
	/* The sources take what descriptors there are, less the reserve
	 * that the rest of the group's work needs. */
	reserve_take(gc);
	for (i = 0; i < n; i++) {
		p = parts[i];
		if (tmq_consumer_add_source(c, gc->topic, p, e) < 0)
			goto bad;
		/* A partition that cannot be read is said and skipped. */
		if (keep[p] != UINT64_MAX) {
			if (tmq_lr_seek(&c->src[c->nsrc - 1].lr, keep[p], NULL,
			    e) < 0)
				tmq_consumer_fail_source(c, c->nsrc - 1, e);
		} else if ((rc = start_at(gc, &gc->mb.g, c->nsrc - 1, p,
		    e)) == STOP)
			goto bad;
		else if (rc < 0)
			tmq_consumer_fail_source(c, c->nsrc - 1, e);
	}
	/* What we no longer hold is no longer ours to commit, even what
	 * its reader may still take: the next owner reads it again. */
	memset(held, 0, gc->nparts ? gc->nparts : 1);
	for (i = 0; i < n; i++)
		if (parts[i] < gc->nparts)
			held[parts[i]] = 1;
	for (p = 0; p < gc->nparts; p++)
		if (!held[p])
			gc->delivered[p] = gc->sent[p] = -1;
	drop_marks(gc, held);
	gc->generation++;
	reserve_drop(gc);
	free(keep);
	return 0;
bad:
	reserve_drop(gc);
	free(keep);
	return -1;
}

/* A rebalance may move our partitions: commit first (rebalances now end
 * as soon as everyone has offered, before a periodic commit would). */
static int
on_offer(void *arg, struct tmq_error *e)
{
	struct tmq_gconsumer *gc = arg;

	if (gc->before_offer != NULL &&
	    gc->before_offer(gc->before_offer_arg, e) < 0)
		return -1;
	return gc->autocommit ? commit_now(gc, e) : 0;
}

int
tmq_gc_join(struct tmq_gconsumer *gc, struct tmq_consumer *c, int rootfd,
    const char *group, const char *topic, int from_now, double window,
    struct tmq_error *e)
{
	if (setup(gc, c, rootfd, group, topic, e) < 0)
		return -1;
	gc->mb.notice = c->notice;
	gc->mb.notice_arg = c->notice_arg;
	gc->mb.session = gc->session;
	if (tmq_member_join(&gc->mb, rootfd, group, &c->topics[gc->topic],
	    from_now, window, e) < 0)
		return -1;
	gc->is_member = 1;
	gc->mb.on_assign = on_assign;
	gc->mb.on_offer = on_offer;
	gc->mb.arg = gc;
	if (watch_log(gc, rootfd, group, e) < 0)
		return -1;
	reserve_take(gc);
	return 0;
}

int
tmq_gc_fixed(struct tmq_gconsumer *gc, struct tmq_consumer *c, int rootfd,
    const char *group, const char *topic, const unsigned *parts,
    unsigned nparts, int from_now, struct tmq_error *e)
{
	const struct tmq_topic *t;
	char shown[TMQ_NAME_MAX + 32];
	unsigned i;
	int fd, dfd, rc;

	if (setup(gc, c, rootfd, group, topic, e) < 0)
		return -1;
	t = &c->topics[gc->topic];
	if (tmq_group_open(rootfd, group, topic, &gc->g, e) < 0) {
		if (e->code != TMQ_ERR_NOGROUP ||
		    tmq_group_create(rootfd, group, t, from_now, e) < 0 ||
		    tmq_group_open(rootfd, group, topic, &gc->g, e) < 0)
			return -1;
	}
	/* The lock lives in the log's dot-folder, where the TwainMQ library
	 * never looks for partition files. */
	dfd = tmq_dot_open(gc->g.log.dirfd, 1);
	snprintf(shown, sizeof shown, "%s/" TMQ_DOT_DIR, gc->g.log.name);
	if (dfd < 0) {
		tmq_dot_fail(gc->g.log.dirfd, shown, e);
		return tmq_fail_prefix(e, "group %s", group);
	}
	/* Never a FIFO or a link planted there (regfile.h). */
	snprintf(shown, sizeof shown, "%s/" TMQ_DOT_DIR "/" TMQ_DOT_GLOCK,
	    gc->g.log.name);
	fd = tmq_open_regular_as(dfd, TMQ_DOT_GLOCK, shown, O_RDWR | O_CREAT, 0666,
	    e);
	if (fd >= 0)
		tmq_mode_follow(dfd, fd);
	close(dfd);
	if (fd < 0)
		return tmq_fail_prefix(e, "group %s", group);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return tmq_fail(e, "group %s: another reader of fixed "
		    "partitions holds the group's lock", group);
	}
	gc->lockfd = fd;
	gc->g.notice = c->notice;
	gc->g.notice_arg = c->notice_arg;
	if (tmq_group_replay(&gc->g, e) < 0)
		return -1;
	for (i = 0; i < nparts; i++) {
		if (tmq_consumer_add_source(c, gc->topic, parts[i], e) < 0)
			return -1;
		if ((rc = start_at(gc, &gc->g, c->nsrc - 1, parts[i], e)) ==
		    STOP)
			return -1;
		if (rc < 0)
			tmq_consumer_fail_source(c, c->nsrc - 1, e);
	}
	reserve_take(gc);
	return 0;
}

int
tmq_gc_delivered(struct tmq_gconsumer *gc, unsigned partition,
    uint64_t offset, uint64_t end, struct tmq_error *e)
{
	struct tmq_gmark *m;

	if (partition >= gc->nparts)
		return 0;
	/* Marks are kept only to be committed: without autocommit they
	 * would only pile up. */
	if (gc->taken == NULL || !gc->autocommit) {
		gc->delivered[partition] = (int64_t)offset + 1;
		return 0;
	}
	if (gc->mtail == gc->mcap) {
		/* Slide what is left to the front, or grow. */
		if (gc->mhead > 0 && gc->mhead >= gc->mcap / 2) {
			memmove(gc->marks, gc->marks + gc->mhead,
			    (gc->mtail - gc->mhead) * sizeof *gc->marks);
			gc->mtail -= gc->mhead;
			gc->mhead = 0;
		} else if (tmq_grow(&gc->marks, &gc->mcap, gc->mtail + 1,
		    sizeof *gc->marks) < 0)
			return tmq_fail(e, "out of memory");
	}
	m = &gc->marks[gc->mtail++];
	m->end = end;
	m->next = (int64_t)offset + 1;
	m->partition = partition;
	return 0;
}

/* Move what the reader has taken from the marks into delivered. */
static int
apply_taken(struct tmq_gconsumer *gc, struct tmq_error *e)
{
	uint64_t taken;

	if (gc->taken == NULL || gc->mhead == gc->mtail)
		return 0;
	if (gc->taken(gc->taken_arg, &taken, e) < 0)
		return -1;
	while (gc->mhead < gc->mtail && gc->marks[gc->mhead].end <= taken) {
		const struct tmq_gmark *m = &gc->marks[gc->mhead++];

		gc->delivered[m->partition] = m->next;
	}
	if (gc->mhead == gc->mtail)
		gc->mhead = gc->mtail = 0;
	return 0;
}


/* Delivered offsets not yet committed. */
static int
pending(const struct tmq_gconsumer *gc)
{
	unsigned p;

	for (p = 0; p < gc->nparts; p++)
		if (gc->delivered[p] >= 0 && gc->delivered[p] != gc->sent[p])
			return 1;
	return 0;
}

int
tmq_gc_due(const struct tmq_gconsumer *gc)
{
	return gc->is_member && tmq_member_due(&gc->mb);
}

int
tmq_gc_holds(const struct tmq_gconsumer *gc, unsigned partition)
{
	unsigned i;

	if (!gc->is_member)
		return 1;
	for (i = 0; i < gc->mb.nheld; i++)
		if (gc->mb.held[i] == partition)
			return 1;
	return 0;
}

int
tmq_gc_rebalancing(const struct tmq_gconsumer *gc)
{
	return gc->is_member && gc->mb.g.state.rebalancing;
}

uint64_t
tmq_gc_rebalance(const struct tmq_gconsumer *gc, double *left)
{
	const struct tmq_gstate *s = &gc->mb.g.state;

	*left = 0;
	if (!gc->is_member || !s->rebalancing)
		return 0;
	*left = s->rebal_end - tmq_now();
	return s->rebal_offset + 1;
}

void
tmq_gc_beat(struct tmq_gconsumer *gc)
{
	if (gc->is_member)
		tmq_member_beat(&gc->mb);
}

/* Commit what is pending, as the state stands: 0, 1 when a member wrote
 * nothing as the log showed a rebalance ended in lines it has yet to read
 * (tmq_member_commit), -1 on an error. */
static int
commit_now(struct tmq_gconsumer *gc, struct tmq_error *e)
{
	struct tmq_poff *po;
	unsigned p, n = 0;
	int rc = 0;

	if (gc->mhead == gc->mtail && !pending(gc))
		return 0;
	/* When the flush fails (the reader has gone), what was written
	 * and taken before still counts; without a count, nothing does. */
	if (gc->flush != NULL && gc->flush(gc->flush_arg) < 0 &&
	    gc->taken == NULL)
		return tmq_fail(e, "cannot flush the output: not committing");
	if (apply_taken(gc, e) < 0)
		return -1;
	for (p = 0; p < gc->nparts; p++)
		if (gc->delivered[p] >= 0 && gc->delivered[p] != gc->sent[p])
			n++;
	if (n == 0)
		return 0;
	po = malloc(n * sizeof *po);
	if (po == NULL)
		return tmq_fail(e, "out of memory");
	n = 0;
	for (p = 0; p < gc->nparts; p++)
		if (gc->delivered[p] >= 0 && gc->delivered[p] != gc->sent[p]) {
			po[n].partition = p;
			po[n++].offset = gc->delivered[p];
		}
	/* A member's commits are fenced by the log (groupfence.h): of
	 * partitions it holds as the log says just before they go in, never
	 * below what is committed there.  When a rebalance closed in lines
	 * it has yet to read, none is written: they are tried again once it
	 * has read them (and given up what it lost). */
	if (gc->is_member)
		rc = tmq_member_commit(&gc->mb, po, n, e);
	else
		rc = tmq_group_commit(&gc->g, 0, po, n, e);
	if (rc == 1) {
		free(po);
		return 1;
	}
	if (rc == 0)
		for (p = 0; p < gc->nparts; p++)
			if (gc->delivered[p] >= 0)
				gc->sent[p] = gc->delivered[p];
	free(po);
	return rc;
}

/* How often a commit is tried again after the log showed a rebalance
 * ended in lines the member had yet to read (each read first). */
#define COMMIT_TRIES 4

int
tmq_gc_commit(struct tmq_gconsumer *gc, struct tmq_error *e)
{
	int rc = 0, tries;

	group_enter(gc);
	/* After a stop we may have lost partitions: read the log first, so
	 * that what we commit is still ours.  (on_assign and on_offer, which
	 * run while the member reads the log, commit with commit_now.) */
	if (tmq_gc_due(gc) && tmq_gc_poll(gc, e) < 0)
		rc = -1;
	for (tries = 1; rc == 0; tries++) {
		if ((rc = commit_now(gc, e)) <= 0 || tries == COMMIT_TRIES)
			break;
		rc = tmq_gc_poll(gc, e) < 0 ? -1 : 0;
	}
	group_leave(gc);
	return rc < 0 ? -1 : 0;
}

int
tmq_gc_poll(struct tmq_gconsumer *gc, struct tmq_error *e)
{
	int rc;

	if (!gc->is_member)
		return 0;
	group_enter(gc);
	rc = tmq_member_poll(&gc->mb, e);
	group_leave(gc);
	return rc;
}

int
tmq_gc_timeout(const struct tmq_gconsumer *gc)
{
	return gc->is_member ? tmq_member_timeout(&gc->mb) : -1;
}

int
tmq_gc_settled(const struct tmq_gconsumer *gc)
{
	return !gc->is_member || (gc->mb.settled && !gc->mb.g.state.rebalancing);
}

int
tmq_gc_finish(struct tmq_gconsumer *gc, struct tmq_error *e)
{
	int rc = 0;

	group_enter(gc);
	if (gc->autocommit && tmq_gc_commit(gc, e) < 0)
		rc = -1;
	if (gc->is_member && tmq_member_leave(&gc->mb, rc < 0 ? NULL : e) < 0)
		rc = -1;
	group_leave(gc);
	return rc;
}

void
tmq_gc_close(struct tmq_gconsumer *gc)
{
	reserve_drop(gc);
	if (gc->is_member)
		tmq_member_close(&gc->mb);
	if (gc->g.name != NULL)
		tmq_group_close(&gc->g);
	if (gc->lockfd >= 0)
		close(gc->lockfd);
	free(gc->delivered);
	free(gc->sent);
	free(gc->marks);
	free(gc->reported);
	memset(gc, 0, sizeof *gc);
	gc->lockfd = -1;
}
