/* regfile.c: opening regular files only (see regfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/escape.h"
#include "store/regfile.h"

const char *
tmq_file_kind(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
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
refuse(const char *shown, mode_t m, struct tmq_error *e)
{
	if (S_ISLNK(m))
		tmq_fail_code(e, TMQ_ERR_FILEKIND, "%s: a symbolic link, not "
		    "followed", shown);
	else
		tmq_fail_code(e, TMQ_ERR_FILEKIND, "%s: not a regular file "
		    "(%s)", shown, tmq_file_kind(m));
	errno = EINVAL;
	return -1;
}

static int
fail_errno(const char *shown, int err, struct tmq_error *e)
{
	errno = err;
	tmq_fail_errno(e, "%s", shown);
	errno = err;
	return -1;
}

int
tmq_open_regular_as(int dirfd, const char *name, const char *shown,
    int flags, mode_t mode, struct tmq_error *e)
{
	struct stat st;
	char esc[128];
	int fd, err;

	if (shown == NULL)
		shown = tmq_escape_name(name, esc, sizeof esc);
	/* Look before opening: opening a device can have effects of its
	 * own (a tape rewinds, a terminal becomes ours). */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISREG(st.st_mode))
			return refuse(shown, st.st_mode, e);
	} else if (errno != ENOENT || !(flags & O_CREAT))
		return fail_errno(shown, errno, e);
	fd = openat(dirfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
	    mode);
	if (fd < 0) {
		err = errno;
		/* Swapped for something else between the look and the open
		 * (a socket fails with ENXIO, as a FIFO without a writer
		 * opened for writing does). */
		if (err == ELOOP || err == ENXIO || err == EISDIR ||
		    err == ENODEV || err == ENOTDIR) {
			if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    !S_ISREG(st.st_mode))
				return refuse(shown, st.st_mode, e);
		}
		return fail_errno(shown, err, e);
	}
	if (fstat(fd, &st) < 0) {
		err = errno;
		close(fd);
		return fail_errno(shown, err, e);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return refuse(shown, st.st_mode, e);
	}
	return fd;
}

int
tmq_open_regular(int dirfd, const char *name, int flags, mode_t mode,
    struct tmq_error *e)
{
	return tmq_open_regular_as(dirfd, name, NULL, flags, mode, e);
}

int
tmq_subdir_fail(int dirfd, const char *name, const char *shown,
    struct tmq_error *e)
{
	struct stat st;
	int err = errno;

	if ((err == ENOTDIR || err == ELOOP) &&
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			tmq_fail_code(e, TMQ_ERR_FILEKIND, "%s is a symbolic "
			    "link (not followed)", shown);
		else if (!S_ISDIR(st.st_mode))
			tmq_fail_code(e, TMQ_ERR_FILEKIND, "%s: not a directory "
			    "(%s)", shown, tmq_file_kind(st.st_mode));
		else
			fail_errno(shown, err, e);
	} else
		fail_errno(shown, err, e);
	errno = err;
	return -1;
}
