/* t-message.c: lib/codec/message and lib/codec/payload, one message on one
 * line: round trips of text, bytes and typed payloads under every key
 * width, the 4096-byte line limit, lines written by the library (copied
 * from vectors/root with what vectors/expected.jsonl says they hold), and
 * corrupt lines, which must fail with a message. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "codec/base85.h"
#include "codec/jsontext.h"
#include "codec/message.h"
#include "tap.h"
#include "codec/timestamp.h"

static struct tmq_codec codec;

/* A deterministic stream of incompressible bytes. */
static void
noise(unsigned char *p, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15u + 1;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)(x >> 24);
	}
}

static long
encode(int width, const unsigned char *key, double ts, enum tmq_ptype type,
    unsigned idx, const void *data, size_t len, char *out, size_t outcap,
    struct tmq_error *e)
{
	struct tmq_payload p = { type, idx, data, len };

	return tmq_line_encode(&codec, width, key, ts, &p, out, outcap, e);
}

/* Encode, check the line's shape, decode, compare everything. */
static void
round_trip(const char *what, int width, const unsigned char *key, double ts,
    enum tmq_ptype type, unsigned idx, const void *data, size_t len)
{
	static char line[TMQ_LINE_MAX];
	struct tmq_error e = { 0 };
	struct tmq_msg m;
	long n;

	n = encode(width, key, ts, type, idx, data, len, line, sizeof line, &e);
	if (!ok(n > 0, "%s: encodes", what)) {
		diag("error: %s", e.msg);
		return;
	}
	ok(line[n - 1] == '\n' && memchr(line, '\n', (size_t)n - 1) == NULL,
	    "%s: one line, ending with its only newline", what);
	ok(n > (long)(tmq_key_chars(width) + TMQ_TS_CHARS),
	    "%s: the line holds key, timestamp and body", what);
	memset(&m, 0, sizeof m);
	if (!is_int(tmq_line_decode(&codec, width, 65535, line, (size_t)n - 1,
	    &m, &e), 0, "%s: decodes", what)) {
		diag("error: %s", e.msg);
		return;
	}
	is_mem(m.key, tmq_key_bytes(width), key, tmq_key_bytes(width),
	    "%s: same key", what);
	ok(m.ts == ts, "%s: same timestamp", what);
	is_int(m.payload.type, type, "%s: same payload type", what);
	if (type == TMQ_TYPED)
		is_int(m.payload.type_index, idx, "%s: same type index", what);
	is_mem(m.payload.data, m.payload.len, data, len, "%s: same payload",
	    what);
}

/* Decoding must fail with this message. */
static void
decode_fails(const char *what, int width, unsigned ntypes, const char *line,
    size_t n, const char *msg)
{
	struct tmq_error e = { 0 };
	struct tmq_msg m;

	is_int(tmq_line_decode(&codec, width, ntypes, line, n, &m, &e), -1,
	    "%s: does not decode", what);
	if (msg != NULL)
		is_str(e.msg, msg, "%s: message", what);
	else
		ok(e.msg[0] != '\0', "%s: with a message (%s)", what, e.msg);
}

/* Encode a payload without the encoder's blessing, then decode it. */
static void
bad_payload(const char *what, enum tmq_ptype type, unsigned idx,
    const char *data, size_t len, unsigned ntypes, const char *msg)
{
	static const unsigned char key[2] = { 0, 1 };
	char line[TMQ_LINE_MAX];
	struct tmq_error e;
	long n;

	n = encode(2, key, 1.5, type, idx, data, len, line, sizeof line, &e);
	if (!ok(n > 0, "%s: encodes", what))
		return;
	decode_fails(what, 2, ntypes, line, (size_t)n - 1, msg);
}

/* A line from vectors/root and what vectors/expected.jsonl decodes it to. */
struct real_line {
	const char *where, *line;
	int width;
	const char *key;		/* raw key bytes */
	double ts;
	enum tmq_ptype type;
	unsigned idx;
	const char *payload;
	size_t len;
};

static const struct real_line real[] = {
	{ "u32t/0-20261125_0.tmf:1",
	    "00000LE6En?9o^dt5(V?&d*b_QiwLxG14)PtyM5Lu`o0@1po",
	    4, "\0\0\0\0", 1795597235.271, TMQ_TEXT, 0,
	    "{\"json\": [1,2,3]} 748175", 24 },
	{ "u32t/1-20261125_0.tmf:1",
	    "Z;mx!LE6En?Lm0e0Tlr1|K^va=A5kPs-EM6hU0>*<AS;4gNO",
	    4, "\x6f\x8e\x35\x60", 1795597237.023, TMQ_TEXT, 0,	/* 1871590752 */
	    "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x83\x86\xe3\x82\xad"
	    "\xe3\x82\xb9\xe3\x83\x88", 21 },			/* 日本語テキスト */
	{ "u32t/1-20261125_0.tmf:3",
	    "0000bLE6En?O};G`*Z*6G}Z<iz1@Q4zTAgJomT+>",
	    4, "\0\0\0\x25", 1795597237.524, TMQ_BYTES, 0,	/* 37 */
	    "\xdf\xf5\x96\x05\x80<.\xbb\x11wM\x0b\xc3\x15" "C\xaa", 16 },
	{ "u32t/2-20261127_1.tmf:1",
	    "4W%wCLE6GH1o2o9W5_GbQLr>Hw=}f`00",
	    4, "\x0d\xa5\x2e\x2b", 1795737619.771, TMQ_TEXT, 0,	/* 228929067 */
	    "\0nul 907959", 11 },
	{ "typed/0-20261125_0.tmf:1",
	    "w|aWrLE6Eo0tFtp`^~^mt(2LfWM!<Qlv$FRt7N5=SWu9Ys-&Y-SW>BEWmpRU",
	    4, "\xb7\x7a\x7a\xdd", 1795597320.08, TMQ_TYPED, 0,	/* Order */
	    "{\"id\":3,\"item\":\"apple\",\"qty\":1}", 31 },
	{ "char3t/1-20261125_0.tmf:3", "=9i@LE6En`7@P)`vU*",
	    -3, "\xe6\x97\xa5", 1795597284.806, TMQ_BYTES, 0, "", 0 },
	{ "u64t/3-20261128_15.tmf:2",
	    "|NsC0|NsC0LE6HGaw0u(`=g^#Ywi1cQIGMfUtgt+)-wVC",
	    8, "\xff\xff\xff\xff\xff\xff\xff\xff", 1795824072.535, TMQ_BYTES, 0,
	    ",(};M\xfb\xa2\x8c" "3\xea\xfa\xf5\x1a" "2\xaf\x01", 16 },
};

static void
real_lines(void)
{
	size_t i;

	for (i = 0; i < sizeof real / sizeof real[0]; i++) {
		const struct real_line *r = &real[i];
		struct tmq_error e = { 0 };
		struct tmq_msg m;
		double ts;

		memset(&m, 0, sizeof m);
		if (!is_int(tmq_line_decode(&codec, r->width, 2, r->line,
		    strlen(r->line), &m, &e), 0, "%s decodes", r->where)) {
			diag("error: %s", e.msg);
			continue;
		}
		is_mem(m.key, tmq_key_bytes(r->width), r->key,
		    tmq_key_bytes(r->width), "%s: key", r->where);
		ok(m.ts == r->ts, "%s: timestamp %.3f", r->where, r->ts);
		is_int(m.payload.type, r->type, "%s: payload type", r->where);
		if (r->type == TMQ_TYPED)
			is_int(m.payload.type_index, r->idx, "%s: type index",
			    r->where);
		is_mem(m.payload.data, m.payload.len, r->payload, r->len,
		    "%s: payload", r->where);
		ok(tmq_line_ts(r->width, r->line, strlen(r->line), &ts) == 0 &&
		    ts == r->ts, "%s: tmq_line_ts reads the timestamp alone",
		    r->where);
	}
}

/* The longest lines: find payloads whose line is exactly 4096 bytes and
 * one byte more, and check the limit takes the one and refuses the other. */
static void
line_limit(void)
{
	static const unsigned char key[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static unsigned char data[8192];
	static char big[16384], line[TMQ_LINE_MAX];
	struct tmq_error e = { 0 };
	long n, at = -1, over = -1;
	size_t len;

	noise(data, sizeof data, 42);
	/* Incompressible payloads are refused with TMQ_LINE_MAX ... */
	n = encode(8, key, 1.5, TMQ_BYTES, 0, data, 4000, line, TMQ_LINE_MAX,
	    &e);
	is_int(n, -1, "4000 random bytes do not fit in a line");
	n = encode(8, key, 1.5, TMQ_BYTES, 0, data, 4000, big, sizeof big, &e);
	ok(n > TMQ_LINE_MAX, "... they would take %ld bytes", n);
	n = encode(8, key, 1.5, TMQ_BYTES, 0, data, 4000, line, TMQ_LINE_MAX,
	    &e);
	is_str(e.msg, TMQ_TOO_LARGE, "... and the message says so");
	/* ... while a large compressible one fits. */
	memset(big, 'a', sizeof big);
	n = encode(8, key, 1.5, TMQ_TEXT, 0, big, sizeof big, line,
	    TMQ_LINE_MAX, &e);
	ok(n > 0 && n < 200, "16 KiB of one letter fits in a short line (%ld)",
	    n);
	/* The deflate is given no more room than the line has: what fits is
	 * the same line as with room to spare. */
	{
		static char a[TMQ_LINE_MAX], b[TMQ_LINE_MAX * 4];
		static unsigned char half[12000];
		long na, nb;

		memset(half, 'b', sizeof half);
		noise(half, 2000, 7);
		na = encode(8, key, 1.5, TMQ_BYTES, 0, half, sizeof half, a,
		    sizeof a, &e);
		nb = encode(8, key, 1.5, TMQ_BYTES, 0, half, sizeof half, b,
		    sizeof b, &e);
		ok(na > 0 && na == nb && memcmp(a, b, (size_t)na) == 0,
		    "2000 random bytes and 10000 of one letter: the same line "
		    "with room to spare (%ld, %ld)", na, nb);
		na = encode(8, key, 1.5, TMQ_BYTES, 0, data, sizeof data, a,
		    sizeof a, &e);
		is_int(na, -1, "8 KiB of random bytes are refused");
		is_str(e.msg, TMQ_TOO_LARGE, "... as too large");
	}

	for (len = 3000; len < 3400 && (at < 0 || over < 0); len++) {
		n = encode(8, key, 1.5, TMQ_BYTES, 0, data, len, big, sizeof big,
		    &e);
		if (n == TMQ_LINE_MAX)
			at = (long)len;
		if (n > TMQ_LINE_MAX && over < 0)
			over = (long)len;
	}
	if (ok(at > 0, "a payload of %ld random bytes makes a 4096-byte line",
	    at)) {
		n = encode(8, key, 1.5, TMQ_BYTES, 0, data, (size_t)at, line,
		    TMQ_LINE_MAX, &e);
		is_int(n, TMQ_LINE_MAX, "... which the limit takes");
	}
	if (ok(over > 0, "a payload of %ld random bytes makes a longer line",
	    over)) {
		n = encode(8, key, 1.5, TMQ_BYTES, 0, data, (size_t)over, line,
		    TMQ_LINE_MAX, &e);
		is_int(n, -1, "... which the limit refuses");
	}
}

int
main(void)
{
	static unsigned char all[256], key3000[TMQ_KEY_MAX_BYTES];
	static char line[TMQ_LINE_MAX], big[TMQ_LINE_MAX * 2];
	const unsigned char k1[1] = { 0xff }, k2[2] = { 0, 42 },
	    k4[4] = { 1, 2, 3, 4 }, k8[8] = { 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xfe }, k3[3] = { 'a', 'b', 0 },
	    k8c[8] = { 0xe6, 0x97, 0xa5, 'x', 0, 0, 0, 0 };
	const char *nonlatin = "Gr\xc3\xbc\xc3\x9f" "e, \xe4\xb8\x96\xe7\x95\x8c "
	    "\xf0\x9f\x8e\x89 \xd0\x9f\xd1\x80\xd0\xb8";
	struct tmq_error e = { 0 };
	struct tmq_msg m;
	long n;
	size_t i;

	if (tmq_codec_init(&codec, &e) < 0) {
		ok(0, "codec: %s", e.msg);
		return done_testing();
	}

	/* Text. */
	round_trip("empty text", 2, k2, 1795867200.0, TMQ_TEXT, 0, "", 0);
	round_trip("ASCII text", 2, k2, 1795597320.08, TMQ_TEXT, 0, "hello", 5);
	round_trip("non-Latin text", 4, k4, 1764400000.123456, TMQ_TEXT, 0,
	    nonlatin, strlen(nonlatin));
	round_trip("text with newline, tab, NUL", 8, k8, 0.0, TMQ_TEXT, 0,
	    "a\nb\tc\0d\r", 9);
	round_trip("u8 key", 1, k1, 1.5, TMQ_TEXT, 0, "x", 1);
	round_trip("char3 key", -3, k3, 1.5, TMQ_TEXT, 0, "x", 1);
	round_trip("char8 key, non-Latin", -8, k8c, 1.5, TMQ_TEXT, 0, "x", 1);
	/* Bytes. */
	for (i = 0; i < 256; i++)
		all[i] = (unsigned char)i;
	round_trip("bytes of every value", 4, k4, 1795867200.0, TMQ_BYTES, 0,
	    all, 256);
	round_trip("no bytes", 4, k4, 1795867200.0, TMQ_BYTES, 0, "", 0);
	round_trip("bytes that look like a typed payload", 2, k2, 1.5,
	    TMQ_BYTES, 0, "\xfb\0\0{}", 5);
	/* Typed. */
	round_trip("typed object", 4, k4, 1795867200.0, TMQ_TYPED, 1,
	    "{\"id\":7,\"item\":\"\\u00fc-bahn\",\"qty\":5}", 37);
	round_trip("typed, index 258", 4, k4, 1.5, TMQ_TYPED, 258,
	    "{\"tag\":10870414539955817808}", 28);
	round_trip("typed, empty object", 4, k4, 1.5, TMQ_TYPED, 0, "{}", 2);
	/* The widest key the tools accept still fits in a line. */
	memset(key3000, 'k', sizeof key3000);
	round_trip("char3000 key", -TMQ_KEY_MAX_BYTES, key3000, 1.5, TMQ_TEXT, 0,
	    "x", 1);

	/* Typed payloads must be one JSON object. */
	ok(tmq_json_is_object((const unsigned char *)"{}", 2), "{} is an object");
	ok(tmq_json_is_object((const unsigned char *)"{\"a\":[1,{\"b\":null}]}",
	    20), "a nested object is an object");
	ok(tmq_json_is_object((const unsigned char *)" {\"a\": 1}", 9),
	    "leading space is fine");
	ok(!tmq_json_is_object((const unsigned char *)"[1,2]", 5),
	    "an array is not an object");
	ok(!tmq_json_is_object((const unsigned char *)"1", 1),
	    "a number is not an object");
	ok(!tmq_json_is_object((const unsigned char *)"\"s\"", 3),
	    "a string is not an object");
	ok(!tmq_json_is_object((const unsigned char *)"null", 4),
	    "null is not an object");
	ok(!tmq_json_is_object((const unsigned char *)"", 0),
	    "nothing is not an object");
	ok(!tmq_json_is_object((const unsigned char *)"{\"a\":1", 6),
	    "an unclosed object is not an object");
	ok(!tmq_json_is_object((const unsigned char *)"{}{}", 4),
	    "two objects are not one");
	ok(!tmq_json_is_object((const unsigned char *)"{}x", 3),
	    "an object and junk is not an object");
	ok(!tmq_json_is_object((const unsigned char *)"{\"a\":1}", 5),
	    "only n bytes are read");
	bad_payload("typed array", TMQ_TYPED, 0, "[1,2]", 5, 1,
	    "typed payload is not a JSON object");
	bad_payload("typed number", TMQ_TYPED, 0, "1", 1, 1,
	    "typed payload is not a JSON object");
	bad_payload("typed, unknown index", TMQ_TYPED, 2, "{}", 2, 2,
	    "unknown type index 2");
	bad_payload("typed, no types", TMQ_TYPED, 0, "{}", 2, 0,
	    "unknown type index 0");
	bad_payload("typed, too short", TMQ_TEXT, 0, "\xfb\x00", 2, 1,
	    "typed payload too short");
	bad_payload("text, bad UTF-8", TMQ_TEXT, 0, "ab\xc3(", 4, 1,
	    "text payload is not valid UTF-8");
	bad_payload("text, surrogate", TMQ_TEXT, 0, "\xed\xa0\x80", 3, 1,
	    "text payload is not valid UTF-8");
	bad_payload("marker 0xF8", TMQ_TEXT, 0, "\xf8rest", 5, 1,
	    "multi-line message (marker 0xF8) is not supported");
	bad_payload("marker 0xFA", TMQ_TEXT, 0, "\xfa", 1, 1,
	    "multi-line message (marker 0xFA) is not supported");
	bad_payload("first byte 0xFF", TMQ_TEXT, 0, "\xff", 1, 1,
	    "text payload is not valid UTF-8");

	/* The line limit. */
	line_limit();
	{
		static unsigned char huge[TMQ_PAYLOAD_MAX + 1];

		n = encode(2, k2, 1.5, TMQ_TEXT, 0, huge, sizeof huge, big,
		    sizeof big, &e);
		is_int(n, -1, "a payload over TMQ_PAYLOAD_MAX is refused");
		is_str(e.msg, "payload is 4194305 bytes, over the 4194304-byte "
		    "limit", "... with the message");
	}

	/* Lines the library wrote. */
	real_lines();

	/* Corrupt lines. */
	n = encode(2, k2, 1795867200.0, TMQ_TEXT, 0, "hello, world", 12, line,
	    sizeof line, &e);
	ok(n > 20, "a line to corrupt (%ld bytes)", n);
	n--;		/* without its newline */
	decode_fails("short line", 2, 0, line, 14,
	    "line too short (14 bytes)");
	decode_fails("empty line", 2, 0, "", 0, "line too short (0 bytes)");
	memcpy(big, line, (size_t)n);
	big[1] = ' ';
	decode_fails("space in the key", 2, 0, big, (size_t)n,
	    "bad base85 in the key");
	memcpy(big, line, (size_t)n);
	big[3] = '"';
	decode_fails("quote in the timestamp", 2, 0, big, (size_t)n,
	    "bad base85 in the timestamp");
	memcpy(big, line, (size_t)n);
	big[n - 2] = ',';
	decode_fails("comma in the body", 2, 0, big, (size_t)n,
	    "bad base85 in the body");
	memcpy(big, line, (size_t)n);
	memcpy(big + n, "~~~~~", 5);
	decode_fails("overflowing group in the body", 2, 0, big, (size_t)n + 5,
	    "bad base85 in the body");
	decode_fails("body cut short", 2, 0, line, (size_t)n - 5, NULL);
	{
		/* The body's bytes with four zero bytes after them. */
		unsigned char body[TMQ_LINE_MAX];
		long z = tmq_b85_decode(line + 13, (size_t)n - 13, body);

		ok(z > 0, "the body decodes to %ld bytes", z);
		memset(body + z, 0, 4);
		memcpy(big, line, 13);
		i = 13 + tmq_b85_encode(body, (size_t)z + 4, big + 13);
		decode_fails("bytes after the deflate stream", 2, 0, big, i,
		    "trailing bytes after the deflate stream");
	}
	memcpy(big, line, (size_t)n);
	big[13] = big[13] == '0' ? '1' : '0';
	decode_fails("body altered", 2, 0, big, (size_t)n, NULL);
	/* The body of a char3 key that is not UTF-8. */
	{
		const unsigned char badkey[3] = { 0xff, 'a', 0 };

		n = encode(-3, badkey, 1.5, TMQ_TEXT, 0, "x", 1, line,
		    sizeof line, &e);
		decode_fails("char3 key not UTF-8", -3, 0, line, (size_t)n - 1,
		    "key is not valid UTF-8");
	}
	/* A deflate bomb: inflating beyond TMQ_PAYLOAD_MAX is refused. */
	{
		static unsigned char zeros[TMQ_PAYLOAD_MAX];
		static char bomb[1 << 16];

		n = encode(2, k2, 1.5, TMQ_BYTES, 0, zeros, sizeof zeros, bomb,
		    sizeof bomb, &e);
		ok(n < 0 && strstr(e.msg, "over the 4194304-byte limit"),
		    "4 MiB of bytes with their marker are refused by the encoder");
		n = encode(2, k2, 1.5, TMQ_BYTES, 0, zeros, sizeof zeros - 1,
		    bomb, sizeof bomb, &e);
		if (ok(n > 0, "4 MiB - 1 of bytes encode without the line limit")) {
			/* A bomb by hand: the key and timestamp of the line
			 * above, then the stream of 4 MiB + 1 zero bytes. */
			static unsigned char comp[1 << 16];
			unsigned char *unpacked = calloc(1, TMQ_PAYLOAD_MAX + 1);
			z_stream zs;
			size_t kch = 3 + TMQ_TS_CHARS, zl;

			memset(&zs, 0, sizeof zs);
			deflateInit2(&zs, 9, Z_DEFLATED, -15, 9,
			    Z_DEFAULT_STRATEGY);
			zs.next_in = unpacked;
			zs.avail_in = TMQ_PAYLOAD_MAX + 1;
			zs.next_out = comp;
			zs.avail_out = sizeof comp;
			deflate(&zs, Z_FINISH);
			zl = sizeof comp - zs.avail_out;
			deflateEnd(&zs);
			free(unpacked);
			n = (long)(kch + tmq_b85_encode(comp, zl, bomb + kch));
			decode_fails("a line inflating to 4 MiB + 1", 2, 0, bomb,
			    (size_t)n, "payload inflates beyond 4194304 bytes");
		}
		n = encode(2, k2, 1.5, TMQ_TEXT, 0, zeros, sizeof zeros, bomb,
		    sizeof bomb, &e);
		memset(&m, 0, sizeof m);
		ok(n > 0 && tmq_line_decode(&codec, 2, 0, bomb, (size_t)n - 1, &m,
		    &e) == 0 && m.payload.len == TMQ_PAYLOAD_MAX,
		    "a line inflating to exactly 4 MiB decodes");
	}

	/* The codec is reusable after errors. */
	round_trip("after errors", 2, k2, 1.5, TMQ_TEXT, 0, "again", 5);
	tmq_codec_free(&codec);
	return done_testing();
}
