/* base64.c: base64 encoding into a buffer or onto a stdio stream, and
 * decoding. */
#include "util/base64.h"

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t
tmq_base64_encode(char *out, const unsigned char *s, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i + 3 <= n; i += 3) {
		unsigned v = (unsigned)s[i] << 16 | (unsigned)s[i + 1] << 8 |
		    s[i + 2];

		out[o++] = b64[v >> 18];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = b64[v >> 6 & 63];
		out[o++] = b64[v & 63];
	}
	if (n - i == 1) {
		unsigned v = (unsigned)s[i] << 16;

		out[o++] = b64[v >> 18];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = '=';
		out[o++] = '=';
	} else if (n - i == 2) {
		unsigned v = (unsigned)s[i] << 16 | (unsigned)s[i + 1] << 8;

		out[o++] = b64[v >> 18];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = b64[v >> 6 & 63];
		out[o++] = '=';
	}
	return o;
}

void
tmq_base64_write(FILE *f, const unsigned char *s, size_t n)
{
	char out[4 * 1024];
	size_t i, k;

	/* In whole groups of three, so that only the last is padded. */
	for (i = 0; i < n; i += k) {
		k = n - i < 3 * 1024 ? n - i : 3 * 1024;
		fwrite(out, 1, tmq_base64_encode(out, s + i, k), f);
	}
}

static int
b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long
tmq_base64_decode(const char *s, size_t n, unsigned char *out)
{
	size_t i, o = 0;

	if (n % 4 != 0)
		return -1;
	for (i = 0; i < n; i += 4) {
		int a = b64val((unsigned char)s[i]);
		int b = b64val((unsigned char)s[i + 1]);
		int c = b64val((unsigned char)s[i + 2]);
		int d = b64val((unsigned char)s[i + 3]);
		int last = i + 4 == n;

		if (a < 0 || b < 0)
			return -1;
		out[o++] = (unsigned char)(a << 2 | b >> 4);
		if (last && s[i + 2] == '=' && s[i + 3] == '=') {
			/* The bits padding leaves over must be zero, so that
			 * one text decodes from one set of bytes only. */
			if (b & 15)
				return -1;
			break;
		}
		if (c < 0)
			return -1;
		out[o++] = (unsigned char)(b << 4 | c >> 2);
		if (last && s[i + 3] == '=') {
			if (c & 3)
				return -1;
			break;
		}
		if (d < 0)
			return -1;
		out[o++] = (unsigned char)(c << 6 | d);
	}
	return (long)o;
}
