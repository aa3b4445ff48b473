/* fdlimit.c: the descriptor limit (see fdlimit.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "util/error.h"
#include "util/fdlimit.h"

void
tmq_fdlimit_raise(void)
{
	static int done;
	struct rlimit rl;

	if (done)
		return;
	done = 1;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int
tmq_fd_exhausted(int err)
{
	return err == EMFILE || err == ENFILE;
}

const char *
tmq_fd_hint(int err)
{
	static char buf[128];
	struct rlimit rl;

	if (err == ENFILE)
		return " (the system's table of open files is full)";
	if (err != EMFILE)
		return "";
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(buf, sizeof buf, " (this process may open %llu "
		    "files at once; raise the limit with ulimit -n)",
		    (unsigned long long)rl.rlim_cur);
	else
		snprintf(buf, sizeof buf, " (raise the limit on open files "
		    "with ulimit -n)");
	return buf;
}

void
tmq_fd_hint_append(struct tmq_error *e, int err)
{
	size_t n;

	if (e == NULL || !tmq_fd_exhausted(err))
		return;
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof e->msg - n, "%s", tmq_fd_hint(err));
	errno = err;
}
