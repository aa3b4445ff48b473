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
 * failure, *e says what and where (byte from 1). */
int tmq_json_strict_object(const unsigned char *s, size_t n,
    struct tmq_error *e);
/* Nothing but JSON white space: what may follow a document, as Python's
 * json.loads allows. */
int tmq_json_only_space(const char *s, size_t n);

#endif
