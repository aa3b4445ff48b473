/* groupsnap.h: the encoding of a group's state (groupstate.h) in a
 * snapshot, so that reading the state costs the lines written since the
 * last snapshot, not the log's age.  This is the format alone, bytes in
 * and out; where a snapshot lives, and what proves the log it covers
 * unchanged, is groupsnapfile.h.
 *
 * A snapshot holds the state as of a position in the log, and the
 * position: the log files it covers and what proves that covered part
 * unchanged (struct tmq_gsnap_pos).  It carries its own XXH3 checksum, so
 * that an accident (a torn write, another version) is no snapshot; but
 * anyone in the group can write one, checksum and all, so each value is
 * checked against what a log of the length covered can leave, and one
 * that holds another is refused. */
#ifndef TMQ_GROUPSNAP_H
#define TMQ_GROUPSNAP_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "group/groupstate.h"

/* The covered part of the log. */
struct tmq_gsnap_pos {
	unsigned nparts;	/* the topic's partition count the state holds */
	uint64_t *firsts;	/* FIRST of each file covered, in order */
	unsigned *days;		/* and its day */
	unsigned nfiles;	/* >= 1; the last one is covered to last_len */
	uint64_t first_ino, first_len, first_hash;	/* files[0] */
	uint64_t last_ino, last_len, last_hash;	/* files[nfiles - 1] */
};

void tmq_gsnap_pos_free(struct tmq_gsnap_pos *pos);

/* Serialize s with pos (its nparts: s's) into a malloc'd buffer. */
int tmq_gsnap_encode(const struct tmq_gstate *s,
    const struct tmq_gsnap_pos *pos, unsigned char **out, size_t *n,
    struct tmq_error *e);
/* Parse a snapshot into s (a state made by tmq_gstate_init: what it
 * held is freed, and its nparts becomes the snapshot's, pos->nparts) and
 * pos.  Anything not exactly as
 * encode writes it is an error, and then s (empty) and pos are left
 * empty: -1 for what is no snapshot of ours (torn, another version), -2
 * for a sealed one holding what no log can leave. */
int tmq_gsnap_decode(const unsigned char *p, size_t n, struct tmq_gstate *s,
    struct tmq_gsnap_pos *pos, struct tmq_error *e);

#endif
