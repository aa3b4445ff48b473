/* group-reset.c: tmq-group reset GROUP: a group's committed offsets moved, or
 * shown with --dry-run (the entry's exec: group.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group/groupadmin.h"
#include "group.h"

int
group_reset(char **operands, int noperands)
{
	struct group_args *a = &group_args;
	const char *name = operands[0];
	struct tmq_group g;
	struct tmq_topic t;
	struct tmq_ginfo gi;
	struct tmq_error e;
	struct tmq_poff *po = NULL;
	unsigned n, i;
	int rc = TMQ_EXIT_FAIL;

	if (group_load(a, name, &g, &t) < 0)
		return TMQ_EXIT_FAIL;
	if (tmq_ginfo_build(&g, &t, &gi, &e) < 0) {
		tmq_report(&group_cmd, &e);
		goto out;
	}
	/* Offsets computed without a partition's files could move it
	 * anywhere: nothing is reset until every partition can be read. */
	if (group_say_problems(&gi, 0) > 0)
		goto out;
	/* Members known dead are not active: their partitions are free. */
	if (!a->force && !a->dry &&
	    tmq_group_check_idle(name, gi.nmembers - gi.ndead, &e) < 0) {
		tmq_report(&group_cmd, &e);
		goto out;
	}
	/* The table is printed before the reset is written (the old
	 * offsets are the way back): a log that cannot be written is found
	 * first, and nothing is printed as if done. */
	if (!a->dry && tmq_group_writable(&g, &e) < 0) {
		tmq_warn(&group_cmd, "%s: nothing reset: %s", name, e.msg);
		goto out;
	}
	n = a->parts.v != NULL ? a->parts.n : t.partitions;
	if ((po = malloc((n ? n : 1) * sizeof *po)) == NULL) {
		tmq_warn(&group_cmd, "out of memory");
		goto out;
	}
	if (tmq_reset_plan(name, &t, &gi, a->parts.v, n,
	    a->have_to ? &a->to : NULL, a->shift, po, &e) < 0) {
		tmq_report(&group_cmd, &e);
		goto out;
	}
	printf("%-9s %14s %14s\n", "PARTITION", "OLD-OFFSET", "NEW-OFFSET");
	for (i = 0; i < n; i++) {
		int64_t old = gi.parts[po[i].partition].committed;
		char was[24];

		if (old == TMQ_NOT_COMMITTED)
			strcpy(was, "-");
		else
			snprintf(was, sizeof was, "%lld", (long long)old);
		printf("%-9u %14s %14lld\n", po[i].partition, was,
		    (long long)po[i].offset);
	}
	/* The old offsets are the way back, and a script that sees exit 1
	 * may run it again (--shift-by twice): nothing is reset unless they
	 * were written. */
	if (!a->dry && (tmq_flush_stdout() != 0 || ferror(stdout))) {
		tmq_warn(&group_cmd, "%s: nothing reset: the old offsets could not be "
		    "written", name);
		goto out;
	}
	if (!a->dry && tmq_group_commit(&g, 0, po, n, &e) < 0) {
		tmq_flush_stdout();
		tmq_warn(&group_cmd, "%s: the reset above was not applied%s: %s", name,
		    n > TMQ_COMMIT_CHUNK ? " (or, over several commit lines, only in "
		    "part)" : "", e.msg);
		goto out;
	}
	rc = TMQ_EXIT_OK;
out:
	free(po);
	tmq_ginfo_free(&gi);
	tmq_topic_close(&t);
	tmq_group_close(&g);
	return rc;
}
