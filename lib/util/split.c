/* split.c: words of a list argument (see split.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/split.h"

int
tmq_split(const char *s, int sep, char ***v, unsigned *n,
    struct tmq_error *e)
{
	size_t len = strlen(s), cnt = 1, i, k;
	char **w, *text;

	for (i = 0; i < len; i++)
		cnt += s[i] == sep;
	if (cnt > UINT32_MAX || cnt > (SIZE_MAX - len - 1) / sizeof *w)
		return tmq_fail(e, "too many words");
	w = malloc(cnt * sizeof *w + len + 1);
	if (w == NULL)
		return tmq_fail(e, "out of memory");
	text = (char *)(w + cnt);
	memcpy(text, s, len + 1);
	w[0] = text;
	for (i = 0, k = 1; i < len; i++)
		if (text[i] == sep) {
			text[i] = '\0';
			w[k++] = text + i + 1;
		}
	*v = w;
	*n = (unsigned)cnt;
	return 0;
}
