/* smallfile.c: small files read whole (see smallfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/regfile.h"
#include "store/smallfile.h"

int
tmq_small_read(int dirfd, const char *name, const char *shown, char *buf,
    size_t max, size_t *n, struct tmq_error *e)
{
	return tmq_small_read_st(dirfd, name, shown, buf, max, n, NULL, e);
}

int
tmq_small_read_st(int dirfd, const char *name, const char *shown, char *buf,
    size_t max, size_t *n, struct stat *stp, struct tmq_error *e)
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
	if (stp != NULL)
		*stp = st;
	return 1;
}
