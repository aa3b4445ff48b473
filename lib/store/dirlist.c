/* dirlist.c: listing a directory to its end, the partition files of a
 * topic directory, and one listing of them shared by its partitions'
 * readers (see dirlist.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/dirlist.h"
#include "util/fdlimit.h"
#include "util/grow.h"

int
tmq_dir_next(DIR *d, struct dirent **de)
{
	errno = 0;
	if ((*de = readdir(d)) != NULL)
		return 1;
	return errno == 0 ? 0 : -1;
}

static int
cmp_pfile(const void *a, const void *b)
{
	const struct tmq_pfile *x = a, *y = b;

	if (x->partition != y->partition)
		return x->partition < y->partition ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->day < y->day ? -1 : x->day > y->day;
}

int
tmq_pfiles_list(int dirfd, long partition, struct tmq_pfile **out, size_t *n,
    struct tmq_error *e)
{
	struct tmq_pfile *v = NULL, pf;
	size_t cnt = 0, cap = 0, plen = 0;
	char prefix[24];
	struct dirent *de;
	DIR *d;
	int fd, got;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		errno = err;
		tmq_fail_errno(e, "cannot list the topic directory");
		tmq_fd_hint_append(e, err);
		return -1;
	}
	if (partition >= 0)
		plen = (size_t)snprintf(prefix, sizeof prefix, "%ld-", partition);
	while ((got = tmq_dir_next(d, &de)) > 0) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		/* One partition of thousands: most names differ at once. */
		if (plen > 0 && memcmp(de->d_name, prefix, plen) != 0)
			continue;
		if (tmq_pfile_parse(de->d_name, &pf) < 0)
			continue;
		if (partition >= 0 && pf.partition != (unsigned long)partition)
			continue;
		if (tmq_grow(&v, &cap, cnt + 1, sizeof *v) < 0) {
			free(v);
			closedir(d);
			return tmq_fail(e, "out of memory");
		}
		v[cnt++] = pf;
	}
	if (got < 0) {
		/* A listing cut short is no listing: files it missed would
		 * read as not there (and a new file be started at 0). */
		int err = errno;

		free(v);
		closedir(d);
		errno = err;
		return tmq_fail_errno(e, "cannot list the topic directory");
	}
	closedir(d);
	if (cnt > 1)
		qsort(v, cnt, sizeof *v, cmp_pfile);
	*out = v;
	*n = cnt;
	return 0;
}

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
