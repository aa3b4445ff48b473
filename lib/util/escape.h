/* escape.h: text that is safe to put on a terminal or in JSON. */
#ifndef TMQ_ESCAPE_H
#define TMQ_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* For humans on a terminal: printable UTF-8 as is; controls (C0, DEL, C1,
 * and the bidirectional ones, U+200E, U+200F, U+202A..U+202E and
 * U+2066..U+2069, each byte as \xNN), backslash and invalid bytes as C
 * escapes (\n, \t, \x1b, \\), so no payload can move the cursor,
 * retitle a window or reorder what follows it. */
void tmq_escape_terminal(FILE *f, const unsigned char *s, size_t n);
/* The same, and a space as \x20: a field among others on a line of
 * "name=value" words (tmq-dump's key= and type=), read back by splitting
 * at spaces. */
void tmq_escape_word(FILE *f, const unsigned char *s, size_t n);
/* The same, for a name (or any string from the root) in a one-line
 * message: into buf, NUL-terminated and cut short with "..." to fit sz;
 * returns buf.  Every name a message shows goes through here, so no file
 * or line a co-user plants can move the cursor or retitle a window. */
const char *tmq_escape_name(const char *name, char *buf, size_t sz);
/* A JSON string, quotes included (s must be valid UTF-8). */
void tmq_escape_json(FILE *f, const unsigned char *s, size_t n);
/* The same into out, without the quotes: its length (at most 6 * n). */
size_t tmq_escape_json_buf(char *out, const unsigned char *s, size_t n);

#endif
