/* assignment.h: who gets which partition after a rebalance (tmq-format(5),
 * Consumer groups, Assigning).  Every member computes the same answer from
 * the same offers. */
#ifndef TMQ_ASSIGNMENT_H
#define TMQ_ASSIGNMENT_H

#include <stdint.h>

#include "util/error.h"

struct tmq_offer {
	uint32_t member;
	unsigned *own, nown;		/* what it holds */
	unsigned *parts, nparts;	/* what it accepts */
	unsigned own_extra;		/* repeats in own, of partitions it
					 * accepts, dropped when read: counted
					 * as owned (groupmsg.h) */
	unsigned *got, ngot;		/* filled by tmq_assign, ascending */
};

/* Fill each offer's got/ngot, for a topic of nparts partitions (any
 * partition at or past it in an offer is ignored).  The cost is linear
 * in the offers' lists, their count and nparts, whatever they hold. */
int tmq_assign(struct tmq_offer *offers, unsigned n, unsigned nparts,
    struct tmq_error *e);
/* Free n offers' arrays and the offers themselves (NULL is fine). */
void tmq_offers_free(struct tmq_offer *o, unsigned n);

#endif
