/* group.c: a group's log and the state replayed from it (see group.h).
 *
 * The rules follow tmq-format(5).  One choice of ours: the state takes the
 * assignment at the first ENDREBAL read after the BEGINREBAL in force, from
 * the offers read before it, so every reader of the log, whoever wrote the
 * ENDREBAL, computes it from the same offers. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "group.h"
#include "groupsnap.h"
#include "grow.h"
#include "liveness.h"
#include "message.h"
#include "names.h"
#include "partfile.h"
#include "stop.h"
#include "timestamp.h"

#define COMMIT_CHUNK 256

void
tmq_group_state_free(struct tmq_group *g)
{
	unsigned i;

	for (i = 0; i < g->nmembers; i++)
		free(g->members[i].confirmed);
	free(g->members);
	tmq_offers_free(g->offers, g->noffers);
	tmq_offers_free(g->assigned, g->nassigned);
	free(g->committed);
	tmq_idx_clear(&g->member_ix);
	tmq_idx_clear(&g->offer_ix);
	tmq_idx_clear(&g->assigned_ix);
	g->members_cap = g->offers_cap = 0;
	g->read_to = 0;
	g->max_key = 0;
	g->members = NULL;
	g->nmembers = 0;
	g->rebalancing = 0;
	g->rebal_end = 0;
	g->rebal_offset = 0;
	g->offers = NULL;
	g->noffers = 0;
	g->have_assignment = 0;
	g->assigned = NULL;
	g->nassigned = 0;
	g->ended_offset = 0;
	g->committed = NULL;
	g->ncommitted = 0;
}

void
tmq_group_close(struct tmq_group *g)
{
	if (g->app_open)
		tmq_appender_close(&g->app);
	tmq_lr_close(&g->lr);
	tmq_codec_free(&g->codec);
	tmq_topic_close(&g->log);
	tmq_group_state_free(g);
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
	char gt[TMQ_NAME_MAX + 16];
	unsigned i;

	memset(g, 0, sizeof *g);
	g->log.dirfd = -1;
	if (tmq_group_name_check(name, e) < 0)
		return -1;
	snprintf(gt, sizeof gt, "%s%s", TMQ_GROUP_PREFIX, name);
	if (tmq_topic_open(rootfd, gt, &g->log, e) < 0)
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
	g->nparts = TMQ_MAX_PARTITIONS;
	if (g->topic != NULL) {
		struct tmq_topic t;
		struct tmq_error e2;

		if (tmq_topic_open(rootfd, g->topic, &t, &e2) == 0) {
			g->nparts = t.partitions;
			g->nparts_known = 1;
			tmq_topic_close(&t);
		}
	}
	if (g->name == NULL || tmq_codec_init(&g->codec, e) < 0 ||
	    tmq_gparser_init(&g->parser, g->nparts, e) < 0 ||
	    tmq_lr_open(&g->lr, g->log.dirfd, 0, 4, e) < 0) {
		tmq_group_close(g);
		return tmq_fail(e, "out of memory");
	}
	/* A line inflates to no more than a body of ours needs (the type
	 * header too), and its JSON is read by groupmsg.c alone. */
	g->codec.inf.max = tmq_gmsg_max_body(g->nparts) + 3;
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
	char gt[TMQ_NAME_MAX + 16];
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
	 * the TwainMQ library's -1, which it cannot read back itself. */
	for (p = 0; p < t->partitions; p++) {
		uint64_t end = 0;

		po[p].partition = p;
		if (from_now && tmq_partition_end(t->dirfd, p, &end, e) < 0) {
			free(po);
			return -1;
		}
		po[p].offset = (int64_t)end;
	}
	snprintf(gt, sizeof gt, "%s%s", TMQ_GROUP_PREFIX, name);
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

const struct tmq_gmember *
tmq_group_find_member(const struct tmq_group *g, uint32_t id)
{
	long at = tmq_idx_find(&g->member_ix, id);

	return at < 0 ? NULL : &g->members[at];
}

struct tmq_gmember *
tmq_group_member(struct tmq_group *g, uint32_t id)
{
	struct tmq_gmember *m;
	long at;
	int rc;

	/* Room first (the index cannot take an id back), then one probe
	 * that finds the member or adds it. */
	if (tmq_grow(&g->members, &g->members_cap, (size_t)g->nmembers + 1,
	    sizeof *g->members) < 0 ||
	    (rc = tmq_idx_add(&g->member_ix, id, g->nmembers, &at)) < 0)
		return NULL;
	if (rc == 1)
		return &g->members[at];
	m = &g->members[g->nmembers++];
	memset(m, 0, sizeof *m);
	m->id = id;
	return m;
}

const struct tmq_offer *
tmq_group_offer(const struct tmq_group *g, uint32_t member)
{
	long at = tmq_idx_find(&g->offer_ix, member);

	return at < 0 ? NULL : &g->offers[at];
}

static int
index_offers(struct tmq_idindex *x, const struct tmq_offer *o, unsigned n)
{
	unsigned i;

	tmq_idx_clear(x);
	if (tmq_idx_reserve(x, n) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (tmq_idx_add(x, o[i].member, i, NULL) != 0)
			return -1;
	return 0;
}

int
tmq_group_reindex(struct tmq_group *g, struct tmq_error *e)
{
	unsigned i;

	tmq_idx_clear(&g->member_ix);
	if (tmq_idx_reserve(&g->member_ix, g->nmembers) < 0)
		return tmq_fail(e, "out of memory");
	for (i = 0; i < g->nmembers; i++)
		if (tmq_idx_add(&g->member_ix, g->members[i].id, i, NULL) != 0)
			return tmq_fail(e, "member %u twice, or out of memory",
			    (unsigned)g->members[i].id);
	if (g->members_cap < g->nmembers)
		g->members_cap = g->nmembers;
	if (g->offers_cap < g->noffers)
		g->offers_cap = g->noffers;
	if (index_offers(&g->offer_ix, g->offers, g->noffers) < 0 ||
	    index_offers(&g->assigned_ix, g->assigned, g->nassigned) < 0)
		return tmq_fail(e, "an offer twice, or out of memory");
	return 0;
}

static unsigned *
dup_parts(const unsigned *v, unsigned n)
{
	unsigned *c = malloc((n ? n : 1) * sizeof *c);

	if (c != NULL && n > 0)
		memcpy(c, v, n * sizeof *c);
	return c;
}

/* Apply one message to the state. */
static int
apply(struct tmq_group *g, const struct tmq_gmsg *m, struct tmq_error *e)
{
	struct tmq_gmember *mb = tmq_group_member(g, m->member);
	unsigned i;

	if (mb == NULL)
		return tmq_fail(e, "out of memory");
	if (m->member > g->max_key)
		g->max_key = m->member;
	mb->last_seen = m->ts;
	mb->last_offset = m->offset;
	switch (m->kind) {
	case TMQ_G_JOINED:
		if (!mb->claimed) {
			mb->claimed = 1;
			mb->tag = m->tag;
		}
		break;
	case TMQ_G_BEGINREBAL:
		/* A new BEGINREBAL starts the rebalance afresh. */
		tmq_offers_free(g->offers, g->noffers);
		g->offers = NULL;
		g->noffers = 0;
		g->offers_cap = 0;
		tmq_idx_clear(&g->offer_ix);
		g->rebalancing = 1;
		g->rebal_end = m->end;
		g->rebal_offset = m->offset;
		break;
	case TMQ_G_REBALOFFER: {
		struct tmq_offer *o;
		long at;
		int rc;

		/* An offer to take nothing is how a member leaves. */
		mb->left = m->nparts == 0;
		if (!g->rebalancing)
			break;
		/* A member's later offer replaces its earlier one. */
		if (tmq_grow(&g->offers, &g->offers_cap, (size_t)g->noffers + 1,
		    sizeof *g->offers) < 0 || (rc = tmq_idx_add(&g->offer_ix,
		    m->member, g->noffers, &at)) < 0)
			return tmq_fail(e, "out of memory");
		if (rc == 1)
			o = &g->offers[at];
		else {
			o = &g->offers[g->noffers++];
			memset(o, 0, sizeof *o);
			o->member = m->member;
		}
		free(o->own);
		free(o->parts);
		/* The lists are sets of the topic's partitions (groupmsg.h):
		 * no longer than the topic, whatever the line said. */
		o->own = dup_parts(m->own, m->nown);
		o->nown = m->nown;
		o->own_extra = m->own_extra;
		o->parts = dup_parts(m->parts, m->nparts);
		o->nparts = m->nparts;
		if (o->own == NULL || o->parts == NULL)
			return tmq_fail(e, "out of memory");
		break;
	}
	case TMQ_G_ENDREBAL:
		if (!g->rebalancing)
			break;
		if (tmq_assign(g->offers, g->noffers, g->nparts, e) < 0)
			return -1;
		tmq_offers_free(g->assigned, g->nassigned);
		g->assigned = g->offers;
		g->nassigned = g->noffers;
		tmq_idx_clear(&g->assigned_ix);
		g->assigned_ix = g->offer_ix;
		memset(&g->offer_ix, 0, sizeof g->offer_ix);
		g->offers = NULL;
		g->noffers = 0;
		g->offers_cap = 0;
		g->rebalancing = 0;
		g->have_assignment = 1;
		g->ended_offset = m->offset;
		break;
	case TMQ_G_REBALCONFIRM:
		free(mb->confirmed);
		mb->confirmed = dup_parts(m->parts, m->nparts);
		mb->nconfirmed = m->nparts;
		mb->has_confirmed = 1;
		if (mb->confirmed == NULL)
			return tmq_fail(e, "out of memory");
		break;
	case TMQ_G_COMMIT:
		for (i = 0; i < m->ncommits; i++) {
			unsigned p = m->commits[i].partition;

			if (p >= g->nparts)
				continue;	/* the parser dropped those */
			if (p >= g->ncommitted) {
				int64_t *nc = realloc(g->committed,
				    ((size_t)p + 1) * sizeof *nc);
				unsigned k;

				if (nc == NULL)
					return tmq_fail(e, "out of memory");
				for (k = g->ncommitted; k <= p; k++)
					nc[k] = TMQ_NOT_COMMITTED;
				g->committed = nc;
				g->ncommitted = p + 1;
			}
			g->committed[p] = m->commits[i].offset;
		}
		break;
	default:
		break;
	}
	return 0;
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
		    g->nparts);
	g->notice(g->notice_arg, msg);
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
		    g->read_to - g->snap_at >= g->snap_every)) {
			struct tmq_error ignored;

			tmq_gsnap_save(g, &ignored);
		}
		return rc;
	}
	g->read_to = l.offset + 1;
	if (l.problem != NULL) {
		tmq_fail(e, "group %s: offset %llu: %s", g->name,
		    (unsigned long long)l.offset, l.problem);
		free(msg);
		return 2;
	}
	/* (A line that does not decode leaves msg unset: its error says.) */
	rc = tmq_line_decode(&g->codec, 4, g->log.ntypes, l.p, l.n, msg, e);
	if (rc < 0 || msg->payload.type != TMQ_TYPED) {
		if (rc == 0)
			tmq_fail(e, "not a group message");
		tmq_fail_prefix(e, "group %s: offset %llu", g->name,
		    (unsigned long long)l.offset);
		free(msg);
		return 2;
	}
	kind = (int)msg->payload.type_index;
	if (tmq_gmsg_parse(&g->parser, (enum tmq_gkind)kind,
	    (const char *)msg->payload.data, msg->payload.len, m, e) < 0) {
		tmq_fail_prefix(e, "group %s: offset %llu", g->name,
		    (unsigned long long)l.offset);
		free(msg);
		return 2;
	}
	m->member = (uint32_t)tmq_key_to_u64(4, msg->key);
	m->ts = msg->ts;
	m->offset = l.offset;
	free(msg);
	said_absent(g, m);
	if (apply(g, m, e) < 0) {
		tmq_gmsg_clear(m);
		return -1;
	}
	return 1;
}

int
tmq_group_replay(struct tmq_group *g, struct tmq_error *e)
{
	struct tmq_gmsg m;
	int rc;

	if (g->snap_every != 0 && !g->snap_off && g->read_to == 0) {
		struct tmq_error why;

		if (tmq_gsnap_load(g, &why) < 0)
			return tmq_fail(e, "group %s: %s", g->name, why.msg);
	}
	while ((rc = tmq_group_next(g, &m, e)) != 0) {
		if (rc < 0)
			return -1;
		if (rc == 1)
			tmq_gmsg_clear(&m);
		else if (g->notice != NULL)
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
tmq_group_settle(struct tmq_group *g, struct tmq_error *e)
{
	struct tmq_gmsg m;

	if (!tmq_live_may_end(g, 0, 0, tmq_now()))
		return 0;
	g->snap_off = 1;	/* no longer the log's state: not for a snapshot */
	memset(&m, 0, sizeof m);
	m.kind = TMQ_G_ENDREBAL;
	m.offset = g->read_to;
	return apply(g, &m, e);
}

const struct tmq_offer *
tmq_group_share(const struct tmq_group *g, uint32_t member)
{
	long at = tmq_idx_find(&g->assigned_ix, member);

	return at < 0 ? NULL : &g->assigned[at];
}

int64_t
tmq_group_committed(const struct tmq_group *g, unsigned partition)
{
	return partition < g->ncommitted ? g->committed[partition] :
	    TMQ_NOT_COMMITTED;
}
