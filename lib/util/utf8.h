/* utf8.h: strict UTF-8 validation (as Python's decoder: no surrogates,
 * no overlongs, nothing above U+10FFFF). */
#ifndef TMQ_UTF8_H
#define TMQ_UTF8_H

#include <stddef.h>

/* Returns 1 when s[0..n) is valid UTF-8, 0 otherwise. */
int tmq_utf8_valid(const unsigned char *s, size_t n);

#endif
