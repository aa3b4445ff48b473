/* argsplit.c: a command line split into words as xargs does (argsplit.h). */
#include <stdlib.h>
#include <string.h>

#include "util/argsplit.h"

static int
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	    c == '\f';
}

int
tmq_argsplit(const char *s, char ***argv, int *argc, struct tmq_error *e)
{
	size_t len = strlen(s), nwords = 0, i = 0;
	char **v, *w;
	int in_word = 0;
	char quote = 0;

	/* At most len/2 + 1 words, each at most its text plus a NUL. */
	v = malloc((len / 2 + 2) * sizeof *v + len + len / 2 + 2);
	if (v == NULL)
		return tmq_fail(e, "out of memory");
	w = (char *)(v + len / 2 + 2);
	while (i < len) {
		char c = s[i++];

		if (quote != 0) {
			if (c == quote)
				quote = 0;
			else
				*w++ = c;
			continue;
		}
		if (blank(c)) {
			if (in_word) {
				*w++ = '\0';
				in_word = 0;
			}
			continue;
		}
		if (!in_word) {
			v[nwords++] = w;
			in_word = 1;
		}
		if (c == '\'' || c == '"')
			quote = c;
		else if (c == '\\') {
			if (i == len) {
				free(v);
				return tmq_fail(e, "a backslash ends the "
				    "command");
			}
			*w++ = s[i++];
		} else
			*w++ = c;
	}
	if (quote != 0) {
		free(v);
		return tmq_fail(e, "unmatched %s quote in the command",
		    quote == '\'' ? "single" : "double");
	}
	if (in_word)
		*w++ = '\0';
	if (nwords == 0) {
		free(v);
		return tmq_fail(e, "the command is empty");
	}
	v[nwords] = NULL;
	*argv = v;
	*argc = (int)nwords;
	return 0;
}
