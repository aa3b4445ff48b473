/* base85.c: RFC 1924 base85 (Python's b85encode alphabet).  Every line of a
 * partition file is base85 text, so both directions sit on the hot path:
 * table lookups, no division in the decoder. */
#include <stdint.h>
#include <string.h>

#include "codec/base85.h"

static const char alphabet[86] =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    "!#$%&()*+-;<=>?@^_`{|}~";

/* 0xff marks a character outside the alphabet. */
unsigned char tmq_b85_digit[256];
#define digit tmq_b85_digit

/* Built before main() so that readers on several threads never race. */
__attribute__((constructor)) static void
init_digits(void)
{
	int i;

	for (i = 0; i < 256; i++)
		digit[i] = 0xff;
	for (i = 0; i < 85; i++)
		digit[(unsigned char)alphabet[i]] = (unsigned char)i;
}

size_t
tmq_b85_enclen(size_t n)
{
	return n / 4 * 5 + (n % 4 ? n % 4 + 1 : 0);
}

size_t
tmq_b85_declen(size_t n)
{
	return n / 5 * 4 + (n % 5 ? n % 5 - 1 : 0);
}

static void
put5(uint32_t v, char *o)
{
	o[4] = alphabet[v % 85]; v /= 85;
	o[3] = alphabet[v % 85]; v /= 85;
	o[2] = alphabet[v % 85]; v /= 85;
	o[1] = alphabet[v % 85]; v /= 85;
	o[0] = alphabet[v];
}

size_t
tmq_b85_encode(const unsigned char *in, size_t n, char *out)
{
	size_t i, full = n / 4 * 4, rest = n - full;
	char *o = out;

	for (i = 0; i < full; i += 4, o += 5)
		put5((uint32_t)in[i] << 24 | (uint32_t)in[i + 1] << 16 |
		    (uint32_t)in[i + 2] << 8 | in[i + 3], o);
	if (rest) {
		unsigned char pad[4] = {0, 0, 0, 0};
		char tmp[5];
		size_t j;

		for (j = 0; j < rest; j++)
			pad[j] = in[full + j];
		put5((uint32_t)pad[0] << 24 | (uint32_t)pad[1] << 16 |
		    (uint32_t)pad[2] << 8 | pad[3], tmp);
		for (j = 0; j <= rest; j++)
			*o++ = tmp[j];
	}
	return (size_t)(o - out);
}

/* Decode 5 digits; -1 on a bad digit or a value over 2^32-1.  Branch-free
 * but for the one test: bad characters map to 0xff, which the OR shows. */
static inline int
get5(const unsigned char *c, uint32_t *v)
{
	unsigned d0 = digit[c[0]], d1 = digit[c[1]], d2 = digit[c[2]],
	    d3 = digit[c[3]], d4 = digit[c[4]];
	uint64_t acc;

	if ((d0 | d1 | d2 | d3 | d4) & 0x80)
		return -1;
	acc = (((d0 * UINT64_C(85) + d1) * 85 + d2) * 85 + d3) * 85 + d4;
	if (acc > UINT32_MAX)
		return -1;
	*v = (uint32_t)acc;
	return 0;
}

int
tmq_b85_decode64(const char *in, uint64_t *v)
{
	const unsigned char *c = (const unsigned char *)in;
	uint32_t hi, lo;

	if (get5(c, &hi) < 0 || get5(c + 5, &lo) < 0)
		return -1;
	*v = (uint64_t)hi << 32 | lo;
	return 0;
}

long
tmq_b85_decode(const char *in, size_t n, unsigned char *out)
{
	const unsigned char *c = (const unsigned char *)in;
	size_t i, full = n / 5 * 5, rest = n - full;
	unsigned char *o = out;
	uint32_t v;

	if (rest == 1)
		return -1;
	for (i = 0; i < full; i += 5, o += 4) {
		if (get5(c + i, &v) < 0)
			return -1;
		v = __builtin_bswap32(v);	/* big-endian out */
		memcpy(o, &v, 4);
	}
	if (rest) {
		unsigned char pad[5] = {'~', '~', '~', '~', '~'};
		size_t j;

		for (j = 0; j < rest; j++)
			pad[j] = c[full + j];
		if (get5(pad, &v) < 0)
			return -1;
		for (j = 0; j < rest - 1; j++)
			*o++ = (unsigned char)(v >> (24 - 8 * j));
	}
	return (long)(o - out);
}
