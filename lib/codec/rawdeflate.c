/* rawdeflate.c: raw deflate streams, one per message.
 *
 * Small payloads (up to TMQ_FASTDEFLATE_MAX, which is nearly every
 * message) go through fastdeflate.c: one block with deflate's fixed
 * Huffman codes.  zlib's per-stream set-up and its dynamic code tables are
 * most of its cost on a 100-byte record and barely pay for themselves in
 * size (lines come out ~2% longer without them); and a reader must build
 * decoding tables for every dynamic block, so fixed blocks also inflate
 * about six times faster.  Larger payloads, where dynamic codes pay, go
 * through zlib with its defaults.  Any valid raw stream decodes
 * (tmq-format(5), Lines), so readers inflate with the full 32 KB window
 * and read what the TwainMQ library writes. */
#include <stdlib.h>
#include <string.h>

#include "codec/rawdeflate.h"

int
tmq_deflater_init(struct tmq_deflater *d, struct tmq_error *e)
{
	memset(d, 0, sizeof *d);
	d->fast = malloc(sizeof *d->fast);
	if (d->fast == NULL)
		return tmq_fail(e, "out of memory");
	tmq_fastdeflate_init(d->fast);
	return 0;
}

void
tmq_deflater_free(struct tmq_deflater *d)
{
	if (d->big_ready)
		deflateEnd(&d->big);
	free(d->fast);
	d->fast = NULL;
	d->big_ready = 0;
}

size_t
tmq_deflate(struct tmq_deflater *d, const unsigned char *in, size_t n,
    unsigned char *out, size_t outcap)
{
	z_stream *zs = &d->big;

	if (n <= TMQ_FASTDEFLATE_MAX)
		return tmq_fastdeflate(d->fast, in, n, out, outcap);
	if (!d->big_ready) {
		if (deflateInit2(zs, 6, Z_DEFLATED, -15, 8,
		    Z_DEFAULT_STRATEGY) != Z_OK)
			return 0;
		d->big_ready = 1;
	}
	deflateReset(zs);
	zs->next_in = (unsigned char *)in;
	zs->avail_in = (uInt)n;
	zs->next_out = out;
	zs->avail_out = (uInt)outcap;
	if (deflate(zs, Z_FINISH) != Z_STREAM_END)
		return 0;
	return outcap - zs->avail_out;
}

int
tmq_inflater_init(struct tmq_inflater *f, struct tmq_error *e)
{
	memset(f, 0, sizeof *f);
	if (inflateInit2(&f->zs, -15) != Z_OK)
		return tmq_fail(e, "cannot set up inflate: out of memory");
	f->ready = 1;
	f->cap = 16384;
	f->buf = malloc(f->cap);
	if (f->buf == NULL) {
		inflateEnd(&f->zs);
		f->ready = 0;
		return tmq_fail(e, "out of memory");
	}
	return 0;
}

void
tmq_inflater_free(struct tmq_inflater *f)
{
	if (f->ready)
		inflateEnd(&f->zs);
	free(f->buf);
	f->buf = NULL;
	f->ready = 0;
}

int
tmq_inflate(struct tmq_inflater *f, const unsigned char *in, size_t n,
    const unsigned char **out, size_t *outlen, struct tmq_error *e)
{
	size_t have = 0, max = f->max ? f->max : TMQ_PAYLOAD_MAX, room;
	int rc;

	inflateReset(&f->zs);
	f->zs.next_in = (unsigned char *)in;
	f->zs.avail_in = (uInt)n;
	for (;;) {
		room = f->cap < max ? f->cap : max;
		f->zs.next_out = f->buf + have;
		f->zs.avail_out = (uInt)(room - have);
		rc = inflate(&f->zs, Z_FINISH);
		have = room - f->zs.avail_out;
		if (rc == Z_STREAM_END)
			break;
		if (rc == Z_BUF_ERROR && f->zs.avail_out == 0) {
			unsigned char *nb;

			if (room >= max)
				return tmq_fail(e, "payload inflates beyond %zu "
				    "bytes", max);
			nb = realloc(f->buf, f->cap * 2);
			if (nb == NULL)
				return tmq_fail(e, "out of memory");
			f->buf = nb;
			f->cap *= 2;
			continue;
		}
		if (rc == Z_BUF_ERROR)
			return tmq_fail(e, "deflate stream is truncated");
		return tmq_fail(e, "bad deflate stream%s%s",
		    f->zs.msg ? ": " : "", f->zs.msg ? f->zs.msg : "");
	}
	if (f->zs.avail_in != 0)
		return tmq_fail(e, "trailing bytes after the deflate stream");
	*out = f->buf;
	*outlen = have;
	return 0;
}
