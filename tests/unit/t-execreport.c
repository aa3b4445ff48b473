/* t-execreport.c: lib/group/execreport: a --exec member's report as text
 * and back, and the texts a reader takes for none (cut, forged, or not
 * exactly so). */
#include <string.h>

#include "tap.h"
#include "group/execreport.h"

static int
parses(const char *text)
{
	struct tmq_xreport r;
	int rc = tmq_xreport_parse(text, strlen(text), &r);

	tmq_xreport_free(&r);
	return rc;
}

int
main(void)
{
	struct tmq_xrun runs[2] = {
		{ .partition = 3, .offset = 12345678901ULL, .attempt = 2,
		    .started = 1796300609.831 },
		{ .partition = 65535, .offset = 0, .attempt = 1,
		    .started = 0.5 },
	};
	struct tmq_xreport r = { .run = 40, .retried = 3, .dead = 1,
	    .v = runs, .n = 2 }, back;
	char buf[256], small[40];
	size_t len;

	len = tmq_xreport_format(&r, buf, sizeof buf);
	is_str(buf, "exec 40 3 1\nrun 3 12345678901 2 1796300609.831\n"
	    "run 65535 0 1 0.500\nend\n", "the text");
	is_int((int)len, (int)strlen(buf), "its length");
	is_int(tmq_xreport_parse(buf, len, &back), 1, "read back");
	is_u64(back.run, 40, "commands run");
	is_u64(back.retried, 3, "retried");
	is_u64(back.dead, 1, "dead-lettered");
	is_int((int)back.n, 2, "two running");
	ok(back.n == 2 && back.v[0].partition == 3 &&
	    back.v[0].offset == 12345678901ULL && back.v[0].attempt == 2 &&
	    back.v[0].started > 1796300609.830 &&
	    back.v[0].started < 1796300609.832, "the first as it was");
	ok(back.n == 2 && back.v[1].partition == 65535 &&
	    back.v[1].started == 0.5, "the second as it was");
	tmq_xreport_free(&back);
	is_int((int)tmq_xreport_format(&r, small, sizeof small), 0,
	    "a buffer too small: none");

	is_int(parses("exec 0 0 0\nend\n"), 1, "nothing running");
	is_int(parses("exec 0 0 0\nend\nrun 1 2 3 4.000\n"), 1,
	    "what follows its end is not read (an older, longer text's tail)");
	is_int(parses("exec 0 0 0\n"), 0, "no end: cut, none");
	is_int(parses("exec 0 0 0\nrun 1 2 3 4.000\n"), 0, "a run, no end");
	is_int(parses("exec 0 0 0\nrun 1 2 3 4.00\nend\n"), 0,
	    "a time without its three decimals");
	is_int(parses("exec 01 0 0\nend\n"), 0, "a leading zero");
	is_int(parses("exec -1 0 0\nend\n"), 0, "a sign");
	is_int(parses("exec 18446744073709551616 0 0\nend\n"), 0,
	    "a count past 64 bits");
	is_int(parses("exec 0 0 0\nrun 65536 0 1 1.000\nend\n"), 0,
	    "a partition past 65535");
	is_int(parses("exec 0 0 0\nrun 0 0 0 1.000\nend\n"), 0,
	    "attempt 0");
	is_int(parses("exec 0 0 0\nrun 0 0 1 1.000 \nend\n"), 0,
	    "a blank too many");
	is_int(parses("exec 0 0\nend\n"), 0, "a count missing");
	is_int(parses("EXEC 0 0 0\nend\n"), 0, "another word");
	is_int(parses(""), 0, "empty");
	is_int(parses("exec 0 0 0\nrun 0 0 1 1.000\nend"), 0,
	    "an end without its newline");
	return done_testing();
}
