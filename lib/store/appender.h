/* appender.h: appending lines to a topic's partitions, in batches that
 * are cuts of the input: a batch holds every line queued since the last,
 * whatever its partition, and is written whole before the next is begun,
 * so that between batches what is on disk is exactly the lines queued
 * first.  When a write fails the appender says which lines it wrote. */
#ifndef TMQ_APPENDER_H
#define TMQ_APPENDER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "store/dirlist.h"
#include "util/error.h"
#include "store/topic.h"

struct tmq_app_part {
	int fd;
	int tailfd;		/* where locked: reads the file's true end */
	int tailhow;		/* (how: directread.h) */
	unsigned day;		/* the UTC day the open file belongs to */
	int locked;		/* this file's filesystem needs file locks */
	int wronly;		/* opened write-only: no read lock on it */
	int opening;		/* being opened: not to be closed to spare */
	int busy;		/* its chunk is being written: nor this */
	char name[64];		/* the open file's name */
	char *buf;
	size_t len, cap;
	size_t done;		/* bytes of buf written by this flush */
	off_t ours;		/* where our last whole write left the file's
				 * end, or -1: a file still that size ends
				 * in our newline (end_cut_line) */
	size_t at;		/* (counting, after a failed flush) */
	uint64_t begin;		/* begins: where its first file starts */
	int begins;		/* (tmq_appender_begin_at) */
	/* The directory's mtime before the listing that chose the open
	 * file, when it was settled then (chose_ok): while it stays so, the
	 * file is still the partition's last (still_last, appender.c). */
	struct timespec chose_mtim;
	int chose_ok;
};

/* One line queued, in the order queued: its partition, its length and
 * the caller's number for it (tmq_appender_add_rec). */
struct tmq_app_line {
	unsigned partition;
	size_t len;
	unsigned long seq;
};

/* What a failed flush wrote of the lines it had, by their numbers: every
 * line numbered below lost is written; lost itself is not; of those after
 * it, beyond were written all the same (a batch whose writes to some
 * partitions were done when another's failed), the last of them numbered
 * beyond_last, in the partitions beyond_parts (the first few, in order;
 * nbeyond_parts of them in all).  A flush whose every line was written but
 * whose fdatasync (sync) failed loses none, and may have lost them all
 * from the disk: those of the partitions not made durable are numbered
 * from undurable_first to undurable_last (0: none such). */
#define TMQ_APP_SHOW_PARTS 4
struct tmq_app_lost {
	unsigned long lost;	/* 0: the flush lost nothing */
	unsigned long undurable_first, undurable_last;
	unsigned long beyond, beyond_last;
	unsigned beyond_parts[TMQ_APP_SHOW_PARTS];
	unsigned nbeyond_parts;
};

struct tmq_appender {
	const struct tmq_topic *topic;
	int sync;		/* fdatasync after each flush */
	int lockmode;		/* -1 auto, 0 never, 1 always (TMQ_APPEND) */
	struct tmq_app_part *parts;
	size_t pending;		/* bytes buffered over all partitions */
	unsigned *toopen;	/* partitions whose files a flush opens */
	unsigned spare_next;	/* where spare_fd looks next */
	unsigned open_chunk;	/* files a flush opens at once */
	/* The partitions' files, to check that each open file is still its
	 * partition's last (appender.c): valid while the directory's mtime
	 * is listed_mtim, when listed_ok. */
	struct tmq_dirlist dl;
	int listed_ok;
	struct timespec listed_mtim;
	/* The lines queued, in order, and when a batch is written. */
	struct tmq_app_line *lines;
	size_t nlines, lines_cap;
	size_t batch_max;	/* bytes queued over all partitions */
	unsigned long autoseq;	/* numbers for tmq_appender_add */
	unsigned *order;	/* partitions in the order of their first line */
	unsigned char *seen;	/* (by partition, while order is made) */
	struct tmq_app_lost lost;	/* what the last failed flush lost */
	int exact;		/* tmq_appender_exact */
	/* The filesystem's room at the last look (near_full, appender.c):
	 * bytes free then, less what we have written since, and when. */
	unsigned long long room;
	long long room_ms;
	int room_ok;
};

int tmq_appender_open(struct tmq_appender *a, const struct tmq_topic *t,
    int sync, struct tmq_error *e);
/* A copy that keeps offsets (tmq-put --keep-offsets): its lines must land
 * at the offsets its ends said, so a cut last line is never ended with a
 * newline (which would give it an offset).  A cut line that is the start
 * of the line about to be written there (this copy's own write, cut short
 * by a kill) is cut off, under the file's exclusive lock, and the line
 * written whole; any other is refused, saying how to cut it off.  A write
 * cut short (a full disk) is cut back to its last whole line. */
void tmq_appender_exact(struct tmq_appender *a);
/* Partition p holds no line: its first file starts at offset first (a
 * copy of a partition pruned at its source), its empty files (those that
 * tmq-topic create makes) removed.  Should a line appear there before it
 * is written, nothing is written to it. */
void tmq_appender_begin_at(struct tmq_appender *a, unsigned p,
    uint64_t first);
/* Queue a whole line (newline included) for a partition.  When the batch
 * is full, what was queued before it is written first (a flush). */
int tmq_appender_add(struct tmq_appender *a, unsigned partition,
    const char *line, size_t n, struct tmq_error *e);
/* The same, numbered seq (numbers increase), as a->lost tells them. */
int tmq_appender_add_rec(struct tmq_appender *a, unsigned partition,
    const char *line, size_t n, unsigned long seq, struct tmq_error *e);
/* Write what is queued: one write() per partition, in the order of each
 * partition's first line; or, when the filesystem is close to full, one
 * write() per run of lines for one partition, in the order queued, so
 * that the lines written when the disk fills are exactly the first ones.
 * The first write that fails ends the flush: nothing after it is written,
 * and a->lost says what was (what is queued is dropped). */
int tmq_appender_flush(struct tmq_appender *a, struct tmq_error *e);
/* Bytes queued and not yet written. */
size_t tmq_appender_pending(const struct tmq_appender *a);
void tmq_appender_close(struct tmq_appender *a);

#endif
