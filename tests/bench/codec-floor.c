/* codec-floor.c: how fast records become lines and lines become records
 * with no I/O and no parsing: the floor under tmq-put and tmq-get.
 *
 * Each record becomes a whole line (base85 key, base85 timestamp, base85
 * raw deflate body, newline) and back, through:
 * - "zlib, a fresh stream per record": a new deflate stream at zlib's
 *   default settings for every record, as the Python library does;
 * - "zlib, stream reused": one deflate stream and one inflate stream for
 *   all records, deflateReset/inflateReset between them, at zlib's
 *   defaults, and again tuned for ~100-byte records (level 1, fixed codes,
 *   a 512-byte window and the smallest hash, so that a reset clears little).
 *   The best of these is the baseline the README compares tmq against;
 * - "tmq codec": the library's own encoder and decoder (lib/codec/message.c).
 * The zlib decoders do not check UTF-8 and tmq's does, which favours zlib.
 * Rates are records per second of CPU time (single-threaded, so on an idle
 * machine the same as per second of wall time).
 * Input: KEY:PAYLOAD lines on stdin (gen-records.awk). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "codec/base85.h"
#include "codec/keys.h"
#include "codec/message.h"

static double
now(void)
{
	struct timespec ts;

	/* CPU time, not the wall clock: on a machine busy with other work
	 * the floor is then what the code costs, not what it was given. */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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

static double
report(const char *what, size_t n, double t0, double t1)
{
	printf("codec floor %s: %.0f records/s\n", what, n / (t1 - t0));
	return n / (t1 - t0);
}

struct zlib_way {
	const char *name;
	int fresh;		/* a new stream per record, not a reset */
	int level, wbits, memlevel, strategy;
};

static const struct zlib_way zlibs[] = {
	{ "zlib, a fresh stream per record", 1, Z_DEFAULT_COMPRESSION, 15, 8,
	    Z_DEFAULT_STRATEGY },
	{ "zlib, stream reused", 0, Z_DEFAULT_COMPRESSION, 15, 8,
	    Z_DEFAULT_STRATEGY },
	{ "zlib, stream reused, tuned", 0, 1, 9, 1, Z_FIXED },
};

/* One line as the format has it: key, timestamp, body, newline. */
static size_t
zlib_line(const unsigned char *key, const unsigned char *ts,
    const unsigned char *body, size_t bl, char *out)
{
	size_t n = 0;

	n += tmq_b85_encode(key, 4, out + n);
	n += tmq_b85_encode(ts, 8, out + n);
	n += tmq_b85_encode(body, bl, out + n);
	out[n++] = '\n';
	return n;
}

/* Encode every record through zlib the way w says, then decode every line;
 * print both rates, and the mean line length in *mean. */
static int
zlib_floor(const struct zlib_way *w, char **recs, size_t n, struct pool *zp,
    double *mean, double *enc, double *dec)
{
	static unsigned char comp[8192], raw[8192];
	static char buf[TMQ_LINE_MAX];
	unsigned char ts[8] = { 0x41, 0xda, 0x4a, 0x3e, 0x20, 0x20, 0, 0 };
	char what[128];
	z_stream zs;
	size_t i;
	double t0;

	zp->used = 0;
	memset(&zs, 0, sizeof zs);
	if (!w->fresh && deflateInit2(&zs, w->level, Z_DEFLATED, -w->wbits,
	    w->memlevel, w->strategy) != Z_OK)
		return -1;
	t0 = now();
	for (i = 0; i < n; i++) {
		const char *p = strchr(recs[i], ':') + 1;
		unsigned char key[4];

		tmq_key_from_u64(4, strtoul(recs[i], NULL, 10), key);
		if (w->fresh) {
			memset(&zs, 0, sizeof zs);
			deflateInit2(&zs, w->level, Z_DEFLATED, -w->wbits,
			    w->memlevel, w->strategy);
		} else
			deflateReset(&zs);
		zs.next_in = (unsigned char *)p;
		zs.avail_in = (uInt)strlen(p);
		zs.next_out = comp;
		zs.avail_out = sizeof comp;
		if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
			return -1;
		pool_add(zp, i, buf, zlib_line(key, ts, comp,
		    sizeof comp - zs.avail_out, buf));
		if (w->fresh)
			deflateEnd(&zs);
	}
	snprintf(what, sizeof what, "encode (%s)", w->name);
	*enc = report(what, n, t0, now());
	if (!w->fresh)
		deflateEnd(&zs);

	memset(&zs, 0, sizeof zs);
	if (!w->fresh && inflateInit2(&zs, -15) != Z_OK)
		return -1;
	t0 = now();
	for (i = 0; i < n; i++) {
		const char *l = zp->buf + zp->at[i];
		unsigned char key[4];
		long zl;

		if (tmq_b85_decode(l, 5, key) < 0 ||
		    tmq_b85_decode(l + 5, 10, ts) < 0)
			return -1;
		zl = tmq_b85_decode(l + 15, zp->len[i] - 16, comp);
		if (zl < 0)
			return -1;
		if (w->fresh) {
			memset(&zs, 0, sizeof zs);
			inflateInit2(&zs, -15);
		} else
			inflateReset(&zs);
		zs.next_in = comp;
		zs.avail_in = (uInt)zl;
		zs.next_out = raw;
		zs.avail_out = sizeof raw;
		if (inflate(&zs, Z_FINISH) != Z_STREAM_END)
			return -1;
		if (w->fresh)
			inflateEnd(&zs);
	}
	snprintf(what, sizeof what, "decode (%s)", w->name);
	*dec = report(what, n, t0, now());
	if (!w->fresh)
		inflateEnd(&zs);
	*mean = (double)zp->used / n;
	return 0;
}

int
main(void)
{
	struct tmq_codec c;
	struct tmq_error e;
	struct tmq_msg *m = malloc(sizeof *m);
	struct pool zp = { 0 }, tp = { 0 };
	char **recs = NULL, *line = NULL, buf[TMQ_LINE_MAX];
	size_t cap = 0, n = 0, alloc = 0, i;
	ssize_t len;
	double t0, zmean0 = 0, best_enc = 0, best_dec = 0;

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

	for (i = 0; i < sizeof zlibs / sizeof zlibs[0]; i++) {
		double zmean, enc, dec;

		if (zlib_floor(&zlibs[i], recs, n, &zp, &zmean, &enc, &dec) < 0)
			return 1;
		if (i == 0)
			zmean0 = zmean;
		if (!zlibs[i].fresh && enc > best_enc)
			best_enc = enc;
		if (!zlibs[i].fresh && dec > best_dec)
			best_dec = dec;
	}
	/* The baseline: the fastest zlib way each way, stream reused. */
	printf("codec floor encode (best zlib, stream reused): %.0f records/s\n",
	    best_enc);
	printf("codec floor decode (best zlib, stream reused): %.0f records/s\n",
	    best_dec);

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
	    (double)tp.used / n, zmean0);
	return 0;
}
