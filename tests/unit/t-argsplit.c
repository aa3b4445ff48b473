/* t-argsplit.c: lib/util/argsplit: --exec's command split as xargs
 * splits: blanks, quotes, backslashes, and nothing else special. */
#include <stdlib.h>

#include "util/argsplit.h"
#include "tap.h"

static char **v;
static int n;

static int
split(const char *s)
{
	struct tmq_error e;

	free(v);
	v = NULL;
	return tmq_argsplit(s, &v, &n, &e);
}

int
main(void)
{
	struct tmq_error e;

	ok(split("echo hello  world") == 0 && n == 3, "three words");
	is_str(v[0], "echo", "the command");
	is_str(v[2], "world", "blanks collapse");
	ok(v[3] == NULL, "NULL-ended");
	ok(split("  sh -c 'echo $TMQ_KEY; x'  ") == 0 && n == 3, "quoted");
	is_str(v[2], "echo $TMQ_KEY; x", "single quotes keep blanks and $");
	ok(split("a\" b \"c d\\ e f\\'g") == 0 && n == 3, "mixed");
	is_str(v[0], "a b c", "double quotes join a word");
	is_str(v[1], "d e", "a backslash keeps a blank");
	is_str(v[2], "f'g", "and a quote");
	ok(split("x '' y") == 0 && n == 3, "an empty quoted word");
	is_str(v[1], "", "is kept");
	ok(split("$(touch /tmp/x) `y` ; | &") == 0 && n == 6, "no shell");
	is_str(v[0], "$(touch", "$( is text");
	ok(split("a 'b") < 0, "unmatched single quote");
	ok(tmq_argsplit("a \"b", &v, &n, &e) < 0, "unmatched double quote");
	is_str(e.msg, "unmatched double quote in the command", "said");
	v = NULL;
	ok(tmq_argsplit("a\\", &v, &n, &e) < 0, "trailing backslash");
	is_str(e.msg, "a backslash ends the command", "said");
	ok(tmq_argsplit(" \t ", &v, &n, &e) < 0, "empty");
	is_str(e.msg, "the command is empty", "said");
	ok(split("''") == 0 && n == 1 && v[0][0] == '\0', "one empty word");
	free(v);
	return done_testing();
}
