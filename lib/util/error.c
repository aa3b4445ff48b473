/* error.c: filling struct tmq_error (see error.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

int
tmq_fail(struct tmq_error *e, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
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
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof e->msg - n, ": %s", strerror(saved));
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
