/* escape.h: text that is safe to put on a terminal or in JSON. */
#ifndef TMQ_ESCAPE_H
#define TMQ_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* For humans on a terminal: printable UTF-8 as is; controls (C0, DEL, C1),
 * backslash and invalid bytes as C escapes (\n, \t, \x1b, \\), so no payload
 * can move the cursor or retitle a window. */
void tmq_escape_terminal(FILE *f, const unsigned char *s, size_t n);
/* A JSON string, quotes included (s must be valid UTF-8). */
void tmq_escape_json(FILE *f, const unsigned char *s, size_t n);

#endif
