/* t-groupadmin.c: lib/group/groupadmin: what tmq-group, tmq-commit and
 * tmq-topic delete do to a group: the reset plan (its base, the shift,
 * the clamp to what is on disk, the partitions chosen), the "N members
 * are active" rule, the --max-lag check, and a group loaded with its
 * topic, counted and deleted in a root on disk. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "group/groupadmin.h"
#include "store/root.h"
#include "tap.h"

#define BAIL_OUT(...) do { printf("Bail out! "); printf(__VA_ARGS__); \
	putchar('\n'); exit(1); } while (0)

/* Three partitions: one committed at 5 (on disk 2 to 10), one never
 * committed (3 to 8), one committed "now" (0 to 6). */
static struct tmq_gpart parts[3] = {
	{ .partition = 0, .committed = 5, .first = 2, .end = 10, .lag = 5 },
	{ .partition = 1, .committed = TMQ_NOT_COMMITTED, .first = 3,
	    .end = 8, .lag = 5 },
	{ .partition = 2, .committed = -1, .first = 0, .end = 6 },
};
static struct tmq_ginfo gi = { .parts = parts, .nparts = 3 };
static struct tmq_topic topic = { .name = "t", .dirfd = -1,
    .partitions = 3 };

/* The plan for sel (NULL: all), to and shift is want ("P=O P=O"). */
static void
plan_is(const unsigned *sel, unsigned n, const struct tmq_position *to,
    int64_t shift, const char *want, const char *what)
{
	struct tmq_poff po[3];
	struct tmq_error e;
	char got[200] = "";
	size_t len = 0;
	unsigned i;

	if (tmq_reset_plan("g", &topic, &gi, sel, n, to, shift, po, &e) < 0) {
		ok(0, "%s: %s", what, e.msg);
		return;
	}
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(got + len, sizeof got - len, "%s%u=%lld",
		    i ? " " : "", po[i].partition, (long long)po[i].offset);
	is_str(got, want, "%s", what);
}

static void
test_plan(void)
{
	struct tmq_position to = { 0 };
	struct tmq_poff po[3];
	struct tmq_error e;
	unsigned sel[] = { 0, 2 }, past[] = { 1, 3 };

	plan_is(NULL, 3, NULL, 0, "0=5 1=3 2=6", "from the committed offset; "
	    "one never committed from the first on disk; 'now' from the end");
	plan_is(NULL, 3, NULL, -4, "0=2 1=3 2=2",
	    "shifted back, clamped to the first offset on disk");
	plan_is(NULL, 3, NULL, 100, "0=10 1=8 2=6",
	    "shifted on, clamped to the end");
	to.kind = TMQ_POS_START;
	plan_is(NULL, 3, &to, 0, "0=2 1=3 2=0", "--to start");
	plan_is(NULL, 3, &to, 1, "0=3 1=4 2=1", "--to start --shift-by 1");
	to.kind = TMQ_POS_NOW;
	plan_is(NULL, 3, &to, 0, "0=10 1=8 2=6", "--to now");
	plan_is(NULL, 3, &to, -2, "0=8 1=6 2=4", "--to now --shift-by -2");
	to.kind = TMQ_POS_OFFSET;
	to.n = 4;
	plan_is(NULL, 3, &to, 0, "0=4 1=4 2=4", "--to 4");
	to.n = 9;
	plan_is(NULL, 3, &to, 0, "0=9 1=8 2=6", "--to 9, clamped");
	to.kind = TMQ_POS_TAIL;
	to.n = 3;
	plan_is(NULL, 3, &to, 0, "0=7 1=5 2=3", "--to -3: 3 before the end");
	to.n = 100;
	plan_is(NULL, 3, &to, 0, "0=2 1=3 2=0", "--to -100, clamped");
	plan_is(sel, 2, NULL, 1, "0=6 2=6", "-P 0,2: only those");
	is_int(tmq_reset_plan("g", &topic, &gi, past, 2, NULL, 0, po, &e), -1,
	    "-P naming a partition the topic has not is refused");
	is_str(e.msg, "g: partition 3 does not exist (topic has 3)",
	    "  naming the group and the partition");
	gi.nparts = 2;
	is_int(tmq_reset_plan("g", &topic, &gi, NULL, 3, NULL, 0, po, &e), -1,
	    "a partition without figures is refused");
	is_str(e.msg, "g: partition 2 has no figures", "  saying which");
	gi.nparts = 3;
}

static void
test_rules(void)
{
	struct tmq_error e;

	is_int(tmq_group_check_idle("g", 0, &e), 0, "no member active: idle");
	is_int(tmq_group_check_idle("g", 1, &e), -1, "one member: not idle");
	is_str(e.msg, "g: 1 member is active: stop it or use --force",
	    "  said in the singular");
	is_int(tmq_group_check_idle("g", 3, &e), -1, "three: not idle");
	is_str(e.msg, "g: 3 members are active: stop them or use --force",
	    "  said in the plural");

	is_int(tmq_ginfo_check_lag("g", &gi, 0, 5, &e), 0,
	    "--max-lag 5: a lag of 5 passes");
	is_int(tmq_ginfo_check_lag("g", &gi, 0, 4, &e), -1,
	    "--max-lag 4: a lag of 5 fails");
	is_str(e.msg, "g: partition 0 lags by 5 (more than 4)", "  saying so");
	parts[1].range = TMQ_BEFORE_FIRST;
	parts[1].committed = 1;
	is_int(tmq_ginfo_check_lag("g", &gi, 1, UINT64_MAX, &e), -1,
	    "out of range fails whatever N");
	is_str(e.msg, "group g: partition 1: committed offset 1 is out of "
	    "range, before the first offset (3)", "  in the words used "
	    "everywhere");
	parts[1].range = TMQ_IN_RANGE;
	parts[1].committed = TMQ_NOT_COMMITTED;
}

/* A group on disk: loaded with its topic, its members counted, deleted. */
static void
test_root(void)
{
	char dir[] = "/tmp/t-groupadmin.XXXXXX", cmd[80];
	struct tmq_group g;
	struct tmq_topic t, t2;
	struct tmq_error e;
	unsigned active = 99;
	int rootfd;

	if (mkdtemp(dir) == NULL || tmq_root_open(dir, 0, &rootfd, &e) < 0 ||
	    tmq_topic_create(rootfd, "t", 4, 3, NULL, 0, NULL, &e) < 0 ||
	    tmq_topic_open(rootfd, "t", &t, &e) < 0 ||
	    tmq_group_create(rootfd, "g", &t, 0, &e) < 0)
		BAIL_OUT("setup: %s", e.msg);
	is_int(tmq_group_observe(rootfd, "g", NULL, &g, &e), 0, "the group loads");
	is_str(g.topic, "t", "  its topic is recorded");
	is_int(tmq_group_open_topic(rootfd, &g, &t2, &e), 0,
	    "  and opens");
	is_int(t2.partitions, 3, "  with its 3 partitions");
	tmq_topic_close(&t2);
	tmq_group_close(&g);

	g.name = (char *)"h";
	g.topic = NULL;
	is_int(tmq_group_open_topic(rootfd, &g, &t2, &e), -1,
	    "a group whose topic is not recorded: no topic");
	is_str(e.msg, "h: the group's topic is not recorded: name it with -t",
	    "  saying what to do");

	is_int(tmq_group_delete_active(rootfd, "g", &active, &e), 0,
	    "the members a delete would leave are counted");
	is_int(active, 0, "  none");
	is_int(tmq_group_delete(rootfd, "g", &e), 0, "the group is deleted");
	ok(!tmq_topic_exists(rootfd, "--group--g"), "  its log is gone");
	is_int(tmq_group_observe(rootfd, "g", NULL, &g, &e), -1,
	    "  and it loads no more");
	is_int(tmq_group_delete_active(rootfd, "nosuch", &active, &e), -1,
	    "no such group: not counted");
	tmq_topic_close(&t);
	close(rootfd);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
}

int
main(void)
{
	test_plan();
	test_rules();
	test_root();
	return done_testing();
}
