/* offsetrange.h: committed offsets that point nowhere: past a
 * partition's end (the topic deleted and made again, files removed) or
 * before its first offset (pruned), and what a reader does about them
 * (like Kafka's auto.offset.reset). */
#ifndef TMQ_OFFSETRANGE_H
#define TMQ_OFFSETRANGE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

enum tmq_range { TMQ_IN_RANGE, TMQ_PAST_END, TMQ_BEFORE_FIRST };

enum tmq_reset {
	TMQ_RESET_START,	/* the first offset still there: loses nothing */
	TMQ_RESET_NOW,		/* the end */
	TMQ_RESET_FAIL		/* stop with an error */
};

/* Where a committed offset (TMQ_NOT_COMMITTED and -1, "now", are always
 * in range; any other negative one is before the first) stands against
 * the partition's [first, end]. */
enum tmq_range tmq_range_of(int64_t committed, uint64_t first, uint64_t end);
/* "past the end" or "before the first offset". */
const char *tmq_range_text(enum tmq_range r);
/* "group G: partition P: committed offset O is out of range, past the
 * end (E)", the same words wherever it is said. */
void tmq_range_describe(const char *group, unsigned partition,
    int64_t committed, uint64_t first, uint64_t end, char *buf, size_t sz);
/* "start", "now" or "fail". */
int tmq_reset_parse(const char *s, enum tmq_reset *r, struct tmq_error *e);
const char *tmq_reset_name(enum tmq_reset r);

#endif
