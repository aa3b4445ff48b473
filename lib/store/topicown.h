/* topicown.h: what in a topic directory is the topic's own, and removing
 * exactly that.
 *
 * A topic directory sits in a root that others may write to: a co-user
 * can plant a directory chain 30,000 deep in it, or a directory of theirs
 * that we may not empty.  So nothing here recurses, follows a link or
 * removes what is not the topic's.  The topic's own entries are:
 *   - its partition files: any entry that is not a directory whose name the
 *     TwainMQ library takes for one (the part of its stem, as Python's
 *     Path.stem, up to the first '-' is a partition number:
 *     "3-20250101_0.tmf", "3");
 *   - .tmq, tmq's own folder, where the TwainMQ library never looks: when
 *     it is a directory, what it holds that is not a directory (lock, live.*,
 *     snapshot.UID and what a later tmq may keep there), never a directory;
 *     when it is not a directory, itself.
 * Everything else is foreign: kept, and named.  Removing a name never
 * touches what a link points to (unlinkat does not follow links). */
#ifndef TMQ_TOPICOWN_H
#define TMQ_TOPICOWN_H

#include <stddef.h>

#include "util/error.h"

/* The foreign entries found: how many, and the first of them, escaped,
 * as "a, b, .tmq/c" (cut short with "..."). */
struct tmq_foreign {
	unsigned n;		/* found */
	unsigned listed;	/* of them in shown */
	int full;		/* shown had no room for the next */
	char shown[200];
};

/* 1 when an entry of this name in a topic directory is one of its
 * partition files by name (the TwainMQ library's rule above). */
int tmq_own_partition_name(const char *name);
/* Look through the topic directory dirfd without changing anything: the
 * entries that are not the topic's go into f.  0, or -1 with e set. */
int tmq_own_scan(int dirfd, struct tmq_foreign *f, struct tmq_error *e);
/* Remove the topic's own entries from the directory name in parentfd,
 * then the directory itself: 0 when it is gone (or was never there), 1
 * when foreign entries keep it (f says which), -1 with e set when
 * something could not be removed (e names it, relative to shown, the
 * directory's name for messages). */
int tmq_own_remove(int parentfd, const char *name, const char *shown,
    struct tmq_foreign *f, struct tmq_error *e);
/* "a, b, c" or "a, b, c and 4 more" for a message. */
const char *tmq_foreign_text(const struct tmq_foreign *f, char *buf,
    size_t sz);

#endif
