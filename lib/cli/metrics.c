/* metrics.c: Prometheus' text exposition format (version 0.0.4) for
 * topics and groups.  Names follow Prometheus' conventions: the tmq_
 * prefix, base units (bytes, seconds), gauges without _total, counters
 * (a --exec member's, from its start) with it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "cli/metrics.h"
#include "codec/timestamp.h"

enum fam {
	F_PART_END, F_PART_FIRST, F_PART_BYTES, F_PART_NEWEST,
	F_GROUP_MEMBERS, F_GROUP_REBAL, F_GROUP_COMMITTED, F_GROUP_LAG,
	F_GROUP_OWNED, F_EXEC_RUN, F_EXEC_RETRIED, F_EXEC_DEAD, F_EXEC_RUNNING,
	F_TOPIC_SCRAPE_ERR, F_GROUP_SCRAPE_ERR, F_SCRAPE_ERRORS,
	F_SCRAPE_TIME, F_N
};

static const struct {
	const char *name, *help;
} fams[F_N] = {
	{ "tmq_partition_end_offset",
	    "Offset the next message put to the partition will take." },
	{ "tmq_partition_first_offset",
	    "Offset of the oldest message still on disk (pruning raises it)." },
	{ "tmq_partition_size_bytes",
	    "Bytes in the partition's files." },
	{ "tmq_partition_newest_message_timestamp_seconds",
	    "Time of the partition's newest message, in Unix seconds." },
	{ "tmq_group_members",
	    "Members holding a share of the group's partitions." },
	{ "tmq_group_rebalancing",
	    "1 while a rebalance of the group is in progress, else 0." },
	{ "tmq_group_committed_offset",
	    "Offset the group has committed for the partition (where it has)." },
	{ "tmq_group_lag",
	    "Messages of the partition after the group's committed offset." },
	{ "tmq_group_partition_owned",
	    "1 when a member of the group not known dead owns the partition, "
	    "else 0." },
	{ "tmq_group_exec_commands_total",
	    "Commands a member running one per message (tmq-get --exec) has "
	    "started, retries included, since it started." },
	{ "tmq_group_exec_retries_total",
	    "Messages such a member has set to run again after a failure." },
	{ "tmq_group_exec_dead_letters_total",
	    "Messages such a member has put to its dead-letter topic." },
	{ "tmq_group_exec_running",
	    "Messages such a member is running now." },
	{ "tmq_topic_scrape_error",
	    "1 when this scrape could not measure the topic, or some of its "
	    "partitions, else 0." },
	{ "tmq_group_scrape_error",
	    "1 when this scrape could not measure the group, or some of its "
	    "partitions, else 0." },
	{ "tmq_scrape_errors",
	    "Topics or groups this scrape could not measure, or not all of." },
	{ "tmq_scrape_timestamp_seconds",
	    "Time this scrape was taken, in Unix seconds." },
};

struct tmq_sample {
	enum fam fam;
	char *labels;		/* {...}, escaped */
	char value[40];
};

void
tmq_metrics_init(struct tmq_metrics *m)
{
	memset(m, 0, sizeof *m);
}

void
tmq_prom_label_value(FILE *out, const char *s)
{
	for (; *s != '\0'; s++)
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '"')
			fputs("\\\"", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			putc(*s, out);
}

/* Labels: scrape, group, topic (NULL: left out), partition and member
 * (-1: left out). */
static int
add_labels(struct tmq_metrics *m, enum fam f, const char *scrape,
    const char *group, const char *topic, long partition, long long member,
    const char *value, struct tmq_error *e)
{
	struct tmq_sample *s;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	if (tmq_grow(&m->s, &m->cap, m->n + 1, sizeof *m->s) < 0)
		return tmq_fail(e, "metrics: out of memory");
	mem = open_memstream(&buf, &len);
	if (mem == NULL)
		return tmq_fail_errno(e, "metrics");
	putc('{', mem);
	if (scrape != NULL) {
		fputs("scrape=\"", mem);
		tmq_prom_label_value(mem, scrape);
		putc('"', mem);
	}
	if (group != NULL) {
		fputs(scrape != NULL ? ",group=\"" : "group=\"", mem);
		tmq_prom_label_value(mem, group);
		putc('"', mem);
	}
	if (topic != NULL) {
		fputs(scrape != NULL || group != NULL ? ",topic=\"" : "topic=\"",
		    mem);
		tmq_prom_label_value(mem, topic);
		putc('"', mem);
	}
	if (partition >= 0)
		fprintf(mem, ",partition=\"%ld\"", partition);
	if (member >= 0)
		fprintf(mem, ",member=\"%lld\"", member);
	putc('}', mem);
	if (fclose(mem) != 0) {
		free(buf);
		return tmq_fail_errno(e, "metrics");
	}
	s = &m->s[m->n++];
	s->fam = f;
	s->labels = buf;
	snprintf(s->value, sizeof s->value, "%s", value);
	return 0;
}

static int
add(struct tmq_metrics *m, enum fam f, const char *group, const char *topic,
    long partition, const char *value, struct tmq_error *e)
{
	return add_labels(m, f, NULL, group, topic, partition, -1, value, e);
}

static int
add_num(struct tmq_metrics *m, enum fam f, const char *group,
    const char *topic, long partition, long long member,
    unsigned long long v, struct tmq_error *e)
{
	char num[32];

	snprintf(num, sizeof num, "%llu", v);
	return add_labels(m, f, NULL, group, topic, partition, member, num, e);
}

static int
add_u64(struct tmq_metrics *m, enum fam f, const char *group,
    const char *topic, long partition, unsigned long long v,
    struct tmq_error *e)
{
	return add_num(m, f, group, topic, partition, -1, v, e);
}

int
tmq_metrics_add_topic(struct tmq_metrics *m, const struct tmq_topic *t,
    const struct tmq_partstat *ps, struct tmq_error *e)
{
	unsigned p;
	size_t i;

	for (p = 0; p < t->partitions; p++) {
		const struct tmq_partstat *s = &ps[p];
		const struct tmq_filestat *newest = NULL;
		char num[40];

		/* Figures of 0 would lie: the tool says the problem. */
		if (s->problem != NULL)
			continue;
		if (add_u64(m, F_PART_END, NULL, t->name, p, s->end, e) < 0 ||
		    add_u64(m, F_PART_FIRST, NULL, t->name, p, s->first, e) < 0 ||
		    add_u64(m, F_PART_BYTES, NULL, t->name, p, s->bytes, e) < 0)
			return -1;
		/* Files come oldest first: the newest time is in the last
		 * file that has one. */
		for (i = 0; i < s->nfiles; i++)
			if (s->files[i].has_last_ts)
				newest = &s->files[i];
		if (newest == NULL)
			continue;
		snprintf(num, sizeof num, "%.3f", newest->last_ts);
		if (add(m, F_PART_NEWEST, NULL, t->name, p, num, e) < 0)
			return -1;
	}
	return 0;
}

/* Partition p has an owner not known dead. */
static int
owned(const struct tmq_ginfo *gi, const struct tmq_gpart *gp)
{
	unsigned lo = 0, hi = gi->nmembers, mid;

	if (!gp->has_owner)
		return 0;
	/* (members are ascending, alive[] beside them) */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (gi->members[mid] < gp->owner)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo >= gi->nmembers || gi->members[lo] != gp->owner ||
	    gi->alive[lo] != TMQ_LIVE_DEAD;
}

int
tmq_metrics_add_group(struct tmq_metrics *m, const struct tmq_group *g,
    const struct tmq_ginfo *gi, struct tmq_error *e)
{
	const char *topic = g->topic != NULL ? g->topic : "";
	unsigned p;

	if (add_u64(m, F_GROUP_REBAL, g->name, topic, -1,
	    g->state.rebalancing ? 1 : 0, e) < 0)
		return -1;
	if (gi == NULL)
		return 0;
	/* Members known dead (liveness.h) hold no partitions that anyone
	 * reads: they are not counted. */
	if (add_u64(m, F_GROUP_MEMBERS, g->name, topic, -1,
	    gi->nmembers - gi->ndead, e) < 0)
		return -1;
	for (p = 0; p < gi->nparts; p++) {
		const struct tmq_gpart *gp = &gi->parts[p];

		if (gp->problem != NULL)
			continue;
		/* Not committed, or committed as "from now" before any
		 * offset was read: no offset to show. */
		if (gp->committed >= 0 && add_u64(m, F_GROUP_COMMITTED,
		    g->name, topic, p, (unsigned long long)gp->committed,
		    e) < 0)
			return -1;
		if (add_u64(m, F_GROUP_LAG, g->name, topic, p, gp->lag, e) < 0 ||
		    add_u64(m, F_GROUP_OWNED, g->name, topic, p,
		    owned(gi, gp), e) < 0)
			return -1;
	}
	/* The live members that run a command per message: their counts
	 * since they started (a counter that resets with its member). */
	for (p = 0; gi->nreports > 0 && p < gi->nmembers; p++) {
		const struct tmq_xreport *r = &gi->reports[p];
		uint32_t id = gi->members[p];

		if (!gi->has_report[p])
			continue;
		if (add_num(m, F_EXEC_RUN, g->name, topic, -1, id, r->run,
		    e) < 0 || add_num(m, F_EXEC_RETRIED, g->name, topic, -1, id,
		    r->retried, e) < 0 || add_num(m, F_EXEC_DEAD, g->name,
		    topic, -1, id, r->dead, e) < 0 || add_num(m, F_EXEC_RUNNING,
		    g->name, topic, -1, id, r->n, e) < 0)
			return -1;
	}
	return 0;
}

int
tmq_metrics_add_error(struct tmq_metrics *m, const char *group,
    const char *topic, int failed, struct tmq_error *e)
{
	if (failed)
		m->errors++;
	return add(m, group != NULL ? F_GROUP_SCRAPE_ERR : F_TOPIC_SCRAPE_ERR,
	    group, topic, -1, failed ? "1" : "0", e);
}

int
tmq_metrics_add_scrape(struct tmq_metrics *m, const char *scrape,
    struct tmq_error *e)
{
	char num[40];

	snprintf(num, sizeof num, "%u", m->errors);
	if (add_labels(m, F_SCRAPE_ERRORS, scrape, NULL, NULL, -1, -1, num,
	    e) < 0)
		return -1;
	snprintf(num, sizeof num, "%.3f", tmq_now());
	return add_labels(m, F_SCRAPE_TIME, scrape, NULL, NULL, -1, -1, num, e);
}

void
tmq_metrics_print(const struct tmq_metrics *m, FILE *out)
{
	size_t i;
	int f, shown;

	for (f = 0; f < F_N; f++) {
		shown = 0;
		for (i = 0; i < m->n; i++) {
			if (m->s[i].fam != (enum fam)f)
				continue;
			if (!shown++)
				fprintf(out, "# HELP %s %s\n# TYPE %s %s\n",
				    fams[f].name, fams[f].help, fams[f].name,
				    f == F_EXEC_RUN || f == F_EXEC_RETRIED ||
				    f == F_EXEC_DEAD ? "counter" : "gauge");
			fprintf(out, "%s%s %s\n", fams[f].name, m->s[i].labels,
			    m->s[i].value);
		}
	}
}

void
tmq_metrics_free(struct tmq_metrics *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->s[i].labels);
	free(m->s);
	memset(m, 0, sizeof *m);
}
