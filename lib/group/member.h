/* member.h: taking part in a consumer group as a member (tmq-format(5)):
 * claiming an id, answering rebalances, confirming a share, leaving. */
#ifndef TMQ_MEMBER_H
#define TMQ_MEMBER_H

#include <stdint.h>

#include "group/group.h"
#include "group/groupfence.h"
#include "group/liveness.h"
#include "store/topic.h"

struct tmq_member {
	struct tmq_group g;
	unsigned topic_partitions;
	double window;			/* seconds, for rebalances we start */
	uint32_t id;
	int has_id;
	uint64_t tag;
	unsigned *held, nheld;		/* partitions held now */
	int settled;			/* holds a confirmed share */
	int sweep_due;			/* confirmed since the last sweep */
	uint64_t answered;		/* BEGINREBAL we offered for, + 1 */
	uint64_t ended;			/* BEGINREBAL we wrote ENDREBAL for, + 1 */
	int livefd;			/* holds our liveness lock, or -1 */
	/* Session timeout (seconds; 0: none), set before tmq_member_join,
	 * which keeps it: we beat every session/4 (liveness.h), and a
	 * member silent for its timeout counts as gone. */
	double session;
	double last_beat;		/* monotonic time of our last beat */
	struct tmq_live_watch watch;	/* the others' beats */
	unsigned noted;			/* members whose files the watch
					 * has noted (tmq_live_note) */
	uint64_t to_answer;		/* BEGINREBAL read, not answered, + 1 */
	int need_rebal;			/* lost our share: start one */
	int lost;			/* on_assign: partitions lost, not
					 * given up: commit none of them */
	double next_probe;		/* when to look for dead members next */
	/* Since when (by our clock) a member with no lock file counts as
	 * silent: our joining, or the last rebalance we began for such
	 * silence, so that one begins at most every TMQ_REBAL_WINDOW
	 * whatever the others' clocks say. */
	double silence_from;
	struct tmq_gfence fence;	/* our commits and ENDREBALs */
	/* Called with the new share before it is confirmed in the log, so
	 * the caller can commit what it gives up and start what it gains. */
	int (*on_assign)(void *arg, const unsigned *parts, unsigned n,
	    struct tmq_error *e);
	/* Called before each offer, so the caller can commit what it has
	 * delivered: the commit then precedes the ENDREBAL, and whoever is
	 * given our partitions starts after what we delivered. */
	int (*on_offer)(void *arg, struct tmq_error *e);
	void *arg;
	/* Where to say which log lines were skipped or ignored in part (set
	 * before tmq_member_join, which keeps it; NULL: not said). */
	void (*notice)(void *arg, const char *msg);
	void *notice_arg;
};

/* Join group (creating it for t when missing: from_now picks its start)
 * and start a rebalance.  On return the member has an id, no partitions. */
int tmq_member_join(struct tmq_member *mb, int rootfd, const char *group,
    const struct tmq_topic *t, int from_now, double window,
    struct tmq_error *e);
/* Read what is new in the group log and do what it asks; write ENDREBAL
 * as soon as every member that may be alive has offered, or at the end of
 * the window for members we cannot vouch for (never while a member known
 * alive has not offered); start a rebalance when a member holding
 * partitions has died.  Returns 0, or -1 on error. */
int tmq_member_poll(struct tmq_member *mb, struct tmq_error *e);
/* Whether the member must poll before it prints or commits more: its beat
 * is due, so it may have been stopped long enough to lose its share. */
int tmq_member_due(const struct tmq_member *mb);
/* Beat, when it is due, and nothing else: for a caller that waits inside
 * one of the callbacks (on_offer), where no poll may run. */
void tmq_member_beat(struct tmq_member *mb);
/* Milliseconds until the member must poll again: the end of the
 * rebalance in force, or the next look at the other members' locks (-1:
 * never). */
int tmq_member_timeout(const struct tmq_member *mb);
/* Commit the n offsets of po (changed in place) that the log, read to
 * its end under the group's fence lock, says are ours to commit
 * (groupfence.h), and only those: 0 when they are written (perhaps none),
 * 1 when none is as a rebalance closed in lines we have yet to read
 * (poll, and commit again), -1 on an error. */
int tmq_member_commit(struct tmq_member *mb, struct tmq_poff *po,
    unsigned n, struct tmq_error *e);
/* Hand the partitions back: a rebalance in which this member offers
 * nothing. */
int tmq_member_leave(struct tmq_member *mb, struct tmq_error *e);
void tmq_member_close(struct tmq_member *mb);

#endif
