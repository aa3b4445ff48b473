/* group.c: a group's log, read and replayed into its state (see group.h;
 * the rules are groupstate.c's), and written to. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/dirlist.h"
#include "group/group.h"
#include "util/notice.h"
#include "group/groupsnapfile.h"
#include "group/grouptopic.h"
#include "codec/message.h"
#include "codec/names.h"
#include "store/partfile.h"
#include "store/partscan.h"
#include "util/stop.h"
#include "codec/timestamp.h"

#define COMMIT_CHUNK TMQ_COMMIT_CHUNK

void
tmq_group_close(struct tmq_group *g)
{
	if (g->app_open)
		tmq_appender_close(&g->app);
	tmq_lr_close(&g->lr);
	tmq_codec_free(&g->codec);
	tmq_topic_close(&g->log);
	tmq_gstate_free(&g->state);
	tmq_gparser_free(&g->parser);
	free(g->topic);
	free(g->name);
	memset(g, 0, sizeof *g);
	g->log.dirfd = -1;
}

int
tmq_group_open(int rootfd, const char *name, const char *topic_hint,
    struct tmq_group *g, struct tmq_error *e)
{
	char gt[TMQ_GROUP_LOG_MAX];
	unsigned i, nparts = TMQ_MAX_PARTITIONS;

	memset(g, 0, sizeof *g);
	g->log.dirfd = -1;
	if (tmq_group_name_check(name, e) < 0)
		return -1;
	if (tmq_topic_open(rootfd, tmq_group_log_name(name, gt, sizeof gt),
	    &g->log, e) < 0)
		return -1;
	/* The log must be what the protocol says: u32 keys, the seven types
	 * in order; anything else is not a group we can take part in. */
	if (g->log.key_width != 4 || g->log.ntypes != TMQ_G_NKINDS) {
		tmq_topic_close(&g->log);
		return tmq_fail(e, "%s: not a consumer group log", gt);
	}
	for (i = 0; i < TMQ_G_NKINDS; i++)
		if (g->log.types[i] == NULL ||
		    strcmp(g->log.types[i], tmq_gkind_names[i]) != 0) {
			tmq_topic_close(&g->log);
			return tmq_fail(e, "%s: not a consumer group log", gt);
		}
	/* A group consumes one topic: naming another is a mistake that would
	 * read one topic from another's offsets. */
	if (topic_hint != NULL && g->log.group_topic != NULL &&
	    strcmp(topic_hint, g->log.group_topic) != 0) {
		tmq_fail(e, "group %s consumes topic %s, not %s", name,
		    g->log.group_topic, topic_hint);
		tmq_topic_close(&g->log);
		return -1;
	}
	g->name = strdup(name);
	if (topic_hint != NULL)
		g->topic = strdup(topic_hint);
	else if (g->log.group_topic != NULL)
		g->topic = strdup(g->log.group_topic);
	else {
		/* A group the TwainMQ library made: its topic as a tmq tool
		 * that wrote to it was told it, if one was; a kept name that
		 * is not a topic's is not taken. */
		char kept[TMQ_NAME_MAX + 2];
		struct tmq_error e2;

		if (tmq_group_topic_recall(rootfd, g->log.dirfd, kept,
		    &e2) == 1)
			g->topic = strdup(kept);
	}
	g->topic_told = topic_hint != NULL && g->log.group_topic == NULL;
	if (g->topic != NULL) {
		struct tmq_topic t;
		struct tmq_error e2;

		if (tmq_topic_open(rootfd, g->topic, &t, &e2) == 0) {
			nparts = t.partitions;
			g->nparts_known = 1;
			tmq_topic_close(&t);
		}
	}
	tmq_gstate_init(&g->state, nparts);
	if (g->name == NULL || tmq_codec_init(&g->codec, e) < 0 ||
	    tmq_gparser_init(&g->parser, nparts, e) < 0 ||
	    tmq_lr_open(&g->lr, &g->log, 0, 4, e) < 0) {
		tmq_group_close(g);
		return tmq_fail(e, "out of memory");
	}
	/* A line inflates to no more than a body of ours needs (the type
	 * header too), and its JSON is read by groupmsg.c alone. */
	g->codec.inf.max = tmq_gmsg_max_body(nparts) + 3;
	g->codec.typed_unchecked = 1;
	g->snap_every = tmq_gsnap_every();
	return 0;
}

/* The first commit, written into a new group's log before the log is in
 * place: no one sees the group without it (the TwainMQ library's members
 * cannot join a group whose log is empty: they take the highest key in it). */
struct first_commit {
	const char *name;
	const struct tmq_poff *po;
	unsigned n;
};

static int
write_first_commit(const struct tmq_topic *log, void *arg,
    struct tmq_error *e)
{
	const struct first_commit *fc = arg;
	struct tmq_group g;
	int rc;

	memset(&g, 0, sizeof g);
	g.name = (char *)fc->name;
	g.log = *log;
	if (tmq_codec_init(&g.codec, e) < 0)
		return -1;
	rc = tmq_group_commit(&g, 0, fc->po, fc->n, e);
	if (g.app_open)
		tmq_appender_close(&g.app);
	tmq_codec_free(&g.codec);
	return rc;
}

int
tmq_group_create(int rootfd, const char *name, const struct tmq_topic *t,
    int from_now, struct tmq_error *e)
{
	char gt[TMQ_GROUP_LOG_MAX];
	struct first_commit fc;
	struct tmq_error own;
	struct tmq_poff *po;
	unsigned p;
	int rc;

	if (e == NULL)
		e = &own;
	if (tmq_group_name_check(name, e) < 0)
		return -1;
	if (t->partitions > TMQ_GROUP_MAX_PARTITIONS)
		return tmq_fail(e, "group %s: topic %s has %u partitions, more "
		    "than a group can share (%d: a member's offer of them all "
		    "must fit in one %d-byte line)", name, t->name,
		    t->partitions, TMQ_GROUP_MAX_PARTITIONS, TMQ_LINE_MAX);
	po = calloc(t->partitions, sizeof *po);
	if (po == NULL)
		return tmq_fail(e, "out of memory");
	/* "now" is written as each partition's end at creation rather than
	 * the TwainMQ library's -1, which it cannot read back itself; the
	 * start as each partition's first offset still on disk, not the
	 * library's 0: on a pruned topic 0 is gone, and every member would
	 * start out of range (one listing of the directory for them all). */
	for (p = 0; p < t->partitions; p++) {
		uint64_t end = 0;

		po[p].partition = p;
		if (from_now && tmq_partition_end(t, p, &end, e) < 0) {
			free(po);
			return tmq_fail_prefix(e, "%s", t->name);
		}
		po[p].offset = (int64_t)end;
	}
	if (!from_now) {
		struct tmq_pfile *pf;
		size_t n, i;

		if (tmq_pfiles_list(t->dirfd, -1, &pf, &n, e) < 0) {
			free(po);
			return tmq_fail_prefix(e, "%s", t->name);
		}
		/* Sorted by partition, then FIRST: the first of each. */
		for (i = 0; i < n; i++)
			if (pf[i].partition < t->partitions &&
			    (i == 0 || pf[i - 1].partition != pf[i].partition))
				po[pf[i].partition].offset =
				    (int64_t)pf[i].first;
		free(pf);
	}
	tmq_group_log_name(name, gt, sizeof gt);
	fc.name = name;
	fc.po = po;
	fc.n = t->partitions;
	rc = tmq_topic_create_filled(rootfd, gt, 4, 1,
	    (char *const *)tmq_gkind_names, TMQ_G_NKINDS, t->name,
	    write_first_commit, &fc, e);
	free(po);
	if (rc < 0 && e->code == TMQ_ERR_EXISTS) {
		/* Lost a race to another member: theirs will do, once its
		 * definition is in place (another tmq's create is over when
		 * ours fails; the TwainMQ library's makes the directory first
		 * and writes the .twc last), so that the caller's
		 * tmq_group_open finds it. */
		char twc[TMQ_NAME_MAX + 24];
		int i;

		snprintf(twc, sizeof twc, "%s.twc", gt);
		for (i = 0; i < 500 && !tmq_stop; i++) {
			if (faccessat(rootfd, twc, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
				return 0;
			usleep(10000);
		}
	}
	return rc;
}

/* A line may name partitions the topic does not have (a bug elsewhere, or
 * a hostile co-user): the parser dropped them (groupmsg.h), so that no
 * line can make a reader index or allocate past the topic; the line is
 * named once. */
static void
said_absent(struct tmq_group *g, const struct tmq_gmsg *m)
{
	char msg[256];

	if (!m->has_absent || g->notice == NULL)
		return;
	if (!g->nparts_known)
		snprintf(msg, sizeof msg, "group %s: offset %llu: partition %u "
		    "is out of range (at most %u): ignored", g->name,
		    (unsigned long long)m->offset, (unsigned)m->absent,
		    TMQ_MAX_PARTITIONS);
	else
		snprintf(msg, sizeof msg, "group %s: offset %llu: partition %u "
		    "does not exist (topic has %u): ignored", g->name,
		    (unsigned long long)m->offset, (unsigned)m->absent,
		    g->state.nparts);
	if (!tmq_notice_quiet())
		g->notice(g->notice_arg, msg);
}

/* The line at offset does not decode: the state goes on past it. */
static int
skipped(struct tmq_group *g, uint64_t offset)
{
	tmq_gstate_skip(&g->state, offset);
	return 2;
}

int
tmq_group_next(struct tmq_group *g, struct tmq_gmsg *m, struct tmq_error *e)
{
	struct tmq_line l;
	struct tmq_msg *msg;
	int rc, kind;

	msg = malloc(sizeof *msg);
	if (msg == NULL)
		return tmq_fail(e, "out of memory");
	rc = tmq_lr_next(&g->lr, &l, e);
	if (rc <= 0) {
		free(msg);
		/* Caught up, and far enough past the last snapshot (or the one
		 * there was refused): a new one saves the next reader those
		 * lines (best effort). */
		if (rc == 0 && g->snap_every != 0 && !g->snap_off &&
		    (g->snap_refused ||
		    g->state.read_to - g->snap_at >= g->snap_every)) {
			struct tmq_error ignored;

			/* Whatever happens, not again at once. */
			g->snap_at = g->state.read_to;
			g->snap_refused = 0;
			tmq_gsnap_save(g->log.dirfd, &g->lr, &g->state,
			    &ignored);
		}
		return rc;
	}
	if (l.problem != NULL) {
		tmq_fail(e, "group %s: offset %llu: %s", g->name,
		    (unsigned long long)l.offset, l.problem);
		free(msg);
		return skipped(g, l.offset);
	}
	/* (A line that does not decode leaves msg unset: its error says.) */
	rc = tmq_line_decode(&g->codec, 4, g->log.ntypes, l.p, l.n, msg, e);
	if (rc < 0 || msg->payload.type != TMQ_TYPED) {
		if (rc == 0)
			tmq_fail(e, "not a group message");
		tmq_fail_prefix(e, "group %s: offset %llu", g->name,
		    (unsigned long long)l.offset);
		free(msg);
		return skipped(g, l.offset);
	}
	kind = (int)msg->payload.type_index;
	if (tmq_gmsg_parse(&g->parser, (enum tmq_gkind)kind,
	    (const char *)msg->payload.data, msg->payload.len, m, e) < 0) {
		tmq_fail_prefix(e, "group %s: offset %llu", g->name,
		    (unsigned long long)l.offset);
		free(msg);
		return skipped(g, l.offset);
	}
	m->member = (uint32_t)tmq_key_to_u64(4, msg->key);
	m->ts = msg->ts;
	m->offset = l.offset;
	free(msg);
	said_absent(g, m);
	if (tmq_gstate_apply(&g->state, m, e) < 0) {
		tmq_gmsg_clear(m);
		return -1;
	}
	if (m->kind == TMQ_G_BEGINREBAL) {
		double now = tmq_now();

		/* (A time ahead of ours, or no number, is not taken.) */
		g->rebal_from = m->ts <= now ? m->ts : now;
		g->rebal_from_at = m->offset + 1;
	}
	return 1;
}

double
tmq_group_rebal_end(struct tmq_group *g, double window)
{
	const struct tmq_gstate *s = &g->state;
	double bound;

	if (!s->rebalancing)
		return s->rebal_end;
	if (g->rebal_from_at != s->rebal_offset + 1) {
		g->rebal_from = tmq_now();	/* from a snapshot */
		g->rebal_from_at = s->rebal_offset + 1;
	}
	bound = g->rebal_from + (window > TMQ_REBAL_WINDOW ? window :
	    TMQ_REBAL_WINDOW);
	return s->rebal_end <= bound ? s->rebal_end : bound;
}

int
tmq_group_load(struct tmq_group *g, struct tmq_error *e)
{
	char msg[sizeof e->msg + 128];
	int rc;

	rc = tmq_gsnap_load(g->log.dirfd, &g->lr, &g->state, e);
	switch (rc) {
	case -1:
		return tmq_fail_prefix(e, "group %s", g->name);
	case 1:
		g->snap_at = g->state.read_to;
		break;
	case 2:
		/* Sealed, so no accident, yet no log of ours leaves it, or
		 * not this user's alone: said (once: a reader loads only at
		 * its start), and replaced by this reader once it has read
		 * the log. */
		g->snap_refused = 1;
		if (g->notice != NULL && !tmq_notice_quiet()) {
			char path[64];

			tmq_gsnap_path(path, sizeof path);
			snprintf(msg, sizeof msg, "group %s: %s/%s refused (%s): "
			    "the log is read in full", g->name, g->log.name,
			    path, e->msg);
			g->notice(g->notice_arg, msg);
		}
		break;
	}
	return rc;
}

int
tmq_group_replay(struct tmq_group *g, struct tmq_error *e)
{
	struct tmq_gmsg m;
	int rc;

	if (g->snap_every != 0 && !g->snap_off && g->state.read_to == 0 &&
	    tmq_group_load(g, e) < 0)
		return -1;
	while ((rc = tmq_group_next(g, &m, e)) != 0) {
		if (rc < 0)
			return -1;
		if (rc == 1)
			tmq_gmsg_clear(&m);
		else if (g->notice != NULL && !tmq_notice_quiet())
			g->notice(g->notice_arg, e->msg);
	}
	return 0;
}

int
tmq_group_write(struct tmq_group *g, uint32_t member, const struct tmq_gmsg *m,
    struct tmq_error *e)
{
	unsigned char key[4];
	struct tmq_payload pl;
	char line[TMQ_LINE_MAX];
	char *body;
	long n;
	int rc;

	if (!g->app_open) {
		if (tmq_appender_open(&g->app, &g->log, 0, e) < 0)
			return -1;
		g->app_open = 1;
		/* (Once a process: a topic told and found in the root.) */
		if (g->topic_told && g->nparts_known)
			tmq_group_topic_keep(g->log.dirfd, g->topic);
	}
	body = tmq_gmsg_body(m);
	if (body == NULL)
		return tmq_fail(e, "out of memory");
	tmq_key_from_u64(4, member, key);
	pl.type = TMQ_TYPED;
	pl.type_index = (unsigned)m->kind;
	pl.data = (const unsigned char *)body;
	pl.len = strlen(body);
	n = tmq_line_encode(&g->codec, 4, key, tmq_now(), &pl, line,
	    sizeof line, e);
	free(body);
	if (n < 0)
		return tmq_fail_prefix(e, "group %s", g->name);
	rc = tmq_appender_add(&g->app, 0, line, (size_t)n, e);
	if (rc == 0)
		rc = tmq_appender_flush(&g->app, e);
	return rc;
}

int
tmq_group_commit(struct tmq_group *g, uint32_t member, const struct tmq_poff *po,
    unsigned n, struct tmq_error *e)
{
	struct tmq_gmsg m;
	unsigned i;

	/* A few hundred pairs a message keep each line under the limit. */
	for (i = 0; i < n || i == 0; i += COMMIT_CHUNK) {
		memset(&m, 0, sizeof m);
		m.kind = TMQ_G_COMMIT;
		m.commits = (struct tmq_poff *)po + i;
		m.ncommits = n - i < COMMIT_CHUNK ? n - i : COMMIT_CHUNK;
		if (tmq_group_write(g, member, &m, e) < 0)
			return -1;
		if (n == 0)
			break;
	}
	return 0;
}

int
tmq_group_writable(const struct tmq_group *g, struct tmq_error *e)
{
	struct tmq_pfile *files;
	size_t n;
	int rc = 0;

	if (tmq_pfiles_list(g->log.dirfd, 0, &files, &n, e) < 0)
		return tmq_fail_prefix(e, "%s", g->log.name);
	if (n > 0 && faccessat(g->log.dirfd, files[n - 1].name, W_OK,
	    AT_EACCESS) < 0)
		rc = tmq_fail_errno(e, "cannot write %s/%s", g->log.name,
		    files[n - 1].name);
	else if ((n == 0 || files[n - 1].day < tmq_utc_day(tmq_now())) &&
	    faccessat(g->log.dirfd, ".", W_OK | X_OK, AT_EACCESS) < 0)
		rc = tmq_fail_errno(e, "cannot write %s/", g->log.name);
	free(files);
	return rc;
}

int
tmq_group_settle(struct tmq_group *g, struct tmq_error *e)
{
	struct tmq_live_where w;

	tmq_group_where(g, &w);
	if (!tmq_live_may_end(&w, &g->state, 0, 0, tmq_now(),
	    tmq_group_rebal_end(g, 0)))
		return 0;
	g->snap_off = 1;	/* no longer the log's state: not for a snapshot */
	return tmq_gstate_end_rebalance(&g->state, g->state.read_to, e);
}

void
tmq_group_where(const struct tmq_group *g, struct tmq_live_where *w)
{
	w->logdirfd = g->log.dirfd;
	w->group = g->name;
	w->logname = g->log.name;
	w->notice = g->notice;
	w->notice_arg = g->notice_arg;
	w->watch = g->watch;
}
