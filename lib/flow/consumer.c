/* consumer.c: the read loop behind tmq-get (see consumer.h).
 *
 * Waiting uses inotify on the topic directories: a producer's write is an
 * IN_MODIFY, a new day file an IN_CREATE, so a follower wakes as soon as a
 * line lands.  inotify sees only this machine's writers; on a network or
 * FUSE filesystem (or with TMQ_FOLLOW=poll) we poll instead. */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flow/consumer.h"
#include "util/notice.h"
#include "store/fstype.h"
#include "util/grow.h"
#include "util/monoclock.h"
#include "store/partfile.h"
#include "store/root.h"
#include "util/stop.h"

#define POLL_INTERVAL_MS 50

int
tmq_consumer_init(struct tmq_consumer *c, struct tmq_error *e)
{
	memset(c, 0, sizeof *c);
	c->ifd = -1;
	c->hup_fd = -1;
	return tmq_dbatch_init(&c->batch, e);
}

void
tmq_consumer_clear_sources(struct tmq_consumer *c)
{
	size_t i;
	unsigned p;

	tmq_dbatch_reset(&c->batch);
	for (i = 0; i < c->nsrc; i++)
		if (c->src[i].open)
			tmq_lr_close(&c->src[i].lr);
	free(c->src);
	c->src = NULL;
	c->nsrc = c->next = c->srccap = 0;
	c->qhead = c->qtail = 0;
	for (i = 0; i < c->ntopics; i++)
		for (p = 0; p < c->topics[i].partitions; p++)
			c->ct[i]->src_of[p] = SIZE_MAX;
}

void
tmq_consumer_free(struct tmq_consumer *c)
{
	size_t i;

	tmq_consumer_clear_sources(c);
	for (i = 0; i < c->ntopics; i++) {
		tmq_topic_close(&c->topics[i]);
		tmq_dirlist_free(&c->ct[i]->dl);
		free(c->ct[i]->src_of);
		free(c->ct[i]);
	}
	free(c->topics);
	free(c->ct);
	free(c->quiet);
	free(c->blob);
	tmq_dbatch_free(&c->batch);
	if (c->ifd >= 0)
		close(c->ifd);
	memset(c, 0, sizeof *c);
	c->ifd = -1;
	c->hup_fd = -1;
}

static int
watch_dir(struct tmq_consumer *c, int dirfd)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/self/fd/%d", dirfd);
	return inotify_add_watch(c->ifd, path, IN_MODIFY | IN_CREATE |
	    IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF |
	    IN_MOVE_SELF);
}

static int
watch_all(struct tmq_consumer *c, struct tmq_error *e)
{
	size_t i;

	c->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (c->ifd < 0) {
		c->poll_only = 1;
		return 0;
	}
	for (i = 0; i < c->ntopics; i++) {
		c->ct[i]->wd = watch_dir(c, c->topics[i].dirfd);
		if (c->ct[i]->wd < 0) {
			c->poll_only = 1;
			return 0;
		}
	}
	(void)e;
	return 0;
}

/* Everything may have changed: list again, ask every source. */
static void
wake_all(struct tmq_consumer *c)
{
	size_t i;

	for (i = 0; i < c->ntopics; i++)
		c->ct[i]->dl.stale = 1;
	for (i = 0; i < c->nsrc; i++)
		c->src[i].idle = 0;
}

/* A source has nothing to read now: it is the first to give up its
 * descriptor when one is wanted.  Each is queued once at most (so the
 * queue holds no more than the sources); one that is read again before
 * its turn is passed over then. */
static void
queue_quiet(struct tmq_consumer *c, size_t i)
{
	if (c->src[i].queued)
		return;
	if (c->qtail == c->qcap && c->qhead > 0) {
		memmove(c->quiet, c->quiet + c->qhead, (c->qtail - c->qhead) *
		    sizeof *c->quiet);
		c->qtail -= c->qhead;
		c->qhead = 0;
	}
	if (tmq_grow(&c->quiet, &c->qcap, c->qtail + 1, sizeof *c->quiet) < 0)
		return;		/* (then another is spared instead) */
	c->quiet[c->qtail++] = i;
	c->src[i].queued = 1;
}

/* A descriptor is wanted and none is left: close the file of a source
 * that has nothing to read now (else of any other), to reopen when it is
 * read again.  Round the sources, so that each gives up its own in turn.
 * A call costs about the same whatever the count of sources: a
 * once-through read of 65,536 partitions asks here for each of them, and
 * a search through every source for a quiet one each time (none is, while
 * they are first positioned) made that read take minutes.  So the quiet
 * ones are queued as they become quiet, and the others taken in turn from
 * where the last search ended. */
static int
spare_fd(void *arg)
{
	struct tmq_consumer *c = arg;
	size_t k, i;

	while (c->qhead < c->qtail) {
		i = c->quiet[c->qhead++];
		c->src[i].queued = 0;
		if ((c->src[i].idle || c->src[i].dry) &&
		    tmq_lr_park(&c->src[i].lr) == 0)
			return 0;
	}
	c->qhead = c->qtail = 0;
	for (k = 0; k < c->nsrc; k++) {
		i = (c->spare_next + k) % c->nsrc;
		if (tmq_lr_park(&c->src[i].lr) == 0) {
			c->spare_next = (i + 1) % c->nsrc;
			return 0;
		}
	}
	return -1;
}

int
tmq_consumer_spare_fd(struct tmq_consumer *c)
{
	return spare_fd(c);
}

int
tmq_consumer_add_topic(struct tmq_consumer *c, int rootfd, const char *name,
    size_t *index, struct tmq_error *e)
{
	struct tmq_topic *nt, *t;
	struct tmq_ctopic **nct, *ct;
	const char *env = getenv("TMQ_FOLLOW");
	size_t i;
	unsigned p;

	for (i = 0; i < c->ntopics; i++)
		if (strcmp(c->topics[i].name, name) == 0) {
			*index = i;
			return 0;
		}
	/* Refused like TMQ_APPEND: a misspelt "poll" must not leave a
	 * reader waiting on inotify for writers it cannot see. */
	if (env != NULL && *env != '\0' && strcmp(env, "auto") != 0 &&
	    strcmp(env, "poll") != 0)
		return tmq_fail(e, "TMQ_FOLLOW='%s': want auto or poll", env);
	nt = realloc(c->topics, (c->ntopics + 1) * sizeof *nt);
	if (nt == NULL)
		return tmq_fail(e, "out of memory");
	c->topics = nt;
	nct = realloc(c->ct, (c->ntopics + 1) * sizeof *nct);
	if (nct == NULL)
		return tmq_fail(e, "out of memory");
	c->ct = nct;
	if (tmq_topic_open(rootfd, name, &c->topics[c->ntopics], e) < 0)
		return -1;
	t = &c->topics[c->ntopics];
	ct = calloc(1, sizeof *ct);
	if (ct == NULL || (ct->src_of = malloc(t->partitions *
	    sizeof *ct->src_of)) == NULL) {
		free(ct);
		tmq_topic_close(t);
		return tmq_fail(e, "out of memory");
	}
	for (p = 0; p < t->partitions; p++)
		ct->src_of[p] = SIZE_MAX;
	{
		struct stat st;

		ct->ino = fstat(t->dirfd, &st) == 0 ? st.st_ino : 0;
	}
	tmq_dirlist_init(&ct->dl, t->dirfd);
	ct->dl.spare_fd = spare_fd;
	ct->dl.spare_arg = c;
	ct->wd = -1;
	c->ct[c->ntopics] = ct;
	/* A topic added once the others are watched is watched too, or
	 * its readers, idle at their end, would never be woken. */
	if (c->watching && (ct->wd = watch_dir(c, t->dirfd)) < 0) {
		c->watching = 0;
		c->poll_only = 1;
		wake_all(c);
	}
	if (tmq_fs_is_remote(c->topics[c->ntopics].dirfd) ||
	    (env != NULL && strcmp(env, "poll") == 0))
		c->poll_only = 1;
	*index = c->ntopics++;
	return 0;
}

int
tmq_consumer_add_source(struct tmq_consumer *c, size_t topic,
    unsigned partition, struct tmq_error *e)
{
	const struct tmq_topic *t = &c->topics[topic];
	struct tmq_source *s;

	if (partition >= t->partitions)
		return tmq_fail(e, "%s: partition %u does not exist (topic has "
		    "%u)", t->name, partition, t->partitions);
	/* Grown by doubling: one more each time copied the array for every
	 * partition added (sanitizer builds' realloc always copies). */
	if (tmq_grow(&c->src, &c->srccap, c->nsrc + 1, sizeof *c->src) < 0)
		return tmq_fail(e, "out of memory");
	s = &c->src[c->nsrc];
	memset(s, 0, sizeof *s);
	s->topic = topic;
	s->partition = partition;
	if (tmq_lr_open_shared(&s->lr, &c->ct[topic]->dl, t, partition,
	    t->key_width, e) < 0)
		return tmq_fail_prefix(e, "%s", t->name);
	s->lr.wait_nul = c->retry_outages;
	s->open = 1;
	c->ct[topic]->src_of[partition] = c->nsrc;
	c->nsrc++;
	return 0;
}

int
tmq_consumer_add(struct tmq_consumer *c, int rootfd, const char *name,
    const unsigned *parts, unsigned nparts, struct tmq_error *e)
{
	size_t ti;
	unsigned i, p;

	if (tmq_consumer_add_topic(c, rootfd, name, &ti, e) < 0)
		return -1;
	if (parts == NULL)
		nparts = c->topics[ti].partitions;
	for (i = 0; i < nparts; i++) {
		p = parts ? parts[i] : i;
		/* A partition named twice (-P 0,0, or the topic twice) is
		 * read once: a second source would print each message twice.
		 * (Looked up by partition: a search through the sources for
		 * each made adding P partitions cost P squared.) */
		if (p < c->topics[ti].partitions &&
		    c->ct[ti]->src_of[p] != SIZE_MAX)
			continue;
		if (tmq_consumer_add_source(c, ti, p, e) < 0)
			return -1;
	}
	return 0;
}

static void
notice(struct tmq_consumer *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
notice(struct tmq_consumer *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (c->notice == NULL || tmq_notice_quiet())
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	c->notice(c->notice_arg, buf);
}

void
tmq_consumer_fail_source(struct tmq_consumer *c, size_t i, const struct tmq_error *e)
{
	struct tmq_source *s = &c->src[i];

	s->failed = 1;
	/* Told to stop (SIGINT, SIGTERM): the long reads give up on purpose
	 * ("interrupted"), and nothing more is read anyway; the partition is
	 * not a failure, and its offsets are not committed. */
	if (tmq_stop)
		return;
	c->failures++;
	/* A failure, not a notice: said under -q too. */
	if (c->notice != NULL) {
		char buf[600];

		snprintf(buf, sizeof buf, "%s: %s", c->topics[s->topic].name,
		    e->msg);
		c->notice(c->notice_arg, buf);
	}
}

int
tmq_consumer_seek_source(struct tmq_consumer *c, size_t i, uint64_t offset,
    struct tmq_error *e)
{
	struct tmq_source *s = &c->src[i];
	uint64_t gap;

	tmq_dbatch_reset(&c->batch);
	s->idle = 0;
	if (tmq_lr_seek(&s->lr, offset, &gap, e) < 0)
		return -1;
	if (gap != offset)
		notice(c, "%s: partition %u: offset %llu is gone, starting at "
		    "%llu", c->topics[s->topic].name, s->partition,
		    (unsigned long long)offset, (unsigned long long)gap);
	return 0;
}

/* --from OFFSET past every partition's end is most often a time written
 * without its '@' (tmq-get --from 1764400000): say so, with the ends (the
 * first few), and read on as asked. */
static void
past_ends(struct tmq_consumer *c, uint64_t offset)
{
	char ends[200];
	size_t i, len = 0;
	uint64_t end;

	ends[0] = '\0';
	for (i = 0; i < c->nsrc; i++) {
		if (c->src[i].failed || tmq_lr_end(&c->src[i].lr, &end, NULL) < 0 ||
		    end >= offset)
			return;
		if (i < 8)
			len += (size_t)snprintf(ends + len, sizeof ends - len,
			    "%s%u=%llu", i ? " " : "", c->src[i].partition,
			    (unsigned long long)end);
		else if (i == 8)
			len += (size_t)snprintf(ends + len, sizeof ends - len,
			    " ...");
	}
	if (c->nsrc > 0)
		notice(c, "--from %llu is past every partition's end (%s); a "
		    "time is written @%llu", (unsigned long long)offset, ends,
		    (unsigned long long)offset);
}

int
tmq_consumer_seek(struct tmq_consumer *c, const struct tmq_position *p,
    struct tmq_error *e)
{
	size_t i;

	tmq_dbatch_reset(&c->batch);
	if (p->kind == TMQ_POS_OFFSET)
		past_ends(c, p->n);
	for (i = 0; i < c->nsrc; i++) {
		struct tmq_source *s = &c->src[i];
		uint64_t end;
		int rc = 0;

		s->idle = 0;
		switch (p->kind) {
		case TMQ_POS_START:
			rc = tmq_lr_seek(&s->lr, 0, NULL, e);
			break;
		case TMQ_POS_NOW:
			rc = tmq_lr_seek_end(&s->lr, e);
			break;
		case TMQ_POS_OFFSET:
			rc = tmq_consumer_seek_source(c, i, p->n, e);
			break;
		case TMQ_POS_TAIL:
			rc = tmq_lr_end(&s->lr, &end, e);
			if (rc == 0)
				rc = tmq_lr_seek(&s->lr, end > p->n ? end - p->n :
				    0, NULL, e);
			break;
		case TMQ_POS_TIME:
			rc = tmq_lr_seek_time(&s->lr, p->t, e);
			break;
		case TMQ_POS_PAIRS:
			/* A named partition goes where --from OFFSET would
			 * take it, through the same seek; the others start
			 * as without --from. */
			if (tmq_position_offset_of(p, s->partition, &end))
				rc = tmq_consumer_seek_source(c, i, end, e);
			else
				rc = tmq_lr_seek(&s->lr, 0, NULL, e);
			break;
		}
		if (rc < 0)
			tmq_consumer_fail_source(c, i, e);
	}
	return 0;
}

/* Source i failed with e: when its network filesystem's server is away
 * and we run on, let go of its file (a descriptor that outlived the
 * connection can stay bad: EBADFD), try again later, and say so for the
 * first such source of an outage; 1 then, 0 for a failure. */
static int
away(struct tmq_consumer *c, size_t i, const struct tmq_error *e)
{
	struct tmq_source *s = &c->src[i];
	const struct tmq_topic *t = &c->topics[s->topic];

	if (!c->retry_outages || tmq_stop || e->code != TMQ_ERR_SYS ||
	    !tmq_fs_outage(t->dirfd, e->sys))
		return 0;
	(void)tmq_lr_park(&s->lr);
	c->ct[s->topic]->dl.stale = 1;
	/* Not the server but our mount gone: every call on a descriptor of
	 * it fails so for ever, whatever comes back at its path. */
	if (e->sys == ENOTCONN)
		c->ct[s->topic]->dead = 1;
	if (!s->away) {
		s->away = 1;
		if (c->away++ == 0)
			notice(c, "%s: %s: its server is away: trying again, "
			    "every %d s at most", t->name, e->msg,
			    TMQ_OUTAGE_MAX_MS / 1000);
	}
	s->backoff_ms = tmq_outage_backoff(s->backoff_ms);
	s->retry_at = tmq_mono() + s->backoff_ms / 1000.0;
	return 1;
}

/* Topic k's directory descriptor lost its mount (ENOTCONN: a FUSE client
 * killed, whose mount may since have been made again at the same path):
 * open the directory again from the root's path and, when it is the same
 * one (its inode), put it in the old descriptor's place, so that the
 * listing and the sources, which hold that number, open their files from
 * the new mount.  Nothing when the path still leads to the dead mount. */
static void
reroot(struct tmq_consumer *c, size_t k)
{
	struct tmq_topic *t = &c->topics[k];
	struct tmq_ctopic *ct = c->ct[k];
	struct tmq_error e2;
	struct stat st;
	int rfd, fd;

	if (tmq_root_open_opt(c->root, 0, &rfd, &e2) < 0)
		return;
	fd = openat(rfd, t->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	close(rfd);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && ct->ino != 0 && st.st_ino == ct->ino &&
	    dup3(fd, t->dirfd, O_CLOEXEC) >= 0) {
		ct->dead = 0;
		ct->dl.stale = 1;
	}
	close(fd);
}

/* Source i read again after its server was away. */
static void
back(struct tmq_consumer *c, size_t i)
{
	struct tmq_source *s = &c->src[i];

	s->away = 0;
	s->backoff_ms = 0;
	if (--c->away == 0)
		notice(c, "%s: the server is back: reading on at partition %u "
		    "offset %llu", c->topics[s->topic].name, s->partition,
		    (unsigned long long)tmq_lr_offset(&s->lr));
}

/* Read ahead: up to BATCH lines, taking one from each source in turn as
 * tmq_consumer_next would, then decode them all at once. */
#define BATCH 512

static int
fill(struct tmq_consumer *c, struct tmq_error *e)
{
	size_t k, n = c->nsrc, last = c->next + n - 1;
	int progress, relisted = 0;

	tmq_dbatch_reset(&c->batch);
again:
	for (k = 0; k < n; k++)
		c->src[k].dry = 0;
	do {
		progress = 0;
		for (k = 0; k < n && c->batch.n < BATCH; k++) {
			size_t i = (c->next + k) % n;
			struct tmq_source *s = &c->src[i];
			const struct tmq_topic *t = &c->topics[s->topic];
			struct tmq_line l;
			int rc;

			/* A source at its end is not asked again in this fill;
			 * with inotify watching, not until a change names it. */
			if (s->stopped || s->dry || s->failed || s->idle)
				continue;
			if (s->away && tmq_mono() < s->retry_at) {
				s->dry = 1;
				continue;
			}
			if (s->away && c->ct[s->topic]->dead)
				reroot(c, s->topic);
			rc = tmq_lr_next(&s->lr, &l, e);
			if (s->lr.jumped) {
				/* Pruned before we got there: say it once,
				 * go on from the first offset left. */
				s->lr.jumped = 0;
				notice(c, "%s: partition %u: offsets %llu to %llu "
				    "were pruned before they were read: going on "
				    "at %llu (%llu offsets skipped)", t->name,
				    s->partition,
				    (unsigned long long)s->lr.jumped_from,
				    (unsigned long long)s->lr.jumped_to - 1,
				    (unsigned long long)s->lr.jumped_to,
				    (unsigned long long)(s->lr.jumped_to -
				    s->lr.jumped_from));
			}
			if (rc < 0) {
				if (away(c, i, e))
					s->dry = 1;
				else
					tmq_consumer_fail_source(c, i, e);
				continue;
			}
			if (s->away)
				back(c, i);
			if (rc == 0) {
				s->dry = 1;
				s->idle = c->watching;
				queue_quiet(c, i);
				continue;
			}
			if (tmq_dbatch_add(&c->batch, i, l.offset, t->key_width,
			    t->ntypes, l.p, l.n, l.problem) < 0)
				return tmq_fail(e, "out of memory");
			last = i;
			progress = 1;
		}
		c->next = (last + 1) % n;
	} while (progress && c->batch.n < BATCH);
	/* Without watches nothing tells us of new files: when every source
	 * is at its end, list the directories once more (one listing for
	 * all of a topic's partitions) and ask again. */
	if (c->batch.n == 0 && !c->watching && !relisted) {
		relisted = 1;
		for (k = 0; k < c->ntopics; k++)
			c->ct[k]->dl.stale = 1;
		goto again;
	}
	tmq_dbatch_decode(&c->batch);
	return 0;
}

int
tmq_consumer_next(struct tmq_consumer *c, struct tmq_msg *m, size_t *src,
    struct tmq_error *e)
{
	const struct tmq_ditem *it;

	for (;;) {
		struct tmq_source *s;
		const struct tmq_topic *t;

		it = tmq_dbatch_take(&c->batch, m);
		if (it == NULL) {
			if (c->nsrc == 0 || fill(c, e) < 0)
				return c->nsrc == 0 ? 0 : -1;
			it = tmq_dbatch_take(&c->batch, m);
			if (it == NULL)
				return 0;
		}
		s = &c->src[it->src];
		t = &c->topics[s->topic];
		if (s->stopped)
			continue;	/* read ahead past --until */
		m->partition = s->partition;
		*src = it->src;
		/* (err: the reader's problem, or why it did not decode) */
		if (!it->ok) {
			tmq_fail(e, "%s: partition %u offset %llu: %s", t->name,
			    s->partition, (unsigned long long)it->offset,
			    it->err);
			return 2;
		}
		if (c->have_until && m->ts > c->until &&
		    m->offset >= s->until_floor) {
			s->stopped = 1;
			continue;
		}
		if (!c->no_resolve && tmq_blob_resolve(t, &m->payload, &c->blob,
		    &c->blob_cap, e) < 0) {
			tmq_fail_prefix(e, "%s: partition %u offset %llu",
			    t->name, s->partition,
			    (unsigned long long)m->offset);
			return 2;
		}
		return 1;
	}
}

uint64_t
tmq_consumer_position(const struct tmq_consumer *c, size_t i)
{
	const struct tmq_ditem *it = tmq_dbatch_pending(&c->batch, i);

	return it != NULL ? it->offset : tmq_lr_offset(&c->src[i].lr);
}

int
tmq_consumer_until_ends(struct tmq_consumer *c, struct tmq_error *e)
{
	size_t i;

	for (i = 0; i < c->nsrc; i++) {
		struct tmq_source *s = &c->src[i];
		struct tmq_linereader lr;
		uint64_t end;

		if (s->failed)
			continue;
		/* The end through a reader of its own: s->lr keeps its place. */
		if (tmq_lr_open(&lr, &c->topics[s->topic], s->partition,
		    c->topics[s->topic].key_width, e) < 0)
			return -1;
		if (tmq_lr_end(&lr, &end, e) < 0) {
			tmq_lr_close(&lr);
			return -1;
		}
		tmq_lr_close(&lr);
		s->until_floor = end;
	}
	return 0;
}

int
tmq_consumer_done(const struct tmq_consumer *c)
{
	size_t i;

	if (!c->have_until)
		return 0;
	for (i = 0; i < c->nsrc; i++)
		if (!c->src[i].stopped && !c->src[i].failed)
			return 0;
	return 1;
}

int
tmq_consumer_all_failed(const struct tmq_consumer *c)
{
	size_t i;

	for (i = 0; i < c->nsrc; i++)
		if (!c->src[i].failed)
			return 0;
	return c->nsrc > 0;
}

/* An event on a topic directory: wake the partition it names; a file
 * that came or went makes the listing stale. */
static void
on_event(struct tmq_consumer *c, const struct inotify_event *ev)
{
	struct tmq_pfile pf;
	size_t i, s;

	if (ev->mask & IN_Q_OVERFLOW) {
		wake_all(c);
		return;
	}
	for (i = 0; i < c->ntopics && c->ct[i]->wd != ev->wd; i++)
		;
	if (i == c->ntopics || ev->len == 0 ||
	    tmq_pfile_parse(ev->name, &pf) < 0 ||
	    pf.partition >= c->topics[i].partitions)
		return;
	if (ev->mask & (IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE))
		c->ct[i]->dl.stale = 1;
	s = c->ct[i]->src_of[pf.partition];
	if (s < c->nsrc)
		c->src[s].idle = 0;
}

/* How long a follower woken by writes alone may go without looking
 * whether a topic directory was removed (tmq_consumer_wait). */
#define REMOVED_MS 1000

/* A removed directory that we hold open sends no IN_DELETE_SELF (our
 * descriptor keeps it alive) and polling sees no change either; its link
 * count drops to 0, though. */
static int
check_removed(const struct tmq_consumer *c, struct tmq_error *e)
{
	struct stat st;
	size_t i;

	for (i = 0; i < c->ntopics; i++)
		if (fstat(c->topics[i].dirfd, &st) == 0 && st.st_nlink == 0)
			return tmq_fail(e, "%s: the topic directory was removed",
			    c->topics[i].name);
	return 0;
}

int
tmq_consumer_wait(struct tmq_consumer *c, int timeout_ms, struct tmq_error *e)
{
	struct pollfd p[2];
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	int rc, gone = 0;
	long long now;
	nfds_t np = 0;

	if (c->ifd < 0 && !c->poll_only) {
		if (watch_all(c, e) < 0)
			return -1;
		if (!c->poll_only) {
			/* What came before the watches is looked for once. */
			c->watching = 1;
			wake_all(c);
			return 0;
		}
	}
	/* A reader of our output that goes away ends the wait at once, as
	 * tail -f's does (the caller looks at it next). */
	if (c->hup_fd >= 0) {
		p[np].fd = c->hup_fd;
		p[np].events = 0;
		p[np++].revents = 0;
	}
	if (c->poll_only) {
		if (timeout_ms < 0 || timeout_ms > POLL_INTERVAL_MS)
			timeout_ms = POLL_INTERVAL_MS;
		poll(p, np, timeout_ms);
		return check_removed(c, e);
	}
	p[np].fd = c->ifd;
	p[np].events = POLLIN;
	p[np++].revents = 0;
	rc = poll(p, np, timeout_ms);
	if (rc < 0 && errno != EINTR)
		return tmq_fail_errno(e, "poll");
	while ((n = read(c->ifd, buf, sizeof buf)) > 0) {
		char *q = buf;

		while (q < buf + n) {
			struct inotify_event *ev = (struct inotify_event *)q;

			if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF))
				return tmq_fail(e, "a topic directory was "
				    "removed or moved");
			/* Only an entry gone (or the queue overflowed)
			 * may come before the directory's own removal. */
			if (ev->mask & ~(IN_MODIFY | IN_CREATE | IN_MOVED_TO))
				gone = 1;
			on_event(c, ev);
			q += sizeof *ev + ev->len;
		}
		/* A read with room left for another event took them all
		 * (one system call fewer a record that comes alone). */
		if ((size_t)n < sizeof buf - (sizeof(struct inotify_event) +
		    NAME_MAX + 1))
			break;
	}
	/* A directory is removed only once empty: its entries' removals
	 * are events.  Writes and new files alone cannot remove it, so
	 * after them alone the look waits, for a second at most (one of
	 * several topics may have been empty already when removed). */
	now = tmq_mono_ms();
	if (rc > 0 && !gone && now - c->removed_ms < REMOVED_MS)
		return 0;
	c->removed_ms = now;
	return check_removed(c, e);
}
