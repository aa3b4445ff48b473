/* groupmsg.h: the seven messages of a group's log (tmq-format(5)): their
 * kinds, JSON bodies, and the group topic's fixed type table.
 *
 * Anyone in the group may write its log, so a body is read at a cost
 * bounded by the topic's partition count, whatever it holds: a list of
 * partitions is read as the set it stands for (ascending, each once,
 * those at or past the count dropped), in one pass over the text, into
 * memory that never exceeds the count; a body longer than any honest
 * message of that count needs is refused before it is read. */
#ifndef TMQ_GROUPMSG_H
#define TMQ_GROUPMSG_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* In the order of the group topic's type indices. */
enum tmq_gkind {
	TMQ_G_JOINED, TMQ_G_ABORTJOIN, TMQ_G_REBALOFFER, TMQ_G_REBALCONFIRM,
	TMQ_G_BEGINREBAL, TMQ_G_ENDREBAL, TMQ_G_COMMIT, TMQ_G_NKINDS
};

extern const char *const tmq_gkind_names[TMQ_G_NKINDS];

struct tmq_poff {
	unsigned partition;
	int64_t offset;		/* -1: "now" (tmq-format(5),
				 * Consumer groups, Creating) */
};

struct tmq_gmsg {
	enum tmq_gkind kind;
	uint32_t member;	/* the message's key */
	double ts;		/* when it was written */
	uint64_t offset;	/* its offset in the group log */
	uint64_t tag;		/* JOINED, ABORTJOIN */
	double end;		/* BEGINREBAL */
	unsigned *own, nown;	/* REBALOFFER */
	/* REBALOFFER: how many entries of `own` that `partitions` accepts
	 * were repeats, dropped as the body was read: the TwainMQ library
	 * counts them as owned (tmq-format(5), Consumer groups, Assigning),
	 * and so does tmq_assign. */
	unsigned own_extra;
	unsigned *parts, nparts;	/* REBALOFFER, REBALCONFIRM */
	struct tmq_poff *commits;	/* COMMIT: each partition once, its
					 * last offset in the body */
	unsigned ncommits;
	/* A partition at or past the parser's limit named in the body and
	 * dropped (the first one: own's, then the other lists'). */
	int has_absent;
	uint32_t absent;
};

/* What reading bodies needs: the topic's partition count and a mark per
 * partition (all clear between bodies). */
struct tmq_gparser {
	unsigned limit;
	uint32_t *mark;
};

/* limit: the topic's partition count, at most TMQ_MAX_PARTITIONS. */
int tmq_gparser_init(struct tmq_gparser *gp, unsigned limit,
    struct tmq_error *e);
void tmq_gparser_free(struct tmq_gparser *gp);
/* The longest body an honest member writes for a topic of limit
 * partitions: an offer of them all, or a commit of them all, with room to
 * spare (json.dumps' spaced layout included); longer ones are refused. */
size_t tmq_gmsg_max_body(unsigned limit);

/* Parse the JSON body of a message of kind k into m (other fields are the
 * caller's).  It must be one JSON object by RFC 8259.  The arrays are
 * malloc'd: free with tmq_gmsg_clear. */
int tmq_gmsg_parse(struct tmq_gparser *gp, enum tmq_gkind k, const char *json,
    size_t n, struct tmq_gmsg *m, struct tmq_error *e);
void tmq_gmsg_clear(struct tmq_gmsg *m);
/* The compact JSON body the TwainMQ library writes for m (json.dumps with
 * separators=(",",":")).  Returns a malloc'd string. */
char *tmq_gmsg_body(const struct tmq_gmsg *m);
/* The kind for a type name of the group topic, or -1. */
int tmq_gkind_of(const char *type_name);

#endif
