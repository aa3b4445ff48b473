/* t-fastdeflate: the small-payload deflate encoder writes streams that
 * zlib inflates back exactly: every length up to the limit, random bytes,
 * text, long repeats (matches of every length and distance), and state
 * carried across thousands of calls; and it says when out is too small. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "codec/fastdeflate.h"
#include "tap.h"

static struct tmq_fastdeflate z;

/* Inflate with zlib; 1 when it gives back exactly in[0..n). */
static int
round_trip(const unsigned char *in, size_t n)
{
	static unsigned char out[4096], back[4096];
	size_t zl = tmq_fastdeflate(&z, in, n, out, sizeof out);
	z_stream s;
	int rc;

	if (zl == 0)
		return 0;
	memset(&s, 0, sizeof s);
	inflateInit2(&s, -15);
	s.next_in = out;
	s.avail_in = (uInt)zl;
	s.next_out = back;
	s.avail_out = sizeof back;
	rc = inflate(&s, Z_FINISH);
	inflateEnd(&s);
	return rc == Z_STREAM_END && s.avail_in == 0 &&
	    sizeof back - s.avail_out == n && memcmp(in, back, n) == 0;
}

int
main(void)
{
	unsigned char in[TMQ_FASTDEFLATE_MAX], out[16];
	const char *json = "{\"id\":12,\"user\":\"u4821\",\"event\":\"click\"}";
	size_t n, i;
	int bad, t;

	tmq_fastdeflate_init(&z);
	ok(round_trip((const unsigned char *)"", 0), "empty input");
	ok(round_trip((const unsigned char *)json, strlen(json)), "a JSON record");
	for (bad = 0, n = 0; n <= TMQ_FASTDEFLATE_MAX; n++) {
		for (i = 0; i < n; i++)
			in[i] = (unsigned char)(i * 7 + n);
		bad += !round_trip(in, n);
	}
	is_int(bad, 0, "every length from 0 to the limit");
	/* All one byte: matches at distance 1 of every length up to 258. */
	memset(in, 'x', sizeof in);
	ok(round_trip(in, sizeof in), "1024 equal bytes");
	/* Repeats at every distance the window allows. */
	for (bad = 0, n = 1; n <= 512; n++) {
		for (i = 0; i < sizeof in; i++)
			in[i] = (unsigned char)((i % n) * 31 + 7);
		bad += !round_trip(in, sizeof in);
	}
	is_int(bad, 0, "periods 1 to 512");
	srand(7);
	for (bad = 0, t = 0; t < 20000; t++) {
		n = (size_t)rand() % (TMQ_FASTDEFLATE_MAX + 1);
		for (i = 0; i < n; i++)
			in[i] = t % 3 == 0 ? (unsigned char)rand() :
			    t % 3 == 1 ? (unsigned char)"abcab"[rand() % 5] :
			    (unsigned char)json[rand() % 40];
		bad += !round_trip(in, n);
	}
	is_int(bad, 0, "20000 random inputs of random lengths");
	/* The base moves on with every call: force the wrap-around. */
	z.base = UINT32_MAX - 2 * TMQ_FASTDEFLATE_MAX + 5;
	memcpy(in, json, strlen(json));
	ok(round_trip(in, strlen(json)), "after the position base wraps");
	ok(round_trip(in, strlen(json)), "and again");
	ok(tmq_fastdeflate(&z, (const unsigned char *)json, strlen(json), out,
	    sizeof out) == 0, "an output buffer too small gives 0");
	ok(tmq_fastdeflate(&z, in, TMQ_FASTDEFLATE_MAX + 1, out, sizeof out) == 0,
	    "an input over the limit gives 0");
	return done_testing();
}
