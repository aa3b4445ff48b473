/* groupfence.h: fencing a member's commits by the group log, as Kafka
 * fences them by epoch.  A member commits a partition only while the log,
 * read to its end just before the commit line goes in, gives it that
 * partition (its share in the last rebalance closed), and never below the
 * offset committed for it there: a member that lost partitions in a
 * rebalance it has not read yet (stopped, or on a slow disk) commits none
 * of them, and a group's commits never go back but by tmq-group reset or
 * tmq-commit.
 *
 * "Just before" holds among tmq's members by a lock, the log's
 * .tmq/fence (filelock.h, so it holds between machines too): a member
 * holds it around the look at the log's unread lines and its commit, and
 * around each ENDREBAL it writes, the one line that moves partitions.
 * The TwainMQ library neither takes it nor minds it.  No member waits for
 * it longer than TMQ_GFENCE_WAIT_MS: one stopped or hung while it holds it
 * holds up no other's commits and rebalances (they go on without it, and
 * say so once). */
#ifndef TMQ_GROUPFENCE_H
#define TMQ_GROUPFENCE_H

#include <stdint.h>

#include "group/group.h"
#include "store/linereader.h"

#define TMQ_GFENCE_WAIT_MS 2000

struct tmq_gfence {
	int lockfd;			/* .tmq/fence, or -1 */
	int locked;			/* lockfd is locked by us */
	int unlockable;			/* no lock to be had: said once */
	int waited_out;			/* the last wait ran out */
	int said_wait;			/* (said once) */
	struct tmq_linereader lr;	/* the log's lines past the state */
	int lr_open;
	int64_t *tail;			/* committed per partition in those */
	unsigned char *mine;		/* the member's share, by partition */
	unsigned n;			/* (room in both) */
	/* By partition: a committed offset out of range (past the end, or
	 * pruned) that the member read past by --offset-reset, which its
	 * commit may go below: that reset is the documented recovery, and
	 * the offset no position of the partition.  TMQ_NOT_COMMITTED where
	 * none; nreset the room. */
	int64_t *reset_from;
	unsigned nreset;
};

void tmq_gfence_init(struct tmq_gfence *f);
/* Take g's fence lock, waiting TMQ_GFENCE_WAIT_MS at most.  A log where
 * no lock can be had (a read-only .tmq, a filesystem without locks) is
 * fenced without one. */
int tmq_gfence_lock(struct tmq_gfence *f, struct tmq_group *g,
    struct tmq_error *e);
void tmq_gfence_unlock(struct tmq_gfence *f);
/* With the lock held: keep, of the n commits in po (in place, *n their
 * new count), those member may write now: of partitions in its share in
 * the log's last closed rebalance (the state, and no rebalance closed in
 * the lines after it), at or above what is committed for them (in the
 * state or in those lines).  1 when a rebalance closed in the lines the
 * state has not read (nothing is kept: the member reads them first), 0
 * otherwise, -1 on an error. */
/* The member starts partition p past its committed offset from, out of
 * range (groupconsumer.c's --offset-reset): a commit of p may replace
 * exactly that offset with a lower one. */
int tmq_gfence_reset_from(struct tmq_gfence *f, unsigned p, int64_t from,
    struct tmq_error *e);
int tmq_gfence_check(struct tmq_gfence *f, struct tmq_group *g,
    uint32_t member, struct tmq_poff *po, unsigned *n, struct tmq_error *e);
void tmq_gfence_close(struct tmq_gfence *f);

#endif
