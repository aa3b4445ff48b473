/* t-jsonwriter.c: lib/util/jsonwriter: the commas and colons placed by the
 * writer, in objects and arrays nested any way; every string escaped and
 * made valid UTF-8; numbers that are not JSON numbers written as null. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonwriter.h"
#include "tap.h"

static char *buf;
static size_t len;
static FILE *f;

static void
begin(struct tmq_jw *w)
{
	f = open_memstream(&buf, &len);
	tmq_jw_init(w, f);
}

/* What was written since begin() is want. */
static void
written(const char *want, const char *what)
{
	fclose(f);
	is_str(buf, want, "%s", what);
	free(buf);
	buf = NULL;
}

int
main(void)
{
	static const unsigned char bad[] = { 'a', 0xff, 'b', 0xc3 };
	static const unsigned char nul[] = { 'x', 0, 'y' };
	struct tmq_jw w;

	begin(&w);
	tmq_jw_object(&w);
	tmq_jw_end(&w);
	written("{}", "an empty object");

	begin(&w);
	tmq_jw_array(&w);
	tmq_jw_end(&w);
	written("[]", "an empty array");

	begin(&w);
	tmq_jw_object(&w);
	tmq_jw_key(&w, "a");
	tmq_jw_u64(&w, 1);
	tmq_jw_key(&w, "b");
	tmq_jw_i64(&w, -2);
	tmq_jw_key(&w, "c");
	tmq_jw_bool(&w, 1);
	tmq_jw_key(&w, "d");
	tmq_jw_bool(&w, 0);
	tmq_jw_key(&w, "e");
	tmq_jw_null(&w);
	tmq_jw_end(&w);
	written("{\"a\":1,\"b\":-2,\"c\":true,\"d\":false,\"e\":null}",
	    "members of an object, a comma between each");

	begin(&w);
	tmq_jw_array(&w);
	tmq_jw_object(&w);
	tmq_jw_key(&w, "x");
	tmq_jw_array(&w);
	tmq_jw_end(&w);
	tmq_jw_end(&w);
	tmq_jw_object(&w);
	tmq_jw_key_u64(&w, 7);
	tmq_jw_array(&w);
	tmq_jw_u64(&w, 18446744073709551615ULL);
	tmq_jw_i64(&w, -9223372036854775807LL - 1);
	tmq_jw_end(&w);
	tmq_jw_key(&w, "y");
	tmq_jw_object(&w);
	tmq_jw_end(&w);
	tmq_jw_end(&w);
	tmq_jw_str(&w, "z");
	tmq_jw_end(&w);
	written("[{\"x\":[]},{\"7\":[18446744073709551615,"
	    "-9223372036854775808],\"y\":{}},\"z\"]",
	    "nested arrays and objects, numbers as keys, the extremes");

	begin(&w);
	tmq_jw_array(&w);
	tmq_jw_str(&w, "q\"b\\s/\n\t\x01");
	tmq_jw_end(&w);
	written("[\"q\\\"b\\\\s/\\n\\t\\u0001\"]", "a string escaped");

	begin(&w);
	tmq_jw_strn(&w, nul, sizeof nul);
	written("\"x\\u0000y\"", "a NUL byte in a string escaped");

	begin(&w);
	tmq_jw_strn(&w, bad, sizeof bad);
	written("\"a\xef\xbf\xbd" "b\xef\xbf\xbd\"",
	    "bytes that begin no UTF-8 sequence become U+FFFD");

	begin(&w);
	tmq_jw_object(&w);
	tmq_jw_key(&w, "\xe2\x82\xac\xed\xa0\x80");
	tmq_jw_str(&w, "\xf0\x9f\x98\x80");
	tmq_jw_end(&w);
	written("{\"\xe2\x82\xac\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\":"
	    "\"\xf0\x9f\x98\x80\"}",
	    "a surrogate in a key is three U+FFFD; valid UTF-8 is kept");

	begin(&w);
	tmq_jw_array(&w);
	tmq_jw_number(&w, "1764400000.5");
	tmq_jw_number(&w, "-0.25e+3");
	tmq_jw_number(&w, "inf");
	tmq_jw_number(&w, "nan");
	tmq_jw_number(&w, "01");
	tmq_jw_number(&w, "1.");
	tmq_jw_number(&w, "");
	tmq_jw_end(&w);
	written("[1764400000.5,-0.25e+3,null,null,null,null,null]",
	    "a number formatted elsewhere, or null when it is not one");

	ok(tmq_jw_is_number("0"), "0 is a number");
	ok(tmq_jw_is_number("-0.0E-0"), "-0.0E-0 is a number");
	ok(!tmq_jw_is_number("-"), "- is not");
	ok(!tmq_jw_is_number("+1"), "+1 is not");
	ok(!tmq_jw_is_number(".5"), ".5 is not");
	ok(!tmq_jw_is_number("1e"), "1e is not");
	ok(!tmq_jw_is_number("1 "), "1 with a space is not");
	ok(!tmq_jw_is_number("0x10"), "0x10 is not");
	return done_testing();
}
