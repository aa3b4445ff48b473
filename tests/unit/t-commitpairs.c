/* t-commitpairs.c: lib/group/commitpairs: tmq-commit's PARTITION OFFSET
 * pairs: each bad one kept with its message and told in input order; the
 * batch made one COMMIT of the highest position of each partition; --next
 * taking the numbers as positions to resume at. */
#include <stdlib.h>
#include <string.h>

#include "group/commitpairs.h"
#include "store/root.h"
#include "tap.h"

#define BAIL_OUT(...) do { printf("Bail out! "); printf(__VA_ARGS__); \
	putchar('\n'); exit(1); } while (0)

static char told[2048];

static void
tell(void *arg, const struct tmq_cpair *pr, const char *msg)
{
	size_t n = strlen(told);

	(void)arg;
	snprintf(told + n, sizeof told - n, "%lu: %s;", pr->recno, msg);
}

/* The pair ps os is refused, as want. */
static void
refused(const char *ps, const char *os, const char *want)
{
	struct tmq_cpairs pp = { 0 };
	struct tmq_error e;
	char w[300];

	is_int(tmq_cpairs_take(&pp, ps, os, 3, &e), 1, "'%s %s' is bad",
	    ps ? ps : "(none)", os ? os : "");
	told[0] = '\0';
	is_int(tmq_cpairs_check(&pp, NULL, tell, NULL, &e), 1,
	    "and the check says so");
	snprintf(w, sizeof w, "3: %s;", want);
	is_str(told, w, "as '%s'", want);
	tmq_cpairs_free(&pp);
}

int
main(void)
{
	struct tmq_cpairs pp = { 0 };
	struct tmq_error e;
	struct tmq_poff *po;
	struct tmq_topic t;
	char dir[] = "/tmp/t-commitpairs.XXXXXX", cmd[64];
	unsigned n;
	int rootfd;

	refused(NULL, NULL, "want PARTITION OFFSET");
	refused("-1", "5", "partition '-1' is negative");
	refused("1", "-5", "offset '-5' is negative");
	refused("x", "5", "'x': not a number");
	refused("1", "5x", "'5x': not a number");
	refused("", "5", "'': not a number");
	refused("4294967296", "5", "'4294967296': out of range (0 to "
	    "4294967295)");
	refused("1", "9223372036854775807", "'9223372036854775807': out of "
	    "range (0 to 9223372036854775806)");
	refused("1", "99999999999999999999", "'99999999999999999999': number "
	    "too large");
	refused("65536", "0", "partition 65536 does not exist");

	/* A batch: the highest of each partition, in partition order; bad
	 * pairs told in input order, every one. */
	is_int(tmq_cpairs_take(&pp, "2", "10", 1, &e), 0, "2 10 is good");
	is_int(tmq_cpairs_take(&pp, "0", "7", 2, &e), 0, "0 7 is good");
	is_int(tmq_cpairs_take(&pp, "2", "4", 3, &e), 0, "2 4 is good");
	is_int(tmq_cpairs_take(&pp, "2", "12", 4, &e), 0, "2 12 is good");
	is_int(tmq_cpairs_take(&pp, "0", "0", 5, &e), 0, "0 0 is good");
	told[0] = '\0';
	is_int(tmq_cpairs_check(&pp, NULL, tell, NULL, &e), 0,
	    "a good batch passes the check of its form");
	is_str(told, "", "and nothing is told");
	if (tmq_cpairs_reduce(&pp, &po, &n, &e) < 0)
		BAIL_OUT("reduce: %s", e.msg);
	is_int(n, 2, "two partitions are committed");
	is_int(po[0].partition, 0, "partition 0 first");
	is_int(po[0].offset, 8, "done up to 7: resume at 8");
	is_int(po[1].partition, 2, "then partition 2");
	is_int(po[1].offset, 13, "the highest, 12, + 1");
	free(po);
	tmq_cpairs_clear(&pp);
	is_int(pp.n, 0, "clear empties the batch");

	pp.next = 1;
	tmq_cpairs_take(&pp, "1", "0", 1, &e);
	tmq_cpairs_take(&pp, "1", "3", 2, &e);
	if (tmq_cpairs_reduce(&pp, &po, &n, &e) < 0)
		BAIL_OUT("reduce: %s", e.msg);
	is_int(n, 1, "--next: one partition");
	is_int(po[0].offset, 3, "--next: the number is where to resume");
	free(po);
	tmq_cpairs_clear(&pp);

	pp.next = 0;
	tmq_cpairs_take(&pp, "1", "3", 1, &e);
	tmq_cpairs_take(&pp, "x", "3", 2, &e);
	tmq_cpairs_take(&pp, "1", "4", 3, &e);
	tmq_cpairs_take(&pp, "-2", "3", 4, &e);
	told[0] = '\0';
	is_int(tmq_cpairs_check(&pp, NULL, tell, NULL, &e), 1,
	    "a batch with bad pairs fails the check");
	is_str(told, "2: 'x': not a number;4: partition '-2' is negative;",
	    "each bad pair told, in input order");
	tmq_cpairs_free(&pp);
	ok(pp.v == NULL && pp.n == 0, "free leaves nothing");

	/* Against a topic: a partition it has not, an offset past its end;
	 * the end read from the partition's files (an empty topic: 0). */
	if (mkdtemp(dir) == NULL || tmq_root_open(dir, 0, &rootfd, &e) < 0 ||
	    tmq_topic_create(rootfd, "t", 4, 3, NULL, 0, NULL, &e) < 0 ||
	    tmq_topic_open(rootfd, "t", &t, &e) < 0)
		BAIL_OUT("setup: %s", e.msg);
	tmq_cpairs_take(&pp, "0", "0", 1, &e);
	tmq_cpairs_take(&pp, "3", "0", 2, &e);
	tmq_cpairs_take(&pp, "2", "4", 3, &e);
	told[0] = '\0';
	is_int(tmq_cpairs_check(&pp, &t, tell, NULL, &e), 1,
	    "against the topic: bad pairs fail the check");
	is_str(told, "1: partition 0: offset 0 is beyond the end (0);"
	    "2: partition 3 does not exist (topic has 3);"
	    "3: partition 2: offset 4 is beyond the end (0);",
	    "each said with what is wrong");
	tmq_cpairs_clear(&pp);
	pp.next = 1;
	tmq_cpairs_take(&pp, "2", "0", 1, &e);
	told[0] = '\0';
	is_int(tmq_cpairs_check(&pp, &t, tell, NULL, &e), 0,
	    "--next 0 on an empty partition is at its end: good");
	tmq_cpairs_free(&pp);
	tmq_topic_close(&t);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);

	/* An empty batch commits nothing. */
	if (tmq_cpairs_reduce(&pp, &po, &n, &e) < 0)
		BAIL_OUT("reduce: %s", e.msg);
	is_int(n, 0, "an empty batch is no commit");
	free(po);
	return done_testing();
}
