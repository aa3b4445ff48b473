/* escape.c: escaping for terminals and JSON (see escape.h). */
#include "escape.h"

static const char hex[] = "0123456789abcdef";

/* Length of a valid UTF-8 sequence at s, or 0. */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

void
tmq_escape_terminal(FILE *f, const unsigned char *s, size_t n)
{
	size_t i = 0, len;

	while (i < n) {
		unsigned char c = s[i];

		switch (c) {
		case '\n': fputs("\\n", f); i++; continue;
		case '\t': fputs("\\t", f); i++; continue;
		case '\r': fputs("\\r", f); i++; continue;
		case '\\': fputs("\\\\", f); i++; continue;
		}
		len = utf8_seq(s + i, n - i);
		/* C1 controls are U+0080..U+009F: 0xC2 0x80..0x9F. */
		if (len == 0 || c < 0x20 || c == 0x7f ||
		    (len == 2 && c == 0xc2 && s[i + 1] < 0xa0)) {
			size_t k, m = len ? len : 1;

			for (k = 0; k < m; k++) {
				fputs("\\x", f);
				fputc(hex[s[i + k] >> 4], f);
				fputc(hex[s[i + k] & 15], f);
			}
			i += m;
			continue;
		}
		fwrite(s + i, 1, len, f);
		i += len;
	}
}

void
tmq_escape_json(FILE *f, const unsigned char *s, size_t n)
{
	size_t i, run = 0;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
			continue;
		fwrite(s + run, 1, i - run, f);
		run = i + 1;
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			fputs("\\u00", f);
			fputc(hex[c >> 4], f);
			fputc(hex[c & 15], f);
		}
	}
	fwrite(s + run, 1, n - run, f);
	fputc('"', f);
}
