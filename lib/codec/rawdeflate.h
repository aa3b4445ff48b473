/* rawdeflate.h: raw deflate (no zlib or gzip header) with reusable state. */
#ifndef TMQ_RAWDEFLATE_H
#define TMQ_RAWDEFLATE_H

#include <stddef.h>
#include <zlib.h>

#include "util/error.h"
#include "codec/fastdeflate.h"

/* The most a payload may inflate to.  A 4096-byte line holds about 3,200
 * bytes of deflate, which can expand at most ~1,032 times; anything beyond
 * this bound is a hostile line, not a message. */
#define TMQ_PAYLOAD_MAX (4u << 20)

struct tmq_deflater {
	struct tmq_fastdeflate *fast;	/* small payloads */
	z_stream big;		/* large ones: zlib's defaults, made on demand */
	int big_ready;
};

struct tmq_inflater {
	z_stream zs;
	int ready;
	unsigned char *buf;	/* grows up to max */
	size_t cap;
	size_t max;		/* what a payload may inflate to; 0 (as
				 * init leaves it): TMQ_PAYLOAD_MAX */
};

int tmq_deflater_init(struct tmq_deflater *d, struct tmq_error *e);
void tmq_deflater_free(struct tmq_deflater *d);
/* Compress in into out (of outcap bytes); returns the compressed length,
 * or 0 when it does not fit in outcap. */
size_t tmq_deflate(struct tmq_deflater *d, const unsigned char *in, size_t n,
    unsigned char *out, size_t outcap);

int tmq_inflater_init(struct tmq_inflater *f, struct tmq_error *e);
void tmq_inflater_free(struct tmq_inflater *f);
/* Inflate into the inflater's own buffer; *out points into it until the
 * next call.  -1 on a bad stream or one over f->max. */
int tmq_inflate(struct tmq_inflater *f, const unsigned char *in, size_t n,
    const unsigned char **out, size_t *outlen, struct tmq_error *e);

#endif
