/* jsonwriter.c: JSON text written as it goes (see jsonwriter.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "util/jsonwriter.h"
#include "util/utf8.h"

void
tmq_jw_init(struct tmq_jw *w, FILE *f)
{
	memset(w, 0, sizeof *w);
	w->f = f;
}

/* Before a value, or a member's name: the comma after the one before. */
static void
separate(struct tmq_jw *w)
{
	uint32_t bit;

	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (w->depth == 0)
		return;
	bit = (uint32_t)1 << (w->depth - 1);
	if (w->more & bit)
		putc(',', w->f);
	w->more |= bit;
}

static void
open_one(struct tmq_jw *w, int array)
{
	uint32_t bit;

	if (w->depth >= TMQ_JW_DEPTH) {
		fputs("tmq_jw: nested too deep\n", stderr);
		abort();
	}
	separate(w);
	bit = (uint32_t)1 << w->depth;
	w->more &= ~bit;
	if (array)
		w->in_array |= bit;
	else
		w->in_array &= ~bit;
	w->depth++;
	putc(array ? '[' : '{', w->f);
}

void
tmq_jw_object(struct tmq_jw *w)
{
	open_one(w, 0);
}

void
tmq_jw_array(struct tmq_jw *w)
{
	open_one(w, 1);
}

void
tmq_jw_end(struct tmq_jw *w)
{
	if (w->depth == 0 || w->after_key) {
		fputs("tmq_jw: nothing to close\n", stderr);
		abort();
	}
	w->depth--;
	putc(w->in_array & ((uint32_t)1 << w->depth) ? ']' : '}', w->f);
}

/* The length of the UTF-8 sequence s[0..n) begins with, or 0 when it
 * does not begin with a valid one. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 :
	    s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ?
	    4 : 0;

	return len != 0 && len <= n && tmq_utf8_valid(s, len) ? len : 0;
}

static void
string(struct tmq_jw *w, const unsigned char *s, size_t n)
{
	static const unsigned char fffd[3] = { 0xef, 0xbf, 0xbd };
	unsigned char *c;
	size_t i, k, len;

	if (tmq_utf8_valid(s, n)) {
		tmq_escape_json(w->f, s, n);
		return;
	}
	/* A copy with each byte that begins no valid sequence replaced by
	 * U+FFFD (at most three bytes for one). */
	if (n > (SIZE_MAX - 1) / 3 || (c = malloc(3 * n + 1)) == NULL) {
		fputs("\"\\ufffd\"", w->f);	/* out of memory: one U+FFFD */
		return;
	}
	for (i = k = 0; i < n; i += len) {
		len = utf8_len(s + i, n - i);
		if (len == 0) {
			memcpy(c + k, fffd, 3);
			k += 3;
			len = 1;
		} else {
			memcpy(c + k, s + i, len);
			k += len;
		}
	}
	tmq_escape_json(w->f, c, k);
	free(c);
}

void
tmq_jw_key(struct tmq_jw *w, const char *name)
{
	separate(w);
	string(w, (const unsigned char *)name, strlen(name));
	putc(':', w->f);
	w->after_key = 1;
}

void
tmq_jw_key_u64(struct tmq_jw *w, uint64_t v)
{
	separate(w);
	fprintf(w->f, "\"%" PRIu64 "\":", v);
	w->after_key = 1;
}

void
tmq_jw_str(struct tmq_jw *w, const char *s)
{
	separate(w);
	string(w, (const unsigned char *)s, strlen(s));
}

void
tmq_jw_strn(struct tmq_jw *w, const unsigned char *s, size_t n)
{
	separate(w);
	string(w, s, n);
}

void
tmq_jw_u64(struct tmq_jw *w, uint64_t v)
{
	separate(w);
	fprintf(w->f, "%" PRIu64, v);
}

void
tmq_jw_i64(struct tmq_jw *w, int64_t v)
{
	separate(w);
	fprintf(w->f, "%" PRId64, v);
}

void
tmq_jw_bool(struct tmq_jw *w, int v)
{
	separate(w);
	fputs(v ? "true" : "false", w->f);
}

void
tmq_jw_null(struct tmq_jw *w)
{
	separate(w);
	fputs("null", w->f);
}

int
tmq_jw_is_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		p += strspn(p, "0123456789");
	else
		return 0;
	if (*p == '.') {
		p++;
		if (strspn(p, "0123456789") == 0)
			return 0;
		p += strspn(p, "0123456789");
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (strspn(p, "0123456789") == 0)
			return 0;
		p += strspn(p, "0123456789");
	}
	return *p == '\0';
}

void
tmq_jw_number(struct tmq_jw *w, const char *text)
{
	separate(w);
	fputs(tmq_jw_is_number(text) ? text : "null", w->f);
}
