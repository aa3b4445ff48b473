/* t-keys.c: lib/codec/keys: key type names and widths, parsing key text for
 * u8..u64 (range limits) and charN (width, UTF-8, NUL), the characters a
 * key takes on a line, and key encodings copied from vectors/keys.tsv. */
#include <stdlib.h>
#include <string.h>

#include "codec/base85.h"
#include "codec/keys.h"
#include "tap.h"

/* Parse s as a key of this width; 0 or -1, with bytes in out. */
static int
parse(int width, const char *s, unsigned char *out, struct tmq_error *e)
{
	return tmq_key_parse(width, s, strlen(s), out, e);
}

static void
parse_ok(int width, const char *s, uint64_t want)
{
	unsigned char k[8];
	struct tmq_error e = { 0 };

	if (!is_int(parse(width, s, k, &e), 0, "u%d key %s parses", width * 8,
	    s))
		diag("error: %s", e.msg);
	is_u64(tmq_key_to_u64(width, k), want, "u%d key %s has its value",
	    width * 8, s);
}

static void
parse_fails(int width, const char *s, size_t n, const char *msg)
{
	unsigned char k[TMQ_KEY_MAX_BYTES];
	struct tmq_error e = { 0 };

	is_int(tmq_key_parse(width, s, n, k, &e), -1, "key '%.*s' refused for "
	    "width %d", (int)n, s, width);
	is_str(e.msg, msg, "... with the message");
}

static void
keytype(const char *name, int want)
{
	struct tmq_error e = { 0 };
	char buf[16];
	int w = 0;

	is_int(tmq_keytype_parse(name, &w, &e), 0, "key type %s parses", name);
	is_int(w, want, "%s has width %d", name, want);
	is_str(tmq_keytype_name(want, buf, sizeof buf), name,
	    "width %d is named %s", want, name);
}

static void
keytype_bad(const char *name)
{
	struct tmq_error e = { 0 };
	char want[200];
	int w = 12345;

	snprintf(want, sizeof want, "'%s': bad key type (u8, u16, u32, u64 or "
	    "charN with N from 1 to 3000)", name);
	is_int(tmq_keytype_parse(name, &w, &e), -1, "key type '%s' refused",
	    name);
	is_str(e.msg, want, "... with the message");
}

/* Key text -> its encoded text on a line. */
static int
encode_key(const char *type, const char *key, char *out, size_t *outlen)
{
	unsigned char raw[TMQ_KEY_MAX_BYTES];
	struct tmq_error e;
	int w;

	if (tmq_keytype_parse(type, &w, &e) < 0 ||
	    tmq_key_parse(w, key, strlen(key), raw, &e) < 0)
		return -1;
	*outlen = tmq_b85_encode(raw, tmq_key_bytes(w), out);
	return *outlen == tmq_key_chars(w) ? 0 : -1;
}

/* Rows copied from vectors/keys.tsv: key type, key, encoded. */
static const char *const key_rows[][3] = {
	{ "u8", "100", "WB" },
	{ "u8", "55", "Hv" },
	{ "u8", "255", "{{" },
	{ "u16", "180", "0JH" },
	{ "u16", "10907", "Dw_" },
	{ "u16", "65535", "|Nj" },
	{ "u32", "73", "0000<" },
	{ "u32", "1538418600", "Te4@U" },
	{ "u32", "4257167514", "{l7Sx" },
	{ "u32", "4294967295", "|NsC0" },
	{ "u64", "1", "0000000001" },
	{ "u64", "56", "000000000u" },
	{ "u64", "11627335753320345104", "p<I|lY}>97" },
	{ "u64", "18446744073709551615", "|NsC0|NsC0" },
	{ "char1", "Q", "Q2" },
	{ "char2", "ab", "VPX" },
	{ "char2", "\xc3\xa9", "!>I" },			/* é */
	{ "char3", "xxx", "czAd" },
	{ "char3", "Q", "Q2+n" },
	{ "char3", "\xc3\xa9" "2", "!>KX" },
	{ "char5", "abc16", "VPa!3HU" },
	{ "char5", "\xe6\x97\xa5" "34", "=9i^2Gy" },	/* 日34 */
	{ "char8", "Q27", "Q8G6G00000" },
	{ "char8", "xxxxxxxx", "czAetczAet" },
	{ "char8", "\xc3\xa9", "!>IrO00000" },
	{ "char16", "xxxxxxxxxxxxxxxx", "czAetczAetczAetczAet" },
	{ "char16", "\xe6\x97\xa5" "27", "=9i^1Hvj+t0000000000" },
};

int
main(void)
{
	unsigned char k[TMQ_KEY_MAX_BYTES];
	struct tmq_error e = { 0 };
	char buf[TMQ_KEY_MAX_BYTES];
	size_t i, n;

	/* Key types. */
	keytype("u8", 1);
	keytype("u16", 2);
	keytype("u32", 4);
	keytype("u64", 8);
	keytype("char1", -1);
	keytype("char8", -8);
	keytype("char40", -40);
	keytype("char3000", -3000);
	keytype_bad("u7");
	keytype_bad("U8");
	keytype_bad("i32");
	keytype_bad("char");
	keytype_bad("char0");
	keytype_bad("char08");
	keytype_bad("char-1");
	keytype_bad("char3001");
	keytype_bad("char99999");
	keytype_bad("char8x");
	keytype_bad("");
	ok(tmq_keytype_valid(1) && tmq_keytype_valid(2) &&
	    tmq_keytype_valid(4) && tmq_keytype_valid(8) &&
	    tmq_keytype_valid(-1) && tmq_keytype_valid(-3000),
	    "valid widths: 1 2 4 8 -1 -3000");
	ok(!tmq_keytype_valid(0) && !tmq_keytype_valid(3) &&
	    !tmq_keytype_valid(16) && !tmq_keytype_valid(-3001),
	    "invalid widths: 0 3 16 -3001");

	/* Characters on a line: 5*(N/4) plus N%4+1 when N%4 > 0. */
	is_int(tmq_key_chars(1), 2, "u8 takes 2 characters");
	is_int(tmq_key_chars(2), 3, "u16 takes 3 characters");
	is_int(tmq_key_chars(4), 5, "u32 takes 5 characters");
	is_int(tmq_key_chars(8), 10, "u64 takes 10 characters");
	is_int(tmq_key_chars(-1), 2, "char1 takes 2 characters");
	is_int(tmq_key_chars(-3), 4, "char3 takes 4 characters");
	is_int(tmq_key_chars(-4), 5, "char4 takes 5 characters");
	is_int(tmq_key_chars(-5), 7, "char5 takes 7 characters");
	is_int(tmq_key_chars(-8), 10, "char8 takes 10 characters");
	is_int(tmq_key_chars(-40), 50, "char40 takes 50 characters");
	is_int(tmq_key_bytes(-40), 40, "char40 is 40 bytes");
	is_int(tmq_key_bytes(8), 8, "u64 is 8 bytes");

	/* Integer keys: the whole range, and one past it. */
	parse_ok(1, "0", 0);
	parse_ok(1, "255", 255);
	parse_fails(1, "256", 3, "key '256' out of range for u8 (0 to 255)");
	parse_ok(2, "65535", 65535);
	parse_fails(2, "65536", 5,
	    "key '65536' out of range for u16 (0 to 65535)");
	parse_ok(4, "4294967295", 4294967295u);
	parse_fails(4, "4294967296", 10,
	    "key '4294967296' out of range for u32 (0 to 4294967295)");
	parse_ok(8, "18446744073709551615", UINT64_MAX);
	parse_fails(8, "18446744073709551616", 20,
	    "key '18446744073709551616' out of range for u64 "
	    "(0 to 18446744073709551615)");
	parse_fails(8, "99999999999999999999999", 23,
	    "key '99999999999999999999999' out of range for u64 "
	    "(0 to 18446744073709551615)");
	parse_ok(8, "42", 42);
	parse_fails(2, "", 0, "empty key");
	parse_fails(2, "-1", 2, "key '-1' is not an unsigned integer");
	parse_fails(2, "+1", 2, "key '+1' is not an unsigned integer");
	parse_fails(2, " 1", 2, "key ' 1' is not an unsigned integer");
	parse_fails(2, "1 ", 2, "key '1 ' is not an unsigned integer");
	parse_fails(2, "0x10", 4, "key '0x10' is not an unsigned integer");
	parse_fails(4, "12a", 3, "key '12a' is not an unsigned integer");
	/* Only n bytes are read: the key need not be NUL-terminated. */
	is_int(tmq_key_parse(2, "12345", 2, k, &e), 0, "a length-bounded key");
	is_u64(tmq_key_to_u64(2, k), 12, "... reads only its bytes");
	/* Big-endian bytes. */
	is_int(parse(4, "16909060", k, &e), 0, "u32 16909060 parses");
	is_mem(k, 4, "\x01\x02\x03\x04", 4, "... into big-endian bytes");
	tmq_key_from_u64(2, 0x0102, k);
	is_mem(k, 2, "\x01\x02", 2, "tmq_key_from_u64 writes big-endian");

	/* charN keys: UTF-8, NUL-padded to N bytes. */
	memset(k, 0xaa, 8);
	is_int(parse(-8, "abc", k, &e), 0, "char8 'abc' parses");
	is_mem(k, 8, "abc\0\0\0\0\0", 8, "... padded with NULs");
	is_int(tmq_key_strlen(-8, k), 3, "... its length is 3");
	is_int(parse(-3, "abc", k, &e), 0, "char3 takes 3 bytes");
	parse_fails(-3, "abcd", 4, "key 'abcd' is 4 bytes, wider than char3");
	is_int(parse(-3, "\xc3\xa9" "x", k, &e), 0,
	    "char3 takes 'éx' (3 bytes of UTF-8)");
	parse_fails(-3, "\xc3\xa9\xc3\xa9", 4,
	    "key '\xc3\xa9\xc3\xa9' is 4 bytes, wider than char3");
	parse_fails(-1, "\xc3\xa9", 2,
	    "key '\xc3\xa9' is 2 bytes, wider than char1");
	parse_fails(-8, "\xff", 1, "key is not valid UTF-8");
	parse_fails(-8, "\xc3", 1, "key is not valid UTF-8");
	parse_fails(-8, "\xed\xa0\x80", 3, "key is not valid UTF-8");
	parse_fails(-8, "\xc0\xaf", 2, "key is not valid UTF-8");
	parse_fails(-8, "a\0b", 3, "key contains a NUL byte");
	parse_fails(-8, "\0", 1, "key contains a NUL byte");
	is_int(parse(-4, "", k, &e), 0, "an empty charN key parses");
	is_mem(k, 4, "\0\0\0\0", 4, "... to NULs");
	{
		char wide[70];

		memset(wide, 'x', 69);
		wide[69] = '\0';
		parse_fails(-8, wide, 69, "key 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' is 69 bytes, wider than "
		    "char8");
	}

	/* Formatting keys back to text. */
	tmq_key_from_u64(8, UINT64_MAX, k);
	n = tmq_key_format(8, k, buf);
	is_mem(buf, n, "18446744073709551615", 20, "u64 max formats");
	tmq_key_from_u64(1, 0, k);
	n = tmq_key_format(1, k, buf);
	is_mem(buf, n, "0", 1, "u8 0 formats as 0");
	parse(-16, "\xe6\x97\xa5" "27", k, &e);
	n = tmq_key_format(-16, k, buf);
	is_mem(buf, n, "\xe6\x97\xa5" "27", 5, "char16 key formats unpadded");

	/* Encodings the library wrote (vectors/keys.tsv). */
	for (i = 0; i < sizeof key_rows / sizeof key_rows[0]; i++) {
		char out[64];
		size_t len = 0;

		if (!ok(encode_key(key_rows[i][0], key_rows[i][1], out, &len) ==
		    0, "%s key '%s' encodes", key_rows[i][0], key_rows[i][1]))
			continue;
		is_mem(out, len, key_rows[i][2], strlen(key_rows[i][2]),
		    "%s key '%s' is %s", key_rows[i][0], key_rows[i][1],
		    key_rows[i][2]);
	}
	return done_testing();
}
