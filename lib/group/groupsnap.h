/* groupsnap.h: snapshots of a group's replayed state, so that reading the
 * state costs the lines written since the last snapshot, not the log's age.
 *
 * A snapshot lives beside the log, in its dot-folder where the TwainMQ library
 * never looks for partition files: --group--NAME/.tmq/snapshot.  It holds
 * the state (group.h) as of a position in the log, the names of the log
 * files that position covers, and what proves that covered part unchanged:
 * the inode, covered length and an XXH3 hash of the first and of the last
 * 4 KiB of the first and the last file covered (see groupsnap.c).  Any
 * mismatch, and any snapshot that is not exactly well formed (it carries
 * its own XXH3 checksum), means a full replay instead.  Anyone in the group
 * can write one, checksum and all: each value is checked against what a
 * log of the length covered can leave, and a snapshot that holds another
 * is refused, said through the group's notice, and replaced.  A snapshot
 * is a cache: failing to write one (no write access) only costs time. */
#ifndef TMQ_GROUPSNAP_H
#define TMQ_GROUPSNAP_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct tmq_group;

#define TMQ_GSNAP_EVERY 1000	/* default: lines read before a new one */
#define TMQ_GSNAP_BLOCK 4096	/* bytes hashed at each end of a file */

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

/* Serialize g's state with pos into a malloc'd buffer. */
int tmq_gsnap_encode(const struct tmq_group *g, const struct tmq_gsnap_pos *pos,
    unsigned char **out, size_t *n, struct tmq_error *e);
/* Parse a snapshot into the state fields of g (which must hold no state
 * yet) and pos.  Anything not exactly as encode writes it is an error, and
 * then g and pos are left empty: -1 for what is no snapshot of ours (torn,
 * another version), -2 for a sealed one holding what no log can leave. */
int tmq_gsnap_decode(const unsigned char *p, size_t n, struct tmq_group *g,
    struct tmq_gsnap_pos *pos, struct tmq_error *e);

/* On a group just opened: take the state from its snapshot when one
 * matches the log, and position the log's reader after what it covers.
 * 1 when it did, 0 when there is none or it does not match (g unchanged;
 * why in e, for the curious; a refused one is also said through
 * g->notice, and replaced at the next tmq_group_next that catches up). */
int tmq_gsnap_load(struct tmq_group *g, struct tmq_error *e);
/* Write a snapshot of g's state as of its reader's position, atomically
 * (a temporary file renamed into place).  0 when written, -1 when not. */
int tmq_gsnap_save(struct tmq_group *g, struct tmq_error *e);
/* Lines read since the last snapshot after which a reader writes a new
 * one: TMQ_SNAPSHOT_EVERY from the environment (0: never read or write
 * snapshots), else TMQ_GSNAP_EVERY. */
uint64_t tmq_gsnap_every(void);

#endif
