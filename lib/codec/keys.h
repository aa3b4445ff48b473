/* keys.h: message keys.  A topic's key type is its `key_width`: 1, 2, 4, 8
 * for u8..u64, -N for charN.  In memory a key is always its raw bytes, |width|
 * of them: big-endian for integers, UTF-8 right-padded with NULs for charN. */
#ifndef TMQ_KEYS_H
#define TMQ_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* The widest charN key the tools accept (the TwainMQ library has no limit, but
 * a key wider than a line could never be written). */
#define TMQ_KEY_MAX_BYTES 3000

/* "u8".."u64" or "charN" -> width; -1 with a message otherwise. */
int tmq_keytype_parse(const char *s, int *width, struct tmq_error *e);
/* width -> "u16", "char8", ...; buf of at least 16 bytes. */
const char *tmq_keytype_name(int width, char *buf, size_t bufsz);
/* Accepted width (from a .twc)? */
int tmq_keytype_valid(int width);
/* Raw key bytes for a width. */
size_t tmq_key_bytes(int width);
/* Base85 characters a key of this width takes on a line. */
size_t tmq_key_chars(int width);

/* Parse the text of a key (decimal for integers, UTF-8 for charN) into
 * out (tmq_key_bytes(width) bytes). */
int tmq_key_parse(int width, const char *s, size_t n, unsigned char *out,
    struct tmq_error *e);
/* Set an integer key directly. */
void tmq_key_from_u64(int width, uint64_t v, unsigned char *out);
/* The numeric value of an integer key. */
uint64_t tmq_key_to_u64(int width, const unsigned char *key);
/* Length of a charN key without its NUL padding. */
size_t tmq_key_strlen(int width, const unsigned char *key);
/* Print a key as text: decimal, or the charN string unpadded.  Returns the
 * length written (no NUL is added); buf needs tmq_key_bytes(width) or 20. */
size_t tmq_key_format(int width, const unsigned char *key, char *buf);

/* The separator of KEY SEP PAYLOAD (tmq-put -K reads it, tmq-get -K
 * prints it): one rule for both, kcat's escapes (\t \n \r \0 \\)
 * resolved, not empty.  *sep is malloc'd; *len counts a \0 in it. */
int tmq_key_delimiter_parse(const char *arg, char **sep, size_t *len,
    struct tmq_error *e);

#endif
