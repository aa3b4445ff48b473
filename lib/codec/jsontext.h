/* jsontext.h: checks on JSON text that json-c leaves to its caller. */
#ifndef TMQ_JSONTEXT_H
#define TMQ_JSONTEXT_H

#include <stddef.h>

#include "error.h"

/* Is s[0..n) one JSON object in valid UTF-8, with nothing after it
 * (typed payloads must be)? */
int tmq_json_is_object(const unsigned char *s, size_t n);
/* Is s[0..n) one JSON object by the letter of RFC 8259, as every JSON
 * tool reads it: no NaN or Infinity, no lone surrogate escape (\ud800),
 * nothing json-c or Python's json.loads let pass beyond the grammar?  On
 * failure, *e says what and where (byte from 1); TMQ_ERR_NOTJSON when it
 * does not even begin as an object. */
int tmq_json_strict_object(const unsigned char *s, size_t n,
    struct tmq_error *e);
/* Nothing but JSON white space: what may follow a document, as Python's
 * json.loads allows. */
int tmq_json_only_space(const char *s, size_t n);
/* Does JSON text s[0..n) spell U+0000 (the escape \u0000) in a string?
 * json-c keeps the names of an object's members as C strings, cut at the
 * first NUL, so "a\u0000b" and "a\u0000c" both come back as "a": text
 * that holds one cannot be read as it was written.  *at is then the
 * escape's byte (from 1).  Looked for in the text, whatever its grammar:
 * the escape is a backslash that no backslash before it escapes, then
 * u0000. */
int tmq_json_has_nul(const char *s, size_t n, size_t *at);

#endif
