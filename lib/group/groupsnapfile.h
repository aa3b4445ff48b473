/* groupsnapfile.h: where a group's snapshot lives (groupsnap.h is its
 * format), and what proves the log it covers unchanged.
 *
 * A snapshot lives beside the log, in its dot-folder where the TwainMQ
 * library never looks for partition files: --group--NAME/.tmq/snapshot.UID,
 * one a user (UID in decimal, the effective user's), as partition indexes
 * are: a reader believes only the one its own user wrote, that no other
 * may write (anyone who may write the log may write a snapshot, checksum
 * and all, with plausible values the log holds nowhere: every value is
 * checked against what the log can leave, but a false commit that a log
 * could have held is no value that check can refuse).  One of another
 * user's, or writable by others, under this user's name is refused, said
 * and replaced.
 * What proves its covered part of the log unchanged: the names of the log
 * files covered, and the inode, covered length and an XXH3 hash of the
 * first and of the last 4 KiB of the first and the last file covered (see
 * groupsnapfile.c).  Any mismatch, and any snapshot that does not decode,
 * means a full replay instead; one refused (groupsnap.h) is replaced by
 * the reader once it has read the log.  A snapshot is a cache: failing to
 * write one (no write access) only costs time. */
#ifndef TMQ_GROUPSNAPFILE_H
#define TMQ_GROUPSNAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "group/groupstate.h"
#include "store/linereader.h"

#define TMQ_GSNAP_EVERY 1000	/* default: lines read before a new one */
#define TMQ_GSNAP_BLOCK 4096	/* bytes hashed at each end of a file */

/* This user's snapshot's name in .tmq ("snapshot.UID"), and its path in
 * the log's directory (".tmq/snapshot.UID"), for messages. */
void tmq_gsnap_name(char *out, size_t n);
void tmq_gsnap_path(char *out, size_t n);

/* On a log just opened (s empty, for the topic's partition count; lr,
 * the log's reader, at its start): take the state from the log's
 * snapshot when it matches the log, and position lr after what it
 * covers.  1 when it did; 0 when there is none or it does not match (s
 * empty and lr at the start; why in e, for the curious); 2 when one was
 * refused as holding what no log can leave, or as another user's or
 * writable by others (why in e: the caller says so, and replaces it); -1
 * on an error that leaves lr nowhere. */
int tmq_gsnap_load(int logdirfd, struct tmq_linereader *lr,
    struct tmq_gstate *s, struct tmq_error *e);
/* Write a snapshot of s, the state as of lr's position (at the start of
 * a line: s->read_to), atomically (a temporary file renamed into place).
 * 0 when written, -1 when not. */
int tmq_gsnap_save(int logdirfd, struct tmq_linereader *lr,
    const struct tmq_gstate *s, struct tmq_error *e);
/* Lines read since the last snapshot after which a reader writes a new
 * one: TMQ_SNAPSHOT_EVERY from the environment (0: never read or write
 * snapshots), else TMQ_GSNAP_EVERY. */
uint64_t tmq_gsnap_every(void);

#endif
