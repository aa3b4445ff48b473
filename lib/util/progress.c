/* progress.c: terminal progress (see progress.h).  Pipes and files never
 * see it, so scripts and logs stay clean. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "util/monoclock.h"
#include "util/progress.h"

static int shown;
static int tty = -1;
static long long last;

void
tmq_progress(const char *fmt, ...)
{
	long long now;
	va_list ap;

	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	if (!tty)
		return;
	now = tmq_mono_ms();
	if (shown && now - last < 200)
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
