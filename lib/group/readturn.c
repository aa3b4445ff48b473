/* readturn.c: the reading loop's decisions (readturn.h), pure. */
#include "group/readturn.h"

int
tmq_turn_poll_before_read(uint64_t seen)
{
	return seen % TMQ_TURN_POLL_EVERY == 0;
}

int
tmq_turn_hold(int rebalancing, double held_for, double left)
{
	return rebalancing && held_for < TMQ_TURN_HOLD_MAX && left > 0;
}

enum tmq_idle_next
tmq_idle_next(const struct tmq_idle *s)
{
	if (s->grouped && s->new_share)
		return TMQ_IDLE_AGAIN;	/* a new share: read it first */
	if (s->done || (!s->grouped && s->all_failed))
		return TMQ_IDLE_END;
	/* Partitions that stay idle never pass --until by a message: the
	 * clock ends them too, once all is read up to now; a member's only
	 * once its share is settled (the next one may hold more). */
	if (s->have_until && s->past_until && (!s->grouped || s->settled))
		return TMQ_IDLE_END;
	if (!s->follow && (!s->grouped || s->settled))
		return TMQ_IDLE_END;	/* drained */
	return TMQ_IDLE_WAIT;
}

int
tmq_idle_wait_ms(int group_ms, int have_until, double until_left_ms)
{
	int ms = group_ms;

	if (ms < 0 || ms > TMQ_TURN_MAX_WAIT_MS)
		ms = TMQ_TURN_MAX_WAIT_MS;
	if (have_until && until_left_ms < ms)
		ms = until_left_ms > 0 ? (int)until_left_ms + 1 : 0;
	return ms;
}

enum tmq_gfail
tmq_gfail_next(int outage, int follow, int stopping)
{
	if (stopping)
		return TMQ_GFAIL_STOP;
	return outage && follow ? TMQ_GFAIL_REJOIN : TMQ_GFAIL_ERROR;
}
