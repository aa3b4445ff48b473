/* autocommit.h: when a member run with --commit (tmq-get -g G --commit)
 * commits what its reader took: after every TMQ_AC_MESSAGES messages
 * delivered, and once TMQ_AC_SECONDS have passed since the last commit
 * whenever there is nothing to read; and, at a normal end, after giving
 * its reader the time to take what is still in the pipe. */
#ifndef TMQ_AUTOCOMMIT_H
#define TMQ_AUTOCOMMIT_H

#include <stdint.h>

#include "group/groupconsumer.h"
#include "flow/output.h"

#define TMQ_AC_MESSAGES 1000
#define TMQ_AC_SECONDS 1.0

struct tmq_autocommit {
	int on;			/* --commit */
	double last;		/* when it last committed, or began */
	uint64_t since;		/* messages delivered since */
};

void tmq_ac_init(struct tmq_autocommit *ac, int on, double now);
/* One message more was delivered: 1 when that makes a commit due. */
int tmq_ac_count(struct tmq_autocommit *ac);
/* There is nothing to read now: 1 when a commit is due by the clock. */
int tmq_ac_due(const struct tmq_autocommit *ac, double now);
/* Commit (tmq_gc_commit) and start counting afresh. */
int tmq_ac_commit(struct tmq_autocommit *ac, struct tmq_gconsumer *gc,
    double now, struct tmq_error *e);

/* At a normal end: what is still in the pipe is not taken, and would be
 * read again by the group.  Give the reader the time to take it (or to go
 * away), answering the group and committing every TMQ_AC_SECONDS
 * meanwhile, until it has, or tmq_stop is set.  Nothing is waited for when the output cannot
 * be flushed. */
int tmq_ac_wait_taken(struct tmq_autocommit *ac, struct tmq_gconsumer *gc,
    struct tmq_output *out, struct tmq_error *e);

#endif
