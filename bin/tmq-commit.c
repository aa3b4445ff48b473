/* tmq-commit: record how far a group got, from arguments or a pipe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "groupinfo.h"
#include "root.h"

enum { OPT_NEXT = 256 };

static const struct tmq_option options[] = {
	{ "next", OPT_NEXT, NULL, TMQ_ARG_NONE,
	    "the numbers are positions to resume at, not offsets done" },
	{ "topic", 't', "TOPIC", TMQ_ARG_TOPIC,
	    "the group's topic, for groups the library created" },
	TMQ_COMMON_OPTIONS,
	{ 0 }
};

static const struct tmq_cmd cmd = {
	"tmq-commit",
	"[--next] [-t TOPIC] GROUP [PARTITION OFFSET]...",
	"Record that a group is done with each PARTITION up to and including "
	"OFFSET; pairs come from the arguments or, one a line, from standard "
	"input.",
	"group",
	options
};

struct pairs {
	int64_t *best;		/* per partition, -1 when none given */
	unsigned nparts;
	int any;
};

/* Take one "PARTITION OFFSET" pair. */
static int
take(struct pairs *pp, const char *ps, const char *os, int next,
    const char *where, unsigned long n)
{
	struct tmq_error e;
	uint64_t p, o;

	if (tmq_parse_u64(ps, 0, UINT32_MAX, &p, &e) < 0 ||
	    tmq_parse_u64(os, 0, INT64_MAX - 1, &o, &e) < 0) {
		tmq_warn(&cmd, "%s %lu: %s", where, n, e.msg);
		return -1;
	}
	if (p >= pp->nparts) {
		tmq_warn(&cmd, "%s %lu: partition %llu does not exist (topic has "
		    "%u)", where, n, (unsigned long long)p, pp->nparts);
		return -1;
	}
	if (!next)
		o++;		/* done up to o: resume at o + 1 */
	if ((int64_t)o > pp->best[p])
		pp->best[p] = (int64_t)o;
	pp->any = 1;
	return 0;
}

static int
read_pairs(struct pairs *pp, int next)
{
	char *line = NULL, *save, *a, *b;
	size_t cap = 0;
	unsigned long n = 0;
	int bad = 0;

	while (getline(&line, &cap, stdin) >= 0) {
		n++;
		a = strtok_r(line, " \t\r\n", &save);
		if (a == NULL)
			continue;	/* blank lines are harmless */
		b = strtok_r(NULL, " \t\r\n", &save);
		if (b == NULL || strtok_r(NULL, " \t\r\n", &save) != NULL) {
			tmq_warn(&cmd, "line %lu: want PARTITION OFFSET", n);
			bad = 1;
			continue;
		}
		if (take(pp, a, b, next, "line", n) < 0)
			bad = 1;
	}
	free(line);
	return bad ? -1 : 0;
}

int
main(int argc, char **argv)
{
	struct tmq_error e;
	struct tmq_group g;
	struct tmq_topic t;
	struct tmq_ginfo gi;
	struct pairs pp = { 0 };
	struct tmq_poff *po;
	const char *root = NULL, *topic = NULL, *group;
	char *path;
	unsigned p, n = 0;
	int c, fd, next = 0, bad = 0, i;

	while ((c = tmq_getopt(&cmd, argc, argv)) != -1) {
		switch (c) {
		case OPT_NEXT: next = 1; break;
		case 't': topic = optarg; break;
		case 'd': root = optarg; break;
		case TMQ_OPT_DONE: return TMQ_EXIT_OK;
		default: return TMQ_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return tmq_usage_error(&cmd, "missing group");
	group = argv[optind++];
	if ((argc - optind) % 2 != 0)
		return tmq_usage_error(&cmd, "PARTITION without OFFSET");
	if (tmq_root_path(root, &path, &e) < 0 ||
	    tmq_root_open(path, 0, &fd, &e) < 0)
		return tmq_report(&cmd, &e);
	free(path);
	if (tmq_group_open(fd, group, topic, &g, &e) < 0)
		return tmq_report(&cmd, &e);
	if (g.topic == NULL) {
		tmq_group_close(&g);
		tmq_warn(&cmd, "%s: the group's topic is not recorded: name it "
		    "with -t", group);
		return TMQ_EXIT_FAIL;
	}
	if (tmq_topic_open(fd, g.topic, &t, &e) < 0) {
		tmq_group_close(&g);
		return tmq_report(&cmd, &e);
	}
	close(fd);
	pp.nparts = t.partitions;
	pp.best = malloc(t.partitions * sizeof *pp.best);
	if (pp.best == NULL)
		return TMQ_EXIT_FAIL;
	for (p = 0; p < t.partitions; p++)
		pp.best[p] = -1;
	if (optind < argc) {
		for (i = optind; i < argc; i += 2)
			if (take(&pp, argv[i], argv[i + 1], next, "pair",
			    (unsigned long)(i - optind) / 2 + 1) < 0)
				bad = 1;
	} else if (read_pairs(&pp, next) < 0)
		bad = 1;
	/* Nothing is written unless every pair is good. */
	if (!bad && pp.any) {
		if (tmq_ginfo_build(&g, &t, &gi, &e) < 0) {
			tmq_report(&cmd, &e);
			bad = 1;
		} else {
			for (p = 0; p < t.partitions; p++)
				if (pp.best[p] > (int64_t)gi.parts[p].end) {
					tmq_warn(&cmd, "%s: partition %u: offset "
					    "%lld is beyond the end (%llu)", group,
					    p, (long long)pp.best[p] - !next,
					    (unsigned long long)gi.parts[p].end);
					bad = 1;
				}
			tmq_ginfo_free(&gi);
		}
	}
	if (!bad && pp.any) {
		po = malloc(t.partitions * sizeof *po);
		if (po == NULL)
			return TMQ_EXIT_FAIL;
		for (p = 0; p < t.partitions; p++)
			if (pp.best[p] >= 0) {
				po[n].partition = p;
				po[n++].offset = pp.best[p];
			}
		if (tmq_group_commit(&g, 0, po, n, &e) < 0) {
			tmq_report(&cmd, &e);
			bad = 1;
		}
		free(po);
	}
	free(pp.best);
	tmq_topic_close(&t);
	tmq_group_close(&g);
	return bad ? TMQ_EXIT_FAIL : TMQ_EXIT_OK;
}
