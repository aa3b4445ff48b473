/* groupinfo.c: describing a group (see groupinfo.h).
 *
 * The members are those in the last completed rebalance that offered to
 * take partitions, less those that have since offered to take none (a
 * leaving member does), plus those joining the rebalance under way; the
 * log has no
 * heartbeat, so a member that died without leaving still shows until the
 * next rebalance; its lock (liveness.h) says whether it is known alive,
 * known dead, or one we cannot vouch for.  Lag counts from the first
 * offset still on disk when the committed one is out of range: pruned
 * away, or past the end of a topic made again. */
#include <stdlib.h>
#include <string.h>

#include "group/groupinfo.h"
#include "store/topicstat.h"

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* In the rebalance under way, the member offered to take nothing: it has
 * left (as a leaving member does), whatever it held before. */
static int
has_left(const struct tmq_gstate *s, uint32_t member)
{
	const struct tmq_offer *o = tmq_gstate_offer(s, member);

	return o != NULL && o->nparts == 0;
}

int
tmq_ginfo_build(const struct tmq_group *g, const struct tmq_topic *t,
    struct tmq_ginfo *gi, struct tmq_error *e)
{
	const struct tmq_gstate *s = &g->state;
	struct tmq_live_where w;
	struct tmq_partstat *ps;
	unsigned p, i, j;

	memset(gi, 0, sizeof *gi);
	/* A partition whose files cannot be read is left out, not the
	 * whole group: its problem is the caller's to say. */
	if (tmq_topic_stat_each(t, &ps, e) < 0)
		return -1;
	gi->nparts = t->partitions;
	gi->parts = calloc(t->partitions, sizeof *gi->parts);
	gi->members = calloc(s->nassigned + s->noffers + 1, sizeof *gi->members);
	if (gi->parts == NULL || gi->members == NULL) {
		tmq_topic_stat_free(ps, t->partitions);
		tmq_ginfo_free(gi);
		return tmq_fail(e, "out of memory");
	}
	for (p = 0; p < t->partitions; p++) {
		struct tmq_gpart *gp = &gi->parts[p];
		uint64_t from;

		gp->partition = p;
		if (ps[p].problem != NULL) {
			gp->problem = ps[p].problem;
			ps[p].problem = NULL;
			gi->nproblems++;
			continue;
		}
		if (ps[p].damage != NULL) {
			gp->damage = ps[p].damage;
			ps[p].damage = NULL;
			gi->ndamaged++;
		}
		gp->first = ps[p].first;
		gp->end = ps[p].end;
		gp->committed = tmq_gstate_committed(s, p);
		gp->range = tmq_range_of(gp->committed, gp->first, gp->end);
		if (gp->committed == -1)
			from = gp->end;
		else if (gp->committed == TMQ_NOT_COMMITTED)
			from = gp->first;
		else
			from = (uint64_t)gp->committed;
		/* Out of range: a reader starts again from the first offset
		 * (tmq-get's default), so all of it is to read. */
		if (from < gp->first || gp->range != TMQ_IN_RANGE)
			from = gp->first;
		gp->lag = from < gp->end ? gp->end - from : 0;
		gi->total_lag += gp->lag;
	}
	tmq_topic_stat_free(ps, t->partitions);
	if (s->have_assignment)
		for (i = 0; i < s->nassigned; i++) {
			const struct tmq_offer *o = &s->assigned[i];

			if (o->nparts == 0 || has_left(s, o->member))
				continue;
			gi->members[gi->nmembers++] = o->member;
			for (j = 0; j < o->ngot; j++)
				if (o->got[j] < gi->nparts) {
					gi->parts[o->got[j]].has_owner = 1;
					gi->parts[o->got[j]].owner = o->member;
				}
		}
	/* Members joining in the rebalance under way hold nothing yet. */
	for (i = 0; i < s->noffers; i++)
		if (s->offers[i].nparts > 0 &&
		    tmq_gstate_share(s, s->offers[i].member) == NULL)
			gi->members[gi->nmembers++] = s->offers[i].member;
	qsort(gi->members, gi->nmembers, sizeof *gi->members, cmp_u32);
	gi->alive = calloc(gi->nmembers + 1, sizeof *gi->alive);
	gi->reports = calloc(gi->nmembers + 1, sizeof *gi->reports);
	gi->has_report = calloc(gi->nmembers + 1, 1);
	if (gi->alive == NULL || gi->reports == NULL || gi->has_report == NULL) {
		tmq_ginfo_free(gi);
		return tmq_fail(e, "out of memory");
	}
	tmq_group_where(g, &w);
	for (i = 0; i < gi->nmembers; i++) {
		if ((gi->alive[i] = tmq_live_member(&w, s, gi->members[i])) ==
		    TMQ_LIVE_DEAD)
			gi->ndead++;
		/* A dead member's report is what it was doing when it died:
		 * only the living's are shown. */
		if (gi->alive[i] == TMQ_LIVE_YES) {
			int rc = tmq_live_report(&w, s, gi->members[i],
			    &gi->reports[i]);

			if (rc < 0) {
				tmq_ginfo_free(gi);
				return tmq_fail(e, "out of memory");
			}
			gi->has_report[i] = rc == 1;
			gi->nreports += rc == 1;
		}
	}
	return 0;
}

unsigned
tmq_group_active(const struct tmq_group *g)
{
	const struct tmq_gstate *s = &g->state;
	struct tmq_live_where w;
	unsigned i, n = 0;

	/* The members tmq_ginfo_build counts, less those known dead. */
	tmq_group_where(g, &w);
	if (s->have_assignment)
		for (i = 0; i < s->nassigned; i++)
			if (s->assigned[i].nparts > 0 &&
			    !has_left(s, s->assigned[i].member) &&
			    tmq_live_member(&w, s, s->assigned[i].member) !=
			    TMQ_LIVE_DEAD)
				n++;
	for (i = 0; i < s->noffers; i++)
		if (s->offers[i].nparts > 0 &&
		    tmq_gstate_share(s, s->offers[i].member) == NULL &&
		    tmq_live_member(&w, s, s->offers[i].member) !=
		    TMQ_LIVE_DEAD)
			n++;
	return n;
}

void
tmq_ginfo_free(struct tmq_ginfo *gi)
{
	unsigned p;

	for (p = 0; gi->parts != NULL && p < gi->nparts; p++) {
		free(gi->parts[p].problem);
		free(gi->parts[p].damage);
	}
	free(gi->parts);
	for (p = 0; gi->reports != NULL && p < gi->nmembers; p++)
		tmq_xreport_free(&gi->reports[p]);
	free(gi->reports);
	free(gi->has_report);
	free(gi->members);
	free(gi->alive);
	memset(gi, 0, sizeof *gi);
}
