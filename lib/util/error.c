/* error.c: filling struct tmq_error (see error.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"
#include "util/stop.h"

static void
fill(struct tmq_error *e, int code, int sys, const char *fmt, va_list ap)
{
	e->code = code;
	e->sys = sys;
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
}

int
tmq_fail(struct tmq_error *e, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return -1;
	va_start(ap, fmt);
	fill(e, TMQ_ERR_FAIL, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int
tmq_fail_code(struct tmq_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return -1;
	va_start(ap, fmt);
	fill(e, code, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int
tmq_fail_errno(struct tmq_error *e, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;
	size_t n;

	if (e == NULL)
		return -1;
	va_start(ap, fmt);
	fill(e, saved == EINTR && tmq_stop ? TMQ_ERR_STOPPED : TMQ_ERR_SYS,
	    saved, fmt, ap);
	va_end(ap);
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof e->msg - n, ": %s",
	    e->code == TMQ_ERR_STOPPED ? "told to stop" : strerror(saved));
	errno = saved;
	return -1;
}

int
tmq_fail_prefix(struct tmq_error *e, const char *fmt, ...)
{
	char old[sizeof e->msg];
	va_list ap;
	size_t n;

	if (e == NULL)
		return -1;
	memcpy(old, e->msg, sizeof old);
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof e->msg - n, ": %s", old);
	return -1;
}

static const char *const texts[TMQ_ERR_NCODES] = {
	[TMQ_ERR_NONE] = "no error",
	[TMQ_ERR_FAIL] = "failed",
	[TMQ_ERR_SYS] = "system error",
	[TMQ_ERR_NOROOT] = "no such root",
	[TMQ_ERR_NOTOPIC] = "no such topic",
	[TMQ_ERR_NOGROUP] = "no such group",
	[TMQ_ERR_EXISTS] = "exists",
	[TMQ_ERR_FILEKIND] = "not a file of the kind expected",
	[TMQ_ERR_NOTJSON] = "not a JSON object",
	[TMQ_ERR_STOPPED] = "told to stop",
	[TMQ_ERR_TOOLARGE] = "too large for a message",
};

const char *
tmq_strerror(int code)
{
	if (code < 0 || code >= TMQ_ERR_NCODES || texts[code] == NULL)
		return "unknown error";
	return texts[code];
}
