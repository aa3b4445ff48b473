/* metrics.h: topics and groups as Prometheus metrics, in the text
 * exposition format that node_exporter's textfile collector reads
 * (tmq-topic list --prometheus, tmq-group list --prometheus).  Samples are
 * gathered first and printed family by family, each family once with its
 * HELP and TYPE lines, as the format requires. */
#ifndef TMQ_METRICS_H
#define TMQ_METRICS_H

#include <stdio.h>

#include "util/error.h"
#include "group/group.h"
#include "group/groupinfo.h"
#include "store/topic.h"
#include "store/topicstat.h"

struct tmq_sample;

struct tmq_metrics {
	struct tmq_sample *s;
	size_t n, cap;
	unsigned errors;	/* subjects failed (tmq_metrics_add_error) */
};

void tmq_metrics_init(struct tmq_metrics *m);
/* Per partition of t: end and first offsets, bytes, the newest message's
 * time (where it has one); nothing for a partition with a problem
 * (tmq_topic_stat_each), which the caller reports. */
int tmq_metrics_add_topic(struct tmq_metrics *m, const struct tmq_topic *t,
    const struct tmq_partstat *ps, struct tmq_error *e);
/* Per group: members (known dead ones left out), rebalance in progress;
 * per partition (gi, NULL when the group's topic is unknown): committed
 * offset, lag, owned (by a member not known dead); nothing for a
 * partition with a problem. */
int tmq_metrics_add_group(struct tmq_metrics *m, const struct tmq_group *g,
    const struct tmq_ginfo *gi, struct tmq_error *e);
/* A scrape publishes what it can and says, in the metrics, what it could
 * not (node_exporter's textfile habit): for each topic (group NULL) or
 * group, whether it failed, wholly or in part; then, once, for the scrape
 * named scrape ("topics", "groups"), how many failed and when it was
 * taken, so that a scrape that stopped shows by its age. */
int tmq_metrics_add_error(struct tmq_metrics *m, const char *group,
    const char *topic, int failed, struct tmq_error *e);
int tmq_metrics_add_scrape(struct tmq_metrics *m, const char *scrape,
    struct tmq_error *e);
void tmq_metrics_print(const struct tmq_metrics *m, FILE *out);
void tmq_metrics_free(struct tmq_metrics *m);

/* Write s as a label value: \ " and newline escaped. */
void tmq_prom_label_value(FILE *out, const char *s);

#endif
