/* error.h: errors as values.  Library functions return 0 or -1 and, on
 * failure, leave one line (no tool name, no newline) in a struct tmq_error
 * for main() to print.  Nothing in lib/ exits or prints on its own. */
#ifndef TMQ_ERROR_H
#define TMQ_ERROR_H

#include <stdarg.h>

struct tmq_error {
	char msg[512];
};

/* Fill e (when not NULL) and return -1, so callers can write
 * `return tmq_fail(e, "...")`. */
int tmq_fail(struct tmq_error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Like tmq_fail, with ": strerror(errno)" appended. */
int tmq_fail_errno(struct tmq_error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prefix an existing message: "subject: old message". */
int tmq_fail_prefix(struct tmq_error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
