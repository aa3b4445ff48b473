/* groupconsumer.h: a consumer whose partitions come from a group: as a
 * member (its share, following rebalances) or, with fixed partitions,
 * from the group's committed offsets under the group's lock.  It tracks
 * what the caller delivered, to commit it. */
#ifndef TMQ_GROUPCONSUMER_H
#define TMQ_GROUPCONSUMER_H

#include "flow/consumer.h"
#include "group/member.h"
#include "group/offsetrange.h"

/* A message delivered to the output: where its bytes end, and the offset
 * to commit for its partition once the reader has taken them. */
struct tmq_gmark {
	uint64_t end;
	int64_t next;
	unsigned partition;
};

/* Descriptors a member keeps free for its group's work (its log, its
 * locks, a snapshot, a sweep of dead members' files): its sources give
 * theirs up to leave these (tmq(7): a member needs no descriptor a
 * partition). */
#define TMQ_GC_RESERVE 6
/* Descriptors left free beside it, for a source to open (groupconsumer.c):
 * with those, 20 serve a member of any number of partitions. */
#define TMQ_GC_ROOM 3

struct tmq_gconsumer {
	struct tmq_consumer *c;
	size_t topic;			/* the data topic's index in c */
	int is_member;
	struct tmq_member mb;		/* is_member */
	struct tmq_group g;		/* fixed partitions */
	int lockfd;
	unsigned nparts;
	int64_t *delivered;		/* next offset after what was taken */
	int64_t *sent;			/* what we last committed */
	/* Make delivered output durable before committing (stdout flush). */
	int (*flush)(void *arg);
	void *flush_arg;
	/* How many bytes of the output the reader has taken (NULL: all that
	 * was delivered counts as taken).  Messages wait in marks until
	 * their last byte has been taken. */
	int (*taken)(void *arg, uint64_t *bytes, struct tmq_error *e);
	void *taken_arg;
	struct tmq_gmark *marks;
	size_t mhead, mtail, mcap;
	int autocommit;
	/* Called before each offer, before what was delivered is committed
	 * (NULL: nothing): a caller with work in flight (--exec) lets it
	 * finish there and says it delivered (tmq_gc_delivered), so that
	 * the commit that precedes the offer, and so whoever takes a
	 * partition next, counts it.  It may wait, beating (tmq_gc_beat),
	 * but not poll or commit. */
	int (*before_offer)(void *arg, struct tmq_error *e);
	void *before_offer_arg;
	/* What to do with a committed offset out of range (set before
	 * tmq_gc_join or tmq_gc_fixed); each is reported once. */
	enum tmq_reset reset;
	unsigned char *reported;
	unsigned generation;		/* bumped at each new share */
	/* The member's session timeout (member.h; set before tmq_gc_join). */
	double session;
	/* Descriptors held while sources are read and closed for the
	 * group's work, so that the sources never take the last ones. */
	int reserve[TMQ_GC_RESERVE];
	unsigned nreserve;
	unsigned depth;			/* in the group's work (reserve free) */
};

/* Join group as a member reading topic. */
int tmq_gc_join(struct tmq_gconsumer *gc, struct tmq_consumer *c, int rootfd,
    const char *group, const char *topic, int from_now, double window,
    struct tmq_error *e);
/* Read fixed partitions from the group's committed offsets, holding the
 * group's lock so no second such reader runs beside us. */
int tmq_gc_fixed(struct tmq_gconsumer *gc, struct tmq_consumer *c,
    int rootfd, const char *group, const char *topic, const unsigned *parts,
    unsigned nparts, int from_now, struct tmq_error *e);
/* The caller delivered the message at offset of partition, its output
 * ending at byte end (see taken). */
int tmq_gc_delivered(struct tmq_gconsumer *gc, unsigned partition,
    uint64_t offset, uint64_t end, struct tmq_error *e);
/* Commit what was delivered and taken since the last commit (flushing
 * first). */
int tmq_gc_commit(struct tmq_gconsumer *gc, struct tmq_error *e);
/* Keep up with the group log. */
int tmq_gc_poll(struct tmq_gconsumer *gc, struct tmq_error *e);
/* Whether to poll before printing or committing more (tmq_member_due). */
int tmq_gc_due(const struct tmq_gconsumer *gc);
/* Whether the member holds partition now (fixed partitions: always). */
int tmq_gc_holds(const struct tmq_gconsumer *gc, unsigned partition);
/* Whether the member's group is in a rebalance (fixed partitions: no). */
int tmq_gc_rebalancing(const struct tmq_gconsumer *gc);
/* The rebalance in force: its BEGINREBAL's offset plus one (0 when none),
 * and the seconds left in its window (END less the clock; at or below 0
 * once past). */
uint64_t tmq_gc_rebalance(const struct tmq_gconsumer *gc, double *left);
/* A member's beat, when due (before_offer's waits). */
void tmq_gc_beat(struct tmq_gconsumer *gc);
/* How long the caller may sleep before the group needs us (ms, -1: any). */
int tmq_gc_timeout(const struct tmq_gconsumer *gc);
/* Holding a confirmed share and no rebalance under way. */
int tmq_gc_settled(const struct tmq_gconsumer *gc);
/* Commit (with autocommit), then leave the group. */
int tmq_gc_finish(struct tmq_gconsumer *gc, struct tmq_error *e);
void tmq_gc_close(struct tmq_gconsumer *gc);

#endif
