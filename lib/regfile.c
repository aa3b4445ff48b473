/* regfile.c: opening regular files only (see regfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "regfile.h"

static const char *
kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "of unknown kind";
}

static int
refuse(const char *name, mode_t m, struct tmq_error *e)
{
	char shown[128];

	tmq_escape_name(name, shown, sizeof shown);
	if (S_ISLNK(m))
		tmq_fail(e, "%s: a symbolic link, not followed", shown);
	else
		tmq_fail(e, "%s: not a regular file (%s)", shown, kind(m));
	errno = EINVAL;
	return -1;
}

int
tmq_open_regular(int dirfd, const char *name, int flags, mode_t mode,
    struct tmq_error *e)
{
	struct stat st;
	char shown[128];
	int fd, err;

	/* Look before opening: opening a device can have effects of its
	 * own (a tape rewinds, a terminal becomes ours). */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISREG(st.st_mode))
			return refuse(name, st.st_mode, e);
	} else if (errno != ENOENT || !(flags & O_CREAT)) {
		err = errno;
		tmq_escape_name(name, shown, sizeof shown);
		errno = err;
		tmq_fail_errno(e, "%s", shown);
		errno = err;
		return -1;
	}
	fd = openat(dirfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
	    mode);
	if (fd < 0) {
		err = errno;
		/* Swapped for something else between the look and the open. */
		if (err == ELOOP || err == ENXIO || err == EISDIR ||
		    err == ENODEV) {
			if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    !S_ISREG(st.st_mode))
				return refuse(name, st.st_mode, e);
		}
		tmq_escape_name(name, shown, sizeof shown);
		errno = err;
		tmq_fail_errno(e, "%s", shown);
		errno = err;
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		err = errno;
		close(fd);
		tmq_escape_name(name, shown, sizeof shown);
		errno = err;
		tmq_fail_errno(e, "%s", shown);
		errno = err;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return refuse(name, st.st_mode, e);
	}
	return fd;
}
