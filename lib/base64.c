/* base64.c: base64 encoding straight onto a stdio stream. */
#include "base64.h"

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void
tmq_base64_write(FILE *f, const unsigned char *s, size_t n)
{
	char out[4];
	size_t i;

	for (i = 0; i + 3 <= n; i += 3) {
		unsigned v = (unsigned)s[i] << 16 | (unsigned)s[i + 1] << 8 |
		    s[i + 2];

		out[0] = b64[v >> 18];
		out[1] = b64[v >> 12 & 63];
		out[2] = b64[v >> 6 & 63];
		out[3] = b64[v & 63];
		fwrite(out, 1, 4, f);
	}
	if (n - i == 1) {
		unsigned v = (unsigned)s[i] << 16;

		out[0] = b64[v >> 18];
		out[1] = b64[v >> 12 & 63];
		out[2] = out[3] = '=';
		fwrite(out, 1, 4, f);
	} else if (n - i == 2) {
		unsigned v = (unsigned)s[i] << 16 | (unsigned)s[i + 1] << 8;

		out[0] = b64[v >> 18];
		out[1] = b64[v >> 12 & 63];
		out[2] = b64[v >> 6 & 63];
		out[3] = '=';
		fwrite(out, 1, 4, f);
	}
}
