/* tmq-commit: record how far a group got, from arguments or a pipe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "group/commitpairs.h"
#include "group/groupadmin.h"
#include "codec/names.h"
#include "flow/records.h"
#include "store/root.h"

/* Where the commits go, opened at the first commit: in a pipeline the
 * group's first member creates it while we wait for input. */
struct target {
	const char *root, *group, *topic;
	int open, fd;
	struct tmq_group g;
	struct tmq_topic t;
};

/* Where the options go, and the commits; the batch of pairs. */
static struct target dest;
static struct tmq_cpairs pairs;

static const struct tmq_option options[] = {
	{ .lng = "next",
	    .help = "the numbers are positions to resume at, not offsets done",
	    .flag = &pairs.next },
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

/* What a pair is called in messages: "pair" (operands) or "line". */
static const char *where = "pair";

/* Operands: every bad pair is said.  Standard input: only the first, and
 * its number is kept (first), for what comes before it is committed. */
struct badness {
	int first_only;
	unsigned long first;	/* the first bad pair's number, or 0 */
};

static void
say_bad(void *arg, const struct tmq_cpair *pr, const char *msg)
{
	struct badness *b = arg;

	if (b->first != 0 && b->first_only)
		return;
	if (b->first == 0)
		b->first = pr->recno;
	tmq_warn(&cmd, "%s %lu: %s", where, pr->recno, msg);
}

/* Take one pair; 0, or -1 when it is bad (said with the batch) or memory
 * ran out (said now). */
static int
take(const char *ps, const char *os, unsigned long recno)
{
	struct tmq_error e;
	int rc = tmq_cpairs_take(&pairs, ps, os, recno, &e);

	if (rc < 0)
		tmq_report(&cmd, &e);
	return rc != 0 ? -1 : 0;
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
	if (tmq_group_open_topic(tg->fd, &tg->g, &tg->t, &e) < 0) {
		if (!quiet)
			tmq_report(&cmd, &e);
		tmq_group_close(&tg->g);
		close(tg->fd);
		return -1;
	}
	tg->open = 1;
	return 0;
}

/* One COMMIT of the highest position given for each partition. */
static int
commit(struct tmq_group *g)
{
	struct tmq_error e;
	struct tmq_poff *po;
	unsigned n;
	int rc;

	if (tmq_cpairs_reduce(&pairs, &po, &n, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	rc = tmq_group_commit(g, 0, po, n, &e);
	free(po);
	return rc < 0 ? (tmq_report(&cmd, &e), -1) : 0;
}

/* Check what was taken and write it as one COMMIT; then start afresh.
 * Operands (bad is where a pair was bad already): nothing unless every
 * pair is good, and every bad pair is said.  Standard input (upto): the
 * pairs before the first bad one are committed, and that one is said. */
static int
flush_pairs(struct target *tg, int bad, int upto)
{
	struct badness b = { .first_only = upto };
	struct tmq_error e;
	size_t i;
	int rc = 0, checked;

	if (pairs.n == 0)
		return 0;
	for (i = 0; i < pairs.n; i++)
		if (pairs.v[i].bad != NULL)
			bad = 1;
	/* (Quiet when nothing can be written anyway.) */
	if (!tg->open &&
	    open_target(tg, bad && (!upto || pairs.v[0].bad != NULL)) < 0)
		rc = -1;
	checked = tmq_cpairs_check(&pairs, tg->open ? &tg->t : NULL, say_bad,
	    &b, &e);
	if (checked < 0)
		tmq_report(&cmd, &e);
	if (checked == 1 && upto) {
		size_t all = pairs.n;

		/* What came before the first bad pair is good: commit it
		 * (the batch is cleared whole after). */
		for (i = 0; i < pairs.n && pairs.v[i].recno < b.first; i++)
			;
		pairs.n = i;
		if (rc == 0 && pairs.n > 0 && commit(&tg->g) < 0)
			rc = -1;
		pairs.n = all;
		rc = -1;
	} else if (checked != 0 || (rc == 0 && !bad && commit(&tg->g) < 0))
		rc = -1;
	tmq_cpairs_clear(&pairs);
	return rc;
}

/* Pairs from stdin, one a line.  A batch is committed whenever the input
 * has nothing more ready (and at its end), so that `tmq-get -f ... |
 * tmq-commit G` commits as it goes.  A bad line ends it: the good pairs
 * before it are committed, and nothing more is read, so that the pipeline
 * before it ends too (its writes fail) rather than run on uncommitted. */
static int
read_pairs(struct target *tg)
{
	struct tmq_records rr;
	struct tmq_error e;
	const char *rec;
	char line[256], *save, *a, *b;
	size_t n;
	int rc, bad = 0;

	where = "line";
	if (tmq_records_open(&rr, STDIN_FILENO, '\n', sizeof line - 1, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	while ((rc = tmq_records_next(&rr, pairs.n > 0, &rec, &n, &e)) !=
	    TMQ_REC_EOF) {
		if (rc < 0) {
			tmq_warn(&cmd, "standard input: %s", e.msg);
			bad = 1;
			break;
		}
		if (rc == TMQ_REC_WAIT) {
			if (flush_pairs(tg, 0, 1) < 0) {
				bad = 1;
				break;
			}
			continue;
		}
		if (rc == TMQ_REC_TOOLONG) {
			if (take(NULL, NULL, rr.recno) < 0) {
				bad = 1;
				break;
			}
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
		if (take(a, b, rr.recno) < 0) {
			bad = 1;
			break;
		}
	}
	tmq_records_close(&rr);
	/* (After a failure to read, what was read whole is good.) */
	if (flush_pairs(tg, 0, 1) < 0)
		bad = 1;
	return bad ? -1 : 0;
}

int
main(int argc, char **argv)
{
	struct tmq_error e;
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
			if (take(argv[i], argv[i + 1],
			    (unsigned long)(i - optind) / 2 + 1) < 0)
				bad = 1;
		if (flush_pairs(&dest, bad, 0) < 0)
			bad = 1;
	} else if (read_pairs(&dest) < 0)
		bad = 1;
	if (dest.open) {
		tmq_topic_close(&dest.t);
		tmq_group_close(&dest.g);
		close(dest.fd);
	}
	tmq_cpairs_free(&pairs);
	return bad ? TMQ_EXIT_FAIL : TMQ_EXIT_OK;
}
