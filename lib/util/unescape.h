/* unescape.h: the backslash escapes a separator or format given on the
 * command line may hold (kcat's: \n \t \r \0 \\). */
#ifndef TMQ_UNESCAPE_H
#define TMQ_UNESCAPE_H

#include <stddef.h>

#include "util/error.h"

/* The escape at *p (just after its backslash) into *c, moving *p past it.
 * An unknown escape or a lone backslash at the end fails, naming it. */
int tmq_unescape_one(const char **p, char *c, struct tmq_error *e);
/* The whole of s, escapes resolved, into a new buffer (*out, malloc'd,
 * NUL-terminated; *len counts a \0 inside as one byte). */
int tmq_unescape(const char *s, char **out, size_t *len,
    struct tmq_error *e);

#endif
