/* unescape.c: resolving \n \t \r \0 \\ in command-line text (see
 * unescape.h); tmq-put -K, tmq-get -K and tmq-get -F share it. */
#include <stdlib.h>
#include <string.h>

#include "util/unescape.h"

int
tmq_unescape_one(const char **p, char *c, struct tmq_error *e)
{
	char d = **p;

	switch (d) {
	case 'n': *c = '\n'; break;
	case 't': *c = '\t'; break;
	case 'r': *c = '\r'; break;
	case '0': *c = '\0'; break;
	case '\\': *c = '\\'; break;
	case '\0':
		return tmq_fail(e, "'\\' at the end");
	default:
		/* Refused rather than kept: '\q' kept as is would make a
		 * later '\q' escape change what old scripts meant. */
		return tmq_fail(e, "unknown escape '\\%c'", d);
	}
	(*p)++;
	return 0;
}

int
tmq_unescape(const char *s, char **out, size_t *len, struct tmq_error *e)
{
	char *buf = malloc(strlen(s) + 1);
	size_t n = 0;

	if (buf == NULL)
		return tmq_fail(e, "out of memory");
	while (*s) {
		char c = *s++;

		if (c == '\\' && tmq_unescape_one(&s, &c, e) < 0) {
			free(buf);
			return -1;
		}
		buf[n++] = c;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}
