/* dirlist.h: a topic directory listed once for all the readers of its
 * partitions.  A follower of 10,000 partitions that listed the directory
 * for each of them on every wake-up did work in the square of the count;
 * with one shared listing, refreshed only when the directory's entries
 * may have changed (a new or removed file, or each wake-up where no
 * inotify watches), it does one listing a wake-up at most.
 *
 * Every directory listing in lib/ reads its entries through tmq_dir_next,
 * which tells the directory's end from a read that failed. */
#ifndef TMQ_DIRLIST_H
#define TMQ_DIRLIST_H

#include <dirent.h>
#include <stddef.h>
#include "util/error.h"
#include "store/partfile.h"

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

/* The partition files of a topic directory, sorted by partition then
 * FIRST; only those of one partition when partition >= 0.  *out is
 * malloc'd (NULL when there are none).  A directory that cannot be read
 * to its end fails (TMQ_ERR_SYS, errno kept): never a shorter list. */
int tmq_pfiles_list(int dirfd, long partition, struct tmq_pfile **out,
    size_t *n, struct tmq_error *e);
/* The next entry of d: 1 with *de set, 0 at the end of the directory, -1
 * when reading it failed (errno says why).  readdir() gives NULL for both
 * (one EIO from getdents, a network filesystem's server gone away): only
 * errno, cleared before it, tells them apart, and a listing cut short by an
 * error is no listing. */
int tmq_dir_next(DIR *d, struct dirent **de);

#endif
