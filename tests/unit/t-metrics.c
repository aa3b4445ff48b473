/* t-metrics.c: lib/cli/metrics: label values escaped as Prometheus' text
 * format wants (backslash, double quote, newline), families printed once
 * each with HELP and TYPE, samples of one family together, partition
 * samples per partition, a newest time only where there is one; a
 * partition owned by a dead member is not owned; what a scrape could not
 * measure, and when it was taken. */
#include <stdlib.h>
#include <string.h>

#include "cli/metrics.h"
#include "tap.h"
#include "codec/timestamp.h"

static char *
label(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	tmq_prom_label_value(f, s);
	fclose(f);
	return buf;
}

static char *
print(const struct tmq_metrics *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	tmq_metrics_print(m, f);
	fclose(f);
	return buf;
}

int
main(void)
{
	struct tmq_metrics m;
	struct tmq_topic t;
	struct tmq_group g;
	struct tmq_partstat ps[2];
	struct tmq_filestat fs[2];
	struct tmq_gpart gp[2];
	struct tmq_ginfo gi;
	struct tmq_error e = { 0 };
	uint32_t members[2] = { 1, 2 };
	enum tmq_liveness alive[2] = { TMQ_LIVE_YES, TMQ_LIVE_DEAD };
	double t0;
	char *s, *at;

	s = label("plain.name-1_x");
	is_str(s, "plain.name-1_x", "a plain label value is as it is");
	free(s);
	s = label("a\\b\"c\nd");
	is_str(s, "a\\\\b\\\"c\\nd", "backslash, quote and newline are escaped");
	free(s);

	memset(&t, 0, sizeof t);
	t.name = "e\"v";
	t.partitions = 2;
	memset(ps, 0, sizeof ps);
	memset(fs, 0, sizeof fs);
	ps[0].partition = 0;
	ps[0].first = 3;
	ps[0].end = 10;
	ps[0].bytes = 700;
	fs[0].has_last_ts = 1;
	fs[0].last_ts = 1795597200.25;
	fs[1].has_last_ts = 1;
	fs[1].last_ts = 1795683600.5;
	ps[0].files = fs;
	ps[0].nfiles = 2;
	ps[1].partition = 1;

	memset(&g, 0, sizeof g);
	g.name = "G";
	g.topic = "e\"v";
	g.state.rebalancing = 1;
	memset(gp, 0, sizeof gp);
	gp[0].committed = 4;
	gp[0].end = 10;
	gp[0].lag = 6;
	gp[0].has_owner = 1;
	gp[0].owner = 1;
	gp[1].partition = 1;
	gp[1].committed = TMQ_NOT_COMMITTED;
	memset(&gi, 0, sizeof gi);
	gi.parts = gp;
	gi.nparts = 2;
	gi.nmembers = 1;
	gi.members = members;
	gi.alive = alive;

	tmq_metrics_init(&m);
	is_int(tmq_metrics_add_topic(&m, &t, ps, &e), 0, "add a topic");
	is_int(tmq_metrics_add_group(&m, &g, &gi, &e), 0, "add a group");
	s = print(&m);
	is_str(s,
	    "# HELP tmq_partition_end_offset Offset the next message put to the partition will take.\n"
	    "# TYPE tmq_partition_end_offset gauge\n"
	    "tmq_partition_end_offset{topic=\"e\\\"v\",partition=\"0\"} 10\n"
	    "tmq_partition_end_offset{topic=\"e\\\"v\",partition=\"1\"} 0\n"
	    "# HELP tmq_partition_first_offset Offset of the oldest message still on disk (pruning raises it).\n"
	    "# TYPE tmq_partition_first_offset gauge\n"
	    "tmq_partition_first_offset{topic=\"e\\\"v\",partition=\"0\"} 3\n"
	    "tmq_partition_first_offset{topic=\"e\\\"v\",partition=\"1\"} 0\n"
	    "# HELP tmq_partition_size_bytes Bytes in the partition's files.\n"
	    "# TYPE tmq_partition_size_bytes gauge\n"
	    "tmq_partition_size_bytes{topic=\"e\\\"v\",partition=\"0\"} 700\n"
	    "tmq_partition_size_bytes{topic=\"e\\\"v\",partition=\"1\"} 0\n"
	    "# HELP tmq_partition_newest_message_timestamp_seconds Time of the partition's newest message, in Unix seconds.\n"
	    "# TYPE tmq_partition_newest_message_timestamp_seconds gauge\n"
	    "tmq_partition_newest_message_timestamp_seconds{topic=\"e\\\"v\",partition=\"0\"} 1795683600.500\n"
	    "# HELP tmq_group_members Members holding a share of the group's partitions.\n"
	    "# TYPE tmq_group_members gauge\n"
	    "tmq_group_members{group=\"G\",topic=\"e\\\"v\"} 1\n"
	    "# HELP tmq_group_rebalancing 1 while a rebalance of the group is in progress, else 0.\n"
	    "# TYPE tmq_group_rebalancing gauge\n"
	    "tmq_group_rebalancing{group=\"G\",topic=\"e\\\"v\"} 1\n"
	    "# HELP tmq_group_committed_offset Offset the group has committed for the partition (where it has).\n"
	    "# TYPE tmq_group_committed_offset gauge\n"
	    "tmq_group_committed_offset{group=\"G\",topic=\"e\\\"v\",partition=\"0\"} 4\n"
	    "# HELP tmq_group_lag Messages of the partition after the group's committed offset.\n"
	    "# TYPE tmq_group_lag gauge\n"
	    "tmq_group_lag{group=\"G\",topic=\"e\\\"v\",partition=\"0\"} 6\n"
	    "tmq_group_lag{group=\"G\",topic=\"e\\\"v\",partition=\"1\"} 0\n"
	    "# HELP tmq_group_partition_owned 1 when a member of the group not known dead owns the partition, else 0.\n"
	    "# TYPE tmq_group_partition_owned gauge\n"
	    "tmq_group_partition_owned{group=\"G\",topic=\"e\\\"v\",partition=\"0\"} 1\n"
	    "tmq_group_partition_owned{group=\"G\",topic=\"e\\\"v\",partition=\"1\"} 0\n",
	    "families once each, in order, samples together");
	free(s);
	tmq_metrics_free(&m);

	/* A partition that could not be read has no samples (its figures
	 * are 0, which would lie), and dead members are not counted. */
	tmq_metrics_init(&m);
	ps[0].problem = "ev: partition 0: unreadable";
	gp[0].problem = "ev: partition 0: unreadable";
	gi.nmembers = 2;
	gi.ndead = 1;
	t.partitions = 1;
	gi.nparts = 1;
	g.state.rebalancing = 0;
	is_int(tmq_metrics_add_topic(&m, &t, ps, &e), 0, "add a topic");
	is_int(tmq_metrics_add_group(&m, &g, &gi, &e), 0, "add a group");
	s = print(&m);
	is_str(s,
	    "# HELP tmq_group_members Members holding a share of the group's partitions.\n"
	    "# TYPE tmq_group_members gauge\n"
	    "tmq_group_members{group=\"G\",topic=\"e\\\"v\"} 1\n"
	    "# HELP tmq_group_rebalancing 1 while a rebalance of the group is in progress, else 0.\n"
	    "# TYPE tmq_group_rebalancing gauge\n"
	    "tmq_group_rebalancing{group=\"G\",topic=\"e\\\"v\"} 0\n",
	    "no samples for a partition with a problem; dead members not counted");
	free(s);
	tmq_metrics_free(&m);

	/* An owner known dead owns nothing: after a SIGKILL, the partition
	 * is no longer read by anyone. */
	tmq_metrics_init(&m);
	gp[0].problem = NULL;
	gp[0].owner = 2;
	is_int(tmq_metrics_add_group(&m, &g, &gi, &e), 0, "add a group");
	s = print(&m);
	ok(strstr(s, "tmq_group_partition_owned{group=\"G\",topic=\"e\\\"v\","
	    "partition=\"0\"} 0\n") != NULL, "a dead owner owns nothing");
	free(s);
	tmq_metrics_free(&m);

	/* What a scrape could not measure, by subject and in all, and when
	 * it was taken. */
	tmq_metrics_init(&m);
	t0 = tmq_now();
	is_int(tmq_metrics_add_error(&m, "G", "ev", 0, &e), 0, "a group measured");
	is_int(tmq_metrics_add_error(&m, "H", "gone", 1, &e), 0, "a group not");
	is_int(tmq_metrics_add_error(&m, NULL, "bad", 1, &e), 0, "a topic not");
	is_int(tmq_metrics_add_scrape(&m, "groups", &e), 0, "the scrape");
	s = print(&m);
	at = strstr(s, "tmq_scrape_timestamp_seconds{scrape=\"groups\"} ");
	ok(at != NULL && strtod(at + strlen("tmq_scrape_timestamp_seconds"
	    "{scrape=\"groups\"} "), NULL) >= t0 - 0.001 &&
	    strtod(at + strlen("tmq_scrape_timestamp_seconds{scrape=\"groups\"} "),
	    NULL) <= tmq_now() + 0.001, "the time of the scrape");
	if (at != NULL)
		*at = '\0';
	is_str(s,
	    "# HELP tmq_topic_scrape_error 1 when this scrape could not measure the topic, or some of its partitions, else 0.\n"
	    "# TYPE tmq_topic_scrape_error gauge\n"
	    "tmq_topic_scrape_error{topic=\"bad\"} 1\n"
	    "# HELP tmq_group_scrape_error 1 when this scrape could not measure the group, or some of its partitions, else 0.\n"
	    "# TYPE tmq_group_scrape_error gauge\n"
	    "tmq_group_scrape_error{group=\"G\",topic=\"ev\"} 0\n"
	    "tmq_group_scrape_error{group=\"H\",topic=\"gone\"} 1\n"
	    "# HELP tmq_scrape_errors Topics or groups this scrape could not measure, or not all of.\n"
	    "# TYPE tmq_scrape_errors gauge\n"
	    "tmq_scrape_errors{scrape=\"groups\"} 2\n"
	    "# HELP tmq_scrape_timestamp_seconds Time this scrape was taken, in Unix seconds.\n"
	    "# TYPE tmq_scrape_timestamp_seconds gauge\n",
	    "errors by subject, their count, then the time");
	free(s);
	tmq_metrics_free(&m);

	/* Nothing gathered: nothing printed. */
	tmq_metrics_init(&m);
	s = print(&m);
	is_str(s, "", "no samples, no output");
	free(s);
	return done_testing();
}
