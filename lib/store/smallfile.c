/* smallfile.c: small files read and written whole (see smallfile.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "modes.h"
#include "regfile.h"
#include "smallfile.h"

int
tmq_small_read(int dirfd, const char *name, const char *shown, char *buf,
    size_t max, size_t *n, struct tmq_error *e)
{
	struct stat st;
	size_t got = 0;
	int fd;

	fd = tmq_open_regular_as(dirfd, name, shown, O_RDONLY, 0, e);
	if (fd < 0)
		return e->code == TMQ_ERR_SYS && e->sys == ENOENT ? 0 : -1;
	if (fstat(fd, &st) < 0) {
		tmq_fail_errno(e, "%s", shown);
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > max) {
		tmq_fail(e, "%s: %lld bytes, more than any of ours (%zu)", shown,
		    (long long)st.st_size, max);
		close(fd);
		return -1;
	}
	/* (It may grow meanwhile: what is past max is refused too.) */
	for (;;) {
		ssize_t r = read(fd, buf + got, max + 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			tmq_fail_errno(e, "%s", shown);
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
		if (got > max) {
			tmq_fail(e, "%s: more than any of ours (%zu bytes)",
			    shown, max);
			close(fd);
			return -1;
		}
	}
	close(fd);
	buf[got] = '\0';
	*n = got;
	return 1;
}

/* What killed writers left: NAME.PID.RAND.tmp, a minute old or more (a
 * writer takes milliseconds; one that stalls that long only loses its
 * rename). */
void
tmq_small_sweep(int dirfd, const char *name)
{
	size_t len = strlen(name), n;
	struct dirent *de;
	struct stat st;
	time_t now = time(NULL);
	DIR *d;
	int fd = dup(dirfd);

	if (fd < 0)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (strncmp(de->d_name, name, len) != 0 ||
		    de->d_name[len] != '.' || n < len + 5 ||
		    strcmp(de->d_name + n - 4, ".tmp") != 0)
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && st.st_mtime + 60 <= now)
			unlinkat(dirfd, de->d_name, 0);
	}
	closedir(d);
}

int
tmq_small_write(int dirfd, const char *name, const char *shown,
    const void *buf, size_t n, int durable, struct tmq_error *e)
{
	char tmp[300];
	uint64_t rnd;
	size_t off = 0;
	int fd, saved;

	if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != sizeof rnd)
		rnd = (uint64_t)getpid() * 2654435761u ^ (uint64_t)time(NULL);
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.%ld.%016llx.tmp", name,
	    (long)getpid(), (unsigned long long)rnd) >= sizeof tmp)
		return tmq_fail(e, "%s: name too long", shown);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0666);
	if (fd < 0)
		return tmq_fail_errno(e, "%s", shown);
	tmq_mode_follow(dirfd, fd);
	while (off < n) {
		ssize_t w = write(fd, (const char *)buf + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	if (off != n || (durable && fdatasync(fd) < 0)) {
		saved = off != n && errno == 0 ? ENOSPC : errno;
		close(fd);
		unlinkat(dirfd, tmp, 0);
		errno = saved;
		return tmq_fail_errno(e, "%s", shown);
	}
	if (close(fd) < 0 || renameat(dirfd, tmp, dirfd, name) < 0) {
		saved = errno;
		unlinkat(dirfd, tmp, 0);
		errno = saved;
		return tmq_fail_errno(e, "%s", shown);
	}
	if (durable && fsync(dirfd) < 0)
		return tmq_fail_errno(e, "%s: the directory", shown);
	return 0;
}
