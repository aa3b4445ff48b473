/* topic-list.c: tmq-topic list: the topics of the root, as names, a table
 * (-l), JSON or Prometheus metrics (the entry's exec: topic.h). */
#include <stdio.h>
#include <unistd.h>

#include "codec/names.h"
#include "util/escape.h"
#include "util/jsonwriter.h"
#include "cli/metrics.h"
#include "store/root.h"
#include "cli/table.h"
#include "topic.h"

int
topic_list(char **operands, int noperands)
{
	const struct topic_args *a = &topic_args;
	struct tmq_metrics m;
	struct tmq_table tab;
	struct tmq_error e;
	char **names, kt[16];
	struct tmq_jw w;
	size_t n, i;
	int fd, rc = TMQ_EXIT_OK;

	if (topic_open_root(a, 0, &fd) < 0)
		return TMQ_EXIT_FAIL;
	if (tmq_topic_names(fd, 0, &names, &n, &e) < 0) {
		close(fd);
		tmq_root_fail_prefix(a->root, &e);
		return tmq_report(&topic_cmd, &e);
	}
	tmq_metrics_init(&m);
	tmq_jw_init(&w, stdout);
	if (a->json)
		tmq_jw_array(&w);
	/* The long form is a table, printed once its widths are known. */
	tmq_table_init(&tab, "llrrr");
	if (a->lng && !a->json && !a->prom &&
	    tmq_table_add(&tab, &e, "%s\t%s\t%s\t%s\t%s", "TOPIC", "KEY-TYPE",
	    "PARTITIONS", "MESSAGES", "BYTES") < 0) {
		tmq_names_free(names, n);
		tmq_metrics_free(&m);
		close(fd);
		return tmq_report(&topic_cmd, &e);
	}
	for (i = 0; i < n; i++) {
		struct tmq_topic t;
		struct tmq_partstat *ps;
		uint64_t msgs, bytes;

		if (!a->lng && !a->json && !a->prom) {
			/* A name that is no name (a co-user's file named with
			 * escapes or a newline) is said, escaped, not listed. */
			if (tmq_topic_name_check(names[i], &e) < 0) {
				tmq_report(&topic_cmd, &e);
				rc = TMQ_EXIT_FAIL;
			} else
				puts(names[i]);
			continue;
		}
		if (tmq_topic_open(fd, names[i], &t, &e) < 0 ||
		    tmq_topic_stat_each(&t, &ps, &e) < 0) {
			tmq_report(&topic_cmd, &e);
			if (t.name)
				tmq_topic_close(&t);
			/* With --prometheus, said in the metrics too; the
			 * scrape goes on, and is no failure of the command. */
			if (!a->prom)
				rc = TMQ_EXIT_FAIL;
			else if (tmq_metrics_add_error(&m, NULL, names[i], 1,
			    &e) < 0) {
				tmq_report(&topic_cmd, &e);
				rc = TMQ_EXIT_FAIL;
			}
			continue;
		}
		tmq_topic_stat_sum(ps, t.partitions, &msgs, &bytes);
		tmq_keytype_name(t.key_width, kt, sizeof kt);
		if (a->prom) {
			int failed = 0;
			unsigned p;

			if (tmq_metrics_add_topic(&m, &t, ps, &e) < 0) {
				tmq_report(&topic_cmd, &e);
				failed = 1;
			}
			/* (Damage is said below; its figures stand.) */
			for (p = 0; p < t.partitions; p++)
				if (ps[p].problem != NULL)
					failed = 1;
			if (tmq_metrics_add_error(&m, NULL, t.name, failed,
			    &e) < 0) {
				tmq_report(&topic_cmd, &e);
				rc = TMQ_EXIT_FAIL;
			}
		} else if (a->json) {
			tmq_jw_object(&w);
			tmq_jw_key(&w, "name");
			tmq_jw_str(&w, t.name);
			tmq_jw_key(&w, "key_type");
			tmq_jw_str(&w, kt);
			tmq_jw_key(&w, "partitions");
			tmq_jw_u64(&w, t.partitions);
			tmq_jw_key(&w, "messages");
			tmq_jw_u64(&w, msgs);
			tmq_jw_key(&w, "bytes");
			tmq_jw_u64(&w, bytes);
			tmq_jw_end(&w);
		} else if (tmq_table_add(&tab, &e, "%s\t%s\t%u\t%llu\t%llu", t.name,
		    kt, t.partitions, (unsigned long long)msgs,
		    (unsigned long long)bytes) < 0) {
			tmq_report(&topic_cmd, &e);
			rc = TMQ_EXIT_FAIL;
		}
		/* The other partitions were counted; this one is said (with
		 * --prometheus, in the metrics too). */
		if (topic_say_problems(ps, t.partitions) > 0 && !a->prom)
			rc = TMQ_EXIT_FAIL;
		tmq_topic_stat_free(ps, t.partitions);
		tmq_topic_close(&t);
	}
	if (a->json) {
		tmq_jw_end(&w);
		putchar('\n');
	} else if (a->lng && tab.nrows > 1)
		tmq_table_print(&tab, stdout);
	tmq_table_free(&tab);
	if (a->prom && tmq_metrics_add_scrape(&m, "topics", &e) < 0) {
		tmq_report(&topic_cmd, &e);
		rc = TMQ_EXIT_FAIL;
	}
	tmq_metrics_print(&m, stdout);
	tmq_metrics_free(&m);
	tmq_names_free(names, n);
	close(fd);
	return rc;
}
