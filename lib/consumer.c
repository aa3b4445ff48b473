/* consumer.c: the read loop behind tmq-get (see consumer.h).
 *
 * Waiting uses inotify on the topic directories: a producer's write is an
 * IN_MODIFY, a new day file an IN_CREATE, so a follower wakes as soon as a
 * line lands.  inotify sees only this machine's writers; on a network or
 * FUSE filesystem (or with TMQ_FOLLOW=poll) we poll instead. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "consumer.h"
#include "fstype.h"
#include "partfile.h"

#define POLL_INTERVAL_MS 50

int
tmq_consumer_init(struct tmq_consumer *c, struct tmq_error *e)
{
	memset(c, 0, sizeof *c);
	c->ifd = -1;
	return tmq_dbatch_init(&c->batch, e);
}

void
tmq_consumer_clear_sources(struct tmq_consumer *c)
{
	size_t i;

	tmq_dbatch_reset(&c->batch);
	for (i = 0; i < c->nsrc; i++)
		if (c->src[i].open)
			tmq_lr_close(&c->src[i].lr);
	free(c->src);
	c->src = NULL;
	c->nsrc = c->next = 0;
}

void
tmq_consumer_free(struct tmq_consumer *c)
{
	size_t i;

	tmq_consumer_clear_sources(c);
	for (i = 0; i < c->ntopics; i++)
		tmq_topic_close(&c->topics[i]);
	free(c->topics);
	tmq_dbatch_free(&c->batch);
	if (c->ifd >= 0)
		close(c->ifd);
	memset(c, 0, sizeof *c);
	c->ifd = -1;
}

int
tmq_consumer_add_topic(struct tmq_consumer *c, int rootfd, const char *name,
    size_t *index, struct tmq_error *e)
{
	struct tmq_topic *nt;
	const char *env = getenv("TMQ_FOLLOW");
	size_t i;

	for (i = 0; i < c->ntopics; i++)
		if (strcmp(c->topics[i].name, name) == 0) {
			*index = i;
			return 0;
		}
	nt = realloc(c->topics, (c->ntopics + 1) * sizeof *nt);
	if (nt == NULL)
		return tmq_fail(e, "out of memory");
	c->topics = nt;
	if (tmq_topic_open(rootfd, name, &c->topics[c->ntopics], e) < 0)
		return -1;
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
	struct tmq_source *ns, *s;

	if (partition >= t->partitions)
		return tmq_fail(e, "%s: partition %u does not exist (topic has "
		    "%u)", t->name, partition, t->partitions);
	ns = realloc(c->src, (c->nsrc + 1) * sizeof *ns);
	if (ns == NULL)
		return tmq_fail(e, "out of memory");
	c->src = ns;
	s = &c->src[c->nsrc];
	memset(s, 0, sizeof *s);
	s->topic = topic;
	s->partition = partition;
	if (tmq_lr_open(&s->lr, t->dirfd, partition, t->key_width, e) < 0)
		return tmq_fail_prefix(e, "%s", t->name);
	s->open = 1;
	c->nsrc++;
	return 0;
}

int
tmq_consumer_add(struct tmq_consumer *c, int rootfd, const char *name,
    const unsigned *parts, unsigned nparts, struct tmq_error *e)
{
	size_t ti, k;
	unsigned i, p;

	if (tmq_consumer_add_topic(c, rootfd, name, &ti, e) < 0)
		return -1;
	if (parts == NULL)
		nparts = c->topics[ti].partitions;
	for (i = 0; i < nparts; i++) {
		p = parts ? parts[i] : i;
		/* A partition named twice (-P 0,0, or the topic twice) is
		 * read once: a second source would print each message twice. */
		for (k = 0; k < c->nsrc; k++)
			if (c->src[k].topic == ti && c->src[k].partition == p)
				break;
		if (k < c->nsrc)
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

	if (c->notice == NULL)
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
	c->failures++;
	notice(c, "%s: %s", c->topics[s->topic].name, e->msg);
}

int
tmq_consumer_seek_source(struct tmq_consumer *c, size_t i, uint64_t offset,
    struct tmq_error *e)
{
	struct tmq_source *s = &c->src[i];
	uint64_t gap;

	tmq_dbatch_reset(&c->batch);
	if (tmq_lr_seek(&s->lr, offset, &gap, e) < 0)
		return -1;
	if (gap != offset)
		notice(c, "%s: partition %u: offset %llu is gone, starting at "
		    "%llu", c->topics[s->topic].name, s->partition,
		    (unsigned long long)offset, (unsigned long long)gap);
	return 0;
}

int
tmq_consumer_seek(struct tmq_consumer *c, const struct tmq_position *p,
    struct tmq_error *e)
{
	size_t i;

	tmq_dbatch_reset(&c->batch);
	for (i = 0; i < c->nsrc; i++) {
		struct tmq_source *s = &c->src[i];
		const struct tmq_topic *t = &c->topics[s->topic];
		uint64_t end;
		int rc = 0;

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
			rc = tmq_partition_end(t->dirfd, s->partition, &end, e);
			if (rc == 0)
				rc = tmq_lr_seek(&s->lr, end > p->n ? end - p->n :
				    0, NULL, e);
			break;
		case TMQ_POS_TIME:
			rc = tmq_lr_seek_time(&s->lr, p->t, e);
			break;
		}
		if (rc < 0)
			tmq_consumer_fail_source(c, i, e);
	}
	return 0;
}

/* Read ahead: up to BATCH lines, taking one from each source in turn as
 * tmq_consumer_next would, then decode them all at once. */
#define BATCH 512

static int
fill(struct tmq_consumer *c, struct tmq_error *e)
{
	size_t k, n = c->nsrc, last = c->next + n - 1;
	int progress;

	tmq_dbatch_reset(&c->batch);
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

			/* A source at its end is not asked again in this fill:
			 * each time costs a look at the directory. */
			if (s->stopped || s->dry || s->failed)
				continue;
			rc = tmq_lr_next(&s->lr, &l, e);
			if (rc < 0) {
				tmq_consumer_fail_source(c, i, e);
				continue;
			}
			if (rc == 0) {
				s->dry = 1;
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
		if (it->problem != NULL) {
			tmq_fail(e, "%s: partition %u offset %llu: %s", t->name,
			    s->partition, (unsigned long long)it->offset,
			    it->problem);
			return 2;
		}
		if (!it->ok) {
			tmq_fail(e, "%s: partition %u offset %llu: %s", t->name,
			    s->partition, (unsigned long long)it->offset,
			    it->err);
			return 2;
		}
		if (c->have_until && m->ts > c->until) {
			s->stopped = 1;
			continue;
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

static int
watch_all(struct tmq_consumer *c, struct tmq_error *e)
{
	char path[64];
	size_t i;

	c->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (c->ifd < 0) {
		c->poll_only = 1;
		return 0;
	}
	for (i = 0; i < c->ntopics; i++) {
		snprintf(path, sizeof path, "/proc/self/fd/%d",
		    c->topics[i].dirfd);
		if (inotify_add_watch(c->ifd, path, IN_MODIFY | IN_CREATE |
		    IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF) < 0) {
			c->poll_only = 1;
			return 0;
		}
	}
	(void)e;
	return 0;
}

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
	struct pollfd p;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	int rc;

	if (c->ifd < 0 && !c->poll_only && watch_all(c, e) < 0)
		return -1;
	if (c->poll_only) {
		if (timeout_ms < 0 || timeout_ms > POLL_INTERVAL_MS)
			timeout_ms = POLL_INTERVAL_MS;
		poll(NULL, 0, timeout_ms);
		return check_removed(c, e);
	}
	p.fd = c->ifd;
	p.events = POLLIN;
	rc = poll(&p, 1, timeout_ms);
	if (rc < 0 && errno != EINTR)
		return tmq_fail_errno(e, "poll");
	while ((n = read(c->ifd, buf, sizeof buf)) > 0) {
		char *q = buf;

		while (q < buf + n) {
			struct inotify_event *ev = (struct inotify_event *)q;

			if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF))
				return tmq_fail(e, "a topic directory was "
				    "removed or moved");
			q += sizeof *ev + ev->len;
		}
	}
	return check_removed(c, e);
}
