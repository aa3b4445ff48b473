/* idindex.h: where each member id is in an array of the group's state
 * (group.h): a hash table from u32 ids to array positions, so that a log
 * of n distinct members costs n lookups of O(1), not n^2 steps.  The ids
 * come from a log anyone in the group may write: the hash is seeded at
 * random per table, so no chosen set of ids makes them collide. */
#ifndef TMQ_IDINDEX_H
#define TMQ_IDINDEX_H

#include <stddef.h>
#include <stdint.h>

struct tmq_idslot {
	uint32_t id;
	uint32_t at1;		/* position + 1; 0: empty */
};

struct tmq_idindex {
	struct tmq_idslot *slot;
	size_t cap;		/* a power of two, or 0 */
	size_t n;
	uint64_t seed;
};

/* The position of id, or -1. */
long tmq_idx_find(const struct tmq_idindex *x, uint32_t id);
/* Record id at position at (< 2^32 - 1), replacing what it had: 0, or -1
 * when out of memory (x unchanged). */
int tmq_idx_put(struct tmq_idindex *x, uint32_t id, uint32_t at);
/* Record id at position at unless it is there: 0 when added, 1 when it
 * was there (x unchanged; its position in *was when was is not NULL), -1
 * when out of memory.  One probe either way. */
int tmq_idx_add(struct tmq_idindex *x, uint32_t id, uint32_t at, long *was);
/* Make room for n ids in all, at once: 0, or -1 when out of memory. */
int tmq_idx_reserve(struct tmq_idindex *x, size_t n);
/* Forget every id (and the table's memory: a table emptied after holding
 * many costs nothing to empty again). */
void tmq_idx_clear(struct tmq_idindex *x);

#endif
