/* group-wait.c: tmq-group wait GROUP: until the group has committed all its
 * topic held when the wait began (the entry's exec: group.h). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "group/groupwait.h"
#include "codec/timestamp.h"
#include "group.h"

/* The lag left when a wait gives up, per partition. */
static void
wait_left(const struct tmq_gwait *w)
{
	unsigned p;

	printf("%-9s %14s %14s %12s\n", "PARTITION", "CURRENT-OFFSET",
	    "TARGET-OFFSET", "LAG");
	for (p = 0; p < w->nparts; p++) {
		const struct tmq_gwpart *wp = &w->parts[p];
		char cur[24];

		if (wp->now == TMQ_NOT_COMMITTED)
			strcpy(cur, "-");
		else if (wp->now == -1)
			strcpy(cur, "now");
		else
			snprintf(cur, sizeof cur, "%lld", (long long)wp->now);
		printf("%-9u %14s %14llu %12llu\n", p, cur,
		    (unsigned long long)wp->target, (unsigned long long)wp->lag);
	}
}

/* Block until the group has committed every partition up to the end it
 * had as the wait began (groupwait.h). */
int
group_wait(char **operands, int noperands)
{
	struct group_args *a = &group_args;
	const char *name = operands[0];
	struct tmq_group g;
	struct tmq_topic t;
	struct tmq_gwait w;
	struct tmq_error e;
	double deadline = tmq_now() + a->timeout, left;
	int rc, ms;

	if (group_load(a, name, &g, &t) < 0)
		return TMQ_EXIT_FAIL;
	if (tmq_gwait_begin(&w, a->rootfd, &g, &t, &e) < 0) {
		rc = tmq_report(&group_cmd, &e);
		goto out;
	}
	for (;;) {
		if ((rc = tmq_gwait_check(&w, &e)) != 0)
			break;
		ms = -1;
		if (a->have_timeout) {
			left = deadline - tmq_now();
			if (left <= 0)
				break;
			ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
		}
		if (tmq_gwait_sleep(&w, ms, &e) < 0) {
			rc = -1;
			break;
		}
	}
	if (rc < 0)
		rc = tmq_report(&group_cmd, &e);
	else if (rc == 1)
		rc = TMQ_EXIT_OK;
	else {
		wait_left(&w);
		tmq_flush_stdout();
		tmq_warn(&group_cmd, "%s: timed out: %llu message%s in %u partition%s "
		    "not committed yet", name, (unsigned long long)w.total,
		    w.total == 1 ? "" : "s", w.behind, w.behind == 1 ? "" : "s");
		rc = TMQ_EXIT_FAIL;
	}
	tmq_gwait_free(&w);
out:
	tmq_topic_close(&t);
	tmq_group_close(&g);
	return rc;
}
