/* error.h: errors as values.  Library functions return 0 or -1 and, on
 * failure, fill a struct tmq_error: a code that callers may act on, the
 * errno behind it when there is one, and one line (no tool name, no
 * newline) for main() to print.  Nothing in lib/ exits or prints on its
 * own, and no caller looks inside a message: a condition a caller acts on
 * has a code of its own here (as LMDB's MDB_NOTFOUND), and the message is
 * only for people, free to be reworded. */
#ifndef TMQ_ERROR_H
#define TMQ_ERROR_H

#include <stdarg.h>

/* The conditions callers act on.  New ones go at the end, before
 * TMQ_ERR_NCODES, with their text in error.c. */
enum tmq_errcode {
	TMQ_ERR_NONE = 0,	/* no error (a struct never filled) */
	TMQ_ERR_FAIL,		/* no code of its own: the message says */
	TMQ_ERR_SYS,		/* a system call failed: sys is its errno */
	TMQ_ERR_NOROOT,		/* the root directory is not there */
	TMQ_ERR_NOTOPIC,	/* no such topic */
	TMQ_ERR_NOGROUP,	/* no such group */
	TMQ_ERR_EXISTS,		/* the topic or group is there already, or
				 * being made by another (its directory
				 * without its definition) */
	TMQ_ERR_FILEKIND,	/* a name in a root is not the kind of file
				 * tmq keeps there (a FIFO, a device, a
				 * symbolic link, ...): refused, never
				 * opened or followed */
	TMQ_ERR_NOTJSON,	/* text that is no JSON object at all (not
				 * one that is badly formed) */
	TMQ_ERR_STOPPED,	/* given up because the tool was told to
				 * stop (SIGINT, SIGTERM: tmq_stop), a
				 * system call it interrupted (EINTR) too:
				 * a stop, not a failure */
	TMQ_ERR_TOOLARGE,	/* a payload too long for a message's line
				 * (TMQ_TOO_LARGE says so): one a topic with
				 * --max-message keeps in a blob */
	TMQ_ERR_NCODES
};

struct tmq_error {
	int code;		/* enum tmq_errcode */
	int sys;		/* the errno behind it, or 0 */
	char msg[512];
};

/* Fill e (when not NULL) and return -1, so callers can write
 * `return tmq_fail(e, "...")`.  The code is TMQ_ERR_FAIL. */
int tmq_fail(struct tmq_error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Like tmq_fail, with a code of its own. */
int tmq_fail_code(struct tmq_error *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Like tmq_fail, with ": strerror(errno)" appended; the code is
 * TMQ_ERR_SYS and sys is errno (which is kept).  An EINTR once told to
 * stop (tmq_stop) is the stop: TMQ_ERR_STOPPED, ": told to stop". */
int tmq_fail_errno(struct tmq_error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prefix an existing message: "subject: old message"; its code and errno
 * stay. */
int tmq_fail_prefix(struct tmq_error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* What a code stands for, in a few words ("no such group"): for messages
 * that need no subject, and for tests. */
const char *tmq_strerror(int code);

#endif
