/* readloop.h: tmq-get's reading, as one call that gives the next turn:
 * a record to print, a corrupt line to say, an idle turn, a rejoin, the
 * end or an error.  It owns what reading as a member takes besides the
 * printing: polling the group's log, dropping what a rebalance took away
 * before it is printed (fencing), joining again after the root's server
 * was away, counting what was delivered and committing it (--commit), and
 * at the end waiting for the reader to take what is in the pipe and
 * leaving the group.  Without a group it reads the topics as a consumer
 * (consumer.h) from a position, up to --until, once or following.
 *
 * The caller prints each record before its next call: a record counts as
 * delivered, and as the reader's to commit, once the next call finds its
 * output written (readturn.h holds the loop's decisions, pure). */
#ifndef TMQ_READLOOP_H
#define TMQ_READLOOP_H

#include <stdint.h>

#include "group/autocommit.h"
#include "flow/consumer.h"
#include "group/groupconsumer.h"
#include "flow/output.h"
#include "flow/position.h"

/* What to read, and how: tmq-get's options. */
struct tmq_readspec {
	const char *root;		/* -d, or NULL ($TMQ_ROOT, ...) */
	const char *group;		/* -g, or NULL */
	char *const *topics;		/* with a group, exactly one */
	int ntopics;
	const unsigned *parts;		/* -P (sorted), or NULL */
	unsigned nparts;
	const struct tmq_position *pos;	/* --from */
	int have_until;
	double until;
	double started;			/* when the tool started (--until now) */
	uint64_t count;			/* -n, or 0 */
	int follow, commit;
	double window, session;		/* a member's (seconds) */
	enum tmq_reset reset;		/* --offset-reset */
	/* --exec: records are not printed but handed to commands; the
	 * caller says when each is finished (tmq_readloop_done), and what is
	 * finished is committed as --commit commits (commit is implied). */
	int exec;
	int no_resolve;			/* --no-resolve (consumer.h) */
	/* Notices for stderr: a partition skipped, the server away. */
	void (*notice)(void *arg, const char *msg);
	void *notice_arg;
};

enum tmq_turn {
	TMQ_TURN_RECORD,	/* m, of topic *t: print it before the next call */
	TMQ_TURN_CORRUPT,	/* a line that cannot be read (e): reading goes on */
	TMQ_TURN_IDLE,		/* nothing to read now: tmq_readloop_wait */
	TMQ_TURN_REJOINED,	/* joined the group again (said) */
	TMQ_TURN_END,		/* nothing more: drained, -n, --until, stopped */
	TMQ_TURN_ERROR,		/* e (unsaid when tmq_stop is set) */
};

struct tmq_readloop {
	const struct tmq_readspec *spec;
	struct tmq_output *out;
	struct tmq_consumer c;
	struct tmq_gconsumer gc;
	struct tmq_autocommit ac;
	int grouped;
	int pending;		/* a record was returned, not yet delivered */
	unsigned ppartition;	/* its partition and offset */
	uint64_t poffset;
	uint64_t seen;		/* records returned */
	double before;		/* the clock before the last read */
	int wait_ms;		/* the idle turn's wait */
	uint64_t held_in;	/* the rebalance it held its reading in */
	double held_since;	/* since when (tmq_mono) */
	int reader_gone;	/* ended because the reader went away */
	int failed;		/* ended on an error (a partition's included) */
};

/* Open the root and the sources (a group joined, its partitions fixed,
 * or the topics' partitions from spec->pos).  On failure: -1 and e,
 * unsaid when tmq_stop was set meanwhile (then nothing failed).  l is
 * whole either way: end it with tmq_readloop_free. */
int tmq_readloop_open(struct tmq_readloop *l, const struct tmq_readspec *spec,
    struct tmq_output *out, struct tmq_error *e);
/* The next turn; m is the caller's (records are decoded into it). */
enum tmq_turn tmq_readloop_next(struct tmq_readloop *l, struct tmq_msg *m,
    const struct tmq_topic **t, struct tmq_error *e);
/* After TMQ_TURN_IDLE: wait for more, up to the turn's bound. */
int tmq_readloop_wait(struct tmq_readloop *l, struct tmq_error *e);
/* After TMQ_TURN_END: give the reader what is in the pipe and commit it
 * (--commit), then leave the group. */
int tmq_readloop_finish(struct tmq_readloop *l, struct tmq_error *e);
/* --exec: every message of partition before offset next is finished:
 * to commit (now, when that makes a commit due).  Unless the member still
 * holds the partition, nothing is. */
int tmq_readloop_done(struct tmq_readloop *l, unsigned partition,
    uint64_t next, struct tmq_error *e);
/* The same, never committing: for a caller inside the group's work (the
 * consumer's before_offer), where the commit that follows counts it.  1
 * when marked, 0 when the member does not hold the partition, -1. */
int tmq_readloop_mark(struct tmq_readloop *l, unsigned partition,
    uint64_t next, struct tmq_error *e);
/* Whether the member's group is in a rebalance: --exec starts nothing
 * then, so that no message runs on a partition about to move. */
int tmq_readloop_rebalancing(const struct tmq_readloop *l);
/* --exec, while commands run and no record is read: answer the group
 * when it is due and commit when the clock says so. */
int tmq_readloop_tend(struct tmq_readloop *l, struct tmq_error *e);
/* Whether the member holds partition now. */
int tmq_readloop_holds(const struct tmq_readloop *l, unsigned partition);
/* A descriptor readable when a topic changes (-1: none; then poll at
 * most every TMQ_TURN_MAX_WAIT_MS / 10), and the wait that drains it. */
int tmq_readloop_fd(const struct tmq_readloop *l);
/* Whether partitions were skipped as unreadable (said as notices). */
int tmq_readloop_skipped(const struct tmq_readloop *l);
void tmq_readloop_free(struct tmq_readloop *l);

#endif
