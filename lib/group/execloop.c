/* execloop.c: a member that runs a command per message (execloop.h). */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/argsplit.h"
#include "group/execloop.h"
#include "group/execreport.h"
#include "util/grow.h"
#include "util/jsonwriter.h"
#include "codec/keys.h"
#include "util/monoclock.h"
#include "util/notice.h"
#include "flow/printer.h"
#include "flow/producer.h"
#include "group/liveness.h"
#include "group/readturn.h"
#include "store/root.h"
#include "util/stop.h"
#include "codec/timestamp.h"
#include "group/workrun.h"

/* Messages held beside those running: read ahead, for --order key. */
#define READ_AHEAD 64

struct xitem {
	struct tmq_witem w;
	struct tmq_job job;
	struct tmq_msg m;		/* its payload in data */
	unsigned char *data;
	char key[TMQ_KEY_MAX_BYTES];
	char *type;
	double last;			/* when it last started (wall clock) */
	int abandoned;			/* its partition moved while it ran:
					 * ended, left to the new owner */
};

struct xrun {
	const struct tmq_readspec *rs;
	const struct tmq_execspec *xs;
	struct tmq_readloop l;
	struct tmq_workset ws;
	struct tmq_runner r;
	char **argv;			/* the command's */
	int have_dl;
	struct tmq_topic dl;
	int stopping, drain_killed, fatal;
	double drain_at;		/* monotonic */
	unsigned generation;
	struct tmq_error fe;		/* the first fatal error */
	/* What the member's lock file tells operators (execreport.h):
	 * rewritten when it changed, at most every REPORT_EVERY seconds. */
	struct tmq_xreport rep;
	size_t repcap;
	int rep_dirty;
	double rep_at;			/* monotonic */
	char *reptext;
};

#define REPORT_EVERY 0.05

static void
say(const struct xrun *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
say(const struct xrun *x, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (x->rs->notice == NULL || tmq_notice_quiet())
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	x->rs->notice(x->rs->notice_arg, msg);
}

/* The first fatal error is the one said; the member stops taking more. */
static void
fail(struct xrun *x, const struct tmq_error *e)
{
	if (!x->fatal)
		x->fe = *e;
	x->fatal = 1;
	if (!x->stopping) {
		x->stopping = 1;
		x->drain_at = tmq_mono() + x->xs->drain;
	}
}

static void
item_free(struct xitem *it)
{
	tmq_job_free(&it->job);
	free(it->data);
	free(it->type);
	free(it);
}

static const char *
topic_name(const struct xrun *x)
{
	return x->l.c.ntopics > 0 ? x->l.c.topics[0].name : "?";
}

/* A copy of the record just read, to hold while it runs. */
static struct xitem *
item_new(const struct tmq_msg *m, const struct tmq_topic *t)
{
	struct xitem *it = calloc(1, sizeof *it);

	if (it == NULL)
		return NULL;
	it->m = *m;
	it->data = malloc(m->payload.len + 1);
	it->type = strdup(tmq_type_name(t, m));
	if (it->data == NULL || it->type == NULL) {
		item_free(it);
		return NULL;
	}
	memcpy(it->data, m->payload.data, m->payload.len);
	it->m.payload.data = it->data;
	tmq_key_format(t->key_width, m->key, it->key);
	it->w.partition = m->partition;
	it->w.offset = m->offset;
	it->w.key = it->key;
	it->w.data = it;
	it->job.arg = it;
	return it;
}

/* Start it: its message in the environment, its payload on stdin. */
static int
start(struct xrun *x, struct xitem *it, struct tmq_error *e)
{
	char *env[8], ts[48];
	size_t i, n = 0;
	int rc = 0;

	tmq_ts_repr(it->m.ts, ts, sizeof ts);
	if (asprintf(&env[n++], "TMQ_TOPIC=%s", topic_name(x)) < 0 ||
	    asprintf(&env[n++], "TMQ_PARTITION=%u", it->w.partition) < 0 ||
	    asprintf(&env[n++], "TMQ_OFFSET=%llu",
	    (unsigned long long)it->w.offset) < 0 ||
	    asprintf(&env[n++], "TMQ_KEY=%s", it->key) < 0 ||
	    asprintf(&env[n++], "TMQ_TIMESTAMP=%s", ts) < 0 ||
	    asprintf(&env[n++], "TMQ_TYPE=%s", it->type) < 0 ||
	    asprintf(&env[n++], "TMQ_ATTEMPT=%u", it->w.attempts + 1) < 0 ||
	    asprintf(&env[n++], "TMQ_GROUP=%s", x->rs->group) < 0) {
		n--;
		rc = tmq_fail(e, "out of memory");
	}
	if (rc == 0) {
		tmq_job_free(&it->job);
		memset(&it->job, 0, sizeof it->job);
		it->job.arg = it;
		rc = tmq_run_start(&x->r, &it->job, env, n, it->data,
		    it->m.payload.len, e);
	}
	for (i = 0; i < n; i++)
		free(env[i]);
	if (rc < 0)
		return -1;
	it->last = tmq_now();
	tmq_ws_started(&x->ws, &it->w);
	x->rep.run++;
	x->rep_dirty = 1;
	return 0;
}

static char reject_msg[300];

static void
on_reject(void *arg, unsigned long recno, const char *msg)
{
	(void)arg;
	(void)recno;
	snprintf(reject_msg, sizeof reject_msg, "%s", msg);
}

/* The message as tmq-get -J prints it, with how it failed. */
static char *
dead_json(struct xrun *x, struct xitem *it, size_t *len)
{
	struct tmq_jw w;
	char *buf = NULL, st[64], when[48];
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	const struct tmq_job *j = &it->job;

	if (f == NULL)
		return NULL;
	tmq_print_json(f, &x->l.c.topics[0], &it->m);
	fflush(f);
	if (n > 0 && buf[n - 1] == '}')
		fseeko(f, -1, SEEK_END);
	tmq_run_status(j, st, sizeof st);
	tmq_ts_iso(it->last, when, sizeof when);
	tmq_jw_init(&w, f);
	fputs(",\"group\":", f);
	tmq_jw_str(&w, x->rs->group);
	fputs(",\"status\":", f);
	tmq_jw_str(&w, st);
	fputs(",\"exit\":", f);
	if (WIFEXITED(j->status))
		fprintf(f, "%d", WEXITSTATUS(j->status));
	else
		fputs("null", f);
	fputs(",\"signal\":", f);
	if (WIFSIGNALED(j->status) && sigabbrev_np(WTERMSIG(j->status)))
		tmq_jw_str(&w, sigabbrev_np(WTERMSIG(j->status)));
	else
		fputs("null", f);
	fprintf(f, ",\"timed_out\":%s,\"attempts\":%u,\"last_attempt\":",
	    j->timed_out ? "true" : "false", it->w.attempts);
	tmq_jw_str(&w, when);
	fputs(",\"stderr\":", f);
	tmq_jw_strn(&w, (const unsigned char *)j->tail, j->tlen);
	fputc('}', f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* Put it to the dead letter topic, durably, its key kept. */
static int
dead_letter(struct xrun *x, struct xitem *it, struct tmq_error *e)
{
	struct tmq_producer_opts o = { 0 };
	struct tmq_producer p;
	size_t len;
	char *json = dead_json(x, it, &len);
	int rc;

	if (json == NULL)
		return tmq_fail(e, "out of memory");
	o.key = it->key[0] != '\0' ? it->key : NULL;
	o.ptype = TMQ_TEXT;
	o.sync = 1;
	o.reject = on_reject;
	o.what = "dead letter";
	reject_msg[0] = '\0';
	if ((rc = tmq_producer_open(&p, &x->dl, &o, e)) == 0) {
		rc = tmq_producer_put(&p, json, len, 1, e);
		if (rc == 0)
			rc = tmq_producer_flush(&p, e);
		tmq_producer_close(&p);
		if (rc == 0 && reject_msg[0] != '\0')
			rc = tmq_fail(e, "%s: %s", x->xs->dead_letter,
			    reject_msg);
	}
	free(json);
	if (rc < 0)
		return tmq_fail_prefix(e, "%s: partition %u offset %llu: "
		    "dead letter", topic_name(x), it->w.partition,
		    (unsigned long long)it->w.offset);
	return 0;
}

/* A command ended: done, retried later, or dead. */
static void
ended(struct xrun *x, struct xitem *it)
{
	const struct tmq_job *j = &it->job;
	int ok = WIFEXITED(j->status) && WEXITSTATUS(j->status) == 0 &&
	    !j->timed_out;
	char st[64];
	struct tmq_error e;
	enum tmq_wend end = tmq_ws_ended(&x->ws, &it->w, ok, tmq_mono());

	x->rep_dirty = 1;
	/* Its partition is another's now: whatever its end, nothing of it
	 * is ours to retry, dead-letter or commit. */
	if (it->abandoned) {
		if (end != TMQ_WEND_DONE) {
			tmq_ws_remove(&x->ws, &it->w);
			item_free(it);
		}
		return;
	}
	if (end == TMQ_WEND_DONE)
		return;
	tmq_run_status(j, st, sizeof st);
	/* Ended by our stop: not its failure; left for the next owner. */
	if (x->drain_killed)
		return;
	if (end == TMQ_WEND_RETRY) {
		x->rep.retried++;
		say(x, "%s: partition %u offset %llu: %s: retry %u of %u in %gs",
		    topic_name(x), it->w.partition,
		    (unsigned long long)it->w.offset, st, it->w.attempts,
		    x->ws.retries, tmq_ws_backoff(x->ws.backoff,
		    x->ws.backoff_max, it->w.attempts));
		return;
	}
	if (!x->have_dl) {
		tmq_fail(&e, "%s: partition %u offset %llu: %s after %u "
		    "attempt%s, and no --dead-letter: not committed",
		    topic_name(x), it->w.partition,
		    (unsigned long long)it->w.offset, st, it->w.attempts,
		    it->w.attempts == 1 ? "" : "s");
		fail(x, &e);
		return;
	}
	if (dead_letter(x, it, &e) < 0) {
		fail(x, &e);
		return;
	}
	say(x, "%s: partition %u offset %llu: %s after %u attempt%s: "
	    "dead-lettered to %s", topic_name(x), it->w.partition,
	    (unsigned long long)it->w.offset, st, it->w.attempts,
	    it->w.attempts == 1 ? "" : "s", x->xs->dead_letter);
	x->rep.dead++;
	tmq_ws_done(&x->ws, &it->w);
}

/* Take what finished: committed (as --commit would), or, inside the
 * group's work (before_offer), only marked for the commit that follows. */
static void
collect(struct xrun *x, int commit)
{
	struct tmq_witem *w;
	struct tmq_error e;

	while ((w = tmq_ws_pop(&x->ws)) != NULL) {
		if ((commit ? tmq_readloop_done(&x->l, w->partition,
		    w->offset + 1, &e) : tmq_readloop_mark(&x->l, w->partition,
		    w->offset + 1, &e)) < 0)
			fail(x, &e);
		item_free(w->data);
	}
}

/* Commit what finished; drop what a rebalance took away, and end what
 * still runs of it: its new owner runs it again (before_offer let it
 * finish when it could). */
static void
settle(struct xrun *x)
{
	struct tmq_witem *w;
	size_t i;

	collect(x, 1);
	if (x->l.gc.generation == x->generation)
		return;
	x->generation = x->l.gc.generation;
	for (i = 0; i < x->ws.n; ) {
		struct xitem *it;

		w = x->ws.v[i];
		it = w->data;
		if (tmq_readloop_holds(&x->l, w->partition)) {
			i++;
		} else if (w->state == TMQ_W_RUNNING) {
			if (!it->abandoned) {
				it->abandoned = 1;
				tmq_job_signal(&it->job, SIGTERM);
				say(x, "%s: partition %u offset %llu: the "
				    "partition moved while it ran: ended, left "
				    "to its new owner", topic_name(x),
				    w->partition, (unsigned long long)w->offset);
			}
			i++;
		} else {
			tmq_ws_remove(&x->ws, w);
			item_free(it);
		}
	}
}

/* Tell operators, in the member's lock file, what runs now and the
 * counts so far, when that changed: at once when force, else at most
 * every REPORT_EVERY.  Best effort: a view, which nothing rests on. */
static void
publish(struct xrun *x, int force)
{
	const struct tmq_member *mb = &x->l.gc.mb;
	size_t i, len;

	if (!x->rep_dirty || !x->l.grouped || !x->l.gc.is_member ||
	    mb->livefd < 0 ||
	    (!force && tmq_mono() - x->rep_at < REPORT_EVERY))
		return;
	x->rep.n = 0;
	for (i = 0; i < x->ws.n && x->rep.n < TMQ_XREPORT_MAX_RUNS; i++) {
		const struct tmq_witem *w = x->ws.v[i];
		const struct xitem *it = w->data;
		struct tmq_xrun *r;

		if (w->state != TMQ_W_RUNNING || it->abandoned)
			continue;
		if (tmq_grow(&x->rep.v, &x->repcap, x->rep.n + 1,
		    sizeof *x->rep.v) < 0)
			return;
		r = &x->rep.v[x->rep.n++];
		r->partition = w->partition;
		r->offset = w->offset;
		r->attempt = w->attempts;
		r->started = it->last;
	}
	if (x->reptext == NULL &&
	    (x->reptext = malloc(TMQ_XREPORT_MAX_TEXT)) == NULL)
		return;
	len = tmq_xreport_format(&x->rep, x->reptext, TMQ_XREPORT_MAX_TEXT);
	if (len > 0)
		(void)tmq_live_publish(mb->livefd, mb->session, x->reptext,
		    len);
	x->rep_dirty = 0;
	x->rep_at = tmq_mono();
}

/* Wait for the commands (and fd) up to ms, and take in what ended. */
static int
wait_some(struct xrun *x, int ms, int fd)
{
	struct tmq_job *j;
	struct tmq_error e;
	double wake = tmq_ws_wake(&x->ws, tmq_mono()), now;
	int rc;

	if (wake >= 0 && !x->stopping && wake * 1000 < ms)
		ms = (int)(wake * 1000) + 1;
	if (x->rep_dirty && ms > REPORT_EVERY * 1000)
		ms = (int)(REPORT_EVERY * 1000);
	if (x->stopping && !x->drain_killed) {
		now = tmq_mono();
		if (now >= x->drain_at) {
			x->drain_killed = 1;
			tmq_run_signal(&x->r, SIGTERM);
		} else if ((x->drain_at - now) * 1000 < ms)
			ms = (int)((x->drain_at - now) * 1000) + 1;
	}
	if ((rc = tmq_run_poll(&x->r, ms, fd, &e)) < 0) {
		fail(x, &e);
		return 0;
	}
	while ((j = tmq_run_ended(&x->r)) != NULL)
		ended(x, j->arg);
	return rc;
}

/* Before each offer in a rebalance (groupconsumer.h): let the commands
 * running finish, for --drain-timeout at most, beating meanwhile, and mark
 * what finished, so that the commit before the offer counts it and no
 * partition moves with a message of it running.  Nothing new starts
 * until the rebalance ends (start_what_may).  What still runs past the
 * drain time is left uncommitted: if its partition moves, settle ends it
 * and the new owner runs it again. */
static int
before_offer(void *arg, struct tmq_error *e)
{
	struct xrun *x = arg;
	double end = tmq_mono() + x->xs->drain, left;

	(void)e;
	while (tmq_run_count(&x->r) > 0 && !tmq_stop && !x->fatal &&
	    (left = end - tmq_mono()) > 0) {
		tmq_gc_beat(&x->l.gc);
		wait_some(x, left < 0.1 ? (int)(left * 1000) + 1 : 100, -1);
		collect(x, 0);
		publish(x, 0);
	}
	collect(x, 0);
	return 0;
}

static void
start_what_may(struct xrun *x)
{
	struct tmq_witem *w;
	struct tmq_error e;

	/* Nothing new in a rebalance: its partition may be about to move. */
	while ((w = tmq_ws_next(&x->ws, tmq_mono(), x->stopping ||
	    tmq_readloop_rebalancing(&x->l))) != NULL)
		if (start(x, w->data, &e) < 0) {
			/* Not started: it waits, uncommitted. */
			w->state = TMQ_W_DEAD;
			fail(x, &e);
			break;
		}
}

static int
setup(struct xrun *x, struct tmq_output *out, struct tmq_error *e)
{
	const struct tmq_execspec *xs = x->xs;
	int argc, fd;

	if (xs->shell) {
		if ((x->argv = calloc(5, sizeof *x->argv)) == NULL)
			return tmq_fail(e, "out of memory");
		x->argv[0] = "sh";
		x->argv[1] = "-c";
		x->argv[2] = (char *)xs->command;
		x->argv[3] = "sh";
	} else if (tmq_argsplit(xs->command, &x->argv, &argc, e) < 0)
		return tmq_fail_prefix(e, "--exec");
	if (xs->dead_letter != NULL) {
		if (tmq_root_open_opt(x->rs->root, 0, &fd, e) < 0)
			return -1;
		if (tmq_topic_open(fd, xs->dead_letter, &x->dl, e) < 0) {
			close(fd);
			return tmq_fail_prefix(e, "--dead-letter");
		}
		close(fd);
		x->have_dl = 1;
	}
	if (tmq_ws_init(&x->ws, xs->order, xs->jobs, xs->retries, xs->backoff,
	    xs->backoff_max, (size_t)xs->jobs + READ_AHEAD) < 0)
		return tmq_fail(e, "out of memory");
	return tmq_run_init(&x->r, x->argv, xs->timeout, out->f, STDERR_FILENO,
	    e);
}

/* One step of reading: 1 to read again at once, 0 to wait. */
static int
read_one(struct xrun *x, struct tmq_msg *m, int *reading, int *idle)
{
	const struct tmq_topic *t;
	struct tmq_error e;
	struct xitem *it;

	switch (tmq_readloop_next(&x->l, m, &t, &e)) {
	case TMQ_TURN_RECORD:
		if ((it = item_new(m, t)) == NULL) {
			tmq_fail(&e, "out of memory");
			fail(x, &e);
			return 0;
		}
		tmq_ws_add(&x->ws, &it->w);
		return 1;
	case TMQ_TURN_CORRUPT:
		say(x, "%s", e.msg);
		return 1;
	case TMQ_TURN_IDLE:
		*idle = 1;
		return 0;
	case TMQ_TURN_REJOINED:
		return 1;
	case TMQ_TURN_END:
		*reading = 0;
		return 0;
	case TMQ_TURN_ERROR:
		*reading = 0;
		if (!(tmq_stop && e.code == TMQ_ERR_STOPPED) && !tmq_stop)
			fail(x, &e);
		return 0;
	}
	return 0;
}

int
tmq_exec_run(const struct tmq_readspec *rs, const struct tmq_execspec *xs,
    struct tmq_output *out, struct tmq_error *e)
{
	struct xrun *x = calloc(1, sizeof *x);
	struct tmq_msg *m = malloc(sizeof *m);
	struct tmq_error e2;
	int reading = 1, rc = 0, opened = 0;
	size_t i;

	if (x == NULL || m == NULL) {
		free(x);
		free(m);
		return tmq_fail(e, "out of memory");
	}
	x->rs = rs;
	x->xs = xs;
	x->r.chld[0] = x->r.chld[1] = -1;
	if (setup(x, out, e) < 0) {
		rc = -1;
		goto out;
	}
	if (tmq_readloop_open(&x->l, rs, out, e) < 0) {
		opened = 1;
		rc = tmq_stop ? 0 : -1;
		goto out;
	}
	opened = 1;
	x->generation = x->l.gc.generation;
	x->l.gc.before_offer = before_offer;
	x->l.gc.before_offer_arg = x;
	for (;;) {
		int idle = 0, fd = -1, ms = TMQ_TURN_MAX_WAIT_MS;

		if (tmq_stop && !x->stopping) {
			x->stopping = 1;
			x->drain_at = tmq_mono() + xs->drain;
		}
		if (x->stopping)
			reading = 0;
		start_what_may(x);
		if (reading && tmq_ws_room(&x->ws) &&
		    read_one(x, m, &reading, &idle)) {
			/* Keep the commands' pipes moving, unblocked. */
			if (tmq_run_count(&x->r) > 0)
				wait_some(x, 0, -1);
			settle(x);
			continue;
		}
		if (!reading && tmq_run_count(&x->r) == 0 &&
		    (x->stopping || !tmq_ws_busy(&x->ws) ||
		    tmq_ws_next(&x->ws, 1e300, 0) == NULL))
			break;
		if (idle) {
			ms = x->l.wait_ms;
			fd = tmq_readloop_fd(&x->l);
			if (fd < 0 && ms > TMQ_TURN_MAX_WAIT_MS / 10)
				ms = TMQ_TURN_MAX_WAIT_MS / 10;
		}
		wait_some(x, ms, fd);
		if (idle) {
			/* Take in what the topic's change said. */
			x->l.wait_ms = 0;
			if (tmq_readloop_wait(&x->l, e) < 0 && !tmq_stop)
				fail(x, e);
		}
		if (tmq_readloop_tend(&x->l, &e2) < 0 && !tmq_stop)
			fail(x, &e2);
		settle(x);
		publish(x, tmq_run_count(&x->r) == 0);
	}
	settle(x);
	if (tmq_readloop_finish(&x->l, &e2) < 0 && !x->fatal)
		fail(x, &e2);
	if (x->fatal) {
		*e = x->fe;
		rc = -1;
	}
out:
	tmq_run_free(&x->r);
	for (i = 0; i < x->ws.n; i++)
		item_free(x->ws.v[i]->data);
	tmq_ws_free(&x->ws);
	if (opened)
		tmq_readloop_free(&x->l);
	if (x->have_dl)
		tmq_topic_close(&x->dl);
	free(x->argv);
	tmq_xreport_free(&x->rep);
	free(x->reptext);
	free(x);
	free(m);
	return rc;
}
