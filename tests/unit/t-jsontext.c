/* t-jsontext.c: lib/codec/jsontext's strict RFC 8259 check, which -T applies to
 * what goes in and -J to what it prints as it is: the grammar to the
 * letter (numbers, escapes, literals, nesting, nothing after the object),
 * NaN and Infinity refused, surrogate escapes only in pairs, and each
 * refusal saying what and at which byte; and the look for \u0000, which
 * json-c would cut a member's name at (topic definitions), escaped
 * backslashes told apart from the one that escapes.  Then the grammar a
 * typed payload is held to (the TwainMQ library's: NaN, Infinity and a
 * lone surrogate escape too, nothing else beyond RFC 8259, no deeper than
 * tmq has ever taken), the members an envelope's visitor is told of, and
 * strings decoded. */
#include "codec/jsontext.h"
#include "tap.h"

static void
good(const char *s)
{
	struct tmq_error e = { 0 };

	if (!is_int(tmq_json_strict_object((const unsigned char *)s, strlen(s),
	    &e), 0, "strict: %.60s", s))
		diag("refused: %s", e.msg);
}

/* tmq_json_has_nul on s: want 0, or the byte (from 1) of its escape. */
static void
nul_at(const char *s, size_t want)
{
	size_t at = 0;
	int has = tmq_json_has_nul(s, strlen(s), &at);

	is_int(has ? (int)at : 0, (int)want, "\\u0000 at %zu: %.60s", want, s);
}

/* tmq_json_is_object on s: want 1 or 0. */
static void
payload(const char *s, int want)
{
	is_int(tmq_json_is_object((const unsigned char *)s, strlen(s)), want,
	    "%s payload: %.60s", want ? "a" : "not a", s);
}

/* s nested d deep: an object, then arrays inside it. */
static const char *
nested(char *buf, int d)
{
	int i, k = 0;

	memcpy(buf, "{\"a\":", 5);
	k = 5;
	for (i = 1; i < d; i++)
		buf[k++] = '[';
	for (i = 1; i < d; i++)
		buf[k++] = ']';
	buf[k++] = '}';
	buf[k] = '\0';
	return buf;
}

struct seen {
	char names[8][16];
	char values[8][32];
	int escaped[8];
	int n;
};

static void
on_member(void *arg, const unsigned char *s, const struct tmq_json_member *mb)
{
	struct seen *w = arg;

	if (w->n >= 8)
		return;
	snprintf(w->names[w->n], sizeof w->names[0], "%.*s",
	    (int)mb->name_len, (const char *)s + mb->name_at);
	snprintf(w->values[w->n], sizeof w->values[0], "%.*s", (int)mb->len,
	    (const char *)s + mb->at);
	w->escaped[w->n] = mb->escaped;
	w->n++;
}

/* tmq_json_unescape of the string body s: want. */
static void
unescaped(const char *s, const char *want, size_t wantlen)
{
	unsigned char out[64];
	size_t n = tmq_json_unescape((const unsigned char *)s, strlen(s), out);

	ok(n == wantlen && memcmp(out, want, n) == 0, "unescape %s", s);
}

static void
bad(const char *s, const char *why)
{
	struct tmq_error e = { 0 };

	is_int(tmq_json_strict_object((const unsigned char *)s, strlen(s), &e),
	    -1, "refused: %.60s", s);
	is_str(e.msg, why, "... because %s", why);
}

int
main(void)
{
	char deep[3000];
	size_t i;

	good("{}");
	good(" {\"a\" : 1 }\r\n");
	good("{\"n\":[0,-0,1.5,-2e10,3E+2,4e-3,12345678901234567890123]}");
	good("{\"l\":[true,false,null,[],{}],\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}");
	good("{\"u\":\"\\u00e9\\uD83D\\uDE00\\u0000\"}");
	good("{\"utf8\":\"Gr\xc3\xbc\xc3\x9f\xc3\xa9 \xf0\x9f\x99\x82\"}");
	good("{\"a\":{\"b\":{\"c\":[[[\"d\"]]]}}}");

	bad("", "not a JSON object");
	bad("[1]", "not a JSON object");
	bad("{\"a\":NaN}", "NaN at byte 6 (JSON has no NaN or Infinity)");
	bad("{\"a\":[1,Infinity]}", "Infinity at byte 9 (JSON has no NaN or "
	    "Infinity)");
	bad("{\"a\":-Infinity}", "-Infinity at byte 6 (JSON has no NaN or "
	    "Infinity)");
	bad("{\"s\":\"\\ud800\"}", "lone surrogate escape \\ud800 at byte 7");
	bad("{\"s\":\"\\uDBFF\\u0041\"}", "lone surrogate escape \\udbff at "
	    "byte 7");
	bad("{\"s\":\"\\udc00\"}", "lone surrogate escape \\udc00 at byte 7");
	bad("{\"s\":\"\\ud800", "lone surrogate escape \\ud800 at byte 7");
	bad("{\"s\":\"\\x41\"}", "bad escape in a string at byte 7");
	bad("{\"s\":\"\\u12G4\"}", "bad escape in a string at byte 7");
	bad("{\"s\":\"a\tb\"}", "control character 0x09 in a string at byte 8");
	bad("{\"s\":\"abc", "unterminated string");
	bad("{'a':1}", "expected a string key at byte 2");
	bad("{\"a\":1,}", "expected a string key at byte 8");
	bad("{\"a\" 1}", "expected ':' at byte 6");
	bad("{\"a\":1 \"b\":2}", "expected ',' or '}' at byte 8");
	bad("{\"a\":[1 2]}", "expected ',' or ']' at byte 9");
	bad("{\"a\":01}", "expected ',' or '}' at byte 7");
	bad("{\"a\":1.}", "bad number at byte 6");
	bad("{\"a\":.5}", "unexpected '.' at byte 6");
	bad("{\"a\":1e}", "bad number at byte 6");
	bad("{\"a\":-}", "bad number at byte 6");
	bad("{\"a\":+1}", "unexpected '+' at byte 6");
	bad("{\"a\":tru}", "unexpected 't' at byte 6");
	bad("{\"a\":1", "unexpected end");
	bad("{\"a\":1}x", "text after the object at byte 8");
	bad("{}{}", "text after the object at byte 3");
	bad("{\"a\":/*c*/1}", "unexpected '/' at byte 6");
	bad("{\"s\":\"\xff\"}", "not valid UTF-8");

	/* Nesting: deep is fine, past the bound is refused, not a crash. */
	deep[0] = '{';
	memcpy(deep + 1, "\"a\":", 4);
	for (i = 5; i < 5 + 1023; i++)
		deep[i] = '[';
	for (; i < 5 + 2 * 1023; i++)
		deep[i] = ']';
	deep[i++] = '}';
	deep[i] = '\0';
	good(deep);
	for (i = 5; i < 5 + 1100; i++)
		deep[i] = '[';
	deep[i] = '\0';
	bad(deep, "nested deeper than 1024 at byte 1029");

	nul_at("{\"a\": 0}", 0);
	nul_at("{\"a\\u0000b\": 0}", 4);
	nul_at("{\"t\": {\"x\": 0, \"a\\u0000\": 1}}", 18);
	nul_at("{\"a\\\\u0000\": 0}", 0);	/* "a\\u0000": a backslash */
	nul_at("{\"a\\\\\\u0000\": 0}", 6);	/* "a\\\u0000": and a NUL */
	nul_at("{\"a\\u005Cu0000\": 0}", 0);	/* \u005C is a backslash */
	nul_at("{\"a\\u00001\": 0}", 4);	/* NUL, then "1" */
	nul_at("{\"a\\u000\": 0}", 0);
	nul_at("\\u0000", 1);		/* in no string: still said */
	nul_at("x\\u000", 0);		/* cut short */

	/* Typed payloads: the library's grammar, and json-c's old bound on
	 * nesting (32), which tmq has always held them to. */
	payload("{\"a\":NaN,\"b\":[Infinity,-Infinity]}", 1);
	payload("{\"s\":\"\\ud800\",\"t\":\"\\udc00x\"}", 1);
	payload(" {\"a\" : [ ] , \"b\" : { } }\r\n", 1);
	payload("{\"a\":-NaN}", 0);
	payload("{\"s\":\"a\x01\"}", 0);	/* json-c took these three */
	payload("{\"a\":2.e3}", 0);
	payload("{\"a\":1,}", 0);
	payload("{\"s\":\"\xc3\"}", 0);
	payload("{\"a\":1}{}", 0);
	payload(nested(deep, 32), 1);
	payload(nested(deep, 33), 0);
	good(nested(deep, 33));
	{
		struct tmq_error e = { 0 };

		is_int(tmq_json_check((const unsigned char *)nested(deep, 33),
		    strlen(deep), TMQ_JSON_LIBRARY, TMQ_JSON_PAYLOAD_DEPTH, NULL,
		    &e), TMQ_JSON_FLAWED, "33 deep: flawed");
		is_str(e.msg, "nested deeper than 32 at byte 37", "... saying "
		    "where");
		is_int(tmq_json_check((const unsigned char *)"{\"a\":1", 6,
		    TMQ_JSON_LIBRARY, TMQ_JSON_PAYLOAD_DEPTH, NULL, &e),
		    TMQ_JSON_CUT, "cut short: cut");
		is_int(tmq_json_check((const unsigned char *)"[1]", 3,
		    TMQ_JSON_LIBRARY, TMQ_JSON_PAYLOAD_DEPTH, NULL, &e),
		    TMQ_JSON_NOT_OBJECT, "an array: not an object");
	}

	/* An envelope's members, in order, as written; a member's value may
	 * nest as deep as a whole object. */
	{
		struct seen w;
		struct tmq_json_visit v = { on_member, &w };
		struct tmq_error e = { 0 };
		const char *env = " { \"k\\u0065y\" : 7 , \"p\":{\"x\":[1]} ,"
		    "\"s\":\"a\\nb\", \"n\":null } ";

		memset(&w, 0, sizeof w);
		is_int(tmq_json_check((const unsigned char *)env, strlen(env),
		    TMQ_JSON_RFC8259, TMQ_JSON_DEPTH_MAX, &v, &e), 0,
		    "an envelope");
		is_int(w.n, 4, "... four members");
		is_str(w.names[0], "k\\u0065y", "... a name as written");
		is_str(w.values[0], "7", "... a number");
		is_str(w.values[1], "{\"x\":[1]}", "... an object, whole");
		is_str(w.values[2], "\"a\\nb\"", "... a string, quotes and all");
		is_int(w.escaped[2], 1, "... said to hold an escape");
		is_int(w.escaped[1], 0, "... the object not");
		is_str(w.values[3], "null", "... null");
		memset(&w, 0, sizeof w);
		nested(deep, 1024);
		memmove(deep + 5, deep, strlen(deep) + 1);
		memcpy(deep, "{\"p\":", 5);
		strcat(deep, "}");
		is_int(tmq_json_check((const unsigned char *)deep, strlen(deep),
		    TMQ_JSON_RFC8259, TMQ_JSON_DEPTH_MAX, &v, &e), 0,
		    "a member 1024 deep in an envelope");
	}

	unescaped("plain", "plain", 5);
	unescaped("a\\\"b\\\\c\\/d", "a\"b\\c/d", 7);
	unescaped("\\b\\f\\n\\r\\t", "\b\f\n\r\t", 5);
	unescaped("\\u00e9\\u20AC", "\xc3\xa9\xe2\x82\xac", 5);
	unescaped("\\ud83d\\ude00!", "\xf0\x9f\x98\x80!", 5);
	unescaped("x\\u0000y", "x\0y", 3);
	unescaped("\\ud800", "\xed\xa0\x80", 3);	/* lone: three bytes */
	unescaped("0123456789abcdef\\n0123456789abcdef\\t",
	    "0123456789abcdef\n0123456789abcdef\t", 34);
	return done_testing();
}
