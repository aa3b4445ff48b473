/* topic-prune.c: tmq-topic prune NAME: the day files older than a date removed
 * or archived, and what each group loses said (the entry's exec:
 * topic.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/escape.h"
#include "cli/metrics.h"
#include "util/progress.h"
#include "store/prune.h"
#include "group/readers.h"
#include "flow/timespec.h"
#include "codec/timestamp.h"
#include "topic.h"

struct prune_report {
	const char *topic;
	int dry, keep_unread;
	unsigned long n;
	struct tmq_readers rs;	/* the groups that read the topic */
	int have_rs;
};

static void
print_notice(void *arg, const char *msg)
{
	(void)arg;
	tmq_warn(&topic_cmd, "%s", msg);
}

/* Before a file goes: with --keep-unread, keep it when a group of the
 * topic has not read all of it, and say which. */
static int
keep_unread(void *arg, const struct tmq_pfile *pf, uint64_t end)
{
	struct prune_report *r = arg;
	size_t n, i;

	if (!r->have_rs || (n = tmq_readers_hold(&r->rs, pf, end)) == 0 ||
	    !r->keep_unread)
		return 0;
	tmq_flush_stdout();
	tmq_progress_done();
	fprintf(stderr, "%s: %s: %s %s: unread by group%s ", topic_cmd.name,
	    r->topic, r->dry ? "would keep" : "kept", pf->name,
	    n == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%s (from offset %llu)", i ? ", " : "",
		    r->rs.r[r->rs.holders[i].reader].name,
		    (unsigned long long)r->rs.holders[i].from);
	fputc('\n', stderr);
	return 1;
}

static void
pruned(void *arg, const struct tmq_pfile *pf)
{
	struct prune_report *r = arg;

	r->n++;
	if (r->have_rs)
		tmq_readers_gone(&r->rs);
	if (r->dry)
		printf("%s\n", pf->name);
	else
		tmq_progress("pruned %lu files", r->n);
}

/* What each group lost (or would lose) that it had not read. */
static void
say_losses(const struct prune_report *r)
{
	size_t i;

	tmq_flush_stdout();
	for (i = 0; i < r->rs.n; i++)
		if (r->rs.r[i].lost > 0)
			tmq_warn(&topic_cmd, "%s: group %s %s %llu unread message%s "
			    "(--keep-unread keeps them)", r->topic,
			    r->rs.r[i].name, r->dry ? "would lose" : "lost",
			    (unsigned long long)r->rs.r[i].lost,
			    r->rs.r[i].lost == 1 ? "" : "s");
}

/* --before: a time (tmq(7) TIMES); whole days go, so its UTC day. */
static int
before_day(const char *s, unsigned *day, struct tmq_error *e)
{
	double t;

	if (tmq_timespec_parse(s, tmq_now(), &t, e) < 0)
		return -1;
	*day = tmq_utc_day(t);
	return 0;
}

int
topic_prune(char **operands, int noperands)
{
	const struct topic_args *a = &topic_args;
	const char *name = operands[0];
	struct prune_report r;
	struct tmq_prune_opts po = { 0 };
	struct tmq_error e;
	struct tmq_topic t;
	size_t i;
	int fd, rc;

	memset(&r, 0, sizeof r);
	r.topic = name;
	r.dry = a->dry;
	r.keep_unread = a->keep_unread;
	if (before_day(a->before, &po.before_day, &e) < 0)
		return tmq_usage_error(&topic_cmd, "--before: %s", e.msg);
	if (topic_open_root(a, 0, &fd) < 0)
		return TMQ_EXIT_FAIL;
	rc = tmq_topic_open(fd, name, &t, &e);
	if (rc < 0) {
		close(fd);
		return tmq_report(&topic_cmd, &e);
	}
	/* The groups that read the topic, and how far: without them prune
	 * still prunes, as it always has, only without saying what groups
	 * lose; --keep-unread cannot keep what it cannot know. */
	if (tmq_readers_load(fd, &t, &r.rs, print_notice, NULL, &e) == 0)
		r.have_rs = 1;
	else if (a->keep_unread) {
		tmq_warn(&topic_cmd, "%s: nothing pruned: %s", name, e.msg);
		close(fd);
		tmq_topic_close(&t);
		return TMQ_EXIT_FAIL;
	} else
		tmq_warn(&topic_cmd, "%s: what groups lose is not known: %s", name,
		    e.msg);
	close(fd);
	for (i = 0; a->keep_unread && i < r.rs.nunknown; i++)
		tmq_warn(&topic_cmd, "%s: group %s: its topic is not recorded (the "
		    "TwainMQ library made it): not counted", name,
		    r.rs.unknown[i]);
	po.archive = a->archive;
	po.dry_run = a->dry;
	po.keep = keep_unread;
	po.each = pruned;
	po.arg = &r;
	rc = tmq_prune(&t, &po, &e);
	tmq_progress_done();
	if (r.have_rs)
		say_losses(&r);
	tmq_readers_free(&r.rs);
	tmq_topic_close(&t);
	return rc < 0 ? tmq_report(&topic_cmd, &e) : TMQ_EXIT_OK;
}
