/* keys.c: key types and key values (see keys.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/base85.h"
#include "codec/keys.h"
#include "util/unescape.h"
#include "util/utf8.h"

int
tmq_keytype_valid(int width)
{
	return width == 1 || width == 2 || width == 4 || width == 8 ||
	    (width < 0 && width >= -TMQ_KEY_MAX_BYTES);
}

int
tmq_keytype_parse(const char *s, int *width, struct tmq_error *e)
{
	if (strcmp(s, "u8") == 0)
		*width = 1;
	else if (strcmp(s, "u16") == 0)
		*width = 2;
	else if (strcmp(s, "u32") == 0)
		*width = 4;
	else if (strcmp(s, "u64") == 0)
		*width = 8;
	else if (strncmp(s, "char", 4) == 0 && s[4] >= '1' && s[4] <= '9' &&
	    strspn(s + 4, "0123456789") == strlen(s + 4) && strlen(s + 4) <= 4 &&
	    atoi(s + 4) <= TMQ_KEY_MAX_BYTES)
		*width = -atoi(s + 4);
	else
		return tmq_fail(e, "'%s': bad key type (u8, u16, u32, u64 or "
		    "charN with N from 1 to %d)", s, TMQ_KEY_MAX_BYTES);
	return 0;
}

const char *
tmq_keytype_name(int width, char *buf, size_t bufsz)
{
	if (width < 0)
		snprintf(buf, bufsz, "char%d", -width);
	else
		snprintf(buf, bufsz, "u%d", width * 8);
	return buf;
}

size_t
tmq_key_bytes(int width)
{
	return width < 0 ? (size_t)-width : (size_t)width;
}

size_t
tmq_key_chars(int width)
{
	return tmq_b85_enclen(tmq_key_bytes(width));
}

void
tmq_key_from_u64(int width, uint64_t v, unsigned char *out)
{
	int i;

	for (i = width - 1; i >= 0; i--, v >>= 8)
		out[i] = (unsigned char)v;
}

uint64_t
tmq_key_to_u64(int width, const unsigned char *key)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < width; i++)
		v = v << 8 | key[i];
	return v;
}

size_t
tmq_key_strlen(int width, const unsigned char *key)
{
	size_t n = (size_t)-width;

	while (n > 0 && key[n - 1] == 0)
		n--;
	return n;
}

int
tmq_key_parse(int width, const char *s, size_t n, unsigned char *out,
    struct tmq_error *e)
{
	char tn[16];

	if (width < 0) {
		size_t w = (size_t)-width;

		if (!tmq_utf8_valid((const unsigned char *)s, n))
			return tmq_fail(e, "key is not valid UTF-8");
		if (memchr(s, '\0', n) != NULL)
			return tmq_fail(e, "key contains a NUL byte");
		if (n > w)
			return tmq_fail(e, "key '%.*s' is %zu bytes, wider than %s",
			    (int)(n > 64 ? 64 : n), s, n,
			    tmq_keytype_name(width, tn, sizeof tn));
		memcpy(out, s, n);
		memset(out + n, 0, w - n);
		return 0;
	} else {
		uint64_t v = 0, max;
		size_t i;

		max = width == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * width)) - 1;
		if (n == 0)
			return tmq_fail(e, "empty key");
		for (i = 0; i < n; i++) {
			unsigned d = (unsigned char)s[i] - '0';

			if (d > 9)
				return tmq_fail(e, "key '%.*s' is not an unsigned "
				    "integer", (int)(n > 64 ? 64 : n), s);
			if (v > (max - d) / 10)
				return tmq_fail(e, "key '%.*s' out of range for "
				    "%s (0 to %llu)", (int)(n > 64 ? 64 : n), s,
				    tmq_keytype_name(width, tn, sizeof tn),
				    (unsigned long long)max);
			v = v * 10 + d;
		}
		tmq_key_from_u64(width, v, out);
		return 0;
	}
}

size_t
tmq_key_format(int width, const unsigned char *key, char *buf)
{
	if (width < 0) {
		size_t n = tmq_key_strlen(width, key);

		memcpy(buf, key, n);
		return n;
	} else {
		char tmp[24];
		uint64_t v = tmq_key_to_u64(width, key);
		int i = 24;

		do {
			tmp[--i] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		memcpy(buf, tmp + i, (size_t)(24 - i));
		return (size_t)(24 - i);
	}
}

int
tmq_key_delimiter_parse(const char *arg, char **sep, size_t *len,
    struct tmq_error *e)
{
	/* An empty one would make KEY and PAYLOAD one word, which no reader
	 * could split again. */
	if (*arg == '\0')
		return tmq_fail(e, "empty key delimiter");
	return tmq_unescape(arg, sep, len, e);
}
