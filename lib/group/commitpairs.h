/* commitpairs.h: the PARTITION OFFSET pairs tmq-commit is given (as
 * operands, or one a line of standard input): each read on its own, a
 * batch checked against the group's topic, and the batch made one COMMIT
 * of the highest position of each partition. */
#ifndef TMQ_COMMITPAIRS_H
#define TMQ_COMMITPAIRS_H

#include <stddef.h>
#include <stdint.h>

#include "group/groupmsg.h"
#include "store/topic.h"

struct tmq_cpair {
	char *bad;		/* what is wrong with it, or NULL */
	unsigned long recno;	/* the pair (or line) that gave it */
	unsigned partition;
	int64_t pos;		/* where to resume */
};

struct tmq_cpairs {
	struct tmq_cpair *v;
	size_t n, cap;
	int next;		/* the numbers are positions to resume at
				 * (--next), not offsets done */
};

/* Take one pair, numbered recno (ps NULL: a record that is not a pair).
 * Its partition is checked against the topic only with the batch: in a
 * pipeline the group may not exist yet when the first pair arrives (its
 * first member creates it).  A bad pair (a negative or malformed number,
 * a partition no topic can have) is kept with its message, so that every
 * bad pair is told in input order.  0, 1 for a bad pair, -1 when out of
 * memory (e). */
int tmq_cpairs_take(struct tmq_cpairs *pp, const char *ps, const char *os,
    unsigned long recno, struct tmq_error *e);

/* Check the batch: every pair well formed, naming a partition the topic
 * has and a position not past its end (reading only the last file of
 * each partition named).  Each bad pair is handed to bad, with what is
 * wrong, in input order.  Without the topic (t NULL: the group could not
 * be opened) only the pairs' own form is checked.  0 when all are good,
 * 1 when one was bad, -1 when an end could not be read (e). */
int tmq_cpairs_check(const struct tmq_cpairs *pp, const struct tmq_topic *t,
    void (*bad)(void *arg, const struct tmq_cpair *pr, const char *msg),
    void *arg, struct tmq_error *e);

/* The batch as one COMMIT: the highest position of each partition named,
 * in partition order, into *po (malloc'd; free it) and *n. */
int tmq_cpairs_reduce(const struct tmq_cpairs *pp, struct tmq_poff **po,
    unsigned *n, struct tmq_error *e);

/* Empty the batch for the next one; free it all. */
void tmq_cpairs_clear(struct tmq_cpairs *pp);
void tmq_cpairs_free(struct tmq_cpairs *pp);

#endif
