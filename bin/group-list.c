/* group-list.c: tmq-group list: the groups of the root, their topics, members
 * and lag, as a table, JSON or Prometheus metrics (the entry's exec:
 * group.h). */
#include <stdio.h>

#include "cli/cli.h"
#include "group/groupadmin.h"
#include "util/jsonwriter.h"
#include "cli/metrics.h"
#include "codec/names.h"
#include "store/root.h"
#include "cli/table.h"
#include "group.h"

/* With --prometheus, a group that could not be measured is said in the
 * metrics, and the scrape goes on: it is no failure of the command. */
static void
prom_error(struct tmq_metrics *m, const char *group, const char *topic,
    int *rc)
{
	struct tmq_error e;

	if (tmq_metrics_add_error(m, group, topic != NULL ? topic : "", 1,
	    &e) < 0) {
		tmq_report(&group_cmd, &e);
		*rc = TMQ_EXIT_FAIL;
	}
}

int
group_list(char **operands, int noperands)
{
	struct group_args *a = &group_args;
	struct tmq_metrics m;
	struct tmq_table tab;
	struct tmq_error e;
	char **names;
	struct tmq_jw w;
	size_t n, i;
	int rc = TMQ_EXIT_OK;

	if (tmq_topic_names(a->rootfd, 1, &names, &n, &e) < 0) {
		tmq_root_fail_prefix(a->root, &e);
		return tmq_report(&group_cmd, &e);
	}
	tmq_metrics_init(&m);
	/* The text is a table, printed once its widths are known. */
	tmq_table_init(&tab, "llrr");
	tmq_jw_init(&w, stdout);
	if (a->json)
		tmq_jw_array(&w);
	else if (!a->prom &&
	    tmq_table_add(&tab, &e, "GROUP\tTOPIC\tMEMBERS\tLAG") < 0) {
		tmq_names_free(names, n);
		tmq_metrics_free(&m);
		return tmq_report(&group_cmd, &e);
	}
	for (i = 0; i < n; i++) {
		const char *gname = tmq_group_of_log(names[i]);
		struct tmq_group g;
		struct tmq_topic t;
		struct tmq_ginfo gi;
		int have = 0;

		if (tmq_group_observe(a->rootfd, gname, NULL, &g, &e) < 0) {
			tmq_report(&group_cmd, &e);
			if (a->prom)
				prom_error(&m, gname, NULL, &rc);
			else
				rc = TMQ_EXIT_FAIL;
			continue;
		}
		if (g.topic != NULL &&
		    tmq_topic_open(a->rootfd, g.topic, &t, &e) == 0) {
			if (tmq_ginfo_build(&g, &t, &gi, &e) == 0)
				have = 1;
			tmq_topic_close(&t);
		}
		/* A topic that cannot be read is said, naming what, and the
		 * listing goes on with the others; --prometheus says it
		 * below, in the metrics too. */
		if (!have && g.topic != NULL && !a->prom) {
			tmq_report(&group_cmd, &e);
			rc = TMQ_EXIT_FAIL;
		}
		if (a->prom) {
			/* Metrics are for monitoring: what cannot be measured
			 * is said, on stderr, in a comment and in the metrics
			 * (tmq_group_scrape_error), not skipped; the rest is
			 * published all the same. */
			int failed = 0;

			if (!have && g.topic == NULL)
				printf("# group \"%s\": its topic is not recorded "
				    "(name it with tmq-group describe -t): no "
				    "partition metrics\n", gname);
			else if (!have) {
				tmq_report(&group_cmd, &e);
				failed = 1;
				printf("# group \"%s\": its topic cannot be read: "
				    "no partition metrics\n", gname);
			}
			if (tmq_metrics_add_group(&m, &g, have ? &gi : NULL,
			    &e) < 0) {
				tmq_report(&group_cmd, &e);
				failed = 1;
			}
			/* (Damage is said below; its figures stand.) */
			if (have && gi.nproblems > 0)
				failed = 1;
			if (tmq_metrics_add_error(&m, gname, g.topic != NULL ?
			    g.topic : "", failed, &e) < 0) {
				tmq_report(&group_cmd, &e);
				rc = TMQ_EXIT_FAIL;
			}
		} else if (a->json) {
			tmq_jw_object(&w);
			tmq_jw_key(&w, "group");
			tmq_jw_str(&w, gname);
			tmq_jw_key(&w, "topic");
			if (g.topic)
				tmq_jw_str(&w, g.topic);
			else
				tmq_jw_null(&w);
			tmq_jw_key(&w, "members");
			if (have)
				tmq_jw_u64(&w, gi.nmembers - gi.ndead);
			else
				tmq_jw_null(&w);
			tmq_jw_key(&w, "lag");
			if (have)
				tmq_jw_u64(&w, gi.total_lag);
			else
				tmq_jw_null(&w);
			tmq_jw_end(&w);
		} else if ((have ? tmq_table_add(&tab, &e, "%s\t%s\t%u\t%llu",
		    gname, g.topic, gi.nmembers - gi.ndead,
		    (unsigned long long)gi.total_lag) :
		    tmq_table_add(&tab, &e, "%s\t%s\t-\t-", gname,
		    g.topic ? g.topic : "-")) < 0) {
			tmq_report(&group_cmd, &e);
			rc = TMQ_EXIT_FAIL;
		}
		/* Its lag leaves out the partitions said here (with
		 * --prometheus, in the metrics too). */
		if (have && group_say_problems(&gi, 1) > 0 && !a->prom)
			rc = TMQ_EXIT_FAIL;
		if (have)
			tmq_ginfo_free(&gi);
		tmq_group_close(&g);
	}
	if (a->json) {
		tmq_jw_end(&w);
		putchar('\n');
	} else if (tab.nrows > 1)
		tmq_table_print(&tab, stdout);
	tmq_table_free(&tab);
	if (a->prom && tmq_metrics_add_scrape(&m, "groups", &e) < 0) {
		tmq_report(&group_cmd, &e);
		rc = TMQ_EXIT_FAIL;
	}
	tmq_metrics_print(&m, stdout);
	tmq_metrics_free(&m);
	tmq_names_free(names, n);
	return rc;
}
