/* group-describe.c: tmq-group describe GROUP: a group's members, offsets, lag
 * and owners, as text or JSON (the entry's exec: group.h). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "group/groupadmin.h"
#include "util/jsonwriter.h"
#include "codec/timestamp.h"
#include "group.h"

/* "0,2,4" (or "-") into buf, cut short with "..." when it is long. */
static const char *
parts_text(const unsigned *v, unsigned n, char *buf, size_t sz)
{
	size_t len = 0;
	unsigned i;

	strcpy(buf, "-");
	for (i = 0; i < n; i++) {
		int w = snprintf(buf + len, sz - len, "%s%u", i ? "," : "", v[i]);

		if (w < 0 || (size_t)w >= sz - len) {
			strcpy(buf + (sz > 4 ? sz - 4 : 0), "...");
			break;
		}
		len += (size_t)w;
	}
	return buf;
}

static const char *
alive_text(enum tmq_liveness l)
{
	return l == TMQ_LIVE_YES ? "yes" : l == TMQ_LIVE_DEAD ? "no" : "?";
}

/* Who a rebalance whose window is over waits for: the live members that
 * have not answered, each with how long it has been silent against its
 * session timeout when it says one (liveness.h). */
static const char *
waiting_text(const struct tmq_group *g, char *buf, size_t sz)
{
	struct tmq_live_where w;
	uint32_t ids[8];
	unsigned n, i;
	double now = tmq_now(), silent, timeout;
	size_t len;

	tmq_group_where(g, &w);
	n = tmq_live_waiting(&w, &g->state, ids, 8);
	if (n == 0) {
		snprintf(buf, sz, "waiting for members that cannot be vouched "
		    "for");
		return buf;
	}
	len = (size_t)snprintf(buf, sz, "waiting for %s", n == 1 ? "member" :
	    "members");
	for (i = 0; i < n && i < 8 && len < sz; i++) {
		int k;

		if (tmq_live_silence(&w, &g->state, ids[i], now, &silent,
		    &timeout) == 0)
			k = snprintf(buf + len, sz - len, "%s %u (alive, silent "
			    "%.0f s of its %.0f s session timeout)", i ? "," : "",
			    ids[i], silent, timeout);
		else
			k = snprintf(buf + len, sz - len, "%s %u (alive, not "
			    "answering)", i ? "," : "", ids[i]);
		if (k < 0)
			break;
		len += (size_t)k;
	}
	if (n > 8 && len < sz)
		snprintf(buf + len, sz - len, " and %u more", n - 8);
	return buf;
}

/* The members that run a command per message (tmq-get --exec): what
 * they have run, and what runs now. */
static void
exec_text(const struct tmq_ginfo *gi)
{
	double now = tmq_now();
	size_t j, running = 0;
	unsigned i;

	printf("\n%-10s %12s %12s %14s\n", "MEMBER", "COMMANDS-RUN",
	    "RETRIED", "DEAD-LETTERED");
	for (i = 0; i < gi->nmembers; i++)
		if (gi->has_report[i]) {
			const struct tmq_xreport *r = &gi->reports[i];

			printf("%-10u %12llu %12llu %14llu\n", gi->members[i],
			    (unsigned long long)r->run,
			    (unsigned long long)r->retried,
			    (unsigned long long)r->dead);
			running += r->n;
		}
	if (running == 0)
		return;
	printf("\n%-10s %9s %14s %8s  %s\n", "MEMBER", "PARTITION", "OFFSET",
	    "ATTEMPT", "RUNNING-FOR");
	for (i = 0; i < gi->nmembers; i++)
		for (j = 0; gi->has_report[i] && j < gi->reports[i].n; j++) {
			const struct tmq_xrun *x = &gi->reports[i].v[j];
			double d = now - x->started;

			printf("%-10u %9u %14llu %8u  %.1fs\n", gi->members[i],
			    x->partition, (unsigned long long)x->offset,
			    x->attempt, d > 0 ? d : 0);
		}
}

static void
describe_text(const struct tmq_group *g, const struct tmq_ginfo *gi,
    double end)
{
	char when[48], list[256];
	unsigned i, p;

	printf("group:     %s\ntopic:     %s\n", g->name, g->topic);
	if (g->state.rebalancing && end > tmq_now()) {
		tmq_ts_iso(end, when, sizeof when);
		printf("state:     rebalancing until %s\n", when);
	} else if (g->state.rebalancing) {
		/* The window is over: say who it waits for, never a
		 * deadline in the past as if it were still coming. */
		char why[400];

		tmq_ts_iso(end, when, sizeof when);
		printf("state:     rebalancing, window over at %s: %s\n", when,
		    waiting_text(g, why, sizeof why));
	} else
		printf("state:     %s\n", gi->nmembers ? "stable" : "empty");
	if (gi->ndead > 0)
		printf("members:   %u (and %u dead)\n", gi->nmembers - gi->ndead,
		    gi->ndead);
	else
		printf("members:   %u\n", gi->nmembers);
	printf("total lag: %llu\n\n", (unsigned long long)gi->total_lag);
	printf("%-10s %-16s %-24s %s\n", "MEMBER", "PARTITIONS", "LAST-SEEN",
	    "ALIVE");
	for (i = 0; i < gi->nmembers; i++) {
		const struct tmq_offer *o = tmq_gstate_share(&g->state,
		    gi->members[i]);
		const struct tmq_gmember *mb = tmq_gstate_find(&g->state,
		    gi->members[i]);

		tmq_ts_iso(mb ? mb->last_seen : 0, when, sizeof when);
		printf("%-10u %-16s %-24s %s\n", gi->members[i],
		    parts_text(o ? o->got : NULL, o ? o->ngot : 0, list,
		    sizeof list), when, alive_text(gi->alive[i]));
	}
	if (gi->nreports > 0)
		exec_text(gi);
	printf("\n%-9s %14s %14s %12s  %s\n", "PARTITION", "CURRENT-OFFSET",
	    "LOG-END-OFFSET", "LAG", "OWNER");
	for (p = 0; p < gi->nparts; p++) {
		const struct tmq_gpart *gp = &gi->parts[p];
		char cur[24], own[16], lag[24];

		if (gp->committed == TMQ_NOT_COMMITTED)
			strcpy(cur, "-");
		else if (gp->committed == -1)
			strcpy(cur, "now");
		else
			snprintf(cur, sizeof cur, "%lld", (long long)gp->committed);
		if (gp->has_owner)
			snprintf(own, sizeof own, "%u", gp->owner);
		else
			strcpy(own, "-");
		/* Out of range, the lag would be a lie either way. */
		if (gp->range != TMQ_IN_RANGE)
			strcpy(lag, "out-of-range");
		else
			snprintf(lag, sizeof lag, "%llu",
			    (unsigned long long)gp->lag);
		printf("%-9u %14s %14llu %12s  %s\n", p, cur,
		    (unsigned long long)gp->end, lag, own);
	}
}

static void
describe_json(const struct tmq_group *g, const struct tmq_ginfo *gi,
    double end)
{
	struct tmq_jw w;
	char num[40];
	unsigned i, j, p;

	tmq_jw_init(&w, stdout);
	tmq_jw_object(&w);
	tmq_jw_key(&w, "group");
	tmq_jw_str(&w, g->name);
	tmq_jw_key(&w, "topic");
	tmq_jw_str(&w, g->topic);
	tmq_jw_key(&w, "state");
	tmq_jw_str(&w, g->state.rebalancing ? "rebalancing" : gi->nmembers ?
	    "stable" : "empty");
	tmq_jw_key(&w, "rebalance_end");
	if (g->state.rebalancing) {
		tmq_ts_repr(end, num, sizeof num);
		tmq_jw_number(&w, num);
	} else
		tmq_jw_null(&w);
	tmq_jw_key(&w, "members");
	tmq_jw_object(&w);
	for (i = 0; i < gi->nmembers; i++) {
		const struct tmq_offer *o = tmq_gstate_share(&g->state,
		    gi->members[i]);

		tmq_jw_key_u64(&w, gi->members[i]);
		tmq_jw_array(&w);
		for (j = 0; o != NULL && j < o->ngot; j++)
			tmq_jw_u64(&w, o->got[j]);
		tmq_jw_end(&w);
	}
	tmq_jw_end(&w);
	tmq_jw_key(&w, "last_seen");
	tmq_jw_object(&w);
	for (i = 0; i < gi->nmembers; i++) {
		const struct tmq_gmember *mb = tmq_gstate_find(&g->state,
		    gi->members[i]);

		tmq_ts_repr(mb ? mb->last_seen : 0, num, sizeof num);
		tmq_jw_key_u64(&w, gi->members[i]);
		tmq_jw_number(&w, num);
	}
	tmq_jw_end(&w);
	tmq_jw_key(&w, "alive");
	tmq_jw_object(&w);
	for (i = 0; i < gi->nmembers; i++) {
		tmq_jw_key_u64(&w, gi->members[i]);
		if (gi->alive[i] == TMQ_LIVE_YES || gi->alive[i] == TMQ_LIVE_DEAD)
			tmq_jw_bool(&w, gi->alive[i] == TMQ_LIVE_YES);
		else
			tmq_jw_null(&w);
	}
	tmq_jw_end(&w);
	if (gi->nreports > 0) {
		tmq_jw_key(&w, "exec");
		tmq_jw_object(&w);
		for (i = 0; i < gi->nmembers; i++) {
			const struct tmq_xreport *r = &gi->reports[i];
			size_t k;

			if (!gi->has_report[i])
				continue;
			tmq_jw_key_u64(&w, gi->members[i]);
			tmq_jw_object(&w);
			tmq_jw_key(&w, "run");
			tmq_jw_u64(&w, r->run);
			tmq_jw_key(&w, "retried");
			tmq_jw_u64(&w, r->retried);
			tmq_jw_key(&w, "dead_lettered");
			tmq_jw_u64(&w, r->dead);
			tmq_jw_key(&w, "running");
			tmq_jw_array(&w);
			for (k = 0; k < r->n; k++) {
				tmq_jw_object(&w);
				tmq_jw_key(&w, "partition");
				tmq_jw_u64(&w, r->v[k].partition);
				tmq_jw_key(&w, "offset");
				tmq_jw_u64(&w, r->v[k].offset);
				tmq_jw_key(&w, "attempt");
				tmq_jw_u64(&w, r->v[k].attempt);
				tmq_jw_key(&w, "started");
				tmq_ts_repr(r->v[k].started, num, sizeof num);
				tmq_jw_number(&w, num);
				tmq_jw_end(&w);
			}
			tmq_jw_end(&w);
			tmq_jw_end(&w);
		}
		tmq_jw_end(&w);
	}
	tmq_jw_key(&w, "committed");
	tmq_jw_object(&w);
	for (p = 0; p < gi->nparts; p++)
		if (gi->parts[p].committed != TMQ_NOT_COMMITTED) {
			tmq_jw_key_u64(&w, p);
			tmq_jw_i64(&w, gi->parts[p].committed);
		}
	tmq_jw_end(&w);
	tmq_jw_key(&w, "total_lag");
	tmq_jw_u64(&w, gi->total_lag);
	tmq_jw_key(&w, "partitions");
	tmq_jw_array(&w);
	for (p = 0; p < gi->nparts; p++) {
		const struct tmq_gpart *gp = &gi->parts[p];

		tmq_jw_object(&w);
		tmq_jw_key(&w, "partition");
		tmq_jw_u64(&w, p);
		tmq_jw_key(&w, "committed");
		if (gp->committed == TMQ_NOT_COMMITTED)
			tmq_jw_null(&w);
		else
			tmq_jw_i64(&w, gp->committed);
		tmq_jw_key(&w, "end");
		tmq_jw_u64(&w, gp->end);
		tmq_jw_key(&w, "lag");
		tmq_jw_u64(&w, gp->lag);
		tmq_jw_key(&w, "out_of_range");
		if (gp->range == TMQ_PAST_END)
			tmq_jw_str(&w, "past_end");
		else if (gp->range == TMQ_BEFORE_FIRST)
			tmq_jw_str(&w, "before_first");
		else
			tmq_jw_null(&w);
		tmq_jw_key(&w, "owner");
		if (gp->has_owner)
			tmq_jw_u64(&w, gp->owner);
		else
			tmq_jw_null(&w);
		tmq_jw_end(&w);
	}
	tmq_jw_end(&w);
	tmq_jw_end(&w);
	putchar('\n');
}

int
group_describe(char **operands, int noperands)
{
	struct group_args *a = &group_args;
	const char *name = operands[0];
	struct tmq_group g;
	struct tmq_topic t;
	struct tmq_ginfo gi;
	struct tmq_error e;
	unsigned p;
	int rc = TMQ_EXIT_OK;

	if (group_load(a, name, &g, &t) < 0)
		return TMQ_EXIT_FAIL;
	if (tmq_ginfo_build(&g, &t, &gi, &e) < 0) {
		rc = tmq_report(&group_cmd, &e);
		goto out;
	}
	/* When the rebalance under way ends by the group's rule, not what
	 * its line claims (group.h). */
	if (a->json)
		describe_json(&g, &gi, tmq_group_rebal_end(&g, 0));
	else
		describe_text(&g, &gi, tmq_group_rebal_end(&g, 0));
	if (group_say_problems(&gi, 1) > 0)
		rc = TMQ_EXIT_FAIL;
	for (p = 0; a->have_maxlag && p < gi.nparts; p++)
		if (tmq_ginfo_check_lag(name, &gi, p, a->maxlag, &e) < 0) {
			tmq_flush_stdout();
			rc = tmq_report(&group_cmd, &e);
		}
	tmq_ginfo_free(&gi);
out:
	tmq_topic_close(&t);
	tmq_group_close(&g);
	return rc;
}
