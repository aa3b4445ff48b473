/* tmq-commit: record how far a group got, from arguments or a pipe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "groupinfo.h"
#include "names.h"
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

/* The pairs read so far: per partition the highest position, and which
 * pair (or line) first named it, for messages. */
struct pairs {
	int64_t *best;
	unsigned long *first;
	unsigned n;
	const char *where;	/* "pair" or "line" */
	int any;
};

/* Take one "PARTITION OFFSET" pair.  Partitions are checked against the
 * topic once all are read: in a pipeline the group may not exist yet when
 * the first pair arrives (its first member creates it). */
static int
take(struct pairs *pp, const char *ps, const char *os, int next,
    unsigned long recno)
{
	struct tmq_error e;
	uint64_t p, o;

	if (tmq_parse_u64(ps, 0, UINT32_MAX, &p, &e) < 0 ||
	    tmq_parse_u64(os, 0, INT64_MAX - 1, &o, &e) < 0) {
		tmq_warn(&cmd, "%s %lu: %s", pp->where, recno, e.msg);
		return -1;
	}
	if (p >= TMQ_MAX_PARTITIONS) {
		tmq_warn(&cmd, "%s %lu: partition %llu does not exist",
		    pp->where, recno, (unsigned long long)p);
		return -1;
	}
	if (p >= pp->n) {
		int64_t *nb = realloc(pp->best, (p + 1) * sizeof *nb);
		unsigned long *nf = realloc(pp->first, (p + 1) * sizeof *nf);
		unsigned k;

		if (nb != NULL)
			pp->best = nb;
		if (nf != NULL)
			pp->first = nf;
		if (nb == NULL || nf == NULL) {
			tmq_warn(&cmd, "out of memory");
			return -1;
		}
		for (k = pp->n; k <= p; k++) {
			pp->best[k] = -1;
			pp->first[k] = 0;
		}
		pp->n = (unsigned)p + 1;
	}
	if (!next)
		o++;		/* done up to o: resume at o + 1 */
	if (pp->first[p] == 0)
		pp->first[p] = recno;
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

	pp->where = "line";
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
		if (take(pp, a, b, next, n) < 0)
			bad = 1;
	}
	free(line);
	return bad ? -1 : 0;
}

/* Every partition exists and no position is past the end. */
static int
check(const struct pairs *pp, const struct tmq_group *g,
    const struct tmq_topic *t, const char *group, int next)
{
	struct tmq_ginfo gi;
	struct tmq_error e;
	unsigned p;
	int bad = 0;

	for (p = t->partitions; p < pp->n; p++)
		if (pp->best[p] >= 0) {
			tmq_warn(&cmd, "%s %lu: partition %u does not exist "
			    "(topic has %u)", pp->where, pp->first[p], p,
			    t->partitions);
			bad = 1;
		}
	if (bad)
		return -1;
	if (tmq_ginfo_build(g, t, &gi, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	for (p = 0; p < pp->n; p++)
		if (pp->best[p] > (int64_t)gi.parts[p].end) {
			tmq_warn(&cmd, "%s: partition %u: offset %lld is beyond "
			    "the end (%llu)", group, p,
			    (long long)pp->best[p] - !next,
			    (unsigned long long)gi.parts[p].end);
			bad = 1;
		}
	tmq_ginfo_free(&gi);
	return bad ? -1 : 0;
}

static int
commit(const struct pairs *pp, struct tmq_group *g)
{
	struct tmq_error e;
	struct tmq_poff *po;
	unsigned p, n = 0;
	int rc;

	po = malloc((pp->n ? pp->n : 1) * sizeof *po);
	if (po == NULL)
		return tmq_warn(&cmd, "out of memory"), -1;
	for (p = 0; p < pp->n; p++)
		if (pp->best[p] >= 0) {
			po[n].partition = p;
			po[n++].offset = pp->best[p];
		}
	rc = tmq_group_commit(g, 0, po, n, &e);
	free(po);
	return rc < 0 ? (tmq_report(&cmd, &e), -1) : 0;
}

int
main(int argc, char **argv)
{
	struct tmq_error e;
	struct tmq_group g;
	struct tmq_topic t;
	struct pairs pp = { NULL, NULL, 0, "pair", 0 };
	const char *root = NULL, *topic = NULL, *group;
	char *path;
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
	if (tmq_group_name_check(group, &e) < 0)
		return tmq_report(&cmd, &e);
	if (optind < argc) {
		for (i = optind; i < argc; i += 2)
			if (take(&pp, argv[i], argv[i + 1], next,
			    (unsigned long)(i - optind) / 2 + 1) < 0)
				bad = 1;
	} else if (read_pairs(&pp, next) < 0)
		bad = 1;
	if (bad || !pp.any)
		goto out;	/* nothing is written unless every pair is good */
	if (tmq_root_path(root, &path, &e) < 0 ||
	    tmq_root_open(path, 0, &fd, &e) < 0) {
		bad = tmq_report(&cmd, &e);
		goto out;
	}
	free(path);
	if (tmq_group_open(fd, group, topic, &g, &e) < 0) {
		close(fd);
		bad = tmq_report(&cmd, &e);
		goto out;
	}
	if (g.topic == NULL) {
		tmq_warn(&cmd, "%s: the group's topic is not recorded: name it "
		    "with -t", group);
		bad = 1;
	} else if (tmq_topic_open(fd, g.topic, &t, &e) < 0)
		bad = tmq_report(&cmd, &e);
	else {
		if (tmq_group_replay(&g, &e) < 0)
			bad = tmq_report(&cmd, &e);
		else if (check(&pp, &g, &t, group, next) < 0 ||
		    commit(&pp, &g) < 0)
			bad = 1;
		tmq_topic_close(&t);
	}
	tmq_group_close(&g);
	close(fd);
out:
	free(pp.best);
	free(pp.first);
	return bad ? TMQ_EXIT_FAIL : TMQ_EXIT_OK;
}
