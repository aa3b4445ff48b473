/* topic-info.c: tmq-topic info NAME: a topic's partitions, files, offsets and
 * times, as text, JSON or --ends (the entry's exec: topic.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/escape.h"
#include "util/jsonwriter.h"
#include "cli/metrics.h"
#include "codec/timestamp.h"
#include "topic.h"

static void
info_text(const struct tmq_topic *t, const struct tmq_partstat *ps)
{
	char kt[16], t1[40], t2[40];
	uint64_t msgs, bytes;
	unsigned p, i, shown = 0;
	size_t k;

	tmq_topic_stat_sum(ps, t->partitions, &msgs, &bytes);
	printf("topic:      %s\n", t->name);
	printf("key type:   %s\n", tmq_keytype_name(t->key_width, kt, sizeof kt));
	printf("partitions: %u\n", t->partitions);
	printf("types:      ");
	for (i = 0; i < t->ntypes; i++)
		if (t->types[i]) {
			fputs(shown++ ? "," : "", stdout);
			tmq_escape_terminal(stdout,
			    (const unsigned char *)t->types[i],
			    strlen(t->types[i]));
		}
	printf("%s\n", shown ? "" : "-");
	printf("messages:   %llu\nbytes:      %llu\n\n",
	    (unsigned long long)msgs, (unsigned long long)bytes);
	printf("%-9s %-28s %12s %12s %12s  %-24s  %s\n", "PARTITION", "FILE",
	    "FIRST", "END", "BYTES", "FIRST-TIME", "LAST-TIME");
	for (p = 0; p < t->partitions; p++) {
		if (ps[p].nfiles == 0)
			printf("%-9u %-28s %12s %12s %12s  %-24s  %s\n", p, "-",
			    "-", "-", "-", "-", "-");
		for (k = 0; k < ps[p].nfiles; k++) {
			const struct tmq_filestat *f = &ps[p].files[k];

			strcpy(t1, "-");
			strcpy(t2, "-");
			if (f->has_first_ts)
				tmq_ts_iso(f->first_ts, t1, sizeof t1);
			if (f->has_last_ts)
				tmq_ts_iso(f->last_ts, t2, sizeof t2);
			printf("%-9u %-28s %12llu %12llu %12llu  %-24s  %s\n", p,
			    f->pf.name, (unsigned long long)f->pf.first,
			    (unsigned long long)f->end,
			    (unsigned long long)f->bytes, t1, t2);
		}
	}
}

static void
info_json(const struct tmq_topic *t, const struct tmq_partstat *ps)
{
	struct tmq_jw w;
	char kt[16], num[40];
	unsigned p, i;
	size_t k;

	tmq_jw_init(&w, stdout);
	tmq_jw_object(&w);
	tmq_jw_key(&w, "name");
	tmq_jw_str(&w, t->name);
	tmq_jw_key(&w, "key_type");
	tmq_jw_str(&w, tmq_keytype_name(t->key_width, kt, sizeof kt));
	tmq_jw_key(&w, "key_width");
	tmq_jw_i64(&w, t->key_width);
	tmq_jw_key(&w, "partitions");
	tmq_jw_array(&w);
	for (p = 0; p < t->partitions; p++) {
		tmq_jw_object(&w);
		tmq_jw_key(&w, "partition");
		tmq_jw_u64(&w, p);
		tmq_jw_key(&w, "first");
		tmq_jw_u64(&w, ps[p].first);
		tmq_jw_key(&w, "end");
		tmq_jw_u64(&w, ps[p].end);
		tmq_jw_key(&w, "bytes");
		tmq_jw_u64(&w, ps[p].bytes);
		tmq_jw_key(&w, "files");
		tmq_jw_array(&w);
		for (k = 0; k < ps[p].nfiles; k++) {
			const struct tmq_filestat *f = &ps[p].files[k];

			tmq_jw_object(&w);
			tmq_jw_key(&w, "name");
			tmq_jw_str(&w, f->pf.name);
			tmq_jw_key(&w, "first");
			tmq_jw_u64(&w, f->pf.first);
			tmq_jw_key(&w, "end");
			tmq_jw_u64(&w, f->end);
			tmq_jw_key(&w, "bytes");
			tmq_jw_u64(&w, f->bytes);
			tmq_jw_key(&w, "first_timestamp");
			if (f->has_first_ts) {
				tmq_ts_repr(f->first_ts, num, sizeof num);
				tmq_jw_number(&w, num);
			} else
				tmq_jw_null(&w);
			tmq_jw_key(&w, "last_timestamp");
			if (f->has_last_ts) {
				tmq_ts_repr(f->last_ts, num, sizeof num);
				tmq_jw_number(&w, num);
			} else
				tmq_jw_null(&w);
			tmq_jw_end(&w);
		}
		tmq_jw_end(&w);
		tmq_jw_end(&w);
	}
	tmq_jw_end(&w);
	tmq_jw_key(&w, "types");
	tmq_jw_array(&w);
	for (i = 0; i < t->ntypes; i++)
		if (t->types[i])
			tmq_jw_str(&w, t->types[i]);
	tmq_jw_end(&w);
	tmq_jw_end(&w);
	putchar('\n');
}

/* --ends: "0=1200,1=1180,...", every partition, for tmq-get --from.  An
 * end that cannot be known prints nothing: a wrong one would make a copy
 * resume in the wrong place. */
static int
info_ends(struct tmq_topic *t)
{
	struct tmq_partstat *ps;
	struct tmq_error e;
	unsigned p;

	if (tmq_topic_stat(t, &ps, &e) < 0) {
		tmq_topic_close(t);
		return tmq_report(&topic_cmd, &e);
	}
	for (p = 0; p < t->partitions; p++)
		printf("%s%u=%llu", p ? "," : "", p,
		    (unsigned long long)ps[p].end);
	putchar('\n');
	tmq_topic_stat_free(ps, t->partitions);
	tmq_topic_close(t);
	return TMQ_EXIT_OK;
}

int
topic_info(char **operands, int noperands)
{
	const struct topic_args *a = &topic_args;
	const char *name = operands[0];
	struct tmq_error e;
	struct tmq_topic t;
	struct tmq_partstat *ps;
	int fd, rc;

	if (topic_open_root(a, 0, &fd) < 0)
		return TMQ_EXIT_FAIL;
	if (tmq_topic_open(fd, name, &t, &e) < 0) {
		close(fd);
		return tmq_report(&topic_cmd, &e);
	}
	close(fd);
	if (a->ends)
		return info_ends(&t);
	if (tmq_topic_stat_each(&t, &ps, &e) < 0) {
		tmq_topic_close(&t);
		return tmq_report(&topic_cmd, &e);
	}
	if (a->json)
		info_json(&t, ps);
	else
		info_text(&t, ps);
	rc = topic_say_problems(ps, t.partitions) > 0 ? TMQ_EXIT_FAIL : TMQ_EXIT_OK;
	tmq_topic_stat_free(ps, t.partitions);
	tmq_topic_close(&t);
	return rc;
}
