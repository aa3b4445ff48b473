/* t-jsontext.c: lib/codec/jsontext's strict RFC 8259 check, which -T applies to
 * what goes in and -J to what it prints as it is: the grammar to the
 * letter (numbers, escapes, literals, nesting, nothing after the object),
 * NaN and Infinity refused, surrogate escapes only in pairs, and each
 * refusal saying what and at which byte; and the look for \u0000, which
 * json-c would cut a member's name at (topic definitions), escaped
 * backslashes told apart from the one that escapes. */
#include "jsontext.h"
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
	return done_testing();
}
