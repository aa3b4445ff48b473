/* jsontext.h: checks on JSON text that json-c leaves to its caller. */
#ifndef TMQ_JSONTEXT_H
#define TMQ_JSONTEXT_H

#include <stddef.h>

/* Is s[0..n) one JSON object in valid UTF-8, with nothing after it
 * (typed payloads must be)? */
int tmq_json_is_object(const unsigned char *s, size_t n);
/* Nothing but JSON white space: what may follow a document, as Python's
 * json.loads allows. */
int tmq_json_only_space(const char *s, size_t n);

#endif
