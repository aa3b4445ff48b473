/* escape.c: escaping for terminals and JSON (see escape.h). */
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "util/escape.h"

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
	/* C1 controls are U+0080..U+009F: 0xC2 0x80..0x9F.  The
	 * bidirectional controls (U+200E, U+200F, U+202A..U+202E,
	 * U+2066..U+2069) reorder what a terminal shows after them. */
	if (len == 0 || c < 0x20 || c == 0x7f ||
	    (len == 2 && c == 0xc2 && s[1] < 0xa0) ||
	    (len == 3 && c == 0xe2 && ((s[1] == 0x80 && (s[2] == 0x8e ||
	    s[2] == 0x8f || (s[2] >= 0xaa && s[2] <= 0xae))) ||
	    (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)))) {
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

void
tmq_escape_word(FILE *f, const unsigned char *s, size_t n)
{
	size_t i = 0, used, len;
	char out[16];

	while (i < n) {
		if (s[i] == ' ') {
			fputs("\\x20", f);
			i++;
			continue;
		}
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

/* What a byte becomes in a JSON string: 0 itself, 1 a \u00XX escape, else
 * the letter of its two-character escape. */
static const unsigned char json_class[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 'b', 't', 'n', 1, 'f', 'r', 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, '"', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '\\', 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
};

/* One byte's escape at out: its length. */
static size_t
escape_byte(char *out, unsigned char c)
{
	unsigned char k = json_class[c];

	out[0] = '\\';
	if (k != 1) {
		out[1] = (char)k;
		return 2;
	}
	out[1] = 'u';
	out[2] = '0';
	out[3] = '0';
	out[4] = hex[c >> 4];
	out[5] = hex[c & 15];
	return 6;
}

#ifdef __SSE2__
/* Which of the 16 bytes of x are '"' or '\\' (escaped as a backslash and
 * themselves), and which need another escape (a control or DEL), a bit
 * each. */
static unsigned
quotes(__m128i x)
{
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x,
	    _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
}

static unsigned
controls(__m128i x)
{
	const __m128i sign = _mm_set1_epi8((char)0x80);

	/* Unsigned x < 0x20 as a signed compare, both sides flipped. */
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x,
	    _mm_set1_epi8(0x7f)), _mm_cmplt_epi8(_mm_xor_si128(x, sign),
	    _mm_set1_epi8((char)(0x20 ^ 0x80)))));
}

size_t
tmq_escape_json_buf(char *out, const unsigned char *s, size_t n)
{
	size_t i = 0, o = 0, pos, rest;
	unsigned bits, ctl, j;

	/* Sixteen bytes a step, copied whole; each that needs an escape is
	 * escaped in place, and what follows it in the block copied again
	 * after it, so that JSON text held in a string (an escape every few
	 * bytes) costs one look a block.  A copy may write past what is
	 * kept, never past 6n. */
	while (n - i >= 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)
		    (s + i));

		_mm_storeu_si128((__m128i *)(void *)(out + o), x);
		bits = quotes(x);
		ctl = controls(x);
		if ((bits | ctl) == 0) {
			i += 16;
			o += 16;
			continue;
		}
		if (ctl == 0 &&
		    n - i >= 16 + (unsigned)(31 - __builtin_clz(bits))) {
			/* Only quotes and backslashes, and sixteen bytes from
			 * the last of them on: a backslash before each, then
			 * the sixteen from it copied again (a third of what
			 * the general way costs an escape, and JSON text has
			 * one every seven bytes or so). */
			for (pos = 0; bits != 0; bits &= bits - 1) {
				j = (unsigned)__builtin_ctz(bits);
				o += j - pos;
				out[o++] = '\\';
				_mm_storeu_si128((__m128i *)(void *)(out + o),
				    _mm_loadu_si128((const __m128i *)(const void *)
				    (s + i + j)));
				pos = j;
			}
			o += 16 - pos;
			i += 16;
			continue;
		}
		for (bits |= ctl, pos = 0; bits != 0; bits &= bits - 1) {
			j = (unsigned)__builtin_ctz(bits);
			o += j - pos;
			o += escape_byte(out + o, s[i + j]);
			pos = j + 1;
			rest = n - (i + pos);
			if (rest >= 16)
				_mm_storeu_si128((__m128i *)(void *)(out + o),
				    _mm_loadu_si128((const __m128i *)(const void *)
				    (s + i + pos)));
			else
				memcpy(out + o, s + i + pos, rest);
		}
		o += 16 - pos;
		i += 16;
	}
	for (; i < n; i++) {
		if (json_class[s[i]] == 0)
			out[o++] = (char)s[i];
		else
			o += escape_byte(out + o, s[i]);
	}
	return o;
}
#else
#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

size_t
tmq_escape_json_buf(char *out, const unsigned char *s, size_t n)
{
	size_t i = 0, o = 0;
	uint64_t x, q, b, d;

	/* Eight plain bytes at a time while there are (the word says
	 * whether any needs an escape), else one. */
	while (i < n) {
		if (n - i >= 8) {
			memcpy(&x, s + i, 8);
			q = x ^ ONES * '"';
			b = x ^ ONES * '\\';
			d = x ^ ONES * 0x7f;
			if (((((x - ONES * 0x20) & ~x) | ((q - ONES) & ~q) |
			    ((b - ONES) & ~b) | ((d - ONES) & ~d)) & HIGHS) == 0) {
				memcpy(out + o, &x, 8);
				o += 8;
				i += 8;
				continue;
			}
		}
		if (json_class[s[i]] == 0)
			out[o++] = (char)s[i];
		else
			o += escape_byte(out + o, s[i]);
		i++;
	}
	return o;
}
#endif

void
tmq_escape_json(FILE *f, const unsigned char *s, size_t n)
{
	char out[6 * 1024];
	size_t i, k;

	fputc('"', f);
	for (i = 0; i < n; i += k) {
		k = n - i < 1024 ? n - i : 1024;
		fwrite(out, 1, tmq_escape_json_buf(out, s + i, k), f);
	}
	fputc('"', f);
}
