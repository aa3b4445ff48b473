/* tmq-group: list, describe, rebalance, reset, delete and wait for
 * consumer groups.  Here the tool's tables, main and the short bodies;
 * the long ones are their entries' execs in group-NAME.c (group.h). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/confirm.h"
#include "group/groupadmin.h"
#include "store/root.h"
#include "flow/timespec.h"
#include "group.h"

enum { LIST, DESCRIBE, REBALANCE, RESET, DELETE, WAIT };

/* An entry per subcommand: its name, operands and help, and its exec
 * (group.h), the body, in group-NAME.c when it is long, else below.  The
 * options that each takes are bound in the table below, by TMQ_ON. */
static const struct tmq_subcmd subs[] = {
	[LIST] = { .name = "list", .operands = "",
	    .help = "list the groups of the root, their topics, members and "
	    "lag", .exec = group_list },
	[DESCRIBE] = { .name = "describe", .operands = "GROUP", .min = 1,
	    .max = 1, .missing = "group",
	    .help = "describe a group: its members, offsets, lag and owners",
	    .exec = group_describe },
	[REBALANCE] = { .name = "rebalance", .operands = "GROUP", .min = 1,
	    .max = 1, .missing = "group",
	    .help = "make the members of a group share its partitions anew",
	    .exec = group_rebalance },
	[RESET] = { .name = "reset", .operands = "GROUP", .min = 1, .max = 1,
	    .missing = "group", .help = "move the committed offsets of a group",
	    .exec = group_reset },
	[DELETE] = { .name = "delete", .operands = "GROUP", .min = 1,
	    .max = 1, .missing = "group",
	    .help = "delete a group and its committed offsets",
	    .exec = group_delete },
	[WAIT] = { .name = "wait", .operands = "GROUP", .min = 1, .max = 1,
	    .missing = "group",
	    .help = "wait until a group has committed all its topic holds now",
	    .exec = group_wait },
	{ 0 }
};

/* What the options set (group.h). */
struct group_args group_args = { .window = 5 };

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
	group_args.shift = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* --timeout DURATION */
static int
set_timeout(const char *arg, struct tmq_error *e)
{
	return tmq_duration_parse(arg, &group_args.timeout, e);
}

/* The order here is the order of the usage lines' options. */
static const struct tmq_option options[] = {
	{ .lng = "topic", .shrt = 't', .arg = "TOPIC", .kind = TMQ_ARG_TOPIC,
	    .help = "the group's topic, for groups the TwainMQ library created",
	    .on = TMQ_ON(DESCRIBE) | TMQ_ON(RESET) | TMQ_ON(WAIT),
	    .str = &group_args.topic },
	{ .lng = "json", .help = "print JSON",
	    .on = TMQ_ON(LIST) | TMQ_ON(DESCRIBE), .flag = &group_args.json },
	{ .lng = "prometheus",
	    .help = "print Prometheus metrics (node_exporter's textfile format)",
	    .on = TMQ_ON(LIST), .flag = &group_args.prom },
	{ .lng = "max-lag", .arg = "N", .kind = TMQ_ARG_WORD,
	    .help = "exit 1 when a partition lags by more than N",
	    .on = TMQ_ON(DESCRIBE), .num = &group_args.maxlag, .max = UINT64_MAX,
	    .given = &group_args.have_maxlag },
	{ .lng = "window", .arg = "DURATION", .kind = TMQ_ARG_WORD,
	    .help = "how long members have to answer (default 5s)",
	    .on = TMQ_ON(REBALANCE), .secs = &group_args.window, .min = 1,
	    .max = 86400 },
	{ .lng = "to", .arg = "POS", .kind = TMQ_ARG_RESET, .whole = 1,
	    .help = "start, now, OFFSET, -N (N before the end), or a TIME "
	    "(tmq(7): ISO 8601, @SECONDS, 1h ago)", .on = TMQ_ON(RESET),
	    .pos = &group_args.to, .given = &group_args.have_to },
	{ .lng = "shift-by", .arg = "[+-]N", .kind = TMQ_ARG_WORD, .whole = 1,
	    .help = "move by N from the committed offset (or from --to)",
	    .on = TMQ_ON(RESET), .call = set_shift, .given = &group_args.have_shift },
	{ .lng = "partition", .shrt = 'P', .arg = "N[,N...]",
	    .kind = TMQ_ARG_WORD, .help = "only these partitions",
	    .on = TMQ_ON(RESET), .parts = &group_args.parts },
	{ .lng = "dry-run", .help = "print the new offsets, change nothing",
	    .on = TMQ_ON(RESET), .flag = &group_args.dry },
	{ .lng = "force", .whole = 1, .help = "even while members are active",
	    .on = TMQ_ON(RESET) | TMQ_ON(DELETE), .flag = &group_args.force },
	{ .lng = "yes", .shrt = 'y', .whole = 1, .help = "do not ask",
	    .on = TMQ_ON(DELETE), .flag = &group_args.yes },
	{ .lng = "timeout", .arg = "DURATION", .kind = TMQ_ARG_WORD,
	    .help = "give up after DURATION (30, 90s, 10m, 2h), print the lag "
	    "left, exit 1", .on = TMQ_ON(WAIT), .call = set_timeout,
	    .given = &group_args.have_timeout },
	TMQ_COMMON_OPTIONS(&group_args.root),
	{ 0 }
};

const struct tmq_cmd group_cmd = {
	.name = "tmq-group",
	.summary = "List, describe, rebalance, reset, delete and wait for the "
	    "consumer groups of a tmq root.",
	.opts = options,
	.subs = subs,
	.sub = &group_args.sub,
};

/* Say the partitions whose files could not be read; how many.  With
 * damage, those with holes in their files too (their lag stands). */
unsigned
group_say_problems(const struct tmq_ginfo *gi, int damage)
{
	unsigned p;

	if (gi->nproblems == 0 && (!damage || gi->ndamaged == 0))
		return 0;
	tmq_flush_stdout();
	for (p = 0; p < gi->nparts; p++)
		if (gi->parts[p].problem != NULL)
			tmq_warn(&group_cmd, "%s", gi->parts[p].problem);
		else if (damage && gi->parts[p].damage != NULL)
			tmq_warn(&group_cmd, "%s", gi->parts[p].damage);
	return gi->nproblems + (damage ? gi->ndamaged : 0);
}

/* Load a group, and open its topic when t is not NULL; -1 once said. */
int
group_load(struct group_args *a, const char *name, struct tmq_group *g,
    struct tmq_topic *t)
{
	struct tmq_error e;

	if (tmq_group_observe(a->rootfd, name, a->topic, g, &e) < 0)
		return tmq_report(&group_cmd, &e), -1;
	if (t != NULL && tmq_group_open_topic(a->rootfd, g, t, &e) < 0) {
		tmq_group_close(g);
		return tmq_report(&group_cmd, &e), -1;
	}
	return 0;
}

int
group_rebalance(char **operands, int noperands)
{
	struct group_args *a = &group_args;
	const char *name = operands[0];
	struct tmq_group g;
	struct tmq_error e;
	int rc;

	if (group_load(a, name, &g, NULL) < 0)
		return TMQ_EXIT_FAIL;
	rc = tmq_group_begin_rebalance(&g, a->window, &e);
	tmq_group_close(&g);
	return rc < 0 ? tmq_report(&group_cmd, &e) : TMQ_EXIT_OK;
}

int
group_delete(char **operands, int noperands)
{
	struct group_args *a = &group_args;
	const char *name = operands[0];
	struct tmq_error e;
	char q[400];
	unsigned active;
	int ok;

	if (tmq_group_delete_active(a->rootfd, name, &active, &e) < 0)
		return tmq_report(&group_cmd, &e);
	/* As kafka-consumer-groups --delete: not while it has members (a
	 * running one would fail, its log gone under it). */
	if (!a->force && tmq_group_check_idle(name, active, &e) < 0)
		return tmq_report(&group_cmd, &e);
	snprintf(q, sizeof q, "delete group '%s' and its committed offsets?",
	    name);
	ok = tmq_confirm(q, a->yes, &e);
	if (ok < 0)
		return tmq_report(&group_cmd, &e);
	if (ok == 0) {
		tmq_warn(&group_cmd, "%s: not deleted", name);
		return TMQ_EXIT_FAIL;
	}
	if (tmq_group_delete(a->rootfd, name, &e) != 0)
		return tmq_report(&group_cmd, &e);
	return TMQ_EXIT_OK;
}

int
main(int argc, char **argv)
{
	struct tmq_error e;
	int rc;

	tmq_start(&group_cmd);
	if ((rc = tmq_options(&group_cmd, argc, argv)) >= 0)
		goto out;
	if (group_args.sub == RESET && !group_args.have_to &&
	    !group_args.have_shift) {
		rc = tmq_usage_error(&group_cmd, "reset needs --to or --shift-by");
		goto out;
	}
	if (group_args.prom && group_args.json) {
		rc = tmq_usage_error(&group_cmd,
		    "--prometheus and --json exclude each other");
		goto out;
	}
	if (tmq_root_open_opt(group_args.root, 0, &group_args.rootfd, &e) < 0) {
		rc = tmq_report(&group_cmd, &e);
		goto out;
	}
	rc = tmq_subcmd_exec(&group_cmd, argc, argv);
	close(group_args.rootfd);
out:
	free(group_args.parts.v);
	return rc;
}
