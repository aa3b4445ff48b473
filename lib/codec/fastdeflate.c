/* fastdeflate.c: deflate for payloads of a few hundred bytes (RFC 1951).
 *
 * zlib spends most of a 100-byte message on per-stream work: resetting
 * its hash, initialising and flushing block state, building trees it then
 * discards.  A small message wants none of that: one final block coded
 * with the fixed Huffman codes (3.2.6), and greedy matching through a
 * hash of three-byte prefixes whose entries carry a per-call base, so the
 * table is never cleared.  The output is an ordinary raw deflate stream
 * that any inflater reads; the tests inflate it with zlib. */
#include <string.h>

#include "codec/fastdeflate.h"

#define HASH_BITS 12
#define MIN_MATCH 3
#define MAX_MATCH 258

/* Fixed literal/length codes, bit-reversed for LSB-first output. */
static uint16_t lit_code[288];
static uint8_t lit_len[288];
/* Length 3..258 -> symbol, extra bit count and value. */
static uint16_t len_sym[MAX_MATCH + 1];
static uint8_t len_xbits[MAX_MATCH + 1];
static uint16_t len_xval[MAX_MATCH + 1];
/* Distance 1..TMQ_FASTDEFLATE_MAX -> code (reversed), extra bits, value. */
static uint8_t dist_code[TMQ_FASTDEFLATE_MAX + 1];
static uint8_t dist_xbits[TMQ_FASTDEFLATE_MAX + 1];
static uint16_t dist_xval[TMQ_FASTDEFLATE_MAX + 1];

static unsigned
reverse(unsigned code, int len)
{
	unsigned r = 0;

	while (len-- > 0) {
		r = r << 1 | (code & 1);
		code >>= 1;
	}
	return r;
}

/* Tables are built before main(), so threads never race to build them. */
__attribute__((constructor)) static void
build_tables(void)
{
	static const uint16_t lbase[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13,
	    15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163,
	    195, 227, 258 };
	static const uint8_t lext[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1,
	    2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
	static const uint16_t dbase[30] = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25,
	    33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049,
	    3073, 4097, 6145, 8193, 12289, 16385, 24577 };
	static const uint8_t dext[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4,
	    5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };
	int s, l, d;

	for (s = 0; s < 288; s++) {
		unsigned code;
		int len;

		if (s < 144) {
			code = 0x30 + (unsigned)s;
			len = 8;
		} else if (s < 256) {
			code = 0x190 + (unsigned)(s - 144);
			len = 9;
		} else if (s < 280) {
			code = (unsigned)(s - 256);
			len = 7;
		} else {
			code = 0xc0 + (unsigned)(s - 280);
			len = 8;
		}
		lit_code[s] = (uint16_t)reverse(code, len);
		lit_len[s] = (uint8_t)len;
	}
	for (s = 0; s < 29; s++) {
		int top = s + 1 < 29 ? lbase[s + 1] : MAX_MATCH + 1;

		for (l = lbase[s]; l < top && l <= MAX_MATCH; l++) {
			len_sym[l] = (uint16_t)(257 + s);
			len_xbits[l] = lext[s];
			len_xval[l] = (uint16_t)(l - lbase[s]);
		}
	}
	for (s = 0; s < 30; s++) {
		int top = s + 1 < 30 ? dbase[s + 1] : 32769;

		for (d = dbase[s]; d < top && d <= TMQ_FASTDEFLATE_MAX; d++) {
			dist_code[d] = (uint8_t)reverse((unsigned)s, 5);
			dist_xbits[d] = dext[s];
			dist_xval[d] = (uint16_t)(d - dbase[s]);
		}
	}
}

void
tmq_fastdeflate_init(struct tmq_fastdeflate *z)
{
	memset(z, 0, sizeof *z);
	z->base = 1;	/* 0 in head[] means "never" */
}

struct bits {
	unsigned char *p, *end;
	uint64_t acc;
	int n;
	int overflow;
};

/* Codes go into a 64-bit accumulator, LSB first, and out four bytes at a
 * time: at most 32 + 16 bits are ever pending. */
static inline void
put(struct bits *b, unsigned v, int len)
{
	b->acc |= (uint64_t)v << b->n;
	b->n += len;
	if (b->n >= 32) {
		if (b->end - b->p < 4) {
			b->overflow = 1;
			b->n -= 32;
			b->acc >>= 32;
			return;
		}
		b->p[0] = (unsigned char)b->acc;
		b->p[1] = (unsigned char)(b->acc >> 8);
		b->p[2] = (unsigned char)(b->acc >> 16);
		b->p[3] = (unsigned char)(b->acc >> 24);
		b->p += 4;
		b->acc >>= 32;
		b->n -= 32;
	}
}

/* The last bits, padded to a whole byte. */
static void
finish(struct bits *b)
{
	while (b->n > 0) {
		if (b->p == b->end) {
			b->overflow = 1;
			return;
		}
		*b->p++ = (unsigned char)b->acc;
		b->acc >>= 8;
		b->n -= 8;
	}
}

static inline uint32_t
hash3(const unsigned char *p)
{
	uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];

	return (v * 2654435761u) >> (32 - HASH_BITS);
}

size_t
tmq_fastdeflate(struct tmq_fastdeflate *z, const unsigned char *in, size_t n,
    unsigned char *out, size_t outcap)
{
	struct bits b = { out, out + outcap, 0, 0, 0 };
	size_t i = 0;

	if (n > TMQ_FASTDEFLATE_MAX)
		return 0;
	/* Entries older than this call's base are stale; when the base would
	 * wrap, clear the table once. */
	if (z->base > UINT32_MAX - 2 * TMQ_FASTDEFLATE_MAX) {
		memset(z->head, 0, sizeof z->head);
		z->base = 1;
	}
	put(&b, 1, 1);		/* BFINAL */
	put(&b, 1, 2);		/* BTYPE 01: fixed codes */
	while (i < n) {
		size_t len = 0, dist = 0;

		if (i + MIN_MATCH <= n) {
			uint32_t h = hash3(in + i), cand = z->head[h];

			z->head[h] = z->base + (uint32_t)i;
			if (cand >= z->base) {
				size_t j = cand - z->base, max = n - i;

				if (max > MAX_MATCH)
					max = MAX_MATCH;
				while (len < max && in[j + len] == in[i + len])
					len++;
				dist = i - j;
			}
		}
		if (len >= MIN_MATCH) {
			size_t k;

			put(&b, lit_code[len_sym[len]], lit_len[len_sym[len]]);
			put(&b, len_xval[len], len_xbits[len]);
			put(&b, dist_code[dist], 5);
			put(&b, dist_xval[dist], dist_xbits[dist]);
			/* Later matches may start inside this one. */
			for (k = i + 1; k < i + len && k + MIN_MATCH <= n; k++)
				z->head[hash3(in + k)] = z->base + (uint32_t)k;
			i += len;
		} else {
			put(&b, lit_code[in[i]], lit_len[in[i]]);
			i++;
		}
	}
	put(&b, lit_code[256], lit_len[256]);	/* end of block */
	finish(&b);
	z->base += (uint32_t)n + 1;
	return b.overflow ? 0 : (size_t)(b.p - out);
}
