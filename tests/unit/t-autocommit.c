/* t-autocommit.c: lib/group/autocommit: when tmq-get -g G --commit
 * commits: after every TMQ_AC_MESSAGES messages delivered, and, when
 * there is nothing to read, once TMQ_AC_SECONDS have passed since the
 * last commit; never without --commit. */
#include "group/autocommit.h"
#include "tap.h"

int
main(void)
{
	struct tmq_autocommit ac;
	unsigned i, due = 0;

	tmq_ac_init(&ac, 1, 100.0);
	for (i = 1; i < TMQ_AC_MESSAGES; i++)
		due += (unsigned)tmq_ac_count(&ac);
	is_int(due, 0, "%u messages: no commit due yet", TMQ_AC_MESSAGES - 1);
	is_int(tmq_ac_count(&ac), 1, "the %uth makes one due",
	    TMQ_AC_MESSAGES);
	ok(!tmq_ac_due(&ac, 100.0 + TMQ_AC_SECONDS - 0.001),
	    "nothing to read, just under %g s since: not due", TMQ_AC_SECONDS);
	ok(tmq_ac_due(&ac, 100.0 + TMQ_AC_SECONDS),
	    "nothing to read, %g s since: due", TMQ_AC_SECONDS);

	/* What a commit resets (tmq_ac_commit does it after committing). */
	ac.last = 200.0;
	ac.since = 0;
	ok(!tmq_ac_due(&ac, 200.5), "after a commit, the clock starts again");
	is_int(tmq_ac_count(&ac), 0, "  and so does the count");

	tmq_ac_init(&ac, 0, 100.0);
	for (i = 0; i < 3 * TMQ_AC_MESSAGES; i++)
		due += (unsigned)tmq_ac_count(&ac);
	is_int(due, 0, "without --commit: never due by count");
	ok(!tmq_ac_due(&ac, 1e9), "  nor by the clock");
	return done_testing();
}
