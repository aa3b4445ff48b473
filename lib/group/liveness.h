/* liveness.h: which members of a group are alive, without a broker.
 *
 * A tmq member holds an open-file-description lock (F_OFD_SETLK) on a file
 * of its own, .tmq/live.TAG in the group log's directory (TAG: the tag of
 * its JOINED, in hex), from before it writes that JOINED until it leaves.
 * The kernel, or the lock manager of NFS or GlusterFS, drops the lock when
 * the process dies, however it dies; a stopped or slow process keeps it.
 * So anyone can probe (F_OFD_GETLK): a held lock is a live member, a file
 * without its lock a dead one, no file a member we cannot vouch for (the
 * TwainMQ library's members hold no lock).
 *
 * The lock files are this file's; what a group's members are, it reads
 * from the group's state (groupstate.h), and nothing else of the group. */
#ifndef TMQ_LIVENESS_H
#define TMQ_LIVENESS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "groupstate.h"

/* Where a group's lock files are, and how to say what was found there:
 * the group's log directory, the names for messages, and the group's
 * notice (NULL: nothing is said).  tmq_group_where fills one. */
struct tmq_live_where {
	int logdirfd;
	const char *group;		/* the group's name */
	const char *logname;		/* its log's: --group--NAME */
	void (*notice)(void *arg, const char *msg);
	void *notice_arg;
};

enum tmq_liveness {
	TMQ_LIVE_UNKNOWN,	/* no lock file: cannot vouch either way */
	TMQ_LIVE_YES,		/* its lock is held */
	TMQ_LIVE_DEAD		/* its lock file is there, the lock is gone */
};

/* Take the lock for tag: *fd holds it (-1 when the filesystem has no
 * locks: the member then goes unvouched, like the TwainMQ library's).  The
 * file is made, then locked: a sweep may remove it in between, so the lock is
 * taken again until the file under the name is the one locked. */
int tmq_live_hold(int logdirfd, uint64_t tag, int *fd, struct tmq_error *e);
/* Leaving: remove the file, then drop the lock. */
void tmq_live_release(int logdirfd, uint64_t tag, int fd);
enum tmq_liveness tmq_live_probe(int logdirfd, uint64_t tag);
/* Remove a dead member's file (when it is still dead: the removal holds
 * a lock on it, which no live holder lets it take). */
void tmq_live_forget(int logdirfd, uint64_t tag);

/* A sweep, in two steps.  First the tags whose files no lock holds now
 * (*tags malloc'ed, or NULL when there are none); then, once the caller
 * has read the group's log to its end, tmq_live_sweep removes the files of
 * those that can never hold partitions again: unclaimed, or holding
 * nothing in the last rebalance, offering nothing in the one under way,
 * and not heard from since the last one ended.  In that order, every line
 * a dead member wrote is in the state that decides: a file removed on a
 * state behind the log (a reader blocked on a pipe) could be that of a
 * member that joined, offered and died meanwhile, whose partitions would
 * then stay with a member nobody can see is dead. */
int tmq_live_dead(int logdirfd, uint64_t **tags, size_t *n);
void tmq_live_sweep(const struct tmq_live_where *w, const struct tmq_gstate *s,
    const uint64_t *tags, size_t n);

/* The liveness of a member of the group by id (unknown when the id was
 * never claimed). */
enum tmq_liveness tmq_live_member(const struct tmq_live_where *w,
    const struct tmq_gstate *s, uint32_t id);

/* In the rebalance under way, the members other than self (when has_self)
 * that have not offered yet: *alive that hold their lock, *unknown that
 * may be alive (unvouched, and heard from since the last rebalance or
 * holding a share in it). */
void tmq_live_pending(const struct tmq_live_where *w,
    const struct tmq_gstate *s, int has_self, uint32_t self, unsigned *alive,
    unsigned *unknown);
/* Whether the rebalance under way may end now: every live member has
 * offered, and so has every member that may be alive, or the window is
 * over for those.  A member known alive is waited for past the window. */
int tmq_live_may_end(const struct tmq_live_where *w,
    const struct tmq_gstate *s, int has_self, uint32_t self, double now);

#endif
