/* fastdeflate.h: a small deflate encoder for small payloads: one final
 * block with the fixed Huffman codes, greedy LZ77 matching. */
#ifndef TMQ_FASTDEFLATE_H
#define TMQ_FASTDEFLATE_H

#include <stddef.h>
#include <stdint.h>

/* Inputs up to this size; the match window spans all of them. */
#define TMQ_FASTDEFLATE_MAX 1024

struct tmq_fastdeflate {
	uint32_t head[1 << 12];	/* hash -> base + position */
	uint32_t base;		/* positions of this call start here */
};

void tmq_fastdeflate_init(struct tmq_fastdeflate *z);
/* Compress in[0..n) (n <= TMQ_FASTDEFLATE_MAX) as a raw deflate stream
 * into out; returns its length, or 0 when outcap is too small. */
size_t tmq_fastdeflate(struct tmq_fastdeflate *z, const unsigned char *in,
    size_t n, unsigned char *out, size_t outcap);

#endif
