/* dirlist.h: a topic directory listed once for all the readers of its
 * partitions.  A follower of 10,000 partitions that listed the directory
 * for each of them on every wake-up did work in the square of the count;
 * with one shared listing, refreshed only when the directory's entries
 * may have changed (a new or removed file, or each wake-up where no
 * inotify watches), it does one listing a wake-up at most. */
#ifndef TMQ_DIRLIST_H
#define TMQ_DIRLIST_H

#include <stddef.h>
#include "error.h"
#include "partfile.h"

struct tmq_dirlist {
	int dirfd;			/* not owned */
	struct tmq_pfile *files;	/* sorted by partition then FIRST */
	size_t n;
	int stale;			/* list again before the next use */
	unsigned gen;			/* bumped by each listing */
	/* Called when a descriptor is wanted and none is left (EMFILE): it
	 * closes one it can spare and returns 0, else -1. */
	int (*spare_fd)(void *arg);
	void *spare_arg;
};

void tmq_dirlist_init(struct tmq_dirlist *dl, int dirfd);
void tmq_dirlist_free(struct tmq_dirlist *dl);
/* List the directory again if stale. */
int tmq_dirlist_refresh(struct tmq_dirlist *dl, struct tmq_error *e);
/* The same, keeping only the files of one partition (all when -1). */
int tmq_dirlist_refresh_part(struct tmq_dirlist *dl, long partition,
    struct tmq_error *e);
/* The files of one partition within the listing: *v (not owned) and *n. */
void tmq_dirlist_part(const struct tmq_dirlist *dl, unsigned partition,
    const struct tmq_pfile **v, size_t *n);

#endif
