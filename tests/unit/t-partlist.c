/* t-partlist.c: lib/flow/partlist: -P lists parsed into each partition once, in
 * increasing order; every malformed list refused with a message that
 * quotes it; the check against a topic's partitions. */
#include <stdlib.h>
#include <string.h>

#include "flow/partlist.h"
#include "tap.h"

/* The list s parses to want ("0,1,3"). */
static void
good(const char *s, const char *want)
{
	struct tmq_error e;
	unsigned *v = NULL, n = 0, i;
	char got[256] = "";
	size_t len = 0;

	if (tmq_partlist_parse(s, &v, &n, &e) < 0) {
		ok(0, "'%s' parses: %s", s, e.msg);
		return;
	}
	for (i = 0; i < n && len < sizeof got - 12; i++)
		len += (size_t)snprintf(got + len, sizeof got - len, "%s%u",
		    i ? "," : "", v[i]);
	is_str(got, want, "'%s' is %s", s, want);
	free(v);
}

/* The list s is refused with message want. */
static void
bad(const char *s, const char *want)
{
	struct tmq_error e;
	unsigned *v = NULL, n = 0;

	if (tmq_partlist_parse(s, &v, &n, &e) == 0) {
		ok(0, "'%s' is refused", s);
		free(v);
		return;
	}
	is_str(e.msg, want, "'%s' is refused", s);
}

int
main(void)
{
	struct tmq_error e;
	unsigned v[] = { 0, 2, 3 };

	good("0", "0");
	good("1-3", "1,2,3");
	good("3,0-1", "0,1,3");
	good("1-2,0", "0,1,2");
	good("2,2,1-2", "1,2");
	good("0-0", "0");
	good("65535", "65535");
	bad("", "'': empty partition list");
	bad("a", "'a': 'a' is not a partition number");
	bad("0,a-3", "'0,a-3': 'a' is not a partition number");
	bad("2-1", "'2-1': range 2-1 runs backwards");
	bad("1,,2", "'1,,2': empty element");
	bad(",1", "',1': empty element");
	bad("1,", "'1,': empty element");
	bad("1-", "'1-': '' is not a partition number");
	bad("-1", "'-1': '' is not a partition number");
	bad("0-1-2", "'0-1-2': '1-2' is not a partition number");
	bad("+1", "'+1': '+1' is not a partition number");
	bad(" 1", "' 1': ' 1' is not a partition number");
	bad("65536", "'65536': no topic has partition 65536 (at most 65536 "
	    "partitions)");
	bad("0-700000", "'0-700000': no topic has partition 700000 (at most "
	    "65536 partitions)");
	bad("99999999999999999999999", "'99999999999999999999999': "
	    "'99999999999999999999999' is not a partition number");
	is_int(tmq_partlist_check(v, 3, 4, &e), 0, "0,2,3 in 4 partitions");
	is_int(tmq_partlist_check(v, 3, 3, &e), -1, "0,2,3 not in 3");
	is_str(e.msg, "partition 3 does not exist (topic has 3)",
	    "the largest is named");
	return done_testing();
}
