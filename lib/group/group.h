/* group.h: a consumer group: its log (the topic --group--NAME), the state
 * every reader of that log agrees on, and writing to it.  Members
 * (member.h), tmq-commit and tmq-group all stand on this. */
#ifndef TMQ_GROUP_H
#define TMQ_GROUP_H

#include <stdint.h>

#include "appender.h"
#include "assignment.h"
#include "groupmsg.h"
#include "idindex.h"
#include "linereader.h"
#include "message.h"
#include "topic.h"

struct tmq_gmember {
	uint32_t id;
	int claimed;		/* a JOINED for this id was seen */
	uint64_t tag;		/* the first JOINED's tag: the id's owner */
	double last_seen;	/* time of its latest message */
	uint64_t last_offset;	/* offset of its latest message */
	int left;		/* its latest offer took nothing: it left */
	unsigned *confirmed, nconfirmed;	/* latest REBALCONFIRM */
	int has_confirmed;
};

struct tmq_group {
	char *name;
	struct tmq_topic log;		/* --group--NAME */
	struct tmq_linereader lr;
	struct tmq_codec codec;
	struct tmq_appender app;
	int app_open;
	char *topic;			/* the topic consumed, when known */
	unsigned nparts;		/* its partition count, or
					 * TMQ_MAX_PARTITIONS when unknown:
					 * partition numbers at or past it in
					 * the log are ignored */
	int nparts_known;
	/* Where to say that a line named partitions that do not exist (set
	 * after tmq_group_open; NULL: not said). */
	void (*notice)(void *arg, const char *msg);
	void *notice_arg;

	/* State replayed from the log. */
	uint64_t read_to;		/* offset of the next log line */
	uint32_t max_key;
	struct tmq_gmember *members;
	unsigned nmembers;
	int rebalancing;		/* BEGINREBAL seen, no ENDREBAL yet */
	double rebal_end;
	uint64_t rebal_offset;		/* offset of the BEGINREBAL in force */
	struct tmq_offer *offers;	/* offers of the rebalance in force */
	unsigned noffers;
	int have_assignment;		/* a rebalance has completed */
	struct tmq_offer *assigned;	/* offers and shares of the last one */
	unsigned nassigned;
	uint64_t ended_offset;		/* offset of its ENDREBAL */
	int64_t *committed;		/* per partition; -2: never committed */
	unsigned ncommitted;
	/* (Every field of the replayed state is in the snapshot too: one
	 * added here belongs in groupsnap.c, with a new version there.) */

	/* Snapshots of that state (groupsnap.h). */
	uint64_t snap_every;		/* lines between them; 0: none */
	uint64_t snap_at;		/* read_to of the last one seen */
	int snap_off;			/* the state is no longer the log's */
	int snap_refused;		/* one was refused: replace it */

	/* Derived from the state, never stored: where each id is in
	 * members, offers and assigned (tmq_group_reindex), and the arrays'
	 * room, so that a log of n members or offers costs O(n). */
	struct tmq_idindex member_ix, offer_ix, assigned_ix;
	size_t members_cap, offers_cap;
	struct tmq_gparser parser;	/* bodies, bounded by nparts */
};

#define TMQ_NOT_COMMITTED (-2)

/* Open an existing group (topic_hint names its topic when the group's
 * definition does not, as for groups the TwainMQ library made). */
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
/* Free the replayed state (members, offers, assignment, commits) and
 * leave it empty, as before the first line was read. */
void tmq_group_state_free(struct tmq_group *g);

/* Read the next message of the log and apply it to the state: 1 with *m
 * filled (free with tmq_gmsg_clear), 0 at the end for now, -1 on error.
 * Lines that do not decode are skipped (reported through e with 2). */
int tmq_group_next(struct tmq_group *g, struct tmq_gmsg *m,
    struct tmq_error *e);
/* Read to the end of the log (lines skipped are said through notice),
 * starting from the group's snapshot when one matches (groupsnap.h). */
int tmq_group_replay(struct tmq_group *g, struct tmq_error *e);
/* Append one message under key member. */
int tmq_group_write(struct tmq_group *g, uint32_t member,
    const struct tmq_gmsg *m, struct tmq_error *e);
/* Write a COMMIT of n partition offsets under key member. */
int tmq_group_commit(struct tmq_group *g, uint32_t member,
    const struct tmq_poff *po, unsigned n, struct tmq_error *e);

/* For observers: a rebalance that its members may close (every member that
 * may be alive has offered, or the window is over for those we cannot
 * vouch for: liveness.h) is taken as closed with the offers it got, so
 * members that left or died drop out of the picture.  Members never call
 * this. */
int tmq_group_settle(struct tmq_group *g, struct tmq_error *e);
/* The partitions of member in the last completed rebalance. */
const struct tmq_offer *tmq_group_share(const struct tmq_group *g,
    uint32_t member);
/* The offer of member in the rebalance under way, or NULL. */
const struct tmq_offer *tmq_group_offer(const struct tmq_group *g,
    uint32_t member);
/* The committed offset of a partition, or TMQ_NOT_COMMITTED. */
int64_t tmq_group_committed(const struct tmq_group *g, unsigned partition);
/* The member with this id, added (all zero) when the state has none;
 * NULL when out of memory. */
struct tmq_gmember *tmq_group_member(struct tmq_group *g, uint32_t id);
/* The member with this id, or NULL. */
const struct tmq_gmember *tmq_group_find_member(const struct tmq_group *g,
    uint32_t id);
/* Index the members, offers and shares arrays anew, after they were
 * filled by other means than the log (a snapshot, a test): -1 when an id
 * is there twice in one of them, or out of memory. */
int tmq_group_reindex(struct tmq_group *g, struct tmq_error *e);

#endif
