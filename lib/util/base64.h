/* base64.h: standard base64 with padding, for bytes payloads in JSON. */
#ifndef TMQ_BASE64_H
#define TMQ_BASE64_H

#include <stddef.h>
#include <stdio.h>

/* Write the base64 of s[0..n) to f. */
void tmq_base64_write(FILE *f, const unsigned char *s, size_t n);
/* The same into out (room for 4 * ((n + 2) / 3) bytes): its length. */
size_t tmq_base64_encode(char *out, const unsigned char *s, size_t n);

/* Decode standard base64 with padding (no white space) into out, of at
 * least n / 4 * 3 bytes.  Returns the length, or -1 when s is not base64. */
long tmq_base64_decode(const char *s, size_t n, unsigned char *out);

#endif
