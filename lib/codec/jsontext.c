/* jsontext.c: JSON checks (see jsontext.h).  json-c parses a prefix and
 * says where it stopped; what comes after is ours to refuse. */
#include <json-c/json.h>
#include <string.h>

#include "jsontext.h"
#include "utf8.h"

int
tmq_json_is_object(const unsigned char *s, size_t n)
{
	struct json_tokener *tok;
	struct json_object *o;
	int ok;

	/* JSON text is UTF-8 (RFC 8259), and json-c does not check: the
	 * TwainMQ library's json.loads fails on anything else. */
	if (n > (size_t)INT32_MAX || !tmq_utf8_valid(s, n))
		return 0;
	tok = json_tokener_new();
	if (tok == NULL)
		return 0;
	o = json_tokener_parse_ex(tok, (const char *)s, (int)n);
	/* The whole input must be the one object, with nothing after it. */
	ok = o != NULL && json_object_is_type(o, json_type_object) &&
	    json_tokener_get_error(tok) == json_tokener_success &&
	    tok->char_offset == (int)n;
	json_object_put(o);
	json_tokener_free(tok);
	return ok;
}

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

/* --- strict RFC 8259 ------------------------------------------------- */

/* Deeper than anyone's messages, shallow enough for a fixed stack. */
#define STRICT_DEPTH_MAX 1024

static size_t
skip_space(const unsigned char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
	    s[i] == '\r'))
		i++;
	return i;
}

static int
hex4(const unsigned char *s, size_t i, size_t n, unsigned *v)
{
	size_t k;

	*v = 0;
	if (n < 4 || i > n - 4)
		return -1;
	for (k = i; k < i + 4; k++) {
		unsigned c = s[k], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

/* The string that starts at s[*i] ('"'); *i is left after it. */
static int
strict_string(const unsigned char *s, size_t *i, size_t n, struct tmq_error *e)
{
	size_t k = *i + 1;
	unsigned u, lo;

	while (k < n) {
		unsigned char c = s[k];

		if (c == '"') {
			*i = k + 1;
			return 0;
		}
		if (c < 0x20)
			return tmq_fail(e, "control character 0x%02X in a string "
			    "at byte %zu", c, k + 1);
		if (c != '\\') {
			k++;
			continue;
		}
		if (k + 1 >= n)
			break;
		if (strchr("\"\\/bfnrt", s[k + 1]) != NULL && s[k + 1] != '\0') {
			k += 2;
			continue;
		}
		if (s[k + 1] != 'u' || hex4(s, k + 2, n, &u) < 0)
			return tmq_fail(e, "bad escape in a string at byte %zu",
			    k + 1);
		if (u >= 0xDC00 && u <= 0xDFFF)
			return tmq_fail(e, "lone surrogate escape \\u%04x at byte "
			    "%zu", u, k + 1);
		if (u >= 0xD800 && u <= 0xDBFF) {
			/* Only a high surrogate followed by a low one is a
			 * character: many parsers stop at anything else. */
			if (k + 7 >= n || s[k + 6] != '\\' || s[k + 7] != 'u' ||
			    hex4(s, k + 8, n, &lo) < 0 || lo < 0xDC00 ||
			    lo > 0xDFFF)
				return tmq_fail(e, "lone surrogate escape \\u%04x "
				    "at byte %zu", u, k + 1);
			k += 12;
		} else
			k += 6;
	}
	return tmq_fail(e, "unterminated string");
}

static int
digits(const unsigned char *s, size_t *i, size_t n)
{
	size_t k = *i;

	while (k < n && s[k] >= '0' && s[k] <= '9')
		k++;
	if (k == *i)
		return -1;
	*i = k;
	return 0;
}

static int
not_a_number(const unsigned char *s, size_t i, size_t n, struct tmq_error *e)
{
	static const char *const words[] = { "NaN", "Infinity", "-Infinity",
	    "-NaN" };
	size_t w, len;

	for (w = 0; w < sizeof words / sizeof *words; w++) {
		len = strlen(words[w]);
		if (n - i >= len && memcmp(s + i, words[w], len) == 0)
			return tmq_fail(e, "%s at byte %zu (JSON has no NaN or "
			    "Infinity)", words[w], i + 1);
	}
	return tmq_fail(e, "bad number at byte %zu", i + 1);
}

/* The number that starts at s[*i]: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int
strict_number(const unsigned char *s, size_t *i, size_t n, struct tmq_error *e)
{
	size_t k = *i;

	if (k < n && s[k] == '-')
		k++;
	if (k < n && s[k] == '0')
		k++;
	else if (k >= n || s[k] < '1' || s[k] > '9' || digits(s, &k, n) < 0)
		return not_a_number(s, *i, n, e);
	if (k < n && s[k] == '.') {
		k++;
		if (digits(s, &k, n) < 0)
			return tmq_fail(e, "bad number at byte %zu", *i + 1);
	}
	if (k < n && (s[k] == 'e' || s[k] == 'E')) {
		k++;
		if (k < n && (s[k] == '+' || s[k] == '-'))
			k++;
		if (digits(s, &k, n) < 0)
			return tmq_fail(e, "bad number at byte %zu", *i + 1);
	}
	*i = k;
	return 0;
}

int
tmq_json_strict_object(const unsigned char *s, size_t n, struct tmq_error *e)
{
	enum { VALUE, VALUE_OR_END, KEY, KEY_OR_END, COLON, NEXT } st = VALUE;
	char stack[STRICT_DEPTH_MAX];
	size_t depth = 0, i;

	i = skip_space(s, 0, n);
	if (i >= n || s[i] != '{')
		return tmq_fail_code(e, TMQ_ERR_NOTJSON, "not a JSON object");
	for (;;) {
		unsigned char c;

		i = skip_space(s, i, n);
		if (st == NEXT && depth == 0)
			break;
		if (i >= n)
			return tmq_fail(e, "unexpected end");
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
			if (c == '{' || c == '[') {
				if (depth == STRICT_DEPTH_MAX)
					return tmq_fail(e, "nested deeper than "
					    "%d at byte %zu", STRICT_DEPTH_MAX,
					    i + 1);
				stack[depth++] = (char)c;
				i++;
				st = c == '{' ? KEY_OR_END : VALUE_OR_END;
				break;
			}
			st = NEXT;
			if (c == '"') {
				if (strict_string(s, &i, n, e) < 0)
					return -1;
			} else if (c == '-' || (c >= '0' && c <= '9')) {
				if (strict_number(s, &i, n, e) < 0)
					return -1;
			} else if (n - i >= 4 && memcmp(s + i, "true", 4) == 0)
				i += 4;
			else if (n - i >= 5 && memcmp(s + i, "false", 5) == 0)
				i += 5;
			else if (n - i >= 4 && memcmp(s + i, "null", 4) == 0)
				i += 4;
			else if (c == 'N' || c == 'I')
				return not_a_number(s, i, n, e);
			else
				return tmq_fail(e, "unexpected '%c' at byte %zu",
				    c >= 0x20 && c < 0x7f ? c : '?', i + 1);
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
			if (c != '"')
				return tmq_fail(e, "expected a string key at byte "
				    "%zu", i + 1);
			if (strict_string(s, &i, n, e) < 0)
				return -1;
			st = COLON;
			break;
		case COLON:
			if (c != ':')
				return tmq_fail(e, "expected ':' at byte %zu",
				    i + 1);
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
			} else
				return tmq_fail(e, "expected ',' or '%c' at byte "
				    "%zu", stack[depth - 1] == '{' ? '}' : ']',
				    i + 1);
			break;
		}
	}
	if (i != n)
		return tmq_fail(e, "text after the object at byte %zu", i + 1);
	if (!tmq_utf8_valid(s, n))
		return tmq_fail(e, "not valid UTF-8");
	return 0;
}
