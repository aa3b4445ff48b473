/* readturn.h: the decisions of the reading loop (readloop.h), pure, so
 * that they are tested without a root (tests/unit/t-readturn.c): when a
 * member looks at its group before reading, what an idle turn leads to,
 * how long it sleeps, and what a failure of the group's log means. */
#ifndef TMQ_READTURN_H
#define TMQ_READTURN_H

#include <stdint.h>

/* A member looks at its group's log before the next read once every
 * TMQ_TURN_POLL_EVERY records delivered, however fast they come. */
#define TMQ_TURN_POLL_EVERY 1024
/* The longest an idle turn sleeps: a stop, a reader gone away or a
 * group's change is seen within it. */
#define TMQ_TURN_MAX_WAIT_MS 1000

/* Whether a member polls its group before the next read, seen records
 * delivered so far. */
int tmq_turn_poll_before_read(uint64_t seen);

/* In a rebalance a member prints nothing until it ends: it committed what
 * it had delivered as it offered, its partitions' next owners start at
 * that commit, and a record printed after it, of a partition that moves,
 * would be printed twice (as Kafka's members stop fetching at a
 * rebalance).  But no longer than TMQ_TURN_HOLD_MAX seconds, nor past the
 * window's END: a rebalance that waits for a member stopped or slow to
 * answer (the TwainMQ library's wait for END) holds nobody up; after that
 * the member reads on, and what it prints of a partition that moves may be
 * printed again by its next owner (at least once). */
#define TMQ_TURN_HOLD_MAX 2.0

/* Whether a member holds its reading now: rebalancing, in a rebalance
 * (a member that offered in it); held_for, the seconds since it first held
 * in this one; left, the seconds left in its window. */
int tmq_turn_hold(int rebalancing, double held_for, double left);

/* What stands when there was nothing to read. */
struct tmq_idle {
	int grouped;		/* a member, or fixed partitions of a group */
	int new_share;		/* the group gave us a new share meanwhile */
	int done;		/* every partition is past --until */
	int all_failed;		/* every partition could not be read */
	int settled;		/* grouped: a confirmed share, no rebalance */
	int follow;		/* -f */
	int have_until;
	int past_until;		/* the clock before the read was at --until */
};

enum tmq_idle_next {
	TMQ_IDLE_AGAIN,		/* read again at once (a new share) */
	TMQ_IDLE_END,		/* nothing more to read */
	TMQ_IDLE_WAIT,		/* wait for more, then read again */
};

enum tmq_idle_next tmq_idle_next(const struct tmq_idle *s);

/* How long an idle turn waits, in ms: TMQ_TURN_MAX_WAIT_MS at most, less
 * when the group needs an answer sooner (group_ms; -1: whenever) or
 * --until comes sooner (until_left_ms, with have_until; 0 when past). */
int tmq_idle_wait_ms(int group_ms, int have_until, double until_left_ms);

enum tmq_gfail {
	TMQ_GFAIL_ERROR,	/* an error: said, and the reading ends */
	TMQ_GFAIL_STOP,		/* told to stop meanwhile: ends, unsaid */
	TMQ_GFAIL_REJOIN,	/* the root's server is away: join again */
};

/* What a failure of the group's log (or of a commit) means for a reader:
 * outage, its filesystem's server is away (fstype.h); follow, it runs on;
 * stopping, tmq_stop is set. */
enum tmq_gfail tmq_gfail_next(int outage, int follow, int stopping);

#endif
