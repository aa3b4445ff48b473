/* groupmsg.h: the seven messages of a group's log (SPEC.md 5): their
 * kinds, JSON bodies, and the group topic's fixed type table. */
#ifndef TMQ_GROUPMSG_H
#define TMQ_GROUPMSG_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* In the order of the group topic's type indices. */
enum tmq_gkind {
	TMQ_G_JOINED, TMQ_G_ABORTJOIN, TMQ_G_REBALOFFER, TMQ_G_REBALCONFIRM,
	TMQ_G_BEGINREBAL, TMQ_G_ENDREBAL, TMQ_G_COMMIT, TMQ_G_NKINDS
};

extern const char *const tmq_gkind_names[TMQ_G_NKINDS];

struct tmq_poff {
	unsigned partition;
	int64_t offset;		/* -1: "now" (see SPEC.md 5.1) */
};

struct tmq_gmsg {
	enum tmq_gkind kind;
	uint32_t member;	/* the message's key */
	double ts;		/* when it was written */
	uint64_t offset;	/* its offset in the group log */
	uint64_t tag;		/* JOINED, ABORTJOIN */
	double end;		/* BEGINREBAL */
	unsigned *own, nown;	/* REBALOFFER */
	unsigned *parts, nparts;	/* REBALOFFER, REBALCONFIRM */
	struct tmq_poff *commits;	/* COMMIT */
	unsigned ncommits;
};

/* Parse the JSON body of a message of kind k into m (other fields are the
 * caller's).  The arrays are malloc'd: free with tmq_gmsg_clear. */
int tmq_gmsg_parse(enum tmq_gkind k, const char *json, size_t n,
    struct tmq_gmsg *m, struct tmq_error *e);
void tmq_gmsg_clear(struct tmq_gmsg *m);
/* The compact JSON body the library writes for m (json.dumps with
 * separators=(",",":")).  Returns a malloc'd string. */
char *tmq_gmsg_body(const struct tmq_gmsg *m);
/* The kind for a type name of the group topic, or -1. */
int tmq_gkind_of(const char *type_name);

#endif
