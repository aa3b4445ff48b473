/* dirlist.c: one listing of a topic directory shared by its partitions'
 * readers (see dirlist.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dirlist.h"
#include "fdlimit.h"

void
tmq_dirlist_init(struct tmq_dirlist *dl, int dirfd)
{
	memset(dl, 0, sizeof *dl);
	dl->dirfd = dirfd;
	dl->stale = 1;
}

void
tmq_dirlist_free(struct tmq_dirlist *dl)
{
	free(dl->files);
	dl->files = NULL;
	dl->n = 0;
	dl->stale = 1;
}

int
tmq_dirlist_refresh(struct tmq_dirlist *dl, struct tmq_error *e)
{
	return tmq_dirlist_refresh_part(dl, -1, e);
}

int
tmq_dirlist_refresh_part(struct tmq_dirlist *dl, long partition,
    struct tmq_error *e)
{
	struct tmq_pfile *files;
	size_t n;

	if (!dl->stale)
		return 0;
	while (tmq_pfiles_list(dl->dirfd, partition, &files, &n, e) < 0)
		if (!tmq_fd_exhausted(errno) || dl->spare_fd == NULL ||
		    dl->spare_fd(dl->spare_arg) < 0)
			return -1;
	free(dl->files);
	dl->files = files;
	dl->n = n;
	dl->stale = 0;
	dl->gen++;
	return 0;
}

void
tmq_dirlist_part(const struct tmq_dirlist *dl, unsigned partition,
    const struct tmq_pfile **v, size_t *n)
{
	size_t lo = 0, hi = dl->n, first;

	/* The first file of the partition, then the first of the next. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dl->files[mid].partition < partition)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	hi = dl->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dl->files[mid].partition <= partition)
			lo = mid + 1;
		else
			hi = mid;
	}
	*v = dl->files + first;
	*n = lo - first;
}
