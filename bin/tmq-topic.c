/* tmq-topic: create, list, describe, locate keys in, prune and delete
 * topics.  Here the tool's tables and main; the subcommands' bodies are
 * their entries' execs (topic.h). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/metrics.h"
#include "store/root.h"
#include "topic.h"

enum { CREATE, LIST, INFO, PARTITION, PRUNE, DELETE };

/* An entry per subcommand: its name, operands and help, and its exec
 * (topic.h), the body, in topic-NAME.c.  The options that each takes are
 * bound in the table below, by TMQ_ON. */
static const struct tmq_subcmd subs[] = {
	[CREATE] = { .name = "create", .operands = "NAME", .min = 1, .max = 1,
	    .missing = "topic name",
	    .help = "create the topic NAME (and the root)",
	    .exec = topic_create },
	[LIST] = { .name = "list", .operands = "",
	    .help = "list the topics of the root", .exec = topic_list },
	[INFO] = { .name = "info", .operands = "NAME", .min = 1, .max = 1,
	    .missing = "topic name",
	    .help = "describe a topic: its partitions, files, offsets and "
	    "times", .exec = topic_info },
	[PARTITION] = { .name = "partition", .operands = "NAME [KEY...]",
	    .min = 1, .max = -1, .missing = "topic name",
	    .help = "print the partition of each KEY (or line of stdin)",
	    .exec = topic_partition },
	[PRUNE] = { .name = "prune", .operands = "NAME", .min = 1, .max = 1,
	    .missing = "topic name",
	    .help = "remove (or archive) the day files older than a date",
	    .exec = topic_prune },
	[DELETE] = { .name = "delete", .operands = "NAME", .min = 1, .max = 1,
	    .missing = "topic name",
	    .help = "delete a topic and all its messages",
	    .exec = topic_delete },
	{ 0 }
};

/* What the options set (topic.h). */
struct topic_args topic_args = { .partitions = 1, .width = 2 };

static int
set_keytype(const char *arg, struct tmq_error *e)
{
	return tmq_keytype_parse(arg, &topic_args.width, e);
}

static int
set_max_message(const char *arg, struct tmq_error *e)
{
	return tmq_parse_size(arg, 1, TMQ_MAX_MESSAGE_LIMIT, &topic_args.max_message,
	    e);
}

/* The order here is the order of the usage lines' options. */
static const struct tmq_option options[] = {
	{ .lng = "key-type", .shrt = 'k', .arg = "TYPE",
	    .kind = TMQ_ARG_KEYTYPE, .help = "u8, u16 (default), u32, u64 or "
	    "charN", .on = TMQ_ON(CREATE), .call = set_keytype },
	{ .lng = "partitions", .shrt = 'p', .arg = "N", .kind = TMQ_ARG_WORD,
	    .help = "number of partitions (default 1)", .on = TMQ_ON(CREATE),
	    .num = &topic_args.partitions, .min = 1, .max = TMQ_MAX_PARTITIONS },
	{ .lng = "types", .shrt = 't', .arg = "A,B,...", .kind = TMQ_ARG_WORD,
	    .help = "names of the typed messages the topic carries",
	    .on = TMQ_ON(CREATE), .words = &topic_args.types },
	{ .lng = "max-message", .arg = "SIZE", .kind = TMQ_ARG_WORD,
	    .help = "take payloads up to SIZE (K, M; at most 256M), those too "
	    "long for a line kept in blob files", .on = TMQ_ON(CREATE),
	    .call = set_max_message },
	{ .lng = "if-not-exists",
	    .help = "a topic of the same definition there already is no error",
	    .on = TMQ_ON(CREATE), .flag = &topic_args.if_not_exists },
	{ .lng = "long", .shrt = 'l',
	    .help = "add key type, partitions, messages and bytes",
	    .on = TMQ_ON(LIST), .flag = &topic_args.lng },
	{ .lng = "json", .help = "print JSON", .on = TMQ_ON(LIST) | TMQ_ON(INFO),
	    .flag = &topic_args.json },
	{ .lng = "ends",
	    .help = "print only the end offsets, as P=OFFSET,... (tmq-get "
	    "--from)", .on = TMQ_ON(INFO), .flag = &topic_args.ends },
	{ .lng = "prometheus",
	    .help = "print Prometheus metrics (node_exporter's textfile format)",
	    .on = TMQ_ON(LIST), .flag = &topic_args.prom },
	{ .lng = "null", .shrt = '0',
	    .help = "keys on stdin end with NUL, not newline",
	    .on = TMQ_ON(PARTITION), .flag = &topic_args.null },
	/* Read when prune runs: a usage error before it is about the
	 * command line as a whole. */
	{ .lng = "before", .arg = "DATE", .kind = TMQ_ARG_TIME, .whole = 1,
	    .help = "day files older than the day of DATE go (a TIME, tmq(7): "
	    "ISO 8601, @SECONDS, 7d ago)", .on = TMQ_ON(PRUNE),
	    .needs = TMQ_ON(PRUNE), .str = &topic_args.before },
	{ .lng = "archive", .arg = "DIR", .kind = TMQ_ARG_DIR,
	    .help = "move the files to the root DIR (DIR/NAME/) instead",
	    .on = TMQ_ON(PRUNE), .str = &topic_args.archive },
	{ .lng = "dry-run", .help = "print what would go, change nothing",
	    .on = TMQ_ON(PRUNE), .flag = &topic_args.dry },
	{ .lng = "keep-unread",
	    .help = "keep the files that hold messages a group of the topic "
	    "has not read", .on = TMQ_ON(PRUNE), .flag = &topic_args.keep_unread },
	{ .lng = "yes", .shrt = 'y', .whole = 1, .help = "do not ask",
	    .on = TMQ_ON(DELETE), .flag = &topic_args.yes },
	{ .lng = "with-groups", .whole = 1,
	    .help = "delete the groups that read the topic too",
	    .on = TMQ_ON(DELETE), .flag = &topic_args.with_groups },
	TMQ_COMMON_OPTIONS(&topic_args.root),
	{ 0 }
};

const struct tmq_cmd topic_cmd = {
	.name = "tmq-topic",
	.summary = "Create, list, describe, locate keys in, prune and delete "
	    "the topics of a tmq root.",
	.opts = options,
	.subs = subs,
	.sub = &topic_args.sub,
};

int
topic_open_root(const struct topic_args *a, int create, int *fd)
{
	struct tmq_error e;

	if (tmq_root_open_opt(a->root, create, fd, &e) < 0)
		return tmq_report(&topic_cmd, &e), -1;
	return 0;
}

/* Say the partitions that could not be read, and those with holes in
 * their files (counted all the same); how many. */
unsigned
topic_say_problems(const struct tmq_partstat *ps, unsigned n)
{
	unsigned p, bad = 0;

	for (p = 0; p < n; p++) {
		const char *why = ps[p].problem != NULL ? ps[p].problem :
		    ps[p].damage;

		if (why != NULL) {
			if (bad++ == 0)
				tmq_flush_stdout();
			tmq_warn(&topic_cmd, "%s", why);
		}
	}
	return bad;
}

int
main(int argc, char **argv)
{
	int rc;

	tmq_start(&topic_cmd);
	if ((rc = tmq_options(&topic_cmd, argc, argv)) >= 0)
		goto out;
	if (topic_args.ends && topic_args.json) {
		rc = tmq_usage_error(&topic_cmd, "--ends and --json exclude "
		    "each other");
		goto out;
	}
	if (topic_args.prom && (topic_args.json || topic_args.lng)) {
		rc = tmq_usage_error(&topic_cmd, "--prometheus and %s exclude "
		    "each other", topic_args.json ? "--json" : "-l");
		goto out;
	}
	rc = tmq_subcmd_exec(&topic_cmd, argc, argv);
out:
	free(topic_args.types.v);
	return rc;
}
