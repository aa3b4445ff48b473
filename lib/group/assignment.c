/* assignment.c: the TwainMQ library's assignment, step for step
 * (tmq-format(5), Consumer groups, Assigning): drop from each `own` what is
 * not accepted; each member's wish list is what it owns, ascending, then the
 * rest it accepts, ascending; members go in order of (accepted ascending,
 * owned descending, id ascending), each taking the first free partition on its
 * list, round after round, until every offered partition is taken.  Partitions
 * at or past the topic's count are no offer at all: no offer can make us
 * allocate past it, and the work is linear in the offers' lists and the
 * topic's partitions. */
#include <stdlib.h>
#include <string.h>

#include "group/assignment.h"

struct wish {
	struct tmq_offer *o;
	unsigned *list, n, pos;
	unsigned nacc, nown;	/* distinct accepted, owned-and-accepted */
};

static int
cmp_u(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_wish(const void *a, const void *b)
{
	const struct wish *x = a, *y = b;

	if (x->nacc != y->nacc)
		return x->nacc < y->nacc ? -1 : 1;
	if (x->nown != y->nown)
		return x->nown > y->nown ? -1 : 1;
	return x->o->member < y->o->member ? -1 : x->o->member > y->o->member;
}

/* Sorted copy of the partitions below limit, without duplicates. */
static unsigned *
uniq(const unsigned *v, unsigned n, unsigned limit, unsigned *out_n)
{
	unsigned *c, i, k = 0;
	int sorted = 1;

	/* calloc checks the product; n, an array in memory, is < SIZE_MAX. */
	c = calloc((size_t)n + 1, sizeof *c);
	if (c == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (v[i] < limit) {
			if (k > 0 && c[k - 1] >= v[i])
				sorted = 0;
			c[k++] = v[i];
		}
	/* The log's lists come sorted (groupmsg.h): no need to sort them. */
	if (!sorted)
		qsort(c, k, sizeof *c, cmp_u);
	n = k;
	k = 0;
	for (i = 0; i < n; i++)
		if (k == 0 || c[k - 1] != c[i])
			c[k++] = c[i];
	*out_n = k;
	return c;
}

/* Marks per partition while one offer is looked at. */
#define ACC 1
#define OWN 2
#define TAKEN 4

int
tmq_assign(struct tmq_offer *offers, unsigned n, unsigned nparts,
    struct tmq_error *e)
{
	struct wish *w = calloc(n ? n : 1, sizeof *w), **live = NULL;
	unsigned ntaken = 0, total = 0, nlive, i, j;
	unsigned char *mark = calloc(nparts ? nparts : 1, 1);
	int rc = -1;

	if (w == NULL || mark == NULL) {
		tmq_fail(e, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct tmq_offer *o = &offers[i];
		unsigned *acc, nacc, *own, nown, k = 0;

		o->got = NULL;
		o->ngot = 0;
		acc = uniq(o->parts, o->nparts, nparts, &nacc);
		own = uniq(o->own, o->nown, nparts, &nown);
		w[i].o = o;
		w[i].list = calloc((size_t)nacc + 1, sizeof *w[i].list);
		o->got = calloc((size_t)nacc + 1, sizeof *o->got);
		if (acc == NULL || own == NULL || w[i].list == NULL ||
		    o->got == NULL) {
			free(acc);
			free(own);
			tmq_fail(e, "out of memory");
			goto out;
		}
		for (j = 0; j < nacc; j++)
			mark[acc[j]] |= ACC;
		for (j = 0; j < nown; j++)
			if (mark[own[j]] & ACC) {
				mark[own[j]] |= OWN;
				w[i].list[k++] = own[j];
			}
		/* The TwainMQ library counts owned entries as listed, repeats
		 * too (those the parser dropped are in own_extra). */
		for (j = 0; j < o->nown; j++)
			if (o->own[j] < nparts && (mark[o->own[j]] & ACC))
				w[i].nown++;
		w[i].nown += o->own_extra;
		for (j = 0; j < nacc; j++)
			if (!(mark[acc[j]] & OWN))
				w[i].list[k++] = acc[j];
		w[i].n = k;
		w[i].nacc = nacc;
		/* Every partition offered by anyone must be taken. */
		for (j = 0; j < nacc; j++) {
			if (!(mark[acc[j]] & TAKEN))
				total++;
			mark[acc[j]] = TAKEN;
		}
		free(acc);
		free(own);
	}
	memset(mark, 0, nparts ? nparts : 1);
	qsort(w, n, sizeof *w, cmp_wish);
	/* Round after round, in that order, each member takes the first
	 * free partition of its list; one whose list ran out drops out of
	 * the rounds, so that each costs what is still to hand out. */
	live = malloc((n ? n : 1) * sizeof *live);
	if (live == NULL) {
		tmq_fail(e, "out of memory");
		goto out;
	}
	for (i = nlive = 0; i < n; i++)
		if (w[i].n > 0)
			live[nlive++] = &w[i];
	while (ntaken < total && nlive > 0) {
		unsigned k = 0;

		for (i = 0; i < nlive; i++) {
			struct wish *x = live[i];

			if (ntaken < total) {
				while (x->pos < x->n && mark[x->list[x->pos]])
					x->pos++;
				if (x->pos < x->n) {
					mark[x->list[x->pos]] = TAKEN;
					x->o->got[x->o->ngot++] = x->list[x->pos++];
					ntaken++;
				}
			}
			if (x->pos < x->n)
				live[k++] = x;
		}
		nlive = k;
	}
	for (i = 0; i < n; i++)
		qsort(offers[i].got, offers[i].ngot, sizeof *offers[i].got, cmp_u);
	rc = 0;
out:
	for (i = 0; w != NULL && i < n; i++)
		free(w[i].list);
	if (rc < 0)
		for (i = 0; i < n; i++) {
			free(offers[i].got);
			offers[i].got = NULL;
			offers[i].ngot = 0;
		}
	free(w);
	free(live);
	free(mark);
	return rc;
}

void
tmq_offers_free(struct tmq_offer *o, unsigned n)
{
	unsigned i;

	for (i = 0; i < n && o != NULL; i++) {
		free(o[i].own);
		free(o[i].parts);
		free(o[i].got);
	}
	free(o);
}
