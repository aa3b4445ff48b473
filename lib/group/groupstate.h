/* groupstate.h: a consumer group's state, as the messages of its log
 * leave it (tmq-format(5), Consumer groups): who has joined and under
 * which tag, the rebalance under way and its offers, the assignment of
 * the last one, the committed offsets.  Every reader of a log computes
 * the same state from the same lines.
 *
 * This is the protocol and nothing else: no files, no clock, no locks.
 * One function, tmq_gstate_apply, takes one decoded message (groupmsg.h;
 * its key, log offset and time in it) to the next state; the rest looks
 * the state up.  On it stand group.c (the log, read and replayed into
 * it), groupsnap.c (its encoding, so a reader starts from a snapshot),
 * liveness.c (which of its members hold their lock files) and member.c
 * (a member acting on it).  A rule of the protocol changes here, and its
 * unit tests (tests/unit/t-groupproto.c) need no root on disk.
 *
 * Each field but the derived ones is in a snapshot (groupsnap.c): one
 * added here goes there too, with a new SNAP_VERSION, and into the
 * comparison of states in t-groupproto (whose build stops until it is). */
#ifndef TMQ_GROUPSTATE_H
#define TMQ_GROUPSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "group/assignment.h"
#include "util/error.h"
#include "group/groupmsg.h"
#include "util/idindex.h"

/* A key seen in the log: a member, or one that tried to be. */
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

#define TMQ_NOT_COMMITTED (-2)

struct tmq_gstate {
	/* The topic's partition count (TMQ_MAX_PARTITIONS when unknown):
	 * commits of partitions at or past it are ignored, and the
	 * assignment shares out those below it.  Set by tmq_gstate_init. */
	unsigned nparts;

	uint64_t read_to;		/* offset of the next log line: every
					 * line before it applied or skipped */
	uint32_t max_key;		/* the largest key of any message */
	struct tmq_gmember *members;	/* every key seen, in order of first
					 * message */
	unsigned nmembers;
	int rebalancing;		/* BEGINREBAL seen, no ENDREBAL yet */
	double rebal_end;		/* its END */
	uint64_t rebal_offset;		/* offset of the BEGINREBAL in force */
	struct tmq_offer *offers;	/* offers of the rebalance in force,
					 * one a member, its latest */
	unsigned noffers;
	int have_assignment;		/* a rebalance has completed */
	struct tmq_offer *assigned;	/* offers and shares of the last one */
	unsigned nassigned;
	uint64_t ended_offset;		/* offset of its ENDREBAL */
	int64_t *committed;		/* per partition, TMQ_NOT_COMMITTED
					 * where never committed */
	unsigned ncommitted;

	/* Derived from the above, never stored: where each id is in
	 * members, offers and assigned, and the arrays' room, so that a log
	 * of n members or offers costs O(n) (tmq_gstate_reindex). */
	struct tmq_idindex member_ix, offer_ix, assigned_ix;
	size_t members_cap, offers_cap;
};

/* An empty state (before a log's first line) for a topic of nparts
 * partitions (1 to TMQ_MAX_PARTITIONS). */
void tmq_gstate_init(struct tmq_gstate *s, unsigned nparts);
/* Free what s holds and leave it empty again, nparts kept. */
void tmq_gstate_free(struct tmq_gstate *s);

/* Apply message m, the line at log offset m->offset (at or past
 * s->read_to), written under key m->member at time m->ts:
 *   - any message: its key is a member (added when new), heard at that
 *     offset and time; max_key is the largest key;
 *   - JOINED: the first one for a key claims it, with its tag;
 *   - BEGINREBAL: a rebalance starts afresh, with END m->end: the offers
 *     of an earlier one under way are dropped;
 *   - REBALOFFER: in a rebalance, the member's offer (a later one
 *     replaces its earlier one); one of no partitions is its leaving,
 *     in a rebalance or not; outside one, nothing else;
 *   - ENDREBAL: in a rebalance, the assignment of its offers
 *     (assignment.h) becomes the last completed one; outside, nothing;
 *   - REBALCONFIRM: the member's latest confirmed share;
 *   - COMMIT: each partition's committed offset is the latest one said
 *     (partitions at or past nparts are ignored);
 *   - ABORTJOIN: nothing but its key's.
 * read_to becomes m->offset + 1.  -1 when out of memory, or m is before
 * read_to (s unchanged then). */
int tmq_gstate_apply(struct tmq_gstate *s, const struct tmq_gmsg *m,
    struct tmq_error *e);
/* The line at offset did not decode: read_to goes past it. */
void tmq_gstate_skip(struct tmq_gstate *s, uint64_t offset);
/* Take the rebalance under way as closed at offset with the offers it
 * got, as an ENDREBAL there would, heard from nobody (an observer's view
 * of a rebalance its members may close: tmq_group_settle).  0 when there
 * is none. */
int tmq_gstate_end_rebalance(struct tmq_gstate *s, uint64_t offset,
    struct tmq_error *e);

/* The id a member joining now takes (tmq-format(5), Joining): the
 * largest key in the log plus one.  -1 when that key is 2^32 - 1. */
int tmq_gstate_new_id(const struct tmq_gstate *s, uint32_t *id);
/* Whose id is it: 1 when the first JOINED for id carries tag, -1 when it
 * carries another, 0 when no JOINED for id has been applied. */
int tmq_gstate_claim(const struct tmq_gstate *s, uint32_t id, uint64_t tag);

/* The member with this id, or NULL. */
const struct tmq_gmember *tmq_gstate_find(const struct tmq_gstate *s,
    uint32_t id);
/* The member with this id, added (all zero but its id) when new; NULL
 * when out of memory. */
struct tmq_gmember *tmq_gstate_member(struct tmq_gstate *s, uint32_t id);
/* The offer of member in the rebalance under way, or NULL. */
const struct tmq_offer *tmq_gstate_offer(const struct tmq_gstate *s,
    uint32_t member);
/* The offer and share (got) of member in the last completed rebalance,
 * or NULL. */
const struct tmq_offer *tmq_gstate_share(const struct tmq_gstate *s,
    uint32_t member);
/* The committed offset of a partition (-1: "now", as the TwainMQ library
 * writes it), or TMQ_NOT_COMMITTED. */
int64_t tmq_gstate_committed(const struct tmq_gstate *s, unsigned partition);

/* Index members, offers and shares anew, after they were filled by other
 * means than tmq_gstate_apply (a snapshot, a test): -1 when an id is
 * there twice in one of them, or out of memory. */
int tmq_gstate_reindex(struct tmq_gstate *s, struct tmq_error *e);

#endif
