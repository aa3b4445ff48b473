/* escape.c: escaping for terminals and JSON (see escape.h). */
#include <string.h>

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

/* The escaped form of the character at s (at most 16 bytes, in out, not
 * NUL-terminated): its length; *used is set to the bytes it stands for. */
static size_t
escape_one(const unsigned char *s, size_t n, size_t *used, char *out)
{
	unsigned char c = s[0];
	size_t len, k, m, o = 0;

	switch (c) {
	case '\n': *used = 1; memcpy(out, "\\n", 2); return 2;
	case '\t': *used = 1; memcpy(out, "\\t", 2); return 2;
	case '\r': *used = 1; memcpy(out, "\\r", 2); return 2;
	case '\\': *used = 1; memcpy(out, "\\\\", 2); return 2;
	}
	len = utf8_seq(s, n);
	/* C1 controls are U+0080..U+009F: 0xC2 0x80..0x9F. */
	if (len == 0 || c < 0x20 || c == 0x7f ||
	    (len == 2 && c == 0xc2 && s[1] < 0xa0)) {
		m = len ? len : 1;
		for (k = 0; k < m; k++) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[s[k] >> 4];
			out[o++] = hex[s[k] & 15];
		}
		*used = m;
		return o;
	}
	memcpy(out, s, len);
	*used = len;
	return len;
}

void
tmq_escape_terminal(FILE *f, const unsigned char *s, size_t n)
{
	size_t i = 0, used, len;
	char out[16];

	while (i < n) {
		len = escape_one(s + i, n - i, &used, out);
		fwrite(out, 1, len, f);
		i += used;
	}
}

const char *
tmq_escape_name(const char *name, char *buf, size_t sz)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n = strlen(name), i, o = 0, used, len, total = 0, room;
	char out[16];

	if (sz == 0)
		return buf;
	for (i = 0; i < n; i += used)
		total += escape_one(s + i, n - i, &used, out);
	/* Whole when it fits; else whole characters and "...". */
	room = total < sz ? sz - 1 : sz > 4 ? sz - 4 : 0;
	for (i = 0; i < n; i += used) {
		len = escape_one(s + i, n - i, &used, out);
		if (o + len > room)
			break;
		memcpy(buf + o, out, len);
		o += len;
	}
	if (total >= sz && sz > 4) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
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
