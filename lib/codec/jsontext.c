/* jsontext.c: JSON checks and strings (see jsontext.h).
 *
 * The check is a state machine over the text with a stack of the open
 * brackets (TMQ_JSON_DEPTH_MAX bytes): its memory is fixed, its time one
 * pass, whatever the text holds, where a document tree (json-c's) costs
 * some forty times the bytes of a list of small numbers.  Strings are
 * passed a run of plain bytes at a time, and their UTF-8 is checked on
 * the way (outside strings only ASCII is JSON), so the text is read once. */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "codec/jsontext.h"

int
tmq_json_only_space(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return 0;
	return 1;
}

int
tmq_json_has_nul(const char *s, size_t n, size_t *at)
{
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '\\') {
			run++;
			continue;
		}
		/* An odd run of backslashes: its last one escapes this. */
		if (run % 2 == 1 && s[i] == 'u' && n - i > 4 &&
		    memcmp(s + i + 1, "0000", 4) == 0) {
			*at = i;	/* the backslash's, from 1 */
			return 1;
		}
		run = 0;
	}
	return 0;
}

/* --- the check ------------------------------------------------------- */

/* What a byte is inside a string: 0 plain ASCII, 1 the closing quote, 2 a
 * backslash, 3 a control character, 4 the first of a multi-byte UTF-8
 * sequence (or not UTF-8). */
static const unsigned char str_class[256] = {
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
};

/* The check's state, shared by its parts. */
struct scan {
	const unsigned char *s;
	size_t n;
	enum tmq_json_grammar g;
	int bad_utf8;		/* some string is not UTF-8 (said at the end,
				 * after the grammar, as a whole-text check
				 * would) */
	int escaped;		/* the last string held a backslash */
	int cut;		/* the text ended inside a string */
	struct tmq_error *e;
};

static int
is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t
skip_space(const unsigned char *s, size_t i, size_t n)
{
	while (i < n && is_space(s[i]))
		i++;
	return i;
}

static int
hexdigit(unsigned c)
{
	if (c - '0' < 10)
		return (int)(c - '0');
	c |= 0x20;
	if (c - 'a' < 6)
		return (int)(c - 'a' + 10);
	return -1;
}

static int
hex4(const unsigned char *s, size_t i, size_t n, unsigned *v)
{
	size_t k;

	*v = 0;
	if (n < 4 || i > n - 4)
		return -1;
	for (k = i; k < i + 4; k++) {
		int d = hexdigit(s[k]);

		if (d < 0)
			return -1;
		*v = *v << 4 | (unsigned)d;
	}
	return 0;
}

/* Length of the valid UTF-8 sequence of two to four bytes at s, or 0. */
static size_t
utf8_multi(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, k;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;	/* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (len > n || s[1] < lo || s[1] > hi)
		return 0;
	for (k = 2; k < len; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	return len;
}

#ifdef __SSE2__
/* Which of the sixteen bytes at p end a run of plain string bytes: '"',
 * '\\', and (a signed compare) controls and bytes from 0x80; bit i for
 * p[i]. */
static inline unsigned
stops16(const unsigned char *p)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(
	    _mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x,
	    _mm_set1_epi8('\\'))), _mm_cmplt_epi8(x, _mm_set1_epi8(0x20))));
}
#endif

/* Past the plain bytes of a string from s[k]: ASCII but for controls,
 * '"' and '\\'. */
static size_t
plain_run(const unsigned char *s, size_t k, size_t n)
{
#ifdef __SSE2__
	/* Sixteen at a time (stops16). */
	while (n - k >= 16) {
		unsigned bits = stops16(s + k);

		if (bits != 0)
			return k + (unsigned)__builtin_ctz(bits);
		k += 16;
	}
#else
	while (n - k >= 4 && (str_class[s[k]] | str_class[s[k + 1]] |
	    str_class[s[k + 2]] | str_class[s[k + 3]]) == 0)
		k += 4;
#endif
	while (k < n && str_class[s[k]] == 0)
		k++;
	return k;
}

#ifdef __SSE2__
/* Past plain bytes and two-byte escapes (\" \\ \/ \b \f \n \r \t) from
 * s[k], sixteen bytes a step: JSON text held in a string escapes every
 * few bytes, and one look at a block finds all of them.  Stops where
 * fewer than sixteen bytes are left, or at anything else: the closing
 * quote, a control, a byte from 0x80, another escape. */
static size_t
simple_run(const unsigned char *s, size_t k, size_t n, int *escaped)
{
	static const unsigned char simple[256] = { ['"'] = 1, ['\\'] = 1,
	    ['/'] = 1, ['b'] = 1, ['f'] = 1, ['n'] = 1, ['r'] = 1, ['t'] = 1 };

	while (n - k >= 16) {
		unsigned bits = stops16(s + k);

		while (bits != 0) {
			unsigned j = (unsigned)__builtin_ctz(bits);

			if (s[k + j] != '\\' || j == 15 || !simple[s[k + j + 1]])
				return k + j;
			*escaped = 1;
			bits &= ~(3u << j);	/* the backslash, its letter */
		}
		k += 16;
	}
	return k;
}
#endif

/* The string that starts at s[*i] ('"'); *i is left after it. */
static int
scan_string(struct scan *sc, size_t *i)
{
	const unsigned char *s = sc->s;
	size_t n = sc->n, k = *i + 1, len;
	unsigned u, lo;

	sc->escaped = 0;
	for (;;) {
#ifdef __SSE2__
		k = simple_run(s, k, n, &sc->escaped);
#endif
		k = plain_run(s, k, n);
		if (k >= n)
			break;
		switch (str_class[s[k]]) {
		case 1:
			*i = k + 1;
			return 0;
		case 3:
			return tmq_fail(sc->e, "control character 0x%02X in a "
			    "string at byte %zu", s[k], k + 1);
		case 4:
			if ((len = utf8_multi(s + k, n - k)) == 0) {
				sc->bad_utf8 = 1;
				len = 1;
			}
			k += len;
			continue;
		}
		/* A backslash. */
		sc->escaped = 1;
		if (k + 1 >= n)
			break;
		switch (s[k + 1]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n':
		case 'r': case 't':
			k += 2;
			continue;
		}
		if (s[k + 1] != 'u' || hex4(s, k + 2, n, &u) < 0)
			return tmq_fail(sc->e, "bad escape in a string at byte "
			    "%zu", k + 1);
		if (u >= 0xD800 && u <= 0xDBFF && k + 7 < n &&
		    s[k + 6] == '\\' && s[k + 7] == 'u' &&
		    hex4(s, k + 8, n, &lo) == 0 && lo >= 0xDC00 &&
		    lo <= 0xDFFF) {
			k += 12;	/* a pair: one character */
			continue;
		}
		/* Only a high surrogate followed by a low one is a
		 * character: many parsers stop at anything else. */
		if (u >= 0xD800 && u <= 0xDFFF && sc->g == TMQ_JSON_RFC8259)
			return tmq_fail(sc->e, "lone surrogate escape \\u%04x at "
			    "byte %zu", u, k + 1);
		k += 6;
	}
	sc->cut = 1;
	return tmq_fail(sc->e, "unterminated string");
}

static int
digits(const unsigned char *s, size_t *i, size_t n)
{
	size_t k = *i;

	while (k < n && (unsigned)(s[k] - '0') < 10)
		k++;
	if (k == *i)
		return -1;
	*i = k;
	return 0;
}

/* NaN, Infinity or -Infinity at s[i]: its length, or 0. */
static size_t
non_number(const unsigned char *s, size_t i, size_t n)
{
	if (n - i >= 3 && memcmp(s + i, "NaN", 3) == 0)
		return 3;
	if (n - i >= 8 && memcmp(s + i, "Infinity", 8) == 0)
		return 8;
	if (n - i >= 9 && memcmp(s + i, "-Infinity", 9) == 0)
		return 9;
	return 0;
}

static int
not_a_number(struct scan *sc, size_t i)
{
	static const char *const words[] = { "NaN", "Infinity", "-Infinity",
	    "-NaN" };
	size_t w, len, n = sc->n;

	for (w = 0; w < sizeof words / sizeof *words; w++) {
		len = strlen(words[w]);
		if (n - i >= len && memcmp(sc->s + i, words[w], len) == 0)
			return tmq_fail(sc->e, "%s at byte %zu (JSON has no NaN "
			    "or Infinity)", words[w], i + 1);
	}
	return tmq_fail(sc->e, "bad number at byte %zu", i + 1);
}

/* The number at s[*i]: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, or
 * with TMQ_JSON_LIBRARY NaN, Infinity or -Infinity. */
static int
scan_number(struct scan *sc, size_t *i)
{
	const unsigned char *s = sc->s;
	size_t k = *i, n = sc->n, w;

	if (sc->g == TMQ_JSON_LIBRARY && (w = non_number(s, k, n)) > 0) {
		*i = k + w;
		return 0;
	}
	if (k < n && s[k] == '-')
		k++;
	if (k < n && s[k] == '0')
		k++;
	else if (k >= n || s[k] < '1' || s[k] > '9' || digits(s, &k, n) < 0)
		return not_a_number(sc, *i);
	if (k < n && s[k] == '.') {
		k++;
		if (digits(s, &k, n) < 0)
			return tmq_fail(sc->e, "bad number at byte %zu", *i + 1);
	}
	if (k < n && (s[k] == 'e' || s[k] == 'E')) {
		k++;
		if (k < n && (s[k] == '+' || s[k] == '-'))
			k++;
		if (digits(s, &k, n) < 0)
			return tmq_fail(sc->e, "bad number at byte %zu", *i + 1);
	}
	*i = k;
	return 0;
}

int
tmq_json_check(const unsigned char *s, size_t n, enum tmq_json_grammar g,
    int depth_max, const struct tmq_json_visit *v, struct tmq_error *e)
{
	enum { VALUE, VALUE_OR_END, KEY, KEY_OR_END, COLON, NEXT } st = VALUE;
	/* With a visitor the outermost object is one level more. */
	char stack[TMQ_JSON_DEPTH_MAX + 1];
	size_t depth = 0, i, max;
	struct scan sc = { s, n, g, 0, 0, 0, e };
	struct tmq_json_member mb = { 0, 0, 0, 0, 0, 0 };
	int in_member = 0;

	if (depth_max < 1 || depth_max > TMQ_JSON_DEPTH_MAX)
		depth_max = TMQ_JSON_DEPTH_MAX;
	max = (size_t)depth_max + (v != NULL);
	i = skip_space(s, 0, n);
	if (i >= n || s[i] != '{') {
		tmq_fail_code(e, TMQ_ERR_NOTJSON, "not a JSON object");
		return TMQ_JSON_NOT_OBJECT;
	}
	for (;;) {
		unsigned char c;

		i = skip_space(s, i, n);
		if (st == NEXT) {
			if (in_member && depth == 1) {
				mb.len = i - mb.at;
				while (mb.len > 0 && is_space(s[mb.at + mb.len - 1]))
					mb.len--;
				v->member(v->arg, s, &mb);
				in_member = 0;
			}
			if (depth == 0)
				break;
		}
		if (i >= n) {
			tmq_fail(e, "unexpected end");
			return TMQ_JSON_CUT;
		}
		c = s[i];
		switch (st) {
		case VALUE_OR_END:
			if (c == ']') {
				depth--;
				i++;
				st = NEXT;
				break;
			}
			/* FALLTHROUGH */
		case VALUE:
			if (depth == 1 && v != NULL) {
				in_member = 1;
				mb.at = i;
				mb.escaped = 0;
			}
			if (c == '{' || c == '[') {
				if (depth == max) {
					tmq_fail(e, "nested deeper than %d at byte "
					    "%zu", depth_max, i + 1);
					return TMQ_JSON_FLAWED;
				}
				stack[depth++] = (char)c;
				i++;
				st = c == '{' ? KEY_OR_END : VALUE_OR_END;
				break;
			}
			st = NEXT;
			if (c == '"') {
				if (scan_string(&sc, &i) < 0)
					goto fail;
				mb.escaped = sc.escaped;
			} else if (c == '-' || (c >= '0' && c <= '9') ||
			    (g == TMQ_JSON_LIBRARY && (c == 'N' || c == 'I'))) {
				if (scan_number(&sc, &i) < 0)
					goto fail;
			} else if (n - i >= 4 && memcmp(s + i, "true", 4) == 0)
				i += 4;
			else if (n - i >= 5 && memcmp(s + i, "false", 5) == 0)
				i += 5;
			else if (n - i >= 4 && memcmp(s + i, "null", 4) == 0)
				i += 4;
			else if (c == 'N' || c == 'I') {
				not_a_number(&sc, i);
				return TMQ_JSON_FLAWED;
			} else {
				tmq_fail(e, "unexpected '%c' at byte %zu",
				    c >= 0x20 && c < 0x7f ? c : '?', i + 1);
				return TMQ_JSON_FLAWED;
			}
			break;
		case KEY_OR_END:
			if (c == '}') {
				depth--;
				i++;
				st = NEXT;
				break;
			}
			/* FALLTHROUGH */
		case KEY:
			if (c != '"') {
				tmq_fail(e, "expected a string key at byte %zu",
				    i + 1);
				return TMQ_JSON_FLAWED;
			}
			if (depth > 1 || v == NULL) {
				if (scan_string(&sc, &i) < 0)
					goto fail;
				st = COLON;
				break;
			}
			mb.name_at = i + 1;
			if (scan_string(&sc, &i) < 0)
				goto fail;
			mb.name_len = i - 1 - mb.name_at;
			mb.name_escaped = sc.escaped;
			st = COLON;
			break;
		case COLON:
			if (c != ':') {
				tmq_fail(e, "expected ':' at byte %zu", i + 1);
				return TMQ_JSON_FLAWED;
			}
			i++;
			st = VALUE;
			break;
		case NEXT:
			if (c == ',') {
				i++;
				st = stack[depth - 1] == '{' ? KEY : VALUE;
			} else if (c == (stack[depth - 1] == '{' ? '}' : ']')) {
				depth--;
				i++;
			} else {
				tmq_fail(e, "expected ',' or '%c' at byte %zu",
				    stack[depth - 1] == '{' ? '}' : ']', i + 1);
				return TMQ_JSON_FLAWED;
			}
			break;
		}
	}
	if (i != n) {
		tmq_fail(e, "text after the object at byte %zu", i + 1);
		return TMQ_JSON_CUT;
	}
	if (sc.bad_utf8) {
		tmq_fail(e, "not valid UTF-8");
		return TMQ_JSON_FLAWED;
	}
	return 0;
fail:
	/* A string the end of the text cuts short: cut; else flawed. */
	return sc.cut ? TMQ_JSON_CUT : TMQ_JSON_FLAWED;
}

size_t
tmq_json_string_end(const unsigned char *s, size_t i, size_t n,
    enum tmq_json_grammar g, int *escaped)
{
	struct tmq_error e;
	struct scan sc = { s, n, g, 0, 0, 0, &e };

	if (i >= n || s[i] != '"' || scan_string(&sc, &i) < 0 || sc.bad_utf8)
		return 0;
	*escaped = sc.escaped;
	return i;
}

size_t
tmq_json_number_end(const unsigned char *s, size_t i, size_t n,
    enum tmq_json_grammar g)
{
	struct tmq_error e;
	struct scan sc = { s, n, g, 0, 0, 0, &e };

	if (i >= n || scan_number(&sc, &i) < 0)
		return 0;
	return i;
}

int
tmq_json_is_object(const unsigned char *s, size_t n)
{
	struct tmq_error e;

	return tmq_json_check(s, n, TMQ_JSON_LIBRARY, TMQ_JSON_PAYLOAD_DEPTH,
	    NULL, &e) == 0;
}

int
tmq_json_strict_object(const unsigned char *s, size_t n, struct tmq_error *e)
{
	return tmq_json_check(s, n, TMQ_JSON_RFC8259, TMQ_JSON_DEPTH_MAX, NULL,
	    e) < 0 ? -1 : 0;
}

/* --- strings --------------------------------------------------------- */

static size_t
put_utf8(unsigned char *o, unsigned long c)
{
	if (c < 0x80) {
		o[0] = (unsigned char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (unsigned char)(0xc0 | c >> 6);
		o[1] = (unsigned char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (unsigned char)(0xe0 | c >> 12);
		o[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
		o[2] = (unsigned char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (unsigned char)(0xf0 | c >> 18);
	o[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
	o[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
	o[3] = (unsigned char)(0x80 | (c & 0x3f));
	return 4;
}

/* The first backslash in s[0..n), or NULL; what comes before it is
 * copied to out (which may take up to n bytes). */
static const unsigned char *
find_backslash(const unsigned char *s, size_t n, unsigned char *out)
{
	size_t k = 0;
#ifdef __SSE2__
	const __m128i bs = _mm_set1_epi8('\\');

	/* Escapes come every few bytes in JSON text held in a string:
	 * sixteen bytes a step, copied whole, not a memchr a run. */
	while (n - k >= 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)
		    (s + k));
		unsigned bits = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x,
		    bs));

		_mm_storeu_si128((__m128i *)(void *)(out + k), x);
		if (bits != 0)
			return s + k + (unsigned)__builtin_ctz(bits);
		k += 16;
	}
#endif
	for (; k < n; k++) {
		if (s[k] == '\\')
			return s + k;
		out[k] = s[k];
	}
	return NULL;
}

size_t
tmq_json_unescape(const unsigned char *s, size_t n, unsigned char *out)
{
	size_t i = 0, o = 0;
	const unsigned char *b;
	unsigned u, lo;

	while (i < n) {
		b = find_backslash(s + i, n - i, out + o);
		if (b == NULL)
			return o + (n - i);
		o += (size_t)(b - (s + i));
		i = (size_t)(b - s);
		if (i + 1 >= n)
			break;		/* not from a check: keep what there is */
		switch (s[i + 1]) {
		case 'b': out[o++] = '\b'; i += 2; continue;
		case 'f': out[o++] = '\f'; i += 2; continue;
		case 'n': out[o++] = '\n'; i += 2; continue;
		case 'r': out[o++] = '\r'; i += 2; continue;
		case 't': out[o++] = '\t'; i += 2; continue;
		case 'u': break;
		default: out[o++] = s[i + 1]; i += 2; continue;
		}
		if (hex4(s, i + 2, n, &u) < 0) {
			i += 2;
			continue;
		}
		if (u >= 0xD800 && u <= 0xDBFF && i + 7 < n &&
		    s[i + 6] == '\\' && s[i + 7] == 'u' &&
		    hex4(s, i + 8, n, &lo) == 0 && lo >= 0xDC00 &&
		    lo <= 0xDFFF) {
			o += put_utf8(out + o, 0x10000 + ((unsigned long)(u -
			    0xD800) << 10) + (lo - 0xDC00));
			i += 12;
			continue;
		}
		o += put_utf8(out + o, u);
		i += 6;
	}
	return o;
}
