/* tmq-group: list, describe, rebalance, reset, delete and wait for
 * consumer groups. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/confirm.h"
#include "group/groupadmin.h"
#include "group/groupinfo.h"
#include "group/groupwait.h"
#include "util/jsonwriter.h"
#include "cli/metrics.h"
#include "codec/names.h"
#include "store/root.h"
#include "cli/table.h"
#include "flow/timespec.h"
#include "codec/timestamp.h"

enum { LIST, DESCRIBE, REBALANCE, RESET, DELETE, WAIT };

static const struct tmq_subcmd subs[] = {
	[LIST] = { .name = "list", .operands = "",
	    .help = "list the groups of the root, their topics, members and "
	    "lag" },
	[DESCRIBE] = { .name = "describe", .operands = "GROUP", .min = 1,
	    .max = 1, .missing = "group",
	    .help = "describe a group: its members, offsets, lag and owners" },
	[REBALANCE] = { .name = "rebalance", .operands = "GROUP", .min = 1,
	    .max = 1, .missing = "group",
	    .help = "make the members of a group share its partitions anew" },
	[RESET] = { .name = "reset", .operands = "GROUP", .min = 1, .max = 1,
	    .missing = "group", .help = "move the committed offsets of a group" },
	[DELETE] = { .name = "delete", .operands = "GROUP", .min = 1,
	    .max = 1, .missing = "group",
	    .help = "delete a group and its committed offsets" },
	[WAIT] = { .name = "wait", .operands = "GROUP", .min = 1, .max = 1,
	    .missing = "group",
	    .help = "wait until a group has committed all its topic holds now" },
	{ 0 }
};

struct args {
	const char *root, *topic;
	struct tmq_partsel parts;	/* -P, when given */
	int json, prom, yes, dry, force;
	unsigned have_to, have_shift, have_maxlag, have_timeout;
	double timeout;			/* wait --timeout, seconds */
	struct tmq_position to;
	int64_t shift;
	uint64_t maxlag;
	double window;
	int rootfd, sub;
};

/* What the options set. */
static struct args args = { .window = 5 };

/* --shift-by [+-]N */
static int
set_shift(const char *arg, struct tmq_error *e)
{
	const char *s = arg;
	int neg = *s == '-';
	uint64_t v;

	if (*s == '-' || *s == '+')
		s++;
	if (tmq_parse_u64(s, 0, INT64_MAX / 2, &v, e) < 0)
		return -1;
	args.shift = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* --timeout DURATION */
static int
set_timeout(const char *arg, struct tmq_error *e)
{
	return tmq_duration_parse(arg, &args.timeout, e);
}

/* The order here is the order of the usage lines' options. */
static const struct tmq_option options[] = {
	{ .lng = "topic", .shrt = 't', .arg = "TOPIC", .kind = TMQ_ARG_TOPIC,
	    .help = "the group's topic, for groups the TwainMQ library created",
	    .on = TMQ_ON(DESCRIBE) | TMQ_ON(RESET) | TMQ_ON(WAIT),
	    .str = &args.topic },
	{ .lng = "json", .help = "print JSON",
	    .on = TMQ_ON(LIST) | TMQ_ON(DESCRIBE), .flag = &args.json },
	{ .lng = "prometheus",
	    .help = "print Prometheus metrics (node_exporter's textfile format)",
	    .on = TMQ_ON(LIST), .flag = &args.prom },
	{ .lng = "max-lag", .arg = "N", .kind = TMQ_ARG_WORD,
	    .help = "exit 1 when a partition lags by more than N",
	    .on = TMQ_ON(DESCRIBE), .num = &args.maxlag, .max = UINT64_MAX,
	    .given = &args.have_maxlag },
	{ .lng = "window", .arg = "DURATION", .kind = TMQ_ARG_WORD,
	    .help = "how long members have to answer (default 5s)",
	    .on = TMQ_ON(REBALANCE), .secs = &args.window, .min = 1,
	    .max = 86400 },
	{ .lng = "to", .arg = "POS", .kind = TMQ_ARG_RESET, .whole = 1,
	    .help = "start, now, OFFSET, -N (N before the end), or a TIME "
	    "(tmq(7): ISO 8601, @SECONDS, 1h ago)", .on = TMQ_ON(RESET),
	    .pos = &args.to, .given = &args.have_to },
	{ .lng = "shift-by", .arg = "[+-]N", .kind = TMQ_ARG_WORD, .whole = 1,
	    .help = "move by N from the committed offset (or from --to)",
	    .on = TMQ_ON(RESET), .call = set_shift, .given = &args.have_shift },
	{ .lng = "partition", .shrt = 'P', .arg = "N[,N...]",
	    .kind = TMQ_ARG_WORD, .help = "only these partitions",
	    .on = TMQ_ON(RESET), .parts = &args.parts },
	{ .lng = "dry-run", .help = "print the new offsets, change nothing",
	    .on = TMQ_ON(RESET), .flag = &args.dry },
	{ .lng = "force", .whole = 1, .help = "even while members are active",
	    .on = TMQ_ON(RESET) | TMQ_ON(DELETE), .flag = &args.force },
	{ .lng = "yes", .shrt = 'y', .whole = 1, .help = "do not ask",
	    .on = TMQ_ON(DELETE), .flag = &args.yes },
	{ .lng = "timeout", .arg = "DURATION", .kind = TMQ_ARG_WORD,
	    .help = "give up after DURATION (30, 90s, 10m, 2h), print the lag "
	    "left, exit 1", .on = TMQ_ON(WAIT), .call = set_timeout,
	    .given = &args.have_timeout },
	TMQ_COMMON_OPTIONS(&args.root),
	{ 0 }
};

static const struct tmq_cmd cmd = {
	.name = "tmq-group",
	.summary = "List, describe, rebalance, reset, delete and wait for the "
	    "consumer groups of a tmq root.",
	.opts = options,
	.subs = subs,
	.sub = &args.sub,
};

/* Say the partitions whose files could not be read; how many.  With
 * damage, those with holes in their files too (their lag stands). */
static unsigned
say_problems(const struct tmq_ginfo *gi, int damage)
{
	unsigned p;

	if (gi->nproblems == 0 && (!damage || gi->ndamaged == 0))
		return 0;
	fflush(stdout);
	for (p = 0; p < gi->nparts; p++)
		if (gi->parts[p].problem != NULL)
			tmq_warn(&cmd, "%s", gi->parts[p].problem);
		else if (damage && gi->parts[p].damage != NULL)
			tmq_warn(&cmd, "%s", gi->parts[p].damage);
	return gi->nproblems + (damage ? gi->ndamaged : 0);
}

/* Load a group, and open its topic when t is not NULL; -1 once said. */
static int
load(struct args *a, const char *name, struct tmq_group *g,
    struct tmq_topic *t)
{
	struct tmq_error e;

	if (tmq_group_observe(a->rootfd, name, a->topic, g, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	if (t != NULL && tmq_group_open_topic(a->rootfd, g, t, &e) < 0) {
		tmq_group_close(g);
		return tmq_report(&cmd, &e), -1;
	}
	return 0;
}

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

static int
do_describe(struct args *a, const char *name)
{
	struct tmq_group g;
	struct tmq_topic t;
	struct tmq_ginfo gi;
	struct tmq_error e;
	unsigned p;
	int rc = TMQ_EXIT_OK;

	if (load(a, name, &g, &t) < 0)
		return TMQ_EXIT_FAIL;
	if (tmq_ginfo_build(&g, &t, &gi, &e) < 0) {
		rc = tmq_report(&cmd, &e);
		goto out;
	}
	/* When the rebalance under way ends by the group's rule, not what
	 * its line claims (group.h). */
	if (a->json)
		describe_json(&g, &gi, tmq_group_rebal_end(&g, 0));
	else
		describe_text(&g, &gi, tmq_group_rebal_end(&g, 0));
	if (say_problems(&gi, 1) > 0)
		rc = TMQ_EXIT_FAIL;
	for (p = 0; a->have_maxlag && p < gi.nparts; p++)
		if (tmq_ginfo_check_lag(name, &gi, p, a->maxlag, &e) < 0) {
			fflush(stdout);
			rc = tmq_report(&cmd, &e);
		}
	tmq_ginfo_free(&gi);
out:
	tmq_topic_close(&t);
	tmq_group_close(&g);
	return rc;
}

/* With --prometheus, a group that could not be measured is said in the
 * metrics, and the scrape goes on: it is no failure of the command. */
static void
prom_error(struct tmq_metrics *m, const char *group, const char *topic,
    int *rc)
{
	struct tmq_error e;

	if (tmq_metrics_add_error(m, group, topic != NULL ? topic : "", 1,
	    &e) < 0) {
		tmq_report(&cmd, &e);
		*rc = TMQ_EXIT_FAIL;
	}
}

static int
do_list(struct args *a)
{
	struct tmq_metrics m;
	struct tmq_table tab;
	struct tmq_error e;
	char **names;
	struct tmq_jw w;
	size_t n, i;
	int rc = TMQ_EXIT_OK;

	if (tmq_topic_names(a->rootfd, 1, &names, &n, &e) < 0) {
		tmq_root_fail_prefix(a->root, &e);
		return tmq_report(&cmd, &e);
	}
	tmq_metrics_init(&m);
	/* The text is a table, printed once its widths are known. */
	tmq_table_init(&tab, "llrr");
	tmq_jw_init(&w, stdout);
	if (a->json)
		tmq_jw_array(&w);
	else if (!a->prom &&
	    tmq_table_add(&tab, &e, "GROUP\tTOPIC\tMEMBERS\tLAG") < 0) {
		tmq_names_free(names, n);
		tmq_metrics_free(&m);
		return tmq_report(&cmd, &e);
	}
	for (i = 0; i < n; i++) {
		const char *gname = tmq_group_of_log(names[i]);
		struct tmq_group g;
		struct tmq_topic t;
		struct tmq_ginfo gi;
		int have = 0;

		if (tmq_group_observe(a->rootfd, gname, NULL, &g, &e) < 0) {
			tmq_report(&cmd, &e);
			if (a->prom)
				prom_error(&m, gname, NULL, &rc);
			else
				rc = TMQ_EXIT_FAIL;
			continue;
		}
		if (g.topic != NULL &&
		    tmq_topic_open(a->rootfd, g.topic, &t, &e) == 0) {
			if (tmq_ginfo_build(&g, &t, &gi, &e) == 0)
				have = 1;
			tmq_topic_close(&t);
		}
		/* A topic that cannot be read is said, naming what, and the
		 * listing goes on with the others; --prometheus says it
		 * below, in the metrics too. */
		if (!have && g.topic != NULL && !a->prom) {
			tmq_report(&cmd, &e);
			rc = TMQ_EXIT_FAIL;
		}
		if (a->prom) {
			/* Metrics are for monitoring: what cannot be measured
			 * is said, on stderr, in a comment and in the metrics
			 * (tmq_group_scrape_error), not skipped; the rest is
			 * published all the same. */
			int failed = 0;

			if (!have && g.topic == NULL)
				printf("# group \"%s\": its topic is not recorded "
				    "(name it with tmq-group describe -t): no "
				    "partition metrics\n", gname);
			else if (!have) {
				tmq_report(&cmd, &e);
				failed = 1;
				printf("# group \"%s\": its topic cannot be read: "
				    "no partition metrics\n", gname);
			}
			if (tmq_metrics_add_group(&m, &g, have ? &gi : NULL,
			    &e) < 0) {
				tmq_report(&cmd, &e);
				failed = 1;
			}
			/* (Damage is said below; its figures stand.) */
			if (have && gi.nproblems > 0)
				failed = 1;
			if (tmq_metrics_add_error(&m, gname, g.topic != NULL ?
			    g.topic : "", failed, &e) < 0) {
				tmq_report(&cmd, &e);
				rc = TMQ_EXIT_FAIL;
			}
		} else if (a->json) {
			tmq_jw_object(&w);
			tmq_jw_key(&w, "group");
			tmq_jw_str(&w, gname);
			tmq_jw_key(&w, "topic");
			if (g.topic)
				tmq_jw_str(&w, g.topic);
			else
				tmq_jw_null(&w);
			tmq_jw_key(&w, "members");
			if (have)
				tmq_jw_u64(&w, gi.nmembers - gi.ndead);
			else
				tmq_jw_null(&w);
			tmq_jw_key(&w, "lag");
			if (have)
				tmq_jw_u64(&w, gi.total_lag);
			else
				tmq_jw_null(&w);
			tmq_jw_end(&w);
		} else if ((have ? tmq_table_add(&tab, &e, "%s\t%s\t%u\t%llu",
		    gname, g.topic, gi.nmembers - gi.ndead,
		    (unsigned long long)gi.total_lag) :
		    tmq_table_add(&tab, &e, "%s\t%s\t-\t-", gname,
		    g.topic ? g.topic : "-")) < 0) {
			tmq_report(&cmd, &e);
			rc = TMQ_EXIT_FAIL;
		}
		/* Its lag leaves out the partitions said here (with
		 * --prometheus, in the metrics too). */
		if (have && say_problems(&gi, 1) > 0 && !a->prom)
			rc = TMQ_EXIT_FAIL;
		if (have)
			tmq_ginfo_free(&gi);
		tmq_group_close(&g);
	}
	if (a->json) {
		tmq_jw_end(&w);
		putchar('\n');
	} else if (tab.nrows > 1)
		tmq_table_print(&tab, stdout);
	tmq_table_free(&tab);
	if (a->prom && tmq_metrics_add_scrape(&m, "groups", &e) < 0) {
		tmq_report(&cmd, &e);
		rc = TMQ_EXIT_FAIL;
	}
	tmq_metrics_print(&m, stdout);
	tmq_metrics_free(&m);
	tmq_names_free(names, n);
	return rc;
}

static int
do_rebalance(struct args *a, const char *name)
{
	struct tmq_group g;
	struct tmq_error e;
	int rc;

	if (load(a, name, &g, NULL) < 0)
		return TMQ_EXIT_FAIL;
	rc = tmq_group_begin_rebalance(&g, a->window, &e);
	tmq_group_close(&g);
	return rc < 0 ? tmq_report(&cmd, &e) : TMQ_EXIT_OK;
}

static int
do_reset(struct args *a, const char *name)
{
	struct tmq_group g;
	struct tmq_topic t;
	struct tmq_ginfo gi;
	struct tmq_error e;
	struct tmq_poff *po = NULL;
	unsigned n, i;
	int rc = TMQ_EXIT_FAIL;

	if (load(a, name, &g, &t) < 0)
		return TMQ_EXIT_FAIL;
	if (tmq_ginfo_build(&g, &t, &gi, &e) < 0) {
		tmq_report(&cmd, &e);
		goto out;
	}
	/* Offsets computed without a partition's files could move it
	 * anywhere: nothing is reset until every partition can be read. */
	if (say_problems(&gi, 0) > 0)
		goto out;
	/* Members known dead are not active: their partitions are free. */
	if (!a->force && !a->dry &&
	    tmq_group_check_idle(name, gi.nmembers - gi.ndead, &e) < 0) {
		tmq_report(&cmd, &e);
		goto out;
	}
	/* The table is printed before the reset is written (the old
	 * offsets are the way back): a log that cannot be written is found
	 * first, and nothing is printed as if done. */
	if (!a->dry && tmq_group_writable(&g, &e) < 0) {
		tmq_warn(&cmd, "%s: nothing reset: %s", name, e.msg);
		goto out;
	}
	n = a->parts.v != NULL ? a->parts.n : t.partitions;
	if ((po = malloc((n ? n : 1) * sizeof *po)) == NULL) {
		tmq_warn(&cmd, "out of memory");
		goto out;
	}
	if (tmq_reset_plan(name, &t, &gi, a->parts.v, n,
	    a->have_to ? &a->to : NULL, a->shift, po, &e) < 0) {
		tmq_report(&cmd, &e);
		goto out;
	}
	printf("%-9s %14s %14s\n", "PARTITION", "OLD-OFFSET", "NEW-OFFSET");
	for (i = 0; i < n; i++) {
		int64_t old = gi.parts[po[i].partition].committed;
		char was[24];

		if (old == TMQ_NOT_COMMITTED)
			strcpy(was, "-");
		else
			snprintf(was, sizeof was, "%lld", (long long)old);
		printf("%-9u %14s %14lld\n", po[i].partition, was,
		    (long long)po[i].offset);
	}
	/* The old offsets are the way back, and a script that sees exit 1
	 * may run it again (--shift-by twice): nothing is reset unless they
	 * were written. */
	if (!a->dry && (fflush(stdout) != 0 || ferror(stdout))) {
		tmq_warn(&cmd, "%s: nothing reset: the old offsets could not be "
		    "written", name);
		goto out;
	}
	if (!a->dry && tmq_group_commit(&g, 0, po, n, &e) < 0) {
		fflush(stdout);
		tmq_warn(&cmd, "%s: the reset above was not applied%s: %s", name,
		    n > TMQ_COMMIT_CHUNK ? " (or, over several commit lines, only in "
		    "part)" : "", e.msg);
		goto out;
	}
	rc = TMQ_EXIT_OK;
out:
	free(po);
	tmq_ginfo_free(&gi);
	tmq_topic_close(&t);
	tmq_group_close(&g);
	return rc;
}

static int
do_delete(struct args *a, const char *name)
{
	struct tmq_error e;
	char q[400];
	unsigned active;
	int ok;

	if (tmq_group_delete_active(a->rootfd, name, &active, &e) < 0)
		return tmq_report(&cmd, &e);
	/* As kafka-consumer-groups --delete: not while it has members (a
	 * running one would fail, its log gone under it). */
	if (!a->force && tmq_group_check_idle(name, active, &e) < 0)
		return tmq_report(&cmd, &e);
	snprintf(q, sizeof q, "delete group '%s' and its committed offsets?",
	    name);
	ok = tmq_confirm(q, a->yes, &e);
	if (ok < 0)
		return tmq_report(&cmd, &e);
	if (ok == 0) {
		tmq_warn(&cmd, "%s: not deleted", name);
		return TMQ_EXIT_FAIL;
	}
	if (tmq_group_delete(a->rootfd, name, &e) != 0)
		return tmq_report(&cmd, &e);
	return TMQ_EXIT_OK;
}

/* The lag left when a wait gives up, per partition. */
static void
wait_left(const struct tmq_gwait *w)
{
	unsigned p;

	printf("%-9s %14s %14s %12s\n", "PARTITION", "CURRENT-OFFSET",
	    "TARGET-OFFSET", "LAG");
	for (p = 0; p < w->nparts; p++) {
		const struct tmq_gwpart *wp = &w->parts[p];
		char cur[24];

		if (wp->now == TMQ_NOT_COMMITTED)
			strcpy(cur, "-");
		else if (wp->now == -1)
			strcpy(cur, "now");
		else
			snprintf(cur, sizeof cur, "%lld", (long long)wp->now);
		printf("%-9u %14s %14llu %12llu\n", p, cur,
		    (unsigned long long)wp->target, (unsigned long long)wp->lag);
	}
}

/* Block until the group has committed every partition up to the end it
 * had as the wait began (groupwait.h). */
static int
do_wait(struct args *a, const char *name)
{
	struct tmq_group g;
	struct tmq_topic t;
	struct tmq_gwait w;
	struct tmq_error e;
	double deadline = tmq_now() + a->timeout, left;
	int rc, ms;

	if (load(a, name, &g, &t) < 0)
		return TMQ_EXIT_FAIL;
	if (tmq_gwait_begin(&w, a->rootfd, &g, &t, &e) < 0) {
		rc = tmq_report(&cmd, &e);
		goto out;
	}
	for (;;) {
		if ((rc = tmq_gwait_check(&w, &e)) != 0)
			break;
		ms = -1;
		if (a->have_timeout) {
			left = deadline - tmq_now();
			if (left <= 0)
				break;
			ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
		}
		if (tmq_gwait_sleep(&w, ms, &e) < 0) {
			rc = -1;
			break;
		}
	}
	if (rc < 0)
		rc = tmq_report(&cmd, &e);
	else if (rc == 1)
		rc = TMQ_EXIT_OK;
	else {
		wait_left(&w);
		fflush(stdout);
		tmq_warn(&cmd, "%s: timed out: %llu message%s in %u partition%s "
		    "not committed yet", name, (unsigned long long)w.total,
		    w.total == 1 ? "" : "s", w.behind, w.behind == 1 ? "" : "s");
		rc = TMQ_EXIT_FAIL;
	}
	tmq_gwait_free(&w);
out:
	tmq_topic_close(&t);
	tmq_group_close(&g);
	return rc;
}

int
main(int argc, char **argv)
{
	struct tmq_error e;
	int rc;

	tmq_start(&cmd);
	if ((rc = tmq_options(&cmd, argc, argv)) >= 0)
		goto out;
	if (args.sub == RESET && !args.have_to && !args.have_shift) {
		rc = tmq_usage_error(&cmd, "reset needs --to or --shift-by");
		goto out;
	}
	if (args.prom && args.json) {
		rc = tmq_usage_error(&cmd,
		    "--prometheus and --json exclude each other");
		goto out;
	}
	if (tmq_root_open_opt(args.root, 0, &args.rootfd, &e) < 0) {
		rc = tmq_report(&cmd, &e);
		goto out;
	}
	switch (args.sub) {
	case LIST: rc = do_list(&args); break;
	case DESCRIBE: rc = do_describe(&args, argv[optind]); break;
	case REBALANCE: rc = do_rebalance(&args, argv[optind]); break;
	case RESET: rc = do_reset(&args, argv[optind]); break;
	case WAIT: rc = do_wait(&args, argv[optind]); break;
	default: rc = do_delete(&args, argv[optind]); break;
	}
	close(args.rootfd);
out:
	free(args.parts.v);
	return rc;
}
