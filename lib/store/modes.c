/* modes.c: modes that follow the directory (see modes.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/modes.h"

void
tmq_mode_follow(int dirfd, int fd)
{
	struct stat d, st;
	mode_t want;

	if (fstat(dirfd, &d) < 0 || !(d.st_mode & S_ISGID) ||
	    !(d.st_mode & S_IWGRP))
		return;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid())
		return;
	want = st.st_mode | S_IRGRP | S_IWGRP |
	    (S_ISDIR(st.st_mode) ? S_IXGRP : 0);
	if (want != st.st_mode)
		(void)fchmod(fd, want & 07777);
}

int
tmq_mkdir_follow(int dirfd, const char *name)
{
	int fd, saved;

	if (mkdirat(dirfd, name, 0777) < 0)
		return -1;
	saved = errno;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd >= 0) {
		tmq_mode_follow(dirfd, fd);
		close(fd);
	}
	errno = saved;
	return 0;
}
