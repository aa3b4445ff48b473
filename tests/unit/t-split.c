/* t-split.c: lib/util/split: every word of a list kept, empty ones too,
 * in one block. */
#include <stdlib.h>
#include <string.h>

#include "util/split.h"
#include "tap.h"

/* s splits into the words of want, joined by '|'. */
static void
splits(const char *s, int sep, const char *want, unsigned n)
{
	struct tmq_error e;
	char **v, got[256] = "";
	unsigned k, i;

	if (tmq_split(s, sep, &v, &k, &e) < 0) {
		ok(0, "'%s': %s", s, e.msg);
		return;
	}
	for (i = 0; i < k; i++) {
		if (i)
			strcat(got, "|");
		strcat(got, v[i]);
	}
	is_int(k, n, "'%s': %u words", s, n);
	is_str(got, want, "'%s': %s", s, want);
	free(v);
}

int
main(void)
{
	char src[] = "a,b";
	struct tmq_error e;
	char **v;
	unsigned n;

	splits("A,B,C", ',', "A|B|C", 3);
	splits("A", ',', "A", 1);
	splits("", ',', "", 1);
	splits("A,,B", ',', "A||B", 3);
	splits(",", ',', "|", 2);
	splits("a b", ' ', "a|b", 2);
	/* The words are a copy: the argument is left as it was. */
	if (tmq_split(src, ',', &v, &n, &e) == 0) {
		src[0] = 'x';
		is_str(v[0], "a", "the words are a copy");
		is_str(src, "x,b", "the argument is not cut");
		free(v);
	}
	return done_testing();
}
