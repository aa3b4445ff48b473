/* progress.c: terminal progress (see progress.h).  Pipes and files never
 * see it, so scripts and logs stay clean. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static int shown;
static int tty = -1;
static struct timespec last;

void
tmq_progress(const char *fmt, ...)
{
	struct timespec now;
	va_list ap;

	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	if (!tty)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (shown && (now.tv_sec - last.tv_sec) * 1000 +
	    (now.tv_nsec - last.tv_nsec) / 1000000 < 200)
		return;
	last = now;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	shown = 1;
}

void
tmq_progress_done(void)
{
	if (shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	shown = 0;
}
