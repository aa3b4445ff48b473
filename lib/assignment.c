/* assignment.c: the library's assignment, step for step (SPEC.md 5.6):
 * drop from each `own` what is not accepted; each member's wish list is
 * what it owns, ascending, then the rest it accepts, ascending; members go
 * in order of (accepted ascending, owned descending, id ascending), each
 * taking the first free partition on its list, round after round, until
 * every offered partition is taken.  Partitions at or past the topic's
 * count are no offer at all: no offer can make us allocate past it. */
#include <stdlib.h>
#include <string.h>

#include "assignment.h"

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
has(const unsigned *v, unsigned n, unsigned x)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
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

	/* calloc checks the product; n, an array in memory, is < SIZE_MAX. */
	c = calloc((size_t)n + 1, sizeof *c);
	if (c == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (v[i] < limit)
			c[k++] = v[i];
	qsort(c, k, sizeof *c, cmp_u);
	n = k;
	k = 0;
	for (i = 0; i < n; i++)
		if (k == 0 || c[k - 1] != c[i])
			c[k++] = c[i];
	*out_n = k;
	return c;
}

int
tmq_assign(struct tmq_offer *offers, unsigned n, unsigned nparts,
    struct tmq_error *e)
{
	struct wish *w = calloc(n ? n : 1, sizeof *w);
	unsigned ntaken = 0, total = 0, i, j;
	size_t maxp = 0;
	unsigned char *is_taken = NULL;
	int rc = -1, progress;

	if (w == NULL)
		return tmq_fail(e, "out of memory");
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
		for (j = 0; j < nown; j++)
			if (has(acc, nacc, own[j]))
				w[i].list[k++] = own[j];
		/* The library counts owned entries as listed, repeats too. */
		for (j = 0; j < o->nown; j++)
			if (has(acc, nacc, o->own[j]))
				w[i].nown++;
		for (j = 0; j < nacc; j++)
			if (!has(own, nown, acc[j]))
				w[i].list[k++] = acc[j];
		w[i].n = k;
		w[i].nacc = nacc;
		for (j = 0; j < nacc; j++)
			if ((size_t)acc[j] + 1 > maxp)
				maxp = (size_t)acc[j] + 1;
		free(acc);
		free(own);
	}
	is_taken = calloc(maxp ? maxp : 1, 1);
	if (is_taken == NULL) {
		tmq_fail(e, "out of memory");
		goto out;
	}
	/* Every partition offered by anyone must be taken. */
	for (i = 0; i < n; i++)
		for (j = 0; j < w[i].n; j++)
			if (!is_taken[w[i].list[j]]) {
				is_taken[w[i].list[j]] = 1;
				total++;
			}
	memset(is_taken, 0, maxp ? maxp : 1);
	qsort(w, n, sizeof *w, cmp_wish);
	do {
		progress = 0;
		for (i = 0; i < n && ntaken < total; i++) {
			struct wish *x = &w[i];

			while (x->pos < x->n && is_taken[x->list[x->pos]])
				x->pos++;
			if (x->pos == x->n)
				continue;
			is_taken[x->list[x->pos]] = 1;
			x->o->got[x->o->ngot++] = x->list[x->pos++];
			ntaken++;
			progress = 1;
		}
	} while (ntaken < total && progress);
	for (i = 0; i < n; i++)
		qsort(offers[i].got, offers[i].ngot, sizeof *offers[i].got, cmp_u);
	rc = 0;
out:
	for (i = 0; i < n; i++)
		free(w[i].list);
	if (rc < 0)
		for (i = 0; i < n; i++) {
			free(offers[i].got);
			offers[i].got = NULL;
			offers[i].ngot = 0;
		}
	free(w);
	free(is_taken);
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
