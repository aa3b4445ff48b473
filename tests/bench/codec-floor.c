/* codec-floor.c: how fast records can be turned into lines and back with
 * no I/O and no parsing, as a floor for tmq-put and tmq-get.
 *
 * Two floors are measured: "zlib defaults" compresses each record with a
 * fresh deflate stream at zlib's default settings (what the Python library
 * does, and the figure the targets are stated against), and "tmq codec"
 * runs the library's own encoder and decoder, which reuse their state.
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

int
main(void)
{
	struct tmq_codec c;
	struct tmq_error e;
	struct tmq_msg *m = malloc(sizeof *m);
	char **recs = NULL, *line = NULL, *pool, buf[TMQ_LINE_MAX];
	size_t cap = 0, n = 0, alloc = 0, i;
	ssize_t len;
	long *lens;
	size_t *at, used = 0;
	double t0, t1;
	unsigned char comp[8192], raw[8192];
	char b85[12000];

	while ((len = getline(&line, &cap, stdin)) > 0) {
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 1024;
			recs = realloc(recs, alloc * sizeof *recs);
		}
		line[len - 1] = '\0';
		recs[n++] = strdup(line);
	}
	/* Encoded lines are kept back to back, as in a file. */
	pool = malloc(n * 160 + TMQ_LINE_MAX);
	at = malloc(n * sizeof *at);
	lens = malloc(n * sizeof *lens);
	if (tmq_codec_init(&c, &e) < 0 || m == NULL || pool == NULL)
		return 1;

	/* Floor 1: fresh zlib stream per record, defaults. */
	t0 = now();
	for (i = 0; i < n; i++) {
		const char *p = strchr(recs[i], ':') + 1;
		z_stream zs;

		memset(&zs, 0, sizeof zs);
		deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8,
		    Z_DEFAULT_STRATEGY);
		zs.next_in = (unsigned char *)p;
		zs.avail_in = (uInt)strlen(p);
		zs.next_out = comp;
		zs.avail_out = sizeof comp;
		deflate(&zs, Z_FINISH);
		tmq_b85_encode(comp, sizeof comp - zs.avail_out, b85);
		deflateEnd(&zs);
	}
	t1 = now();
	printf("codec floor encode (zlib defaults): %.0f records/s\n",
	    n / (t1 - t0));

	/* Floor 2: the library's codec, encode then decode. */
	t0 = now();
	for (i = 0; i < n; i++) {
		const char *p = strchr(recs[i], ':') + 1;
		unsigned char key[4];
		struct tmq_payload pl = { TMQ_TEXT, 0,
		    (const unsigned char *)p, strlen(p) };

		tmq_key_from_u64(4, strtoul(recs[i], NULL, 10), key);
		lens[i] = tmq_line_encode(&c, 4, key, 1764400000.5, &pl,
		    buf, TMQ_LINE_MAX, &e);
		if (lens[i] < 0 || used + (size_t)lens[i] > n * 160)
			return 1;
		memcpy(pool + used, buf, (size_t)lens[i]);
		at[i] = used;
		used += (size_t)lens[i];
	}
	t1 = now();
	printf("codec floor encode (tmq codec): %.0f records/s\n",
	    n / (t1 - t0));
	t0 = now();
	for (i = 0; i < n; i++)
		if (tmq_line_decode(&c, 4, 0, pool + at[i], (size_t)lens[i] - 1, m,
		    &e) < 0)
			return 1;
	t1 = now();
	printf("codec floor decode (tmq codec): %.0f records/s\n",
	    n / (t1 - t0));
	/* Decode floor at zlib defaults: a fresh inflate stream a record. */
	t0 = now();
	for (i = 0; i < n; i++) {
		size_t kch = 5 + 10, bl = (size_t)lens[i] - 1 - kch;
		long zl = tmq_b85_decode(pool + at[i] + kch, bl, comp);
		z_stream zs;

		memset(&zs, 0, sizeof zs);
		inflateInit2(&zs, -15);
		zs.next_in = comp;
		zs.avail_in = (uInt)zl;
		zs.next_out = raw;
		zs.avail_out = sizeof raw;
		inflate(&zs, Z_FINISH);
		inflateEnd(&zs);
	}
	t1 = now();
	printf("codec floor decode (zlib defaults): %.0f records/s\n",
	    n / (t1 - t0));
	return 0;
}
