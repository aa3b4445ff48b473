/* appender.h: appending lines to a topic's partitions, in batches. */
#ifndef TMQ_APPENDER_H
#define TMQ_APPENDER_H

#include <stddef.h>
#include <time.h>

#include "dirlist.h"
#include "error.h"
#include "topic.h"

struct tmq_app_part {
	int fd;
	int tailfd;		/* where locked: reads the file's true end */
	int tailhow;		/* (how: directread.h) */
	unsigned day;		/* the UTC day the open file belongs to */
	int locked;		/* this file's filesystem needs file locks */
	int wronly;		/* opened write-only: no read lock on it */
	int opening;		/* being opened: not to be closed to spare */
	char name[64];		/* the open file's name */
	char *buf;
	size_t len, cap;
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
};

int tmq_appender_open(struct tmq_appender *a, const struct tmq_topic *t,
    int sync, struct tmq_error *e);
/* Queue a whole line (newline included) for a partition.  May flush. */
int tmq_appender_add(struct tmq_appender *a, unsigned partition,
    const char *line, size_t n, struct tmq_error *e);
/* Write what is queued: one write() per partition. */
int tmq_appender_flush(struct tmq_appender *a, struct tmq_error *e);
/* Bytes queued and not yet written. */
size_t tmq_appender_pending(const struct tmq_appender *a);
void tmq_appender_close(struct tmq_appender *a);

#endif
