/* group.h: a consumer group: its log (the topic --group--NAME), read and
 * replayed into the state every reader of that log agrees on
 * (groupstate.h), starting from a snapshot when one matches
 * (groupsnap.h), and written to.  Members (member.h), tmq-commit and
 * tmq-group all stand on this. */
#ifndef TMQ_GROUP_H
#define TMQ_GROUP_H

#include <stdint.h>

#include "store/appender.h"
#include "group/assignment.h"
#include "group/groupmsg.h"
#include "group/groupstate.h"
#include "store/linereader.h"
#include "group/liveness.h"
#include "codec/message.h"
#include "store/topic.h"

struct tmq_live_watch;

struct tmq_group {
	char *name;
	struct tmq_topic log;		/* --group--NAME */
	struct tmq_linereader lr;
	struct tmq_codec codec;
	struct tmq_appender app;
	int app_open;
	char *topic;			/* the topic consumed, when known */
	int nparts_known;		/* state.nparts is its partition count
					 * (else TMQ_MAX_PARTITIONS: partition
					 * numbers at or past it in the log
					 * are ignored) */
	/* The topic was told (a hint) for a group whose definition records
	 * none: kept (grouptopic.h) at the first write to the log. */
	int topic_told;
	/* Where to say that a line named partitions that do not exist (set
	 * after tmq_group_open; NULL: not said). */
	void (*notice)(void *arg, const char *msg);
	void *notice_arg;
	/* A member's watch on the others' beats (liveness.h), or NULL:
	 * observers see no member stale. */
	struct tmq_live_watch *watch;

	/* The state replayed from the log (groupstate.h), as of the line
	 * at state.read_to. */
	struct tmq_gstate state;

	/* Snapshots of that state (groupsnapfile.h). */
	uint64_t snap_every;		/* lines between them; 0: none */
	uint64_t snap_at;		/* read_to of the last one seen */
	int snap_off;			/* the state is no longer the log's */
	int snap_refused;		/* one was refused: replace it */

	struct tmq_gparser parser;	/* bodies, bounded by state.nparts */

	/* When the rebalance in force began, as far as this reader can
	 * vouch (tmq_group_rebal_end), and its state.rebal_offset + 1
	 * (0: none seen yet). */
	double rebal_from;
	uint64_t rebal_from_at;
};

/* Open an existing group (topic_hint names its topic when the group's
 * definition does not, as for groups the TwainMQ library made), its
 * state empty.  A missing group is TMQ_ERR_NOGROUP. */
int tmq_group_open(int rootfd, const char *name, const char *topic_hint,
    struct tmq_group *g, struct tmq_error *e);
/* The most partitions a group may share.  A member offers every partition
 * in one REBALOFFER line, which must fit in the 4,096-byte line; 1,024
 * leaves room for any set of partitions a member may also own (the unit
 * test t-groupmsg encodes the worst cases).  Groups are refused at
 * creation on larger topics, rather than failing mid-rebalance. */
#define TMQ_GROUP_MAX_PARTITIONS 1024

/* Create the group for topic, with every partition committed at start
 * or at the partition's current end ("now"); it is no error when another
 * process created it first. */
int tmq_group_create(int rootfd, const char *name, const struct tmq_topic *t,
    int from_now, struct tmq_error *e);
void tmq_group_close(struct tmq_group *g);
/* Read the next message of the log and apply it to the state
 * (tmq_gstate_apply): 1 with *m filled (free with tmq_gmsg_clear), 0 at
 * the end for now, -1 on error.  Lines that do not decode are skipped
 * (reported through e with 2). */
int tmq_group_next(struct tmq_group *g, struct tmq_gmsg *m,
    struct tmq_error *e);
/* On a group just opened (its state empty): take the state from the
 * log's snapshot when it matches the log (groupsnapfile.h), and go on
 * reading after what it covers.  1 when it did; 0 when there is none or
 * it does not match (why in e, for the curious); 2 when one was refused
 * as holding what no log can leave (said through notice, and replaced
 * once this reader has read the log); -1 on an error. */
int tmq_group_load(struct tmq_group *g, struct tmq_error *e);
/* Read to the end of the log (lines skipped are said through notice),
 * starting from the group's snapshot when one matches (groupsnapfile.h). */
int tmq_group_replay(struct tmq_group *g, struct tmq_error *e);
/* Append one message under key member. */
int tmq_group_write(struct tmq_group *g, uint32_t member,
    const struct tmq_gmsg *m, struct tmq_error *e);
/* Write a COMMIT of n partition offsets under key member, in lines of at
 * most TMQ_COMMIT_CHUNK (each under the line limit): more than that, and
 * a failure may leave the first lines written. */
#define TMQ_COMMIT_CHUNK 256
int tmq_group_commit(struct tmq_group *g, uint32_t member,
    const struct tmq_poff *po, unsigned n, struct tmq_error *e);
/* May we append to the log now?  0, or -1 with e saying why not (its
 * newest file, or its directory when today's file is yet to be made, not
 * writable: a read-only file system, permissions).  A look, not a
 * promise: a write may still fail (a full disk). */
int tmq_group_writable(const struct tmq_group *g, struct tmq_error *e);

/* A rebalance's length is the group's rule, not its line's: the TwainMQ
 * library leaves TMQ_REBAL_WINDOW seconds (tmq-format(5), Rebalancing),
 * a tmq member its --window.  So the rebalance in force is over, for this
 * reader, at its END or window seconds (at least TMQ_REBAL_WINDOW) after
 * it began, whichever comes first; it began at the time its BEGINREBAL
 * line says, or when this reader first saw it when that is earlier (a
 * line may claim any time; one read from a snapshot is seen when this
 * reader asks).  Honest lines end no sooner so; a forged END far ahead
 * holds no group for longer.  The state's rebal_end when there is none
 * under way. */
#define TMQ_REBAL_WINDOW 60.0
double tmq_group_rebal_end(struct tmq_group *g, double window);

/* For observers: a rebalance that its members may close (every member that
 * may be alive has offered, or the window is over for those we cannot
 * vouch for: liveness.h) is taken as closed with the offers it got, so
 * members that left or died drop out of the picture.  Members never call
 * this. */
int tmq_group_settle(struct tmq_group *g, struct tmq_error *e);
/* Where the liveness of g's members is read, and said (liveness.h). */
void tmq_group_where(const struct tmq_group *g, struct tmq_live_where *w);

#endif
