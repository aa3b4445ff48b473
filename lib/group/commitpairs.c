/* commitpairs.c: tmq-commit's pairs (see commitpairs.h). */
#include <stdlib.h>
#include <string.h>

#include "group/commitpairs.h"
#include "util/grow.h"
#include "util/number.h"
#include "store/partfile.h"
#include "store/partscan.h"

/* "-5": a word that reads as a negative number. */
static int
negative(const char *s)
{
	return s[0] == '-' && s[1] != '\0' &&
	    strspn(s + 1, "0123456789") == strlen(s + 1);
}

int
tmq_cpairs_take(struct tmq_cpairs *pp, const char *ps, const char *os,
    unsigned long recno, struct tmq_error *e)
{
	struct tmq_cpair *pr;
	struct tmq_error why;
	uint64_t p = 0, o = 0;
	int rc = 0;

	if (tmq_grow(&pp->v, &pp->cap, pp->n + 1, sizeof *pp->v) < 0)
		return tmq_fail(e, "out of memory");
	pr = &pp->v[pp->n];
	pr->bad = NULL;
	if (ps == NULL)
		rc = tmq_fail(&why, "want PARTITION OFFSET");
	else if (negative(ps))
		rc = tmq_fail(&why, "partition '%.40s' is negative", ps);
	else if (negative(os))
		rc = tmq_fail(&why, "offset '%.40s' is negative", os);
	else if (tmq_parse_u64(ps, 0, UINT32_MAX, &p, &why) < 0 ||
	    tmq_parse_u64(os, 0, INT64_MAX - 1, &o, &why) < 0)
		rc = -1;
	else if (p >= TMQ_MAX_PARTITIONS)
		rc = tmq_fail(&why, "partition %llu does not exist",
		    (unsigned long long)p);
	if (rc < 0 && (pr->bad = strdup(why.msg)) == NULL)
		return tmq_fail(e, "out of memory");
	pr->recno = recno;
	pr->partition = (unsigned)p;
	/* Done up to o: resume at o + 1. */
	pr->pos = (int64_t)o + !pp->next;
	pp->n++;
	return rc < 0 ? 1 : 0;
}

int
tmq_cpairs_check(const struct tmq_cpairs *pp, const struct tmq_topic *t,
    void (*bad)(void *arg, const struct tmq_cpair *pr, const char *msg),
    void *arg, struct tmq_error *e)
{
	struct tmq_error why;
	uint64_t *end = NULL;
	size_t i;
	int any = 0;

	if (t != NULL && (end = malloc(t->partitions * sizeof *end)) == NULL)
		return tmq_fail(e, "out of memory");
	/* Only the last file of each partition named needs counting. */
	for (i = 0; t != NULL && i < t->partitions; i++)
		end[i] = UINT64_MAX;
	for (i = 0; i < pp->n; i++) {
		const struct tmq_cpair *pr = &pp->v[i];

		if (pr->bad != NULL) {
			bad(arg, pr, pr->bad);
			any = 1;
			continue;
		}
		if (t == NULL)
			continue;
		if (pr->partition >= t->partitions) {
			tmq_fail(&why, "partition %u does not exist (topic has "
			    "%u)", pr->partition, t->partitions);
			bad(arg, pr, why.msg);
			any = 1;
			continue;
		}
		if (end[pr->partition] == UINT64_MAX &&
		    tmq_partition_end(t, pr->partition,
		    &end[pr->partition], e) < 0) {
			free(end);
			return tmq_fail_prefix(e, "%s", t->name);
		}
		if (pr->pos > (int64_t)end[pr->partition]) {
			tmq_fail(&why, "partition %u: offset %lld is beyond the "
			    "end (%llu)", pr->partition,
			    (long long)pr->pos - !pp->next,
			    (unsigned long long)end[pr->partition]);
			bad(arg, pr, why.msg);
			any = 1;
		}
	}
	free(end);
	return any;
}

int
tmq_cpairs_reduce(const struct tmq_cpairs *pp, struct tmq_poff **out,
    unsigned *nout, struct tmq_error *e)
{
	struct tmq_poff *po;
	int64_t *best;
	unsigned p, n = 0, np = 0;
	size_t i;

	for (i = 0; i < pp->n; i++)
		if (pp->v[i].partition >= np)
			np = pp->v[i].partition + 1;
	best = malloc((np ? np : 1) * sizeof *best);
	po = malloc((np ? np : 1) * sizeof *po);
	if (best == NULL || po == NULL) {
		free(best);
		free(po);
		return tmq_fail(e, "out of memory");
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
	free(best);
	*out = po;
	*nout = n;
	return 0;
}

void
tmq_cpairs_clear(struct tmq_cpairs *pp)
{
	size_t i;

	for (i = 0; i < pp->n; i++)
		free(pp->v[i].bad);
	pp->n = 0;
}

void
tmq_cpairs_free(struct tmq_cpairs *pp)
{
	tmq_cpairs_clear(pp);
	free(pp->v);
	pp->v = NULL;
	pp->cap = 0;
}
