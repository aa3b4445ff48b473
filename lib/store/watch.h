/* watch.h: sleeping until a directory or a file changes, for the waits
 * that are not a topic's readers (those are consumer.c's): tmq-group
 * wait on a group's log, tmq-put --follow on the file it follows.
 *
 * inotify where it can see the writers; on a network or FUSE filesystem,
 * where it sees only this machine's (or with TMQ_FOLLOW=poll, as for
 * followers), every wait is a look after POLL_MS instead. */
#ifndef TMQ_WATCH_H
#define TMQ_WATCH_H

#include "util/error.h"

/* How often a wait that cannot use inotify looks (as followers do). */
#define TMQ_WATCH_POLL_MS 50

struct tmq_watch {
	int ifd;		/* inotify, or -1 */
	int poll_only;		/* a watched file where inotify cannot see */
};

/* An empty watch (TMQ_FOLLOW checked: auto or poll). */
int tmq_watch_init(struct tmq_watch *w, struct tmq_error *e);
/* Watch what fd is open on (a directory: the changes to its entries and
 * to the files in it; a file: its writes, and its moves and removal).
 * A filesystem where inotify cannot see every writer, or a watch that
 * cannot be had, makes every wait a poll: never an error. */
int tmq_watch_add(struct tmq_watch *w, int fd, struct tmq_error *e);
/* Drop every watch (the watched files are followed anew). */
void tmq_watch_clear(struct tmq_watch *w);
/* Sleep until something watched changes, timeout_ms passes (-1: no
 * limit) or a signal comes: 1 when something may have changed, 0 when
 * the time passed, -1 on an error. */
int tmq_watch_wait(struct tmq_watch *w, int timeout_ms, struct tmq_error *e);
void tmq_watch_close(struct tmq_watch *w);

#endif
