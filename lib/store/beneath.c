/* beneath.c: opening paths inside the root, never through a symbolic link
 * (see beneath.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/openat2.h>
#endif

#include "store/beneath.h"

static int
bad_component(const char *s, size_t n)
{
	return n == 2 && s[0] == '.' && s[1] == '.';
}

int
tmq_open_beneath_walk(int dirfd, const char *path, int flags, mode_t mode)
{
	const char *s = path, *slash;
	char comp[256];
	int cur = dirfd, fd, saved;

	if (*path == '/' || *path == '\0') {
		errno = *path == '/' ? EXDEV : ENOENT;
		return -1;
	}
	for (;;) {
		size_t n;

		slash = strchr(s, '/');
		n = slash != NULL ? (size_t)(slash - s) : strlen(s);
		if (bad_component(s, n)) {
			fd = -1;
			errno = EXDEV;
			break;
		}
		if (n >= sizeof comp) {
			fd = -1;
			errno = ENAMETOOLONG;
			break;
		}
		memcpy(comp, s, n);
		comp[n] = '\0';
		if (slash == NULL) {
			fd = openat(cur, comp, flags | O_NOFOLLOW, mode);
			break;
		}
		fd = n == 0 ? dup(cur) : openat(cur, comp, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			struct stat st;

			/* One answer for a link wherever it is, as openat2's. */
			if (errno == ENOTDIR && fstatat(cur, comp, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				errno = ELOOP;
			break;
		}
		if (cur != dirfd)
			close(cur);
		cur = fd;
		s = slash + 1;
	}
	saved = errno;
	if (cur != dirfd)
		close(cur);
	errno = saved;
	return fd;
}

int
tmq_open_beneath(int dirfd, const char *path, int flags, mode_t mode)
{
#if defined(__linux__) && defined(SYS_openat2)
	/* 0: not tried yet; 1: works; -1: not here (old kernel, or a
	 * seccomp filter that does not know it). */
	static int have;
	struct open_how how;
	int fd;

	if (have >= 0) {
		memset(&how, 0, sizeof how);
		how.flags = (unsigned long long)(flags | O_NOFOLLOW);
		how.mode = flags & (O_CREAT | O_TMPFILE) ? mode : 0;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
		fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM &&
		    errno != E2BIG)) {
			have = 1;
			return fd;
		}
		if (have == 0)
			have = -1;
		else if (errno == EPERM)
			return fd;	/* a real EPERM from a kernel that has it */
	}
#endif
	return tmq_open_beneath_walk(dirfd, path, flags, mode);
}

int
tmq_subdir_beneath(int dirfd, const char *name, int create, mode_t mode)
{
	if (create && mkdirat(dirfd, name, mode) < 0 && errno != EEXIST)
		return -1;
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
}
