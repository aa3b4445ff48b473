/* tmq-commit: record how far a group got, from arguments or a pipe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "group.h"
#include "grow.h"
#include "partfile.h"
#include "partscan.h"
#include "names.h"
#include "records.h"
#include "root.h"

/* Where the commits go, opened at the first commit: in a pipeline the
 * group's first member creates it while we wait for input. */
struct target {
	const char *root, *group, *topic;
	int next, open, fd;
	struct tmq_group g;
	struct tmq_topic t;
};

/* Where the options go, and the commits. */
static struct target dest;

static const struct tmq_option options[] = {
	{ .lng = "next",
	    .help = "the numbers are positions to resume at, not offsets done",
	    .flag = &dest.next },
	{ .lng = "topic", .shrt = 't', .arg = "TOPIC", .kind = TMQ_ARG_TOPIC,
	    .help = "the group's topic, for groups the TwainMQ library created",
	    .str = &dest.topic },
	TMQ_COMMON_OPTIONS(&dest.root),
	{ 0 }
};

static const struct tmq_cmd cmd = {
	.name = "tmq-commit",
	.usage = "[--next] [-t TOPIC] GROUP [PARTITION OFFSET]...",
	.summary = "Record that a group is done with each PARTITION up to and "
	    "including OFFSET; pairs come from the arguments or, one a line, "
	    "from standard input (committed whenever the input pauses).",
	.operands = "group",
	.opts = options,
	/* "tmq-commit G 0 -1" is an offset, if a bad one, not an option. */
	.negative_operands = 1,
};

/* The pairs of the batch being read, each with the pair (or line) that
 * gave it, for messages; and per partition the highest position. */
struct pair {
	char *bad;		/* what is wrong with it, or NULL */
	unsigned long recno;
	unsigned partition;
	int64_t pos;		/* where to resume */
};

struct pairs {
	struct pair *v;
	size_t n, cap;
	const char *where;	/* "pair" or "line" */
	int any;
};

/* Take one "PARTITION OFFSET" pair (ps NULL: a line that is not a pair).
 * Partitions are checked against the topic once the batch is read: in a
 * pipeline the group may not exist yet when the first pair arrives (its
 * first member creates it).  A bad pair is kept with its message, so that
 * every bad pair is reported in input order. */
static int
take(struct pairs *pp, const char *ps, const char *os, int next,
    unsigned long recno)
{
	struct tmq_error e;
	uint64_t p = 0, o = 0;
	int rc = 0;

	if (tmq_grow(&pp->v, &pp->cap, pp->n + 1, sizeof *pp->v) < 0) {
		tmq_warn(&cmd, "out of memory");
		return -1;
	}
	pp->v[pp->n].bad = NULL;
	if (ps == NULL)
		rc = tmq_fail(&e, "want PARTITION OFFSET");
	else if (ps[0] == '-' && ps[1] != '\0' &&
	    strspn(ps + 1, "0123456789") == strlen(ps + 1))
		rc = tmq_fail(&e, "partition '%.40s' is negative", ps);
	else if (os[0] == '-' && os[1] != '\0' &&
	    strspn(os + 1, "0123456789") == strlen(os + 1))
		rc = tmq_fail(&e, "offset '%.40s' is negative", os);
	else if (tmq_parse_u64(ps, 0, UINT32_MAX, &p, &e) < 0 ||
	    tmq_parse_u64(os, 0, INT64_MAX - 1, &o, &e) < 0)
		rc = -1;
	else if (p >= TMQ_MAX_PARTITIONS)
		rc = tmq_fail(&e, "partition %llu does not exist",
		    (unsigned long long)p);
	if (rc < 0 && (pp->v[pp->n].bad = strdup(e.msg)) == NULL) {
		tmq_warn(&cmd, "out of memory");
		return -1;
	}
	pp->v[pp->n].recno = recno;
	pp->v[pp->n].partition = (unsigned)p;
	/* Done up to o: resume at o + 1. */
	pp->v[pp->n++].pos = (int64_t)o + !next;
	pp->any = 1;
	return rc;
}

/* Every pair is well formed, names a partition the topic has and a
 * position not past its end; each bad pair is reported, in input order.
 * Without the topic (t NULL: the group could not be opened), only the
 * pairs' own form is checked. */
static int
check(const struct pairs *pp, const struct tmq_topic *t, int next)
{
	struct tmq_error e;
	uint64_t *end = NULL;
	size_t i;
	int bad = 0;

	if (t != NULL && (end = malloc(t->partitions * sizeof *end)) == NULL)
		return tmq_warn(&cmd, "out of memory"), -1;
	/* Only the last file of each partition named needs counting. */
	for (i = 0; t != NULL && i < t->partitions; i++)
		end[i] = UINT64_MAX;
	for (i = 0; i < pp->n; i++) {
		const struct pair *pr = &pp->v[i];

		if (pr->bad != NULL) {
			tmq_warn(&cmd, "%s %lu: %s", pp->where, pr->recno,
			    pr->bad);
			bad = 1;
			continue;
		}
		if (t == NULL)
			continue;
		if (pr->partition >= t->partitions) {
			tmq_warn(&cmd, "%s %lu: partition %u does not exist "
			    "(topic has %u)", pp->where, pr->recno,
			    pr->partition, t->partitions);
			bad = 1;
			continue;
		}
		if (end[pr->partition] == UINT64_MAX &&
		    tmq_partition_end(t, pr->partition,
		    &end[pr->partition], &e) < 0) {
			free(end);
			return tmq_report(&cmd, &e), -1;
		}
		if (pr->pos > (int64_t)end[pr->partition]) {
			tmq_warn(&cmd, "%s %lu: partition %u: offset %lld is "
			    "beyond the end (%llu)", pp->where, pr->recno,
			    pr->partition, (long long)pr->pos - !next,
			    (unsigned long long)end[pr->partition]);
			bad = 1;
		}
	}
	free(end);
	return bad ? -1 : 0;
}

/* One COMMIT of the highest position given for each partition. */
static int
commit(const struct pairs *pp, struct tmq_group *g)
{
	struct tmq_error e;
	struct tmq_poff *po;
	int64_t *best;
	unsigned p, n = 0, np = 0;
	size_t i;
	int rc;

	for (i = 0; i < pp->n; i++)
		if (pp->v[i].partition >= np)
			np = pp->v[i].partition + 1;
	best = malloc((np ? np : 1) * sizeof *best);
	po = malloc((np ? np : 1) * sizeof *po);
	if (best == NULL || po == NULL) {
		free(best);
		free(po);
		return tmq_warn(&cmd, "out of memory"), -1;
	}
	for (p = 0; p < np; p++)
		best[p] = -1;
	for (i = 0; i < pp->n; i++)
		if (pp->v[i].pos > best[pp->v[i].partition])
			best[pp->v[i].partition] = pp->v[i].pos;
	for (p = 0; p < np; p++)
		if (best[p] >= 0) {
			po[n].partition = p;
			po[n++].offset = best[p];
		}
	rc = tmq_group_commit(g, 0, po, n, &e);
	free(best);
	free(po);
	return rc < 0 ? (tmq_report(&cmd, &e), -1) : 0;
}


/* Quiet: nothing is to be written anyway (a pair was bad), so a group that
 * cannot be opened is not worth a message of its own. */
static int
open_target(struct target *tg, int quiet)
{
	struct tmq_error e;

	if (tmq_root_open_opt(tg->root, 0, &tg->fd, &e) < 0)
		return quiet ? -1 : (tmq_report(&cmd, &e), -1);
	if (tmq_group_open(tg->fd, tg->group, tg->topic, &tg->g, &e) < 0) {
		close(tg->fd);
		return quiet ? -1 : (tmq_report(&cmd, &e), -1);
	}
	if (tg->g.topic == NULL) {
		if (!quiet)
			tmq_warn(&cmd, "%s: the group's topic is not recorded: "
			    "name it with -t", tg->group);
		goto bad;
	}
	if (tmq_topic_open(tg->fd, tg->g.topic, &tg->t, &e) < 0) {
		if (!quiet)
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

/* Check what was taken and, unless a pair was bad (now or before: bad),
 * write it as one COMMIT; then start afresh.  After a bad pair the rest is
 * still checked, so that every bad pair is reported. */
static int
flush_pairs(struct pairs *pp, struct target *tg, int bad)
{
	size_t i;
	int rc = 0;

	if (!pp->any)
		return 0;
	for (i = 0; i < pp->n; i++)
		if (pp->v[i].bad != NULL)
			bad = 1;
	if (!tg->open && open_target(tg, bad) < 0)
		rc = -1;
	if (check(pp, tg->open ? &tg->t : NULL, tg->next) < 0 ||
	    (rc == 0 && !bad && commit(pp, &tg->g) < 0))
		rc = -1;
	for (i = 0; i < pp->n; i++)
		free(pp->v[i].bad);
	pp->n = 0;
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
	while ((rc = tmq_records_next(&rr, pp->any, &rec, &n, &e)) !=
	    TMQ_REC_EOF) {
		if (rc < 0) {
			tmq_warn(&cmd, "standard input: %s", e.msg);
			bad = 1;
			break;
		}
		if (rc == TMQ_REC_WAIT) {
			if (flush_pairs(pp, tg, bad) < 0)
				bad = 1;
			continue;
		}
		if (rc == TMQ_REC_TOOLONG) {
			if (take(pp, NULL, NULL, tg->next, rr.recno) < 0)
				bad = 1;
			continue;
		}
		memcpy(line, rec, n);
		line[n] = '\0';
		a = strtok_r(line, " \t\r", &save);
		if (a == NULL)
			continue;	/* blank lines are harmless */
		b = strtok_r(NULL, " \t\r", &save);
		if (b == NULL || strtok_r(NULL, " \t\r", &save) != NULL)
			a = NULL;
		if (take(pp, a, b, tg->next, rr.recno) < 0)
			bad = 1;
	}
	tmq_records_close(&rr);
	if (flush_pairs(pp, tg, bad) < 0)
		bad = 1;
	return bad ? -1 : 0;
}

int
main(int argc, char **argv)
{
	struct tmq_error e;
	struct pairs pp = { .where = "pair" };
	int rc, bad = 0, i;

	tmq_start(&cmd);
	if ((rc = tmq_options(&cmd, argc, argv)) >= 0)
		return rc;
	if (optind >= argc)
		return tmq_usage_error(&cmd, "missing group");
	dest.group = argv[optind++];
	if ((argc - optind) % 2 != 0)
		return tmq_usage_error(&cmd, "PARTITION without OFFSET");
	if (tmq_group_name_check(dest.group, &e) < 0)
		return tmq_report(&cmd, &e);
	if (optind < argc) {
		/* Nothing is written unless every pair is good. */
		for (i = optind; i < argc; i += 2)
			if (take(&pp, argv[i], argv[i + 1], dest.next,
			    (unsigned long)(i - optind) / 2 + 1) < 0)
				bad = 1;
		if (flush_pairs(&pp, &dest, bad) < 0)
			bad = 1;
	} else if (read_pairs(&pp, &dest) < 0)
		bad = 1;
	if (dest.open) {
		tmq_topic_close(&dest.t);
		tmq_group_close(&dest.g);
		close(dest.fd);
	}
	free(pp.v);
	return bad ? TMQ_EXIT_FAIL : TMQ_EXIT_OK;
}
