/* filelock.c: whole-file open file description locks (see filelock.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "filelock.h"

int
tmq_file_lock(int fd, short type)
{
	struct flock fl;

	memset(&fl, 0, sizeof fl);	/* l_pid must be 0 for OFD locks */
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	while (fcntl(fd, type == F_UNLCK ? F_OFD_SETLK : F_OFD_SETLKW,
	    &fl) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}
