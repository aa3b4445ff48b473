/* base85.h: RFC 1924 base85, exactly as Python's base64.b85encode/decode. */
#ifndef TMQ_BASE85_H
#define TMQ_BASE85_H

#include <stddef.h>
#include <stdint.h>

/* Each character's digit, 0xff for one outside the alphabet (for code
 * that compares encoded numbers without decoding them). */
extern unsigned char tmq_b85_digit[256];

/* Characters needed to encode n bytes. */
size_t tmq_b85_enclen(size_t n);
/* Bytes a valid string of n characters decodes to. */
size_t tmq_b85_declen(size_t n);
/* Encode n bytes into out (tmq_b85_enclen(n) chars, no NUL); returns that length. */
size_t tmq_b85_encode(const unsigned char *in, size_t n, char *out);
/* Decode n chars into out (tmq_b85_declen(n) bytes).  Returns the byte
 * count, or -1 on a character outside the alphabet, a group that overflows
 * 32 bits, or a lone final character. */
long tmq_b85_decode(const char *in, size_t n, unsigned char *out);
/* Decode exactly 10 characters into the 8 bytes they encode, as one
 * big-endian number (a line's timestamp: counted for every line a reader
 * indexes, so without loops or copies).  0, or -1 as tmq_b85_decode. */
int tmq_b85_decode64(const char *in, uint64_t *v);

#endif
