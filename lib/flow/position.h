/* position.h: where a reader starts (tmq-get --from, tmq-group reset --to). */
#ifndef TMQ_POSITION_H
#define TMQ_POSITION_H

#include <stdint.h>

#include "error.h"

enum tmq_pos_kind {
	TMQ_POS_START,		/* "start": offset 0 (or the first left) */
	TMQ_POS_NOW,		/* "now": the end when the reader starts */
	TMQ_POS_OFFSET,		/* "1234" */
	TMQ_POS_TAIL,		/* "-N": the last N of each partition */
	TMQ_POS_TIME		/* "@1764400000", "2026-11-25T09:00Z", "1h" */
};

struct tmq_position {
	enum tmq_pos_kind kind;
	uint64_t n;		/* OFFSET, TAIL */
	double t;		/* TIME */
};

/* A bare integer is an offset, "-N" a count; anything else is a time in
 * timespec.h's grammar ("-1h" included: its unit makes it a time). */
int tmq_position_parse(const char *s, struct tmq_position *p,
    struct tmq_error *e);

#endif
