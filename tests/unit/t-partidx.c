/* t-partidx.c: lib/codec/partidx, the encoding of a partition file's
 * index and the checks that need no file, without a file: the running
 * maxts kept from encoded times (tmq_tsmax) against the decoded times
 * folded one by one, for times of every kind; headers, records and stamps
 * encoded and decoded, a flipped bit refused, each reason a header is
 * refused for; the stamp against the file now (the same, grown, written
 * in place, shorter); the bound on an index's records; records' order;
 * what a lookup takes as before what it looks for; a record's window.
 * (t-partindex does the files.) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "codec/base85.h"
#include "codec/partidx.h"
#include "tap.h"
#include "codec/timestamp.h"

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t
rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void
test_tsmax(void)
{
	static const double special[] = { 0.0, -0.0, 1.0, -1.0, 1e300, 1e308,
	    -1e308, 5e-324, 1795564800.25, 4102444800.0 };
	int round, bad = 0;

	for (round = 0; round < 2000 && !bad; round++) {
		struct tmq_tsmax m;
		double want = round % 3 ? -INFINITY : 1795564800.0, got, ts;
		int i, n = 1 + (int)(rnd() % 40);

		tmq_tsmax_init(&m, want);
		for (i = 0; i < n; i++) {
			char c[TMQ_TS_CHARS];
			uint64_t bits;

			switch (rnd() % 6) {
			case 0:
				ts = special[rnd() % 10];
				break;
			case 1:
				bits = rnd();	/* any double: NaNs too */
				memcpy(&ts, &bits, 8);
				break;
			case 2:
				ts = round % 2 ? -INFINITY : INFINITY;
				break;
			default:	/* times near each other, up or down */
				ts = 1795564800.0 + (double)(rnd() % 1000000) *
				    (rnd() % 2 ? 1e-6 : 1e-3);
			}
			tmq_ts_encode(ts, c);
			if (rnd() % 9 == 0)	/* a character of no time */
				c[rnd() % TMQ_TS_CHARS] = rnd() % 2 ? '"' : '\0';
			if (rnd() % 13 == 0)	/* a group past 2^32 */
				memcpy(c + (rnd() % 2) * 5, "~~~~~", 5);
			tmq_tsmax_fold(&m, c);
			if (tmq_ts_decode(c, &ts) == 0)
				want = tmq_pidx_ts(want, ts);
		}
		got = tmq_tsmax_get(&m);
		if (memcmp(&got, &want, 8) != 0 && !(got == 0 && want == 0)) {
			diag("round %d: %a, want %a", round, got, want);
			bad = 1;
		}
	}
	ok(!bad, "the running maxts of encoded times is that of the times "
	    "decoded one by one (2000 runs: NaNs, infinities, negative, tiny, "
	    "huge, close, bad characters, overflowing groups)");
}

static void
test_codec(void)
{
	struct tmq_pidx_id pf = { 3, 20261125, 77, 4, 77 }, other = pf, k2 = pf,
	    t78 = pf;
	unsigned char h[TMQ_PIDX_HDR], r[TMQ_PIDX_REC];
	struct tmq_pidx_ent at = { 1234, 98765, 1795564800.5 }, got;
	uint64_t hh;
	uint32_t seed, seed2, win;
	const char *why = "";
	int i, refused = 1;

	other.first = 78;
	k2.key_width = 2;
	t78.topic_hash = 78;
	tmq_pidx_header_encode(h, &pf, 0x1234567890abcdefull, &seed);
	ok(tmq_pidx_header_decode(h, sizeof h, &pf, &hh, &seed2, &why) == 0 &&
	    hh == 0x1234567890abcdefull && seed2 == seed, "a header decodes");
	ok(tmq_pidx_header_decode(h, sizeof h, &other, &hh, &seed2,
	    &why) < 0 && strcmp(why, "not this file's index") == 0,
	    "another file's header is refused (%s)", why);
	ok(tmq_pidx_header_decode(h, sizeof h, &k2, &hh, &seed2, &why) < 0,
	    "one for another key width too");
	ok(tmq_pidx_header_decode(h, sizeof h, &t78, &hh, &seed2,
	    &why) < 0 && strcmp(why, "not this file's index") == 0,
	    "one for another topic too");
	for (i = 0; i < TMQ_PIDX_HDR * 8; i++) {
		h[i / 8] ^= (unsigned char)(1 << (i % 8));
		if (tmq_pidx_header_decode(h, sizeof h, &pf, &hh, &seed2,
		    &why) == 0)
			refused = 0;
		h[i / 8] ^= (unsigned char)(1 << (i % 8));
	}
	ok(refused, "a header with any bit flipped is refused");
	tmq_pidx_record_encode(r, seed, &at, 0xfeedu);
	ok(tmq_pidx_record_decode(r, seed, &got, &win) == 0 &&
	    got.line == at.line && got.pos == at.pos && got.maxts == at.maxts &&
	    win == 0xfeedu, "a record decodes");
	ok(tmq_pidx_record_decode(r, seed ^ 1, &got, &win) < 0,
	    "a record of another index does not");
	for (refused = 1, i = 0; i < TMQ_PIDX_REC * 8; i++) {
		r[i / 8] ^= (unsigned char)(1 << (i % 8));
		if (tmq_pidx_record_decode(r, seed, &got, &win) == 0)
			refused = 0;
		r[i / 8] ^= (unsigned char)(1 << (i % 8));
	}
	ok(refused, "a record with any bit flipped is refused");
	at.line = at.pos + 1;
	tmq_pidx_record_encode(r, seed, &at, 0);
	ok(tmq_pidx_record_decode(r, seed, &got, &win) < 0,
	    "a record of more lines than bytes is refused");
	at.line = 5;
	at.maxts = NAN;
	tmq_pidx_record_encode(r, seed, &at, 0);
	ok(tmq_pidx_record_decode(r, seed, &got, &win) < 0,
	    "a record whose maxts is NaN is refused");
}

static void
test_header_whys(void)
{
	struct tmq_pidx_id id = { 0, 20261125, 0, 2, 0 };
	unsigned char h[TMQ_PIDX_HDR];
	uint64_t hh, sum;
	uint32_t seed;
	const char *why = "";

	id.topic_hash = tmq_pidx_topic_hash("orders");
	ok(id.topic_hash == XXH3_64bits("orders", 6) &&
	    id.topic_hash != tmq_pidx_topic_hash("orders2"),
	    "a topic's hash is XXH3 of its name");
	tmq_pidx_header_encode(h, &id, 42, &seed);
	ok(memcmp(h, "TMQPIDX1", 8) == 0 && h[8] == 2 && h[12] == 0 &&
	    h[14] == 1 && h[36] == 0 && h[37] == 16,
	    "a header: magic, version 2, step 65536, head 4096");
	ok(tmq_pidx_header_decode(h, TMQ_PIDX_HDR - 1, &id, &hh, &seed,
	    &why) < 0 && strcmp(why, "not an index") == 0,
	    "a header cut short is not an index");
	/* Each field changed and the checksum sealed again, as a co-user
	 * would: the reason each is refused for. */
	h[8] = 1;
	sum = XXH3_64bits(h, 56);
	memcpy(h + 56, &sum, 8);	/* (little-endian hosts) */
	ok(tmq_pidx_header_decode(h, sizeof h, &id, &hh, &seed, &why) < 0 &&
	    strcmp(why, "of an older version") == 0, "version 1: %s", why);
	h[8] = 3;
	sum = XXH3_64bits(h, 56);
	memcpy(h + 56, &sum, 8);
	ok(tmq_pidx_header_decode(h, sizeof h, &id, &hh, &seed, &why) < 0 &&
	    strcmp(why, "of another kind") == 0, "version 3: %s", why);
	tmq_pidx_header_encode(h, &id, 42, &seed);
	h[14] = 2;
	sum = XXH3_64bits(h, 56);
	memcpy(h + 56, &sum, 8);
	ok(tmq_pidx_header_decode(h, sizeof h, &id, &hh, &seed, &why) < 0 &&
	    strcmp(why, "of another kind") == 0, "another step: %s", why);
	tmq_pidx_header_encode(h, &id, 42, &seed);
	h[60] ^= 1;
	ok(tmq_pidx_header_decode(h, sizeof h, &id, &hh, &seed, &why) < 0 &&
	    strcmp(why, "damaged") == 0, "a checksum that fails: %s", why);
}

static void
test_stamp(void)
{
	struct tmq_pidx_stamp s = { 123456789, 1795564800, 999999999 }, got;
	struct tmq_pidx_stamp now;
	unsigned char b[TMQ_PIDX_STAMP];
	int i, refused = 1;

	tmq_pidx_stamp_encode(b, 7, &s);
	ok(tmq_pidx_stamp_decode(b, 7, &got) == 0 && got.size == s.size &&
	    got.ctime_sec == s.ctime_sec && got.ctime_nsec == s.ctime_nsec,
	    "a stamp decodes");
	ok(tmq_pidx_stamp_decode(b, 8, &got) < 0,
	    "a stamp of another index does not");
	for (i = 0; i < TMQ_PIDX_STAMP * 8; i++) {
		b[i / 8] ^= (unsigned char)(1 << (i % 8));
		if (tmq_pidx_stamp_decode(b, 7, &got) == 0)
			refused = 0;
		b[i / 8] ^= (unsigned char)(1 << (i % 8));
	}
	ok(refused, "a stamp with any bit flipped is refused");
	s.ctime_nsec = 1000000000u;
	tmq_pidx_stamp_encode(b, 7, &s);
	ok(tmq_pidx_stamp_decode(b, 7, &got) < 0,
	    "a stamp of a billion nanoseconds is refused");
	s.ctime_nsec = 5;
	s.size = (uint64_t)INT64_MAX + 1;
	tmq_pidx_stamp_encode(b, 7, &s);
	ok(tmq_pidx_stamp_decode(b, 7, &got) < 0,
	    "a stamp of a size past 2^63-1 is refused");

	s.size = 1000;
	now = s;
	now.size = 5000;
	is_int(tmq_pidx_stamp_cmp(&s, &now), TMQ_PIDX_SAME,
	    "the change time the stamp's: the same, whatever the size");
	now.ctime_nsec = 6;
	is_int(tmq_pidx_stamp_cmp(&s, &now), TMQ_PIDX_GROWN,
	    "changed and larger: grown");
	now.size = 1000;
	is_int(tmq_pidx_stamp_cmp(&s, &now), TMQ_PIDX_INPLACE,
	    "changed, the same size: written in place");
	now.size = 999;
	now.ctime_nsec = 5;
	now.ctime_sec++;
	is_int(tmq_pidx_stamp_cmp(&s, &now), TMQ_PIDX_SHORTER,
	    "changed and smaller: shorter");
}

static void
test_checks(void)
{
	struct tmq_pidx_ent a = { 10, 1000, 5.0 }, b = { 20, 2000, 5.0 };
	unsigned char w[TMQ_PIDX_WIN];
	uint32_t win = 0;

	ok(tmq_pidx_max_records(0) == 8192 &&
	    tmq_pidx_max_records(1ull << 30) == 8192 + 131072,
	    "an index may hold a record per 8 KiB of file, and 8192 more");
	ok(tmq_pidx_ordered(&a, &b), "records in order");
	ok(!tmq_pidx_ordered(&b, &a), "not backwards");
	ok(!tmq_pidx_ordered(&a, &a), "nor twice the same");
	b.line = 1011;
	ok(!tmq_pidx_ordered(&a, &b),
	    "nor more lines between them than bytes");
	b.line = 1010;
	ok(tmq_pidx_ordered(&a, &b), "as many lines as bytes: in order");
	b.maxts = 4.0;
	ok(!tmq_pidx_ordered(&a, &b), "nor a maxts that went down");
	b.maxts = INFINITY;
	ok(tmq_pidx_ordered(&a, &b), "up to +inf");

	ok(tmq_pidx_before(&a, TMQ_PIDX_BY_LINE, 10, 0) &&
	    !tmq_pidx_before(&a, TMQ_PIDX_BY_LINE, 9, 0),
	    "by line: at or before the line");
	ok(tmq_pidx_before(&a, TMQ_PIDX_BY_TIME, 0, 5.5) &&
	    !tmq_pidx_before(&a, TMQ_PIDX_BY_TIME, 0, 5.0),
	    "by time: maxts below t");
	ok(tmq_pidx_before(&a, TMQ_PIDX_BY_TIME_STRICT, 0, 5.0) &&
	    !tmq_pidx_before(&a, TMQ_PIDX_BY_TIME_STRICT, 0, 4.9),
	    "strictly after t: maxts not above t");
	ok(tmq_pidx_before(&a, TMQ_PIDX_LAST, 0, -INFINITY),
	    "the last: every record");
	ok(!tmq_pidx_before(&b, TMQ_PIDX_BY_TIME, 0, INFINITY) &&
	    tmq_pidx_before(&b, TMQ_PIDX_BY_TIME_STRICT, 0, INFINITY),
	    "a maxts of +inf (a NaN time) is below no time");

	memset(w, 'x', sizeof w);
	w[sizeof w - 1] = '\n';
	ok(tmq_pidx_window(w, sizeof w, &win) == 0 &&
	    win == XXH32(w, sizeof w, 0), "a window ending in a newline: "
	    "its hash");
	ok(tmq_pidx_window(w + 20, 12, &win) == 0 &&
	    win == XXH32(w + 20, 12, 0), "one shorter, near a file's start");
	w[sizeof w - 1] = 'y';
	ok(tmq_pidx_window(w, sizeof w, &win) < 0,
	    "one that does not end a line: none");
	ok(tmq_pidx_window(w, 0, &win) < 0, "nor an empty one");
	ok(tmq_pidx_ts(-INFINITY, NAN) == INFINITY &&
	    tmq_pidx_ts(3.0, 2.0) == 3.0 && tmq_pidx_ts(3.0, 4.0) == 4.0,
	    "a running maxts: NaN as +inf, the larger kept");
}

int
main(void)
{
	test_tsmax();
	test_codec();
	test_header_whys();
	test_stamp();
	test_checks();
	return done_testing();
}
