/* codec-floor.c: how fast records become lines and lines become records
 * with no I/O and no parsing: the floor under tmq-put and tmq-get.
 *
 * "zlib defaults" is the floor the targets are stated against: each record
 * through a fresh raw deflate stream at zlib's default settings, then
 * base85 (what the Python library does), and back through a fresh inflate
 * stream.  "tmq codec" is the library's own encoder and decoder, which
 * reuse their state and write fixed-code blocks for small payloads.
 * Input: KEY:PAYLOAD lines on stdin (gen-records.awk). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "base85.h"
#include "keys.h"
#include "message.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Lines back to back, as in a file. */
struct pool {
	char *buf;
	size_t used, cap, *at, *len;
};

static void
pool_add(struct pool *p, size_t i, const char *s, size_t n)
{
	if (p->used + n > p->cap) {
		p->cap = (p->cap + n) * 2;
		p->buf = realloc(p->buf, p->cap);
		if (p->buf == NULL)
			exit(1);
	}
	memcpy(p->buf + p->used, s, n);
	p->at[i] = p->used;
	p->len[i] = n;
	p->used += n;
}

static void
report(const char *what, size_t n, double t0, double t1)
{
	printf("codec floor %s: %.0f records/s\n", what, n / (t1 - t0));
}

int
main(void)
{
	struct tmq_codec c;
	struct tmq_error e;
	struct tmq_msg *m = malloc(sizeof *m);
	struct pool zp = { 0 }, tp = { 0 };
	char **recs = NULL, *line = NULL, buf[TMQ_LINE_MAX];
	unsigned char comp[8192], raw[8192];
	size_t cap = 0, n = 0, alloc = 0, i;
	ssize_t len;
	double t0;

	while ((len = getline(&line, &cap, stdin)) > 0) {
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 1024;
			recs = realloc(recs, alloc * sizeof *recs);
		}
		line[len - 1] = '\0';
		recs[n++] = strdup(line);
	}
	zp.at = malloc(n * sizeof *zp.at);
	zp.len = malloc(n * sizeof *zp.len);
	tp.at = malloc(n * sizeof *tp.at);
	tp.len = malloc(n * sizeof *tp.len);
	if (m == NULL || tp.len == NULL || tmq_codec_init(&c, &e) < 0)
		return 1;

	t0 = now();
	for (i = 0; i < n; i++) {
		const char *p = strchr(recs[i], ':') + 1;
		z_stream zs;
		size_t bl;

		memset(&zs, 0, sizeof zs);
		deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8,
		    Z_DEFAULT_STRATEGY);
		zs.next_in = (unsigned char *)p;
		zs.avail_in = (uInt)strlen(p);
		zs.next_out = comp;
		zs.avail_out = sizeof comp;
		deflate(&zs, Z_FINISH);
		bl = tmq_b85_encode(comp, sizeof comp - zs.avail_out, buf);
		deflateEnd(&zs);
		pool_add(&zp, i, buf, bl);
	}
	report("encode (zlib defaults)", n, t0, now());
	t0 = now();
	for (i = 0; i < n; i++) {
		long zl = tmq_b85_decode(zp.buf + zp.at[i], zp.len[i], comp);
		z_stream zs;

		memset(&zs, 0, sizeof zs);
		inflateInit2(&zs, -15);
		zs.next_in = comp;
		zs.avail_in = (uInt)zl;
		zs.next_out = raw;
		zs.avail_out = sizeof raw;
		if (inflate(&zs, Z_FINISH) != Z_STREAM_END)
			return 1;
		inflateEnd(&zs);
	}
	report("decode (zlib defaults)", n, t0, now());

	t0 = now();
	for (i = 0; i < n; i++) {
		const char *p = strchr(recs[i], ':') + 1;
		unsigned char key[4];
		struct tmq_payload pl = { TMQ_TEXT, 0,
		    (const unsigned char *)p, strlen(p) };
		long ll;

		tmq_key_from_u64(4, strtoul(recs[i], NULL, 10), key);
		ll = tmq_line_encode(&c, 4, key, 1764400000.5, &pl, buf,
		    TMQ_LINE_MAX, &e);
		if (ll < 0)
			return 1;
		pool_add(&tp, i, buf, (size_t)ll);
	}
	report("encode (tmq codec)", n, t0, now());
	t0 = now();
	for (i = 0; i < n; i++)
		if (tmq_line_decode(&c, 4, 0, tp.buf + tp.at[i], tp.len[i] - 1,
		    m, &e) < 0)
			return 1;
	report("decode (tmq codec)", n, t0, now());
	printf("mean line: %.1f bytes (tmq), %.1f bytes (zlib defaults)\n",
	    (double)tp.used / n, (double)zp.used / n + 16);
	return 0;
}
