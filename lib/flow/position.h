/* position.h: where a reader starts (tmq-get --from, tmq-group reset --to). */
#ifndef TMQ_POSITION_H
#define TMQ_POSITION_H

#include <stdint.h>

#include "util/error.h"

enum tmq_pos_kind {
	TMQ_POS_START,		/* "start": offset 0 (or the first left) */
	TMQ_POS_NOW,		/* "now": the end when the reader starts */
	TMQ_POS_OFFSET,		/* "1234" */
	TMQ_POS_TAIL,		/* "-N": the last N of each partition */
	TMQ_POS_TIME,		/* "@1764400000", "2026-11-25T09:00Z", "1h" */
	TMQ_POS_PAIRS		/* "0=1200,1=1180": each named partition at
				 * its offset, the others from the start */
};

struct tmq_offset_at {
	unsigned partition;
	uint64_t offset;
};

struct tmq_position {
	enum tmq_pos_kind kind;
	uint64_t n;		/* OFFSET, TAIL */
	double t;		/* TIME */
	struct tmq_offset_at *at;	/* PAIRS: by partition, ascending */
	unsigned nat;
};

/* A bare integer is an offset, "-N" a count; anything else is a time in
 * timespec.h's grammar ("-1h" included: its unit makes it a time). */
int tmq_position_parse(const char *s, struct tmq_position *p,
    struct tmq_error *e);
/* The same, or PARTITION=OFFSET pairs separated by commas, each partition
 * once, as tmq-topic info --ends prints them (tmq-get --from).  A list
 * that is not exactly that is refused, quoted, naming what is wrong. */
int tmq_position_parse_from(const char *s, struct tmq_position *p,
    struct tmq_error *e);
/* The offset PAIRS give partition: 1 with *offset set, 0 when it is not
 * named. */
int tmq_position_offset_of(const struct tmq_position *p, unsigned partition,
    uint64_t *offset);
void tmq_position_free(struct tmq_position *p);

#endif
