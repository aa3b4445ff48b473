/* groupadmin.c: what an operator's tools do to a group (see groupadmin.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group/groupadmin.h"
#include "store/linereader.h"
#include "codec/names.h"
#include "util/notice.h"
#include "flow/partlist.h"
#include "codec/timestamp.h"

static void
notice(void *arg, const char *msg)
{
	(void)arg;
	tmq_notice("%s", msg);
}

int
tmq_group_observe(int rootfd, const char *name, const char *topic_hint,
    struct tmq_group *g, struct tmq_error *e)
{
	if (tmq_group_open(rootfd, name, topic_hint, g, e) < 0)
		return -1;
	g->notice = notice;
	if (tmq_group_replay(g, e) < 0 || tmq_group_settle(g, e) < 0) {
		tmq_group_close(g);
		return -1;
	}
	return 0;
}

int
tmq_group_open_topic(int rootfd, const struct tmq_group *g,
    struct tmq_topic *t, struct tmq_error *e)
{
	if (g->topic == NULL)
		return tmq_fail(e, "%s: the group's topic is not recorded: name "
		    "it with -t", g->name);
	return tmq_topic_open(rootfd, g->topic, t, e);
}

int
tmq_group_begin_rebalance(struct tmq_group *g, double seconds,
    struct tmq_error *e)
{
	struct tmq_gmsg m;

	memset(&m, 0, sizeof m);
	m.kind = TMQ_G_BEGINREBAL;
	m.end = tmq_now() + seconds;
	return tmq_group_write(g, 0, &m, e);
}

int
tmq_group_check_idle(const char *name, unsigned active, struct tmq_error *e)
{
	if (active == 0)
		return 0;
	return tmq_fail(e, "%s: %u member%s active: stop %s or use --force",
	    name, active, active == 1 ? " is" : "s are",
	    active == 1 ? "it" : "them");
}

int
tmq_group_delete_active(int rootfd, const char *name, unsigned *active,
    struct tmq_error *e)
{
	char gt[TMQ_GROUP_LOG_MAX];
	struct tmq_group g;

	tmq_group_log_name(name, gt, sizeof gt);
	/* What a killed create or delete left of a group is no group, and
	 * has no members: it goes as a group does. */
	if (tmq_group_name_check(name, NULL) == 0 &&
	    tmq_topic_partial(rootfd, gt)) {
		*active = 0;
		return 0;
	}
	if (tmq_group_observe(rootfd, name, NULL, &g, e) < 0)
		return -1;
	*active = tmq_group_active(&g);
	tmq_group_close(&g);
	return 0;
}

int
tmq_group_delete(int rootfd, const char *name, struct tmq_error *e)
{
	char gt[TMQ_GROUP_LOG_MAX];

	tmq_group_log_name(name, gt, sizeof gt);
	return tmq_topic_delete(rootfd, gt, e);
}

/* The offset to names for one partition. */
static int
target(const struct tmq_topic *t, const struct tmq_gpart *gp,
    const struct tmq_position *to, uint64_t *out, struct tmq_error *e)
{
	struct tmq_linereader lr;
	struct tmq_line l;
	int rc;

	switch (to->kind) {
	case TMQ_POS_START:
		*out = gp->first;
		return 0;
	case TMQ_POS_NOW:
		*out = gp->end;
		return 0;
	case TMQ_POS_OFFSET:
		*out = to->n;
		return 0;
	case TMQ_POS_TAIL:
		*out = gp->end > to->n ? gp->end - to->n : 0;
		return 0;
	case TMQ_POS_TIME:
		if (tmq_lr_open(&lr, t, gp->partition, t->key_width,
		    e) < 0)
			return -1;
		rc = tmq_lr_seek_time(&lr, to->t, e);
		if (rc == 0)
			rc = tmq_lr_next(&lr, &l, e);
		*out = rc == 1 ? l.offset : gp->end;
		tmq_lr_close(&lr);
		return rc < 0 ? -1 : 0;
	case TMQ_POS_PAIRS:	/* (--to takes none: tmq_position_parse) */
		return tmq_fail(e, "--to: PARTITION=OFFSET pairs are not taken");
	}
	return 0;
}

int
tmq_reset_plan(const char *name, const struct tmq_topic *t,
    const struct tmq_ginfo *gi, const unsigned *sel, unsigned n,
    const struct tmq_position *to, int64_t shift, struct tmq_poff *po,
    struct tmq_error *e)
{
	unsigned i;

	if (sel != NULL && tmq_partlist_check(sel, n, t->partitions, e) < 0)
		return tmq_fail_prefix(e, "%s", name);
	for (i = 0; i < n; i++) {
		unsigned p = sel != NULL ? sel[i] : i;
		const struct tmq_gpart *gp;
		int64_t base, nw;
		uint64_t at;

		if (p >= gi->nparts)
			return tmq_fail(e, "%s: partition %u has no figures",
			    name, p);
		gp = &gi->parts[p];
		base = gp->committed >= 0 ? gp->committed :
		    gp->committed == -1 ? (int64_t)gp->end : (int64_t)gp->first;
		if (to != NULL) {
			if (target(t, gp, to, &at, e) < 0)
				return -1;
			base = (int64_t)at;
		}
		nw = base + shift;
		/* Offsets that do not exist are clamped, as Kafka does. */
		if (nw < (int64_t)gp->first)
			nw = (int64_t)gp->first;
		if (nw > (int64_t)gp->end)
			nw = (int64_t)gp->end;
		po[i].partition = p;
		po[i].offset = nw;
	}
	return 0;
}

int
tmq_ginfo_check_lag(const char *name, const struct tmq_ginfo *gi,
    unsigned p, uint64_t maxlag, struct tmq_error *e)
{
	const struct tmq_gpart *gp = &gi->parts[p];

	if (gp->range != TMQ_IN_RANGE) {
		char msg[400];

		tmq_range_describe(name, p, gp->committed, gp->first, gp->end,
		    msg, sizeof msg);
		return tmq_fail(e, "%s", msg);
	}
	if (gp->lag > maxlag)
		return tmq_fail(e, "%s: partition %u lags by %llu (more than "
		    "%llu)", name, p, (unsigned long long)gp->lag,
		    (unsigned long long)maxlag);
	return 0;
}
