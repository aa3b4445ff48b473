/* t-base85.c: lib/codec/base85 against Python's base64.b85encode/b85decode:
 * known encodings, round trips for every tail length, lengths, and the
 * decoding errors (bad character, 32-bit overflow, a lone final digit). */
#include <stdlib.h>
#include <string.h>

#include "codec/base85.h"
#include "tap.h"

/* Encode, compare with Python's text, decode back. */
static void
known(const char *bytes, size_t n, const char *want)
{
	char out[128];
	unsigned char back[128];
	size_t len;
	long got;

	len = tmq_b85_encode((const unsigned char *)bytes, n, out);
	is_mem(out, len, want, strlen(want), "b85encode of %zu bytes is %s",
	    n, want);
	is_int(tmq_b85_enclen(n), strlen(want), "enclen(%zu)", n);
	got = tmq_b85_decode(want, strlen(want), back);
	is_mem(back, got < 0 ? 0 : (size_t)got, bytes, n, "b85decode(%s)",
	    want);
}

static void
decode_fails(const char *s, const char *why)
{
	unsigned char out[64];

	is_int(tmq_b85_decode(s, strlen(s), out), -1, "decode '%s' fails: %s",
	    s, why);
}

int
main(void)
{
	static const char alphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
	unsigned char in[64], back[64];
	char out[128];
	size_t n, len, i;
	long got;

	/* Values from Python 3: base64.b85encode(...). */
	known("hello", 5, "Xk~0{Zv");
	known("\0", 1, "00");
	known("", 0, "");
	known("\0\0\0\0", 4, "00000");
	known("\xff", 1, "{{");
	known("\xff\xff\xff", 3, "|Ns9");
	known("\xff\xff\xff\xff", 4, "|NsC0");
	known("\x01\x02\x03\x04\x05\x06\x07", 7, "0RjUA1qKH");
	known("Man is distinguished", 20, "O<`^zX>%ZCX>)XGZfA9Ab7*B`");

	/* Every tail length, with bytes that use the whole range. */
	for (n = 0; n <= 7; n++) {
		for (i = 0; i < n; i++)
			in[i] = (unsigned char)(0xff - 37 * i);
		len = tmq_b85_encode(in, n, out);
		out[len] = '\0';
		is_int(len, n / 4 * 5 + (n % 4 ? n % 4 + 1 : 0),
		    "tail %zu: %zu bytes encode to the right length", n % 4, n);
		ok(strspn(out, alphabet) >= len, "tail %zu: only alphabet "
		    "characters", n);
		is_int(tmq_b85_declen(len), n, "declen(%zu) is %zu", len, n);
		got = tmq_b85_decode(out, len, back);
		is_mem(back, got < 0 ? 0 : (size_t)got, in, n,
		    "%zu bytes round trip", n);
	}
	/* Zeros and ones in every tail position too. */
	for (n = 0; n <= 7; n++) {
		int v;

		for (v = 0; v <= 0xff; v += 0xff) {
			memset(in, v, n);
			len = tmq_b85_encode(in, n, out);
			got = tmq_b85_decode(out, len, back);
			is_mem(back, got < 0 ? 0 : (size_t)got, in, n,
			    "%zu bytes of 0x%02x round trip", n, v);
		}
	}
	/* A longer buffer of every byte value. */
	{
		unsigned char all[256], dec[256];
		char enc[330];

		for (i = 0; i < 256; i++)
			all[i] = (unsigned char)i;
		len = tmq_b85_encode(all, 256, enc);
		is_int(len, 320, "256 bytes encode to 320 characters");
		got = tmq_b85_decode(enc, len, dec);
		is_mem(dec, got < 0 ? 0 : (size_t)got, all, 256,
		    "256 byte values round trip");
	}

	/* Decoding: what Python decodes, and what it must refuse. */
	got = tmq_b85_decode("|Nk", 3, back);
	is_mem(back, got < 0 ? 0 : (size_t)got, "\xff\xff", 2,
	    "a final group decodes as Python does (padded with '~')");
	decode_fails("0000 ", "a space is not base85");
	decode_fails("Xk~0{Z\"", "'\"' is not base85");
	decode_fails("ab,de", "',' is not base85");
	decode_fails("ab\\de", "'\\\\' is not base85");
	decode_fails("\x80" "0000", "a high byte is not base85");
	decode_fails("~~~~~", "group overflows 32 bits");
	decode_fails("|NsC1", "group one past 2^32-1");
	decode_fails("00000~~~~~", "second group overflows");
	decode_fails("~~", "final group overflows when padded");
	decode_fails("0", "lone final character");
	decode_fails("000000", "lone final character after a group");
	{
		unsigned char z[1];

		is_int(tmq_b85_decode("", 0, z), 0, "empty string decodes to "
		    "nothing");
	}
	is_int(tmq_b85_enclen(8), 10, "8 bytes (a timestamp) take 10 chars");
	is_int(tmq_b85_declen(0), 0, "declen(0)");
	is_int(tmq_b85_declen(7), 5, "declen(7)");
	return done_testing();
}
