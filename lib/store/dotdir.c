/* dotdir.c: a topic directory's .tmq (see dotdir.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/dotdir.h"
#include "store/modes.h"
#include "store/regfile.h"

int
tmq_dot_open(int dirfd, int create)
{
	int fd;

	if (create && mkdirat(dirfd, TMQ_DOT_DIR, 0777) < 0 && errno != EEXIST)
		return -1;
	fd = openat(dirfd, TMQ_DOT_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC);
	/* (tmq_mode_follow changes only what is ours: one made by another
	 * user stays as it is.) */
	if (fd >= 0 && create)
		tmq_mode_follow(dirfd, fd);
	return fd;
}

int
tmq_dot_fail(int dirfd, const char *shown, struct tmq_error *e)
{
	return tmq_subdir_fail(dirfd, TMQ_DOT_DIR, shown, e);
}
