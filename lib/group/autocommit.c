/* autocommit.c: when a member commits (see autocommit.h). */
#include <stdio.h>

#include "group/autocommit.h"
#include "util/stop.h"
#include "codec/timestamp.h"

void
tmq_ac_init(struct tmq_autocommit *ac, int on, double now)
{
	ac->on = on;
	ac->last = now;
	ac->since = 0;
}

int
tmq_ac_count(struct tmq_autocommit *ac)
{
	return ac->on && ++ac->since >= TMQ_AC_MESSAGES;
}

int
tmq_ac_due(const struct tmq_autocommit *ac, double now)
{
	return ac->on && now - ac->last >= TMQ_AC_SECONDS;
}

int
tmq_ac_commit(struct tmq_autocommit *ac, struct tmq_gconsumer *gc,
    double now, struct tmq_error *e)
{
	if (tmq_gc_commit(gc, e) < 0)
		return -1;
	ac->last = now;
	ac->since = 0;
	return 0;
}

int
tmq_ac_wait_taken(struct tmq_autocommit *ac, struct tmq_gconsumer *gc,
    struct tmq_output *out, struct tmq_error *e)
{
	int rc, timeout;

	if (fflush(out->f) != 0)
		return 0;
	ac->last = tmq_now();	/* a second from now, then every second */
	while (!tmq_stop) {
		timeout = tmq_gc_timeout(gc);
		if (timeout < 0 || timeout > 1000)
			timeout = 1000;
		if ((rc = tmq_output_wait_taken(out, timeout, e)) != 0)
			return rc < 0 ? -1 : 0;
		if (tmq_gc_poll(gc, e) < 0)
			return -1;
		if (tmq_ac_due(ac, tmq_now()) &&
		    tmq_ac_commit(ac, gc, tmq_now(), e) < 0)
			return -1;
	}
	return 0;
}
