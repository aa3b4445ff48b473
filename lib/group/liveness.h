/* liveness.h: which members of a group are alive, without a broker.
 *
 * A tmq member holds an open-file-description lock (F_OFD_SETLK) on a file
 * of its own, .tmq/live.TAG in the group log's directory (TAG: the tag of
 * its JOINED, in hex), from before it writes that JOINED until it leaves.
 * The kernel, or the lock manager of NFS or GlusterFS, drops the lock when
 * the process dies, however it dies; a stopped or slow process keeps it.
 * So anyone can probe (F_OFD_GETLK): a held write lock is a live member, a
 * file without one a dead one, no file a member we cannot vouch for (the
 * TwainMQ library's members hold no lock).  The file is writable by its
 * owner alone, so a co-user can neither take that lock nor set its time
 * (liveness.c says what they can still do).
 *
 * The lock files are this file's; what a group's members are, it reads
 * from the group's state (groupstate.h), and nothing else of the group. */
#ifndef TMQ_LIVENESS_H
#define TMQ_LIVENESS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "group/execreport.h"
#include "group/groupstate.h"
#include "util/idindex.h"

/* Where a group's lock files are, and how to say what was found there:
 * the group's log directory, the names for messages, and the group's
 * notice (NULL: nothing is said).  tmq_group_where fills one. */
struct tmq_live_where {
	int logdirfd;
	const char *group;		/* the group's name */
	const char *logname;		/* its log's: --group--NAME */
	void (*notice)(void *arg, const char *msg);
	void *notice_arg;
	/* A member's watch on the others' beats, or NULL: observers see no
	 * member stale (see below). */
	struct tmq_live_watch *watch;
};

enum tmq_liveness {
	TMQ_LIVE_UNKNOWN,	/* no lock file: cannot vouch either way */
	TMQ_LIVE_YES,		/* its lock is held */
	TMQ_LIVE_DEAD,		/* its lock file is there, the lock is gone */
	TMQ_LIVE_STALE		/* its lock is held, but it has not beaten for
				 * its session timeout (a watch saw it) */
};

/* Session timeouts.  A member with a session timeout T writes T (decimal
 * seconds, one line) into its lock file before the file gets its name,
 * and beats: it sets the file's modification time to now at least every
 * T/4 while it runs (tmq_live_beat).  A stopped process, or one blocked
 * writing to a pipe nobody reads, keeps its lock but stops beating.  A
 * member watching the others (struct tmq_live_watch, hung on the group
 * as g->watch) remembers each one's modification time and when, by its
 * own monotonic clock, it last saw it change: a held lock whose time has
 * not changed for the holder's T is stale, and counts as gone.  Only the
 * watcher's own clock measures, so clocks that disagree between machines
 * cannot make a member stale; a watcher that has just started waits a
 * whole T before it calls anyone stale.  A file without a valid T (the
 * TwainMQ library makes none; a co-user may write anything) takes the
 * watcher's own. */
#define TMQ_SESSION_MIN 0.1
#define TMQ_SESSION_MAX 86400.0

struct tmq_live_seen {
	uint32_t id;
	uint64_t tag;
	long long mt_sec, mt_nsec;	/* the modification time last seen */
	double since;			/* monotonic time it was first seen */
	double timeout;			/* the holder's session timeout */
	unsigned long long dev, ino;	/* the file first seen for tag */
	int replaced;			/* another file since: not the
					 * member's (liveness.c) */
};

struct tmq_live_watch {
	double timeout;			/* ours: for files that say none */
	struct tmq_live_seen *v;
	size_t n, cap;
	struct tmq_idindex ix;		/* where each id is in v */
};

void tmq_live_watch_free(struct tmq_live_watch *w);
/* Say we are alive: the file's modification time to now. */
void tmq_live_beat(int fd);
/* The session timeout written in the file of a held lock, or 0. */
double tmq_live_timeout_of(int logdirfd, uint64_t tag);

/* Take the lock for tag: *fd holds it (-1 when the filesystem has no
 * locks: the member then goes unvouched, like the TwainMQ library's).  The
 * file is made and locked under a temporary name (replace.h), then given
 * its own by a rename that never replaces (session: the timeout written in
 * it; 0: none). */
int tmq_live_hold(int logdirfd, uint64_t tag, double session, int *fd,
    struct tmq_error *e);
/* Leaving: remove the file, then drop the lock. */
void tmq_live_release(int logdirfd, uint64_t tag, int fd);
enum tmq_liveness tmq_live_probe(int logdirfd, uint64_t tag);
/* Remove a dead member's file (when it is still dead: the removal holds
 * a lock on it, which no live holder lets it take). */
void tmq_live_forget(int logdirfd, uint64_t tag);

/* A sweep, in two steps.  First the tags whose files no lock holds now
 * (*tags malloc'ed, or NULL when there are none; on the way, the
 * temporaries that killed members left are removed, as tmq_tmp_sweep
 * would); then, once the caller
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
/* For observers: the live members the rebalance under way waits for (up
 * to cap of their ids in ids); their number. */
unsigned tmq_live_waiting(const struct tmq_live_where *w,
    const struct tmq_gstate *s, uint32_t *ids, unsigned cap);
/* For observers: how long (by the wall clock, now) member id has not
 * beaten, and its session timeout, from its lock file: 0, or -1 when it
 * has no file or says no timeout (a member that does not beat). */
int tmq_live_silence(const struct tmq_live_where *w,
    const struct tmq_gstate *s, uint32_t id, double now, double *silent,
    double *timeout);
/* A --exec member's report (execreport.h) into its own lock file, held
 * on fd, after the session line (its session timeout): rewritten in
 * place; -1 when it could not be written (the report is a view: nothing
 * rests on it). */
int tmq_live_publish(int fd, double session, const char *text, size_t len);
/* For observers: the report in member id's lock file, 1 and r (free it
 * with tmq_xreport_free), or 0 when there is none to believe there (no
 * file, one others may write, no report whole in it). */
int tmq_live_report(const struct tmq_live_where *w,
    const struct tmq_gstate *s, uint32_t id, struct tmq_xreport *r);
/* For a member (self) watching the others: note the file of every
 * member claimed in s->members from *from on, and move *from past them
 * (liveness.c says why). */
void tmq_live_note(const struct tmq_live_where *w, const struct tmq_gstate *s,
    uint32_t self, unsigned *from);
/* Whether the rebalance under way may end now: every live member has
 * offered, and so has every member that may be alive, or the window is
 * over for those (now past end: tmq_group_rebal_end, not what its line
 * claims).  A member known alive is waited for past the window.  Only the
 * members with a lock file in .tmq are probed (liveness.c). */
int tmq_live_may_end(const struct tmq_live_where *w,
    const struct tmq_gstate *s, int has_self, uint32_t self, double now,
    double end);

#endif
