/* t-jsoninput.c: lib/flow/jsoninput (tmq-put -J) and base64 decoding: the
 * shapes of tmq-get -J and kcat -J, keys at their limits (u64 beyond
 * what json-c keeps), typed payloads taken as written, and each refusal
 * with its message. */
#include <string.h>

#include "util/base64.h"
#include "flow/jsoninput.h"
#include "codec/jsontext.h"
#include "tap.h"

static struct tmq_jsonin jin;
static struct tmq_jsonmsg m;

static int
parse(const struct tmq_topic *t, const char *s, struct tmq_error *e)
{
	return tmq_jsonin_parse(&jin, t, s, strlen(s), &m, e);
}

static void
bad(const struct tmq_topic *t, const char *s, const char *why)
{
	struct tmq_error e = { 0 };

	is_int(parse(t, s, &e), -1, "refused: %.60s", s);
	is_str(e.msg, why, "... because %s", why);
}

static void
b64(const char *s, const char *want, long wantlen)
{
	unsigned char out[64];
	long n = tmq_base64_decode(s, strlen(s), out);

	is_int(n, wantlen, "base64 '%s' decodes to %ld bytes", s, wantlen);
	if (n >= 0 && wantlen >= 0)
		ok(memcmp(out, want, (size_t)n) == 0, "... the right ones");
}

/* tmq-get -J's own lines are read member by member, without the whole
 * check (jsoninput.c, envelope): whatever such a line holds, it is taken
 * or refused as the whole check takes or refuses it. */
#define HEAD "{\"topic\":\"x\",\"partition\":0,\"offset\":7,\"key\":\"5\"," \
	"\"timestamp\":1795597260.5,\"type\":"

static void
shape(const struct tmq_topic *t)
{
	static char deep[2200];
	struct tmq_error e = { 0 };
	size_t k, at;

	is_int(parse(t, HEAD "\"Order\",\"payload\":{\"a\":[1,{\"b\":\"\\u00e9\"}]}}",
	    &e), 0, "shape: a typed object");
	ok(m.payload.len == 24 && memcmp(m.payload.data,
	    "{\"a\":[1,{\"b\":\"\\u00e9\"}]}", 24) == 0 && m.as_text == 0,
	    "... as written");
	is_int(parse(t, HEAD "\"Order\",\"payload\":{\"a\":1} }", &e), 0,
	    "shape: white space after the payload");
	ok(m.payload.len == 7, "... not in it");
	is_int(parse(t, HEAD "\"str\",\"payload\":\"a\\\"b\"} \r\n", &e), 0,
	    "shape: white space after the line's object");
	ok(m.payload.len == 3 && memcmp(m.payload.data, "a\"b", 3) == 0,
	    "... the text");
	is_int(parse(t, "{\"topic\":\"x\",\"partition\":0,\"offset\":7,"
	    "\"key\":5,\"timestamp\":null,\"type\":\"str\",\"payload\":\"p\"}",
	    &e), 0, "shape: a numeric key, a null time");
	ok(tmq_key_to_u64(8, m.key) == 5 && m.has_ts == 0, "... read");
	is_int(parse(t, HEAD "\"str\",\"payload\":\"a\",\"payload\":\"bc\"}",
	    &e), 0, "shape and one more member");
	is_int((long)m.payload.len, 2, "... the last one counts");
	bad(t, HEAD "\"str\",\"payload\":\"a\\x\"}",
	    "bad JSON: bad escape in a string at byte 99");
	bad(t, HEAD "\"str\",\"payload\":\"a\x01\"}",
	    "bad JSON: control character 0x01 in a string at byte 99");
	bad(t, HEAD "\"st\xff\",\"payload\":\"a\"}", "bad JSON: not valid UTF-8");
	bad(t, HEAD "\"str\",\"payload\":\"\\ud800\"}",
	    "bad JSON: lone surrogate escape \\ud800 at byte 98");
	bad(t, "{\"topic\":\"x\",\"partition\":01,\"offset\":7}",
	    "bad JSON: expected ',' or '}' at byte 27");
	bad(t, HEAD "\"Order\",\"payload\":{\"a\":NaN}}",
	    "bad JSON: NaN at byte 104 (JSON has no NaN or Infinity)");
	bad(t, HEAD "\"Order\",\"payload\":{\"a\":1}}x",
	    "bad JSON: text after the object at byte 107");
	bad(t, HEAD "\"Order\",\"payload\":{\"a\":1}", "bad JSON: unexpected end");
	bad(t, HEAD "\"str\",\"payload\":\"a}", "bad JSON: unterminated string");
	/* A payload as deep as a member of the envelope may be (an object
	 * holding arrays, 1024 levels), and one level more. */
	for (k = 0; k <= 1; k++) {
		size_t d = TMQ_JSON_DEPTH_MAX - 1 + k, i;

		at = strlen(HEAD "\"Order\",\"payload\":{\"a\":");
		memcpy(deep, HEAD "\"Order\",\"payload\":{\"a\":", at);
		for (i = 0; i < d; i++) {
			deep[at + i] = '[';
			deep[at + d + i] = ']';
		}
		memcpy(deep + at + 2 * d, "}}", 3);
		if (k == 0)
			is_int(parse(t, deep, &e), 0, "shape: a payload %d deep",
			    TMQ_JSON_DEPTH_MAX);
		else
			bad(t, deep, "bad JSON: nested deeper than 1024 at byte "
			    "1127");
	}
}

int
main(void)
{
	char *types[] = { "Order", NULL, "Refund" };
	struct tmq_topic u64 = { .name = "u", .dirfd = -1, .key_width = 8,
	    .partitions = 4, .types = types, .ntypes = 3 };
	struct tmq_topic c4 = { .name = "c", .dirfd = -1, .key_width = -4,
	    .partitions = 1 };
	struct tmq_error e = { 0 };
	const char *typed = "{ \"a\" : [1, 2.50] }";

	if (tmq_jsonin_init(&jin, &e) < 0)
		return 1;

	b64("", "", 0);
	b64("AA==", "\0", 1);
	b64("AAo=", "\0\n", 2);
	b64("YWJj", "abc", 3);
	b64("+/+/", "\xfb\xff\xbf", 3);
	b64("YQ=", NULL, -1);
	b64("YR==", NULL, -1);		/* leftover bits set */
	b64("YWI=YWI=", NULL, -1);	/* padding inside */
	b64("YW J", NULL, -1);

	is_int(parse(&u64, "{\"topic\":\"x\",\"partition\":3,\"offset\":9,"
	    "\"key\":\"18446744073709551615\",\"timestamp\":1795597260.25,"
	    "\"type\":\"str\",\"payload\":\"a\\nb\\u0000c\"}", &e), 0,
	    "tmq-get -J's shape");
	is_int((long)tmq_key_to_u64(8, m.key) == -1, 1, "u64 max key");
	is_int(m.payload.type, TMQ_TEXT, "text");
	is_int((long)m.payload.len, 5, "NUL inside the text kept");
	ok(memcmp(m.payload.data, "a\nb\0c", 5) == 0, "... with the bytes");
	is_int(m.has_ts, 1, "timestamp");
	ok(m.ts == 1795597260.25, "... exact");

	is_int(parse(&u64, "{\"key\":18446744073709551615,\"type\":\"Refund\","
	    "\"payload\":{ \"a\" : [1, 2.50] }}", &e), 0, "typed, numeric key");
	ok(tmq_key_to_u64(8, m.key) == 18446744073709551615ULL,
	    "numeric u64 max kept exact");
	is_int(m.payload.type_index, 2, "type index");
	ok(m.payload.len == strlen(typed) && memcmp(m.payload.data, typed,
	    strlen(typed)) == 0, "typed payload as written");
	is_int(m.as_text, 0, "... an object, not text");
	is_int(parse(&u64, "{\"type\":\"Refund\",\"payload\":"
	    "\"{\\\"a\\\":\\nNaN}\"}", &e), 0, "typed payload as a string");
	is_int(m.as_text, 1, "... is the object's text");
	ok(m.payload.len == 10 && memcmp(m.payload.data, "{\"a\":\nNaN}",
	    10) == 0, "... unescaped");

	is_int(parse(&c4, "{\"tstype\":\"create\",\"ts\":1700000000123,"
	    "\"broker\":1,\"key\":null,\"payload\":null}", &e), 0, "kcat's shape");
	ok(m.ts == 1700000000.123, "ts in milliseconds");
	is_int((long)m.payload.len, 0, "null payload is empty");
	is_int((long)tmq_key_strlen(-4, m.key), 0, "null key is empty");
	is_int(parse(&c4, "{\"key\":\"\xc3\xa9\xc3\xa9\",\"type\":\"bytes\","
	    "\"payload\":\"AP8=\"}", &e), 0, "char4 key of 4 bytes, bytes");
	ok(m.payload.len == 2 && m.payload.data[0] == 0 &&
	    m.payload.data[1] == 0xff, "base64 bytes");
	is_int(m.has_ts, 0, "no timestamp");

	bad(&u64, "{\"key\":18446744073709551616,\"payload\":\"\"}",
	    "key '18446744073709551616' out of range for u64 (0 to "
	    "18446744073709551615)");
	bad(&u64, "{\"key\":1.5,\"payload\":\"\"}",
	    "key '1.5' is not an unsigned integer");
	bad(&c4, "{\"key\":1,\"payload\":\"\"}", "key: a number, not a char4 key");
	bad(&c4, "{\"key\":[],\"payload\":\"\"}",
	    "key: not a string, number or null");
	bad(&u64, "{\"type\":\"Gone\",\"payload\":{}}",
	    "no type 'Gone' in the topic");
	bad(&u64, "{\"type\":\"bytes\",\"payload\":\"!!!!\"}",
	    "payload: not base64 (type bytes)");
	bad(&u64, "{\"type\":\"Order\",\"payload\":7}",
	    "payload: not a JSON object (type Order)");
	bad(&u64, "{\"payload\":{}}", "payload: not a string (type str)");
	bad(&u64, "{\"key\":\"1\"}", "no payload");
	bad(&u64, "{\"payload\":\"\",\"timestamp\":true}",
	    "timestamp: not a number");
	bad(&u64, "{\"payload\":\"\",\"ts\":-5}",
	    "timestamp: out of range (1970 to 9999-12-30)");
	bad(&u64, "{\"payload\":\"\",\"timestamp\":253402214400}",
	    "timestamp: out of range (1970 to 9999-12-30)");
	bad(&u64, "{\"payload\":\"\",\"timestamp\":1e300}",
	    "timestamp: out of range (1970 to 9999-12-30)");
	is_int(parse(&u64, "{\"payload\":\"\",\"timestamp\":253402214399.99}",
	    &e), 0, "the last time the library reads in every zone");
	bad(&u64, "[]", "not a JSON object");
	bad(&u64, "{\"payload\":\"\"", "bad JSON: unexpected end");
	shape(&u64);
	tmq_jsonin_free(&jin);
	return done_testing();
}
