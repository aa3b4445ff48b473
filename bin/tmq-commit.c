/* tmq-commit: record how far a group got, from arguments or a pipe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "group.h"
#include "partfile.h"
#include "names.h"
#include "records.h"
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
	"input (committed whenever the input pauses).",
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

/* Every partition exists and no position is past the end. */
static int
check(const struct pairs *pp, const struct tmq_topic *t, const char *group,
    int next)
{
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
	/* Only the last file of each partition named needs counting. */
	for (p = 0; p < pp->n; p++) {
		uint64_t end;

		if (pp->best[p] < 0)
			continue;
		if (tmq_partition_end(t->dirfd, p, &end, &e) < 0)
			return tmq_report(&cmd, &e), -1;
		if (pp->best[p] > (int64_t)end) {
			tmq_warn(&cmd, "%s: partition %u: offset %lld is beyond "
			    "the end (%llu)", group, p,
			    (long long)pp->best[p] - !next,
			    (unsigned long long)end);
			bad = 1;
		}
	}
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

/* Where the commits go, opened at the first commit: in a pipeline the
 * group's first member creates it while we wait for input. */
struct target {
	const char *root, *group, *topic;
	int next, open, fd;
	struct tmq_group g;
	struct tmq_topic t;
};

static int
open_target(struct target *tg)
{
	struct tmq_error e;

	if (tmq_root_open_opt(tg->root, 0, &tg->fd, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	if (tmq_group_open(tg->fd, tg->group, tg->topic, &tg->g, &e) < 0) {
		close(tg->fd);
		return tmq_report(&cmd, &e), -1;
	}
	if (tg->g.topic == NULL) {
		tmq_warn(&cmd, "%s: the group's topic is not recorded: name it "
		    "with -t", tg->group);
		goto bad;
	}
	if (tmq_topic_open(tg->fd, tg->g.topic, &tg->t, &e) < 0) {
		tmq_report(&cmd, &e);
		goto bad;
	}
	tg->open = 1;
	return 0;
bad:
	tmq_group_close(&tg->g);
	close(tg->fd);
	return -1;
}

/* Check and write what was taken, as one COMMIT; then start afresh. */
static int
flush_pairs(struct pairs *pp, struct target *tg)
{
	unsigned p;
	int rc;

	if (!pp->any)
		return 0;
	if (!tg->open && open_target(tg) < 0)
		return -1;
	rc = check(pp, &tg->t, tg->group, tg->next) < 0 ||
	    commit(pp, &tg->g) < 0 ? -1 : 0;
	for (p = 0; p < pp->n; p++)
		pp->best[p] = -1;
	pp->any = 0;
	return rc;
}

/* Pairs from stdin, one a line.  A batch is committed whenever the input
 * has nothing more ready (and at its end), so that `tmq-get -f ... |
 * tmq-commit G` commits as it goes.  After a bad line nothing more is
 * written; the rest is still read, to report every bad line. */
static int
read_pairs(struct pairs *pp, struct target *tg)
{
	struct tmq_records rr;
	struct tmq_error e;
	const char *rec;
	char line[256], *save, *a, *b;
	size_t n;
	int rc, bad = 0;

	pp->where = "line";
	if (tmq_records_open(&rr, STDIN_FILENO, '\n', sizeof line - 1, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	while ((rc = tmq_records_next(&rr, pp->any && !bad, &rec, &n, &e)) !=
	    TMQ_REC_EOF) {
		if (rc < 0) {
			tmq_warn(&cmd, "%s", e.msg);
			bad = 1;
			break;
		}
		if (rc == TMQ_REC_WAIT) {
			if (flush_pairs(pp, tg) < 0)
				bad = 1;
			continue;
		}
		if (rc == TMQ_REC_TOOLONG) {
			tmq_warn(&cmd, "line %lu: want PARTITION OFFSET",
			    rr.recno);
			bad = 1;
			continue;
		}
		memcpy(line, rec, n);
		line[n] = '\0';
		a = strtok_r(line, " \t\r", &save);
		if (a == NULL)
			continue;	/* blank lines are harmless */
		b = strtok_r(NULL, " \t\r", &save);
		if (b == NULL || strtok_r(NULL, " \t\r", &save) != NULL) {
			tmq_warn(&cmd, "line %lu: want PARTITION OFFSET",
			    rr.recno);
			bad = 1;
			continue;
		}
		if (take(pp, a, b, tg->next, rr.recno) < 0)
			bad = 1;
	}
	tmq_records_close(&rr);
	if (!bad && flush_pairs(pp, tg) < 0)
		bad = 1;
	return bad ? -1 : 0;
}

int
main(int argc, char **argv)
{
	struct tmq_error e;
	struct pairs pp = { NULL, NULL, 0, "pair", 0 };
	struct target tg;
	int c, bad = 0, i;

	memset(&tg, 0, sizeof tg);
	while ((c = tmq_getopt(&cmd, argc, argv)) != -1) {
		switch (c) {
		case OPT_NEXT: tg.next = 1; break;
		case 't': tg.topic = optarg; break;
		case 'd': tg.root = optarg; break;
		case TMQ_OPT_DONE: return TMQ_EXIT_OK;
		default: return TMQ_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return tmq_usage_error(&cmd, "missing group");
	tg.group = argv[optind++];
	if ((argc - optind) % 2 != 0)
		return tmq_usage_error(&cmd, "PARTITION without OFFSET");
	if (tmq_group_name_check(tg.group, &e) < 0)
		return tmq_report(&cmd, &e);
	if (optind < argc) {
		/* Nothing is written unless every pair is good. */
		for (i = optind; i < argc; i += 2)
			if (take(&pp, argv[i], argv[i + 1], tg.next,
			    (unsigned long)(i - optind) / 2 + 1) < 0)
				bad = 1;
		if (!bad && flush_pairs(&pp, &tg) < 0)
			bad = 1;
	} else if (read_pairs(&pp, &tg) < 0)
		bad = 1;
	if (tg.open) {
		tmq_topic_close(&tg.t);
		tmq_group_close(&tg.g);
		close(tg.fd);
	}
	free(pp.best);
	free(pp.first);
	return bad ? TMQ_EXIT_FAIL : TMQ_EXIT_OK;
}
