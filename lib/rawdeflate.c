/* rawdeflate.c: raw deflate streams, one per message.
 *
 * Set-up dominates the cost of compressing a 100-byte record: deflateInit
 * allocates ~270 KB and deflateReset clears a 64 KB hash table.  A message
 * is at most a few KB, so a 4 KB window (windowBits 12) and a small hash
 * (memLevel 4) compress it as well as the defaults while making each reset
 * about 16 times cheaper.  Any valid raw stream decodes (SPEC.md 2), so
 * readers use the full 32 KB window and read what the library writes. */
#include <stdlib.h>
#include <string.h>

#include "rawdeflate.h"

#define TMQ_WBITS 12
#define TMQ_MEMLEVEL 4

int
tmq_deflater_init(struct tmq_deflater *d, struct tmq_error *e)
{
	memset(d, 0, sizeof *d);
	if (deflateInit2(&d->zs, 6, Z_DEFLATED, -TMQ_WBITS, TMQ_MEMLEVEL,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		return tmq_fail(e, "cannot set up deflate: out of memory");
	d->ready = 1;
	return 0;
}

void
tmq_deflater_free(struct tmq_deflater *d)
{
	if (d->ready)
		deflateEnd(&d->zs);
	d->ready = 0;
}

size_t
tmq_deflate(struct tmq_deflater *d, const unsigned char *in, size_t n,
    unsigned char *out, size_t outcap)
{
	int rc;

	deflateReset(&d->zs);
	d->zs.next_in = (unsigned char *)in;
	d->zs.avail_in = (uInt)n;
	d->zs.next_out = out;
	d->zs.avail_out = (uInt)outcap;
	rc = deflate(&d->zs, Z_FINISH);
	if (rc != Z_STREAM_END)
		return 0;
	return outcap - d->zs.avail_out;
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
	size_t have = 0;
	int rc;

	inflateReset(&f->zs);
	f->zs.next_in = (unsigned char *)in;
	f->zs.avail_in = (uInt)n;
	for (;;) {
		f->zs.next_out = f->buf + have;
		f->zs.avail_out = (uInt)(f->cap - have);
		rc = inflate(&f->zs, Z_FINISH);
		have = f->cap - f->zs.avail_out;
		if (rc == Z_STREAM_END)
			break;
		if (rc == Z_BUF_ERROR && f->zs.avail_out == 0) {
			unsigned char *nb;

			if (f->cap >= TMQ_PAYLOAD_MAX)
				return tmq_fail(e, "payload inflates beyond %u "
				    "bytes", TMQ_PAYLOAD_MAX);
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
