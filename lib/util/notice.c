/* notice.c: the notice sink (see notice.h). */
#include <stdarg.h>
#include <stdio.h>

#include "util/notice.h"

static void (*sink)(void *, const char *);
static void *sink_arg;
static int quiet;

void
tmq_notice_set_quiet(int q)
{
	quiet = q;
}

int
tmq_notice_quiet(void)
{
	return quiet;
}

void
tmq_notice_sink(void (*fn)(void *arg, const char *msg), void *arg)
{
	sink = fn;
	sink_arg = arg;
}

void
tmq_notice(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (sink == NULL || quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	sink(sink_arg, buf);
}
