/* filelock.c: whole-file locks, waited for until told to stop (see
 * filelock.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/file.h>

#include "store/filelock.h"
#include "util/monoclock.h"
#include "util/stop.h"

/* One try at the lock (fcntl F_OFD_SETLK, flock LOCK_NB): 0, or -1 with
 * errno, EAGAIN when another holds it. */
static int
try_once(int fd, struct flock *fl)
{
	int rc;

	while ((rc = fl != NULL ? fcntl(fd, F_OFD_SETLK, fl) :
	    flock(fd, LOCK_EX | LOCK_NB)) < 0 && errno == EINTR)
		;
	if (rc < 0 && (errno == EACCES || errno == EWOULDBLOCK))
		errno = EAGAIN;
	return rc;
}

/* Told to stop: try for TMQ_STOP_LOCK_MS at most, a signal more ending
 * it at once; EINTR when the lock did not come.  Once one such wait has
 * run out, the next locks are tried once each: a tool on its way out
 * (a commit, then a leave) waits that long once. */
static int
lock_soon(int fd, struct flock *fl)
{
	static int ran_out;
	long long end = tmq_mono_ms() + (ran_out ? 0 : TMQ_STOP_LOCK_MS);
	int step = 1;

	for (;;) {
		if (try_once(fd, fl) == 0)
			return 0;
		if (errno != EAGAIN)
			return -1;
		if (tmq_mono_ms() >= end || (poll(NULL, 0, step) < 0 &&
		    errno == EINTR)) {
			ran_out = 1;
			errno = EINTR;
			return -1;
		}
		if (step < 32)
			step *= 2;
	}
}

/* Wait for the lock (fl, or flock when NULL) until told to stop. */
static int
lock_wait(int fd, struct flock *fl)
{
	int rc;

	for (;;) {
		/* The signal that sets the flag interrupts the wait (no tool
		 * asks for its system calls to be restarted): the next round
		 * sees the flag.  One that came just before the wait began
		 * is missed, until the next. */
		if (tmq_stop)
			return lock_soon(fd, fl);
		rc = fl != NULL ? fcntl(fd, F_OFD_SETLKW, fl) :
		    flock(fd, LOCK_EX);
		if (rc == 0 || errno != EINTR)
			return rc;
	}
}

int
tmq_file_lock(int fd, short type)
{
	struct flock fl;

	memset(&fl, 0, sizeof fl);	/* l_pid must be 0 for OFD locks */
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	if (type == F_UNLCK)
		return try_once(fd, &fl);
	return lock_wait(fd, &fl);
}

int
tmq_file_lock_for(int fd, short type, int ms)
{
	long long end = tmq_mono_ms() + ms;
	struct flock fl;
	int step = 1;

	memset(&fl, 0, sizeof fl);	/* l_pid must be 0 for OFD locks */
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	for (;;) {
		if (tmq_stop)
			return lock_soon(fd, &fl);
		if (try_once(fd, &fl) == 0)
			return 0;
		if (errno != EAGAIN)
			return -1;
		if (tmq_mono_ms() >= end) {
			errno = EAGAIN;
			return -1;
		}
		/* (A signal that ends the sleep: the next round sees the
		 * flag.) */
		(void)poll(NULL, 0, step);
		if (step < 32)
			step *= 2;
	}
}

int
tmq_flock_ex(int fd)
{
	return lock_wait(fd, NULL);
}
