/* tmq-get: read messages from topics, once or following. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autocommit.h"
#include "cli.h"
#include "consumer.h"
#include "fstype.h"
#include "groupconsumer.h"
#include "keys.h"
#include "output.h"
#include "partlist.h"
#include "position.h"
#include "printer.h"
#include "root.h"
#include "stop.h"
#include "timespec.h"
#include "timestamp.h"

/* Long enough for the TwainMQ library's members, which answer when their owner
 * polls; short enough that a cron job is not kept waiting. */
#define DEFAULT_WINDOW 5
/* Kafka's session.timeout.ms: a member silent this long (stopped, or
 * blocked on its output) loses its partitions (tmq(7)). */
#define DEFAULT_SESSION 45

struct opts {
	struct tmq_printer pr;
	struct tmq_position pos;
	const char *root, *group;
	struct tmq_partsel parts;	/* -P, when given */
	char *keysep;			/* -K, escapes resolved */
	unsigned given_k, given_f, given_j;	/* the order -K, -F, -J came */
	uint64_t count, window, session;
	double until;
	int null, follow, commit, json;
	unsigned have_until, have_from, have_reset;
	enum tmq_reset reset;
};

/* What the options set. */
static struct opts opt = {
	.pr = { .mode = TMQ_PRINT_PAYLOAD, .term = '\n' },
	.pos = { .kind = TMQ_POS_START },
};

/* -F: compiled as it comes. */
static int
set_format(const char *arg, struct tmq_error *e)
{
	tmq_format_free(&opt.pr.fmt);
	return tmq_format_compile(arg, &opt.pr.fmt, e);
}

/* -K: its escapes resolved. */
static int
set_keysep(const char *arg, struct tmq_error *e)
{
	free(opt.keysep);
	opt.keysep = NULL;
	return tmq_key_delimiter_parse(arg, &opt.keysep, &opt.pr.keyseplen, e);
}

/* --from: a position, or PARTITION=OFFSET pairs (position.h). */
static int
set_from(const char *arg, struct tmq_error *e)
{
	return tmq_position_parse_from(arg, &opt.pos, e);
}

static int
set_reset(const char *arg, struct tmq_error *e)
{
	return tmq_reset_parse(arg, &opt.reset, e);
}

static const struct tmq_option options[] = {
	{ .lng = "null", .shrt = '0', .help = "end each record with NUL",
	    .flag = &opt.null },
	{ .lng = "format", .shrt = 'F', .arg = "FMT", .kind = TMQ_ARG_WORD,
	    .help = "print with FMT: %s payload, %k key, %p partition, "
	    "%o offset, %t topic, %T time (ISO 8601), %u time (Unix), "
	    "%m time (epoch ms), %S payload size, %y type, %%; "
	    "\\n \\t \\0", .call = set_format, .bare = 1,
	    .given = &opt.given_f },
	{ .lng = "follow", .shrt = 'f', .help = "wait for more at the end",
	    .flag = &opt.follow },
	{ .lng = "group", .shrt = 'g', .arg = "GROUP", .kind = TMQ_ARG_GROUP,
	    .help = "read as a member of consumer group GROUP",
	    .str = &opt.group },
	{ .lng = "json", .shrt = 'J', .help = "one JSON object a message",
	    .flag = &opt.json, .given = &opt.given_j },
	{ .lng = "key-delimiter", .shrt = 'K', .arg = "SEP",
	    .kind = TMQ_ARG_WORD, .help = "print KEY SEP PAYLOAD",
	    .call = set_keysep, .given = &opt.given_k },
	{ .lng = "count", .shrt = 'n', .arg = "N", .kind = TMQ_ARG_WORD,
	    .help = "stop after N messages", .num = &opt.count, .min = 1,
	    .max = UINT64_MAX },
	{ .lng = "from", .shrt = 'o', .arg = "POS", .kind = TMQ_ARG_FROM,
	    .help = "start, now, OFFSET, -N (last N), a TIME (tmq(7): "
	    "ISO 8601, @SECONDS, 1h ago), or P=OFFSET,... (each partition "
	    "its own)", .call = set_from, .say_long = 1,
	    .given = &opt.have_from },
	{ .lng = "partition", .shrt = 'P', .arg = "N[,N...]",
	    .kind = TMQ_ARG_WORD, .help = "read only these partitions",
	    .parts = &opt.parts },
	{ .lng = "until", .arg = "TIME", .kind = TMQ_ARG_TIME,
	    .help = "stop each partition at its first message after TIME "
	    "(with -f, at TIME by the clock too)", .time = &opt.until,
	    .given = &opt.have_until },
	{ .lng = "commit", .whole = 1,
	    .help = "with -g: commit what the reader took (at exit, and every "
	    "second or 1000 messages)", .flag = &opt.commit },
	{ .lng = "window", .arg = "SECONDS", .kind = TMQ_ARG_WORD,
	    .help = "with -g: length of the rebalances this member starts "
	    "(default 5)", .num = &opt.window, .min = 1, .max = 86400 },
	{ .lng = "session-timeout", .arg = "SECONDS", .kind = TMQ_ARG_WORD,
	    .help = "with -g: a member silent this long (stopped, or blocked "
	    "on its output) loses its partitions (default 45)",
	    .num = &opt.session, .min = 1, .max = 86400 },
	{ .lng = "offset-reset", .arg = "POLICY", .kind = TMQ_ARG_POLICY,
	    .whole = 1,
	    .help = "with -g: a committed offset out of range reads from start "
	    "(default), now, or is an error (fail)", .call = set_reset,
	    .given = &opt.have_reset },
	TMQ_COMMON_OPTIONS(&opt.root),
	{ 0 }
};

static const struct tmq_cmd cmd = {
	.name = "tmq-get",
	.usage = "[-0fJ] [-o POS] [--until TIME] [-n N] [-P N[,N...]] "
	    "[-K SEP | -F FMT] TOPIC...\n"
	    "-g GROUP [--commit] [--window SECONDS] [--session-timeout SECONDS] "
	    "[--offset-reset POLICY] "
	    "[-0fJ] [-o start|now] [-n N] [-P N[,N...]] [-K SEP | -F FMT] "
	    "TOPIC",
	.summary = "Read messages from topics, partitions in turn, one message "
	    "each.",
	.operands = "topic",
	.opts = options,
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
	tmq_stop = 1;	/* and lib/'s long loops stop too */
}

/* Whether e is the stop itself: a wait or a read that the signal ended
 * (TMQ_ERR_STOPPED), which is no failure: the command ends as a stop. */
static int
stopped_by(const struct tmq_error *e)
{
	return stop && e->code == TMQ_ERR_STOPPED;
}

/* An error that ends the loop: 1 when it is a failure (said), 0 when it
 * is the stop (not said). */
static int
failed(const struct tmq_error *e)
{
	if (stopped_by(e))
		return 0;
	tmq_report(&cmd, e);
	return 1;
}

static void
print_notice(void *arg, const char *msg)
{
	(void)arg;
	fflush(stdout);		/* what came before it, before it */
	tmq_warn(&cmd, "%s", msg);
}

static int
flush_output(void *arg)
{
	struct tmq_output *out = arg;

	/* Output dropped on the way out (a signal, a reader that stopped
	 * reading) is not an error: what the reader took is counted. */
	return fflush(out->f) == 0 || out->interrupted ? 0 : -1;
}

static int
output_taken(void *arg, uint64_t *bytes, struct tmq_error *e)
{
	return tmq_output_taken(arg, bytes, e);
}

/* The checks on the options that need them all: 0, or a usage error
 * (said). */
static int
check_usage(int argc)
{
	unsigned first = 0, second = 0;
	char f = 0, g = 0;
	const struct { char letter; unsigned order; } modes[] = {
		{ 'K', opt.given_k }, { 'F', opt.given_f }, { 'J', opt.given_j }
	};
	size_t i;

	/* Of -K, -F and -J, the first two given, in the order given. */
	for (i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		if (modes[i].order == 0)
			continue;
		if (first == 0 || modes[i].order < first) {
			second = first;
			g = f;
			first = modes[i].order;
			f = modes[i].letter;
		} else if (second == 0 || modes[i].order < second) {
			second = modes[i].order;
			g = modes[i].letter;
		}
	}
	if (second != 0)
		return tmq_usage_error(&cmd, "-%c and -%c do not go together",
		    f, g);
	if (optind >= argc)
		return tmq_usage_error(&cmd, "missing topic");
	if (opt.group == NULL && (opt.commit || opt.window > 0))
		return tmq_usage_error(&cmd, "--commit and --window need -g");
	if (opt.group == NULL && opt.have_reset)
		return tmq_usage_error(&cmd, "--offset-reset needs -g");
	if (opt.group == NULL && opt.session > 0)
		return tmq_usage_error(&cmd, "--session-timeout needs -g");
	/* A pair for a partition that -P leaves out would be ignored. */
	if (opt.pos.kind == TMQ_POS_PAIRS && opt.parts.v != NULL) {
		unsigned k, j = 0;

		for (k = 0; k < opt.pos.nat; k++) {
			while (j < opt.parts.n &&
			    opt.parts.v[j] < opt.pos.at[k].partition)
				j++;
			if (j == opt.parts.n ||
			    opt.parts.v[j] != opt.pos.at[k].partition)
				return tmq_usage_error(&cmd, "--from names "
				    "partition %u, which -P does not read",
				    opt.pos.at[k].partition);
		}
	}
	if (opt.group != NULL) {
		if (argc - optind != 1)
			return tmq_usage_error(&cmd, "-g reads exactly one topic");
		if (opt.have_from && opt.pos.kind != TMQ_POS_START &&
		    opt.pos.kind != TMQ_POS_NOW)
			return tmq_usage_error(&cmd, "with -g, --from is start or "
			    "now (where a new group begins)");
	}
	return 0;
}

/* Check -P against one topic, opened once into the consumer (adding it
 * again later finds it there). */
static int
check_partitions(const struct opts *o, struct tmq_consumer *c, int rootfd,
    const char *topic)
{
	struct tmq_error e;
	size_t ti;
	unsigned np;

	if (o->parts.v == NULL && o->pos.kind != TMQ_POS_PAIRS)
		return 0;
	if (tmq_consumer_add_topic(c, rootfd, topic, &ti, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	np = c->topics[ti].partitions;
	if (o->parts.v != NULL &&
	    tmq_partlist_check(o->parts.v, o->parts.n, np, &e) < 0) {
		tmq_warn(&cmd, "%s: %s", topic, e.msg);
		return -1;
	}
	/* (Sorted: the last is the largest.) */
	if (o->pos.kind == TMQ_POS_PAIRS && o->pos.nat > 0 &&
	    o->pos.at[o->pos.nat - 1].partition >= np) {
		tmq_warn(&cmd, "%s: --from: partition %u does not exist (topic "
		    "has %u)", topic, o->pos.at[o->pos.nat - 1].partition, np);
		return -1;
	}
	return 0;
}

/* Is e a network filesystem's server gone away, for a reader that runs
 * on (fstype.h)?  fd: a descriptor on that filesystem. */
static int
outage(int fd, const struct tmq_error *e)
{
	return opt.follow && !stop && e->code == TMQ_ERR_SYS &&
	    tmq_fs_outage(fd, e->sys);
}

/* Open the root and set the sources up: the topics' partitions, or the
 * group's share or fixed partitions.  When away is not NULL, a failure
 * because the root's server is away is not said, only set there. */
static int
setup(const struct opts *o, struct tmq_consumer *c, struct tmq_gconsumer *gc,
    int argc, char **argv, int *away)
{
	struct tmq_error e;
	int fd, i, rc = 0;

	if (tmq_root_open_opt(o->root, 0, &fd, &e) < 0) {
		if (away != NULL && e.code == TMQ_ERR_SYS &&
		    tmq_outage_errno(e.sys) && opt.follow && !stop)
			return *away = 1, -1;
		return tmq_report(&cmd, &e), -1;
	}
	for (i = optind; i < argc && rc == 0; i++) {
		if (check_partitions(o, c, fd, argv[i]) < 0) {
			rc = -1;
			break;
		}
		if (o->group == NULL)
			rc = tmq_consumer_add(c, fd, argv[i], o->parts.v,
			    o->parts.n, &e);
		else if (o->parts.v != NULL)
			rc = tmq_gc_fixed(gc, c, fd, o->group, argv[i],
			    o->parts.v, o->parts.n, o->pos.kind == TMQ_POS_NOW,
			    &e);
		else
			rc = tmq_gc_join(gc, c, fd, o->group, argv[i],
			    o->pos.kind == TMQ_POS_NOW, (double)o->window, &e);
		/* Told to stop meanwhile: whatever gave up (joining, a long
		 * replay) did so on purpose. */
		if (rc < 0 && away != NULL && outage(fd, &e))
			*away = 1;
		else if (rc < 0 && !stop)
			tmq_report(&cmd, &e);
	}
	close(fd);
	if (rc == 0 && o->group == NULL && tmq_consumer_seek(c, &o->pos, &e) < 0)
		rc = stop ? -1 : (tmq_report(&cmd, &e), -1);
	return rc;
}

/* What the consumer and the group's consumer are told before setup. */
static void
prepare(struct tmq_consumer *c, struct tmq_gconsumer *gc)
{
	c->have_until = opt.have_until;
	c->until = opt.until;
	c->notice = print_notice;
	/* A follower (a member too) runs on: its server may go away and come
	 * back (tmq(7), Shared file systems). */
	c->retry_outages = opt.follow;
	memset(gc, 0, sizeof *gc);
	gc->lockfd = -1;
	gc->reset = opt.reset;
	gc->session = (double)opt.session;
}

/* What the group's consumer is told once it has joined: commits are for
 * what is read from then on. */
static void
prepare_commits(struct tmq_gconsumer *gc, struct tmq_output *out)
{
	gc->autocommit = opt.commit;
	gc->flush = flush_output;
	gc->flush_arg = out;
	/* Commit only what the reader took, not what sits in a pipe. */
	gc->taken = output_taken;
	gc->taken_arg = out;
}

/* A member's group log failed with e.  When its server is away (outage),
 * say so once, and join the group again, as a new member, once the server
 * is back: the old membership's lock went with the connection, so its
 * partitions are the group's to give again, and what it printed without
 * committing is delivered again (at least once, as after a restart).
 * 1 when joined again; 0 when not (e said, or told to stop). */
static int
rejoined(struct tmq_consumer *c, struct tmq_gconsumer *gc,
    struct tmq_autocommit *ac, struct tmq_output *out, int argc, char **argv,
    struct tmq_error *e)
{
	int backoff = tmq_outage_backoff(0), away;

	if (c->ntopics == 0 || !outage(c->topics[0].dirfd, e)) {
		if (!stop)
			tmq_report(&cmd, e);
		return 0;
	}
	/* Said once: the consumer may have said it for a partition. */
	if (c->away > 0)
		tmq_warn(&cmd, "group %s: joining again once the server is "
		    "back (what was not committed is read again)", opt.group);
	else
		tmq_warn(&cmd, "group %s: %s: its server is away: joining "
		    "again once it is back (what was not committed is read "
		    "again)", opt.group, e->msg);
	fflush(out->f);
	for (;;) {
		/* (c and gc stay whole whenever we return: main ends them) */
		poll(NULL, 0, backoff);
		if (stop)
			return 0;
		tmq_gc_close(gc);
		tmq_consumer_free(c);
		if (tmq_consumer_init(c, e) < 0) {
			tmq_report(&cmd, e);
			return 0;
		}
		prepare(c, gc);
		away = 0;
		if (setup(&opt, c, gc, argc, argv, &away) == 0)
			break;
		if (!away)
			return 0;	/* (said) */
		backoff = tmq_outage_backoff(backoff);
	}
	prepare_commits(gc, out);
	tmq_ac_init(ac, opt.commit, tmq_now());
	tmq_warn(&cmd, "group %s: the server is back: joined again",
	    opt.group);
	return 1;
}

int
main(int argc, char **argv)
{
	struct tmq_consumer c;
	struct tmq_gconsumer gc;
	struct tmq_error e;
	struct tmq_msg *m = NULL;
	struct tmq_output out;
	struct sigaction sa;
	struct tmq_autocommit ac;
	uint64_t seen = 0;
	double before, started;
	int corrupt = 0, fatal = 1, rc, timeout, grouped, reader_gone = 0;
	unsigned long c_failures;
	size_t src;

	tmq_start(&cmd);
	started = tmq_now();	/* before --until is read: now is not before */
	memset(&gc, 0, sizeof gc);
	memset(&out, 0, sizeof out);
	gc.lockfd = -1;
	if ((rc = tmq_options(&cmd, argc, argv)) >= 0 ||
	    (rc = check_usage(argc)) != 0) {
		tmq_format_free(&opt.pr.fmt);
		free(opt.parts.v);
		free(opt.keysep);
	tmq_position_free(&opt.pos);
		return rc;
	}
	if (opt.given_f)
		opt.pr.mode = TMQ_PRINT_FORMAT;
	else if (opt.given_k) {
		opt.pr.mode = TMQ_PRINT_KEYED;
		opt.pr.keysep = opt.keysep;
	} else if (opt.json)
		opt.pr.mode = TMQ_PRINT_JSON;
	if (opt.null)
		opt.pr.term = '\0';
	if (opt.window == 0)
		opt.window = DEFAULT_WINDOW;
	if (opt.session == 0)
		opt.session = DEFAULT_SESSION;
	grouped = opt.group != NULL;
	if (tmq_consumer_init(&c, &e) < 0) {
		tmq_format_free(&opt.pr.fmt);
		free(opt.parts.v);
		free(opt.keysep);
	tmq_position_free(&opt.pos);
		return tmq_report(&cmd, &e);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A member whose reader went away (| head) must still leave the
	 * group, handing its partitions over: see EPIPE, not die of SIGPIPE. */
	if (grouped)
		signal(SIGPIPE, SIG_IGN);
	if (tmq_output_open(&out, STDOUT_FILENO, 1 << 16, &e) < 0) {
		tmq_report(&cmd, &e);
		goto out;
	}
	prepare(&c, &gc);
	if (setup(&opt, &c, &gc, argc, argv, NULL) < 0) {
		if (stop)
			fatal = 0;	/* a signal while setting up: exit 0 */
		goto out;
	}
	/* --until now (or later): the ends at the start, whatever the stamps
	 * of what is already there (tmq_consumer_until_ends). */
	if (!grouped && opt.have_until && opt.until >= started &&
	    tmq_consumer_until_ends(&c, &e) < 0) {
		tmq_report(&cmd, &e);
		goto out;
	}
	prepare_commits(&gc, &out);
	fatal = 0;

	m = malloc(sizeof *m);
	if (m == NULL) {
		fatal = 1;
		goto out;
	}
	opt.pr.out = out.f;
	tmq_ac_init(&ac, grouped && opt.commit, tmq_now());
	while (!stop && (opt.count == 0 || seen < opt.count)) {
		if (grouped && (seen & 1023) == 0 && tmq_gc_poll(&gc, &e) < 0) {
			if (rejoined(&c, &gc, &ac, &out, argc, argv, &e))
				continue;
			fatal = !stopped_by(&e);
			break;
		}
		/* The clock before the read: a message stamped before --until
		 * that lands after this read is the only one the clock may cut
		 * off, and only when its writer was that slow. */
		before = tmq_now();
		rc = tmq_consumer_next(&c, m, &src, &e);
		if (rc == 1 && grouped && tmq_gc_due(&gc)) {
			/* We may have been stopped long enough to lose this
			 * partition: find out before printing more of it. */
			if (tmq_gc_poll(&gc, &e) < 0) {
				if (rejoined(&c, &gc, &ac, &out, argc, argv, &e))
					continue;
				fatal = !stopped_by(&e);
				break;
			}
			if (!tmq_gc_holds(&gc, m->partition))
				continue;
		}
		if (rc == 1) {
			tmq_print(&opt.pr, &c.topics[c.src[src].topic], m);
			seen++;
			if (grouped) {
				if (ferror(out.f))
					break;	/* not delivered: not ours to commit */
				if (tmq_gc_delivered(&gc, m->partition, m->offset,
				    tmq_output_pos(&out), &e) < 0) {
					if (rejoined(&c, &gc, &ac, &out, argc, argv, &e))
						continue;
					fatal = !stopped_by(&e);
					break;
				}
				if (tmq_ac_count(&ac) &&
				    tmq_ac_commit(&ac, &gc, tmq_now(), &e) < 0) {
					if (rejoined(&c, &gc, &ac, &out, argc, argv, &e))
						continue;
					fatal = !stopped_by(&e);
					break;
				}
			}
			continue;
		}
		if (rc == 2) {
			fflush(out.f);
			tmq_report(&cmd, &e);
			corrupt = 1;
			continue;
		}
		if (rc < 0) {
			fatal = failed(&e);
			break;
		}
		/* Nothing to read now. */
		if (grouped) {
			unsigned gen = gc.generation;

			if (tmq_gc_poll(&gc, &e) < 0) {
				if (rejoined(&c, &gc, &ac, &out, argc, argv, &e))
					continue;
				fatal = !stopped_by(&e);
				break;
			}
			if (tmq_ac_due(&ac, tmq_now()) &&
			    tmq_ac_commit(&ac, &gc, tmq_now(), &e) < 0) {
				if (rejoined(&c, &gc, &ac, &out, argc, argv, &e))
					continue;
				fatal = !stopped_by(&e);
				break;
			}
			if (gc.generation != gen)
				continue;	/* a new share: read it first */
		}
		if (tmq_consumer_done(&c) ||
		    (!grouped && tmq_consumer_all_failed(&c)))
			break;
		/* Partitions that stay idle never pass --until by a message:
		 * the clock ends them too, once all is read up to now. */
		if (opt.have_until && before >= opt.until &&
		    (!grouped || tmq_gc_settled(&gc)))
			break;
		if (!opt.follow && (!grouped || tmq_gc_settled(&gc)))
			break;		/* drained */
		/* Whoever reads our output sees everything before we sleep. */
		if (fflush(out.f) != 0)
			break;
		/* A reader that went away (| head) while nothing came in is
		 * not waited for until the next message would find it gone:
		 * a member would hold its partitions, and what it left in the
		 * pipe uncommitted, meanwhile (tail -f stops too). */
		if (tmq_output_reader_gone(&out)) {
			reader_gone = 1;
			break;
		}
		timeout = grouped ? tmq_gc_timeout(&gc) : -1;
		if (timeout < 0 || timeout > 1000)
			timeout = 1000;
		if (opt.have_until) {
			double left = (opt.until - tmq_now()) * 1000;

			if (left < timeout)
				timeout = left > 0 ? (int)left + 1 : 0;
		}
		if (tmq_consumer_wait(&c, timeout, &e) < 0) {
			fatal = failed(&e);
			break;
		}
	}
	/* (What it owes the group is written after a stop too: when it
	 * cannot be, that is said, and is a failure.) */
	if (ac.on && !fatal && !ferror(out.f) &&
	    tmq_ac_wait_taken(&ac, &gc, &out, &e) < 0) {
		tmq_report(&cmd, &e);
		fatal = 1;
	}
	if (grouped && tmq_gc_finish(&gc, &e) < 0) {
		tmq_report(&cmd, &e);
		fatal = 1;
	}
out:
	c_failures = c.failures;
	tmq_gc_close(&gc);
	free(m);
	tmq_format_free(&opt.pr.fmt);
	free(opt.parts.v);
	free(opt.keysep);
	tmq_position_free(&opt.pos);
	tmq_consumer_free(&c);
	if (tmq_output_close(&out) < 0) {
		tmq_warn(&cmd, "write error on standard output");
		return TMQ_EXIT_FAIL;
	}
	/* stdout itself, as every tool's, is checked at exit too. */
	if (tmq_close_stdout(&cmd) < 0)
		return TMQ_EXIT_FAIL;
	if (reader_gone) {
		/* What the next write would have met: SIGPIPE, or for a
		 * member (which ignores it, to leave the group) EPIPE. */
		if (!grouped) {
			signal(SIGPIPE, SIG_DFL);
			raise(SIGPIPE);
		}
		tmq_warn(&cmd, "write error on standard output");
		return TMQ_EXIT_FAIL;
	}
	return fatal || corrupt || c_failures ? TMQ_EXIT_FAIL : TMQ_EXIT_OK;
}
