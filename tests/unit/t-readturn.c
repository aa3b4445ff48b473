/* t-readturn.c: lib/group/readturn: the reading loop's decisions, without
 * a root: when a member polls its group before a read, what an idle turn
 * leads to for a plain reader, a follower and a member, how long it
 * sleeps, and what a failure of the group's log means. */
#include "group/readturn.h"
#include "tap.h"

/* An idle turn's state, from a word of letters: g grouped, n new share,
 * d done, a all failed, s settled, f follow, u have --until, p past it. */
static enum tmq_idle_next
idle(const char *w)
{
	struct tmq_idle s = { 0 };

	for (; *w != '\0'; w++)
		switch (*w) {
		case 'g': s.grouped = 1; break;
		case 'n': s.new_share = 1; break;
		case 'd': s.done = 1; break;
		case 'a': s.all_failed = 1; break;
		case 's': s.settled = 1; break;
		case 'f': s.follow = 1; break;
		case 'u': s.have_until = 1; break;
		case 'p': s.past_until = 1; break;
		}
	return tmq_idle_next(&s);
}

int
main(void)
{
	/* Before a read: at the first record, then every 1024 delivered. */
	ok(tmq_turn_poll_before_read(0), "a member polls before its first read");
	ok(!tmq_turn_poll_before_read(1), "not after one record");
	ok(!tmq_turn_poll_before_read(1023), "not after 1023");
	ok(tmq_turn_poll_before_read(1024), "again after 1024");
	ok(tmq_turn_poll_before_read(4096), "and every 1024 after");

	ok(!tmq_turn_hold(0, 0, 5), "no rebalance: no hold");
	ok(tmq_turn_hold(1, 0, 5), "a rebalance: the reading held");
	ok(tmq_turn_hold(1, TMQ_TURN_HOLD_MAX - 0.01, 5), "up to the hold's bound");
	ok(!tmq_turn_hold(1, TMQ_TURN_HOLD_MAX, 5), "not past it");
	ok(!tmq_turn_hold(1, 0, 0), "not past the window's end");
	ok(!tmq_turn_hold(1, 0, -3), "nor long after it");

	/* A plain reader. */
	is_int(idle(""), TMQ_IDLE_END, "a reader once through ends when drained");
	is_int(idle("f"), TMQ_IDLE_WAIT, "a follower waits at the end");
	is_int(idle("fd"), TMQ_IDLE_END, "a follower whose partitions are all past --until ends");
	is_int(idle("fa"), TMQ_IDLE_END, "a follower whose partitions all failed ends");
	is_int(idle("fup"), TMQ_IDLE_END, "a follower ends once the clock is past --until");
	is_int(idle("fu"), TMQ_IDLE_WAIT, "and waits before it");
	is_int(idle("n"), TMQ_IDLE_END, "a plain reader has no share to take up");

	/* A member. */
	is_int(idle("gn"), TMQ_IDLE_AGAIN, "a member reads a new share at once");
	is_int(idle("gnd"), TMQ_IDLE_AGAIN, "even when its old share was done");
	is_int(idle("g"), TMQ_IDLE_WAIT, "a member once through waits while its share is unsettled");
	is_int(idle("gs"), TMQ_IDLE_END, "and ends, drained, once it is settled");
	is_int(idle("ga"), TMQ_IDLE_WAIT, "a member's failed partitions do not end it: the next share may hold others");
	is_int(idle("gd"), TMQ_IDLE_END, "a member whose share is all past --until ends");
	is_int(idle("gfup"), TMQ_IDLE_WAIT, "a following member past --until waits for its share to settle");
	is_int(idle("gfups"), TMQ_IDLE_END, "and ends once it is settled");
	is_int(idle("gfs"), TMQ_IDLE_WAIT, "a following member waits, settled or not");

	/* How long an idle turn sleeps. */
	is_int(tmq_idle_wait_ms(-1, 0, 0), 1000, "at most a second, when nothing needs us sooner");
	is_int(tmq_idle_wait_ms(5000, 0, 0), 1000, "at most a second, whatever the group allows");
	is_int(tmq_idle_wait_ms(250, 0, 0), 250, "as long as the group allows");
	is_int(tmq_idle_wait_ms(0, 0, 0), 0, "not at all when the group needs us now");
	is_int(tmq_idle_wait_ms(-1, 1, 300.5), 301, "until --until comes, rounded up");
	is_int(tmq_idle_wait_ms(200, 1, 300.5), 200, "or the group, whichever comes first");
	is_int(tmq_idle_wait_ms(-1, 1, -5), 0, "not at all past --until");
	is_int(tmq_idle_wait_ms(-1, 0, -5), 1000, "--until not given: its time is not looked at");

	/* The group's log failed. */
	is_int(tmq_gfail_next(1, 1, 0), TMQ_GFAIL_REJOIN, "a following member whose server is away joins again");
	is_int(tmq_gfail_next(1, 0, 0), TMQ_GFAIL_ERROR, "a member once through fails");
	is_int(tmq_gfail_next(0, 1, 0), TMQ_GFAIL_ERROR, "a failure that is no outage is an error");
	is_int(tmq_gfail_next(1, 1, 1), TMQ_GFAIL_STOP, "a member told to stop stops, the outage unsaid");
	is_int(tmq_gfail_next(0, 0, 1), TMQ_GFAIL_STOP, "so does any other");
	return done_testing();
}
