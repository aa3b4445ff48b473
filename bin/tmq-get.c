/* tmq-get: read messages from topics, once or following. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "group/execloop.h"
#include "codec/keys.h"
#include "flow/output.h"
#include "flow/position.h"
#include "flow/printer.h"
#include "group/readloop.h"
#include "util/stop.h"
#include "flow/timespec.h"
#include "codec/timestamp.h"

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
	uint64_t count;
	double window, session;
	double until;
	int null, follow, commit, json, no_resolve;
	unsigned have_until, have_from, have_reset;
	enum tmq_reset reset;
	/* --exec and its options */
	struct tmq_execspec x;
	uint64_t jobs, retries;
	unsigned have_jobs, have_order, have_retries, have_backoff,
	    have_timeout, have_drain, have_shell;
};

/* What the options set. */
static struct opts opt = {
	.pr = { .mode = TMQ_PRINT_PAYLOAD, .term = '\n' },
	.pos = { .kind = TMQ_POS_START },
	.x = { .backoff = 1, .backoff_max = 60, .drain = 30 },
	.retries = 3,
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

/* --order partition|key */
static int
set_order(const char *arg, struct tmq_error *e)
{
	if (strcmp(arg, "partition") == 0)
		opt.x.order = TMQ_ORDER_PARTITION;
	else if (strcmp(arg, "key") == 0)
		opt.x.order = TMQ_ORDER_KEY;
	else
		return tmq_fail(e, "%s: not partition or key", arg);
	return 0;
}

/* --backoff D[,MAX]: durations (timespec.h), MAX at least D. */
static int
set_backoff(const char *arg, struct tmq_error *e)
{
	const char *comma = strchr(arg, ',');
	char first[64];
	double d, max;

	if (comma != NULL && (size_t)(comma - arg) >= sizeof first)
		return tmq_fail(e, "%s: bad duration", arg);
	snprintf(first, sizeof first, "%.*s",
	    comma != NULL ? (int)(comma - arg) : (int)strlen(arg), arg);
	if (tmq_duration_parse(first, &d, e) < 0)
		return -1;
	max = d > 60 ? d : 60;
	if (comma != NULL && tmq_duration_parse(comma + 1, &max, e) < 0)
		return -1;
	if (d <= 0 || max < d)
		return tmq_fail(e, "%s: the backoff must be more than 0 and "
		    "at most its MAX", arg);
	opt.x.backoff = d;
	opt.x.backoff_max = max;
	return 0;
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
	{ .lng = "no-resolve", .whole = 1,
	    .help = "print a blob reference as it is, not the payload it "
	    "refers to", .flag = &opt.no_resolve },
	{ .lng = "commit", .whole = 1,
	    .help = "with -g: commit what the reader took (at exit, and every "
	    "second or 1000 messages)", .flag = &opt.commit },
	{ .lng = "window", .arg = "DURATION", .kind = TMQ_ARG_WORD,
	    .help = "with -g: length of the rebalances this member starts "
	    "(default 5s)", .secs = &opt.window, .min = 1, .max = 86400 },
	{ .lng = "session-timeout", .arg = "DURATION", .kind = TMQ_ARG_WORD,
	    .help = "with -g: a member silent this long (stopped, or blocked "
	    "on its output) loses its partitions (default 45s)",
	    .secs = &opt.session, .min = 1, .max = 86400 },
	{ .lng = "offset-reset", .arg = "POLICY", .kind = TMQ_ARG_POLICY,
	    .whole = 1,
	    .help = "with -g: a committed offset out of range reads from start "
	    "(default), now, or is an error (fail)", .call = set_reset,
	    .given = &opt.have_reset },
	{ .lng = "exec", .arg = "CMD", .kind = TMQ_ARG_WORD,
	    .help = "with -g: run CMD for each message, its payload on stdin, "
	    "the message in TMQ_* variables (split as xargs does, no shell)",
	    .str = &opt.x.command },
	{ .lng = "shell", .help = "with --exec: run CMD with sh -c",
	    .flag = &opt.x.shell, .given = &opt.have_shell },
	{ .lng = "jobs", .arg = "N", .kind = TMQ_ARG_WORD,
	    .help = "with --exec: run up to N at once (default: the CPUs)",
	    .num = &opt.jobs, .min = 1, .max = 1024, .given = &opt.have_jobs },
	{ .lng = "order", .arg = "ORDER", .kind = TMQ_ARG_ORDER,
	    .help = "with --exec: one message of a partition at a time "
	    "(partition, default), or of a key (key)", .call = set_order,
	    .given = &opt.have_order },
	{ .lng = "retries", .arg = "N", .kind = TMQ_ARG_WORD,
	    .help = "with --exec: run a failed message again up to N times "
	    "(default 3)", .num = &opt.retries, .min = 0, .max = 1000,
	    .given = &opt.have_retries },
	{ .lng = "backoff", .arg = "D[,MAX]", .kind = TMQ_ARG_WORD,
	    .help = "with --exec: wait D before the first retry, doubling up "
	    "to MAX (default 1s,60s)", .call = set_backoff,
	    .given = &opt.have_backoff },
	{ .lng = "timeout", .arg = "DURATION", .kind = TMQ_ARG_WORD,
	    .help = "with --exec: a command running this long fails (SIGTERM, "
	    "then SIGKILL 5s later)", .secs = &opt.x.timeout, .min = 1,
	    .max = 8640000, .given = &opt.have_timeout },
	{ .lng = "dead-letter", .arg = "TOPIC", .kind = TMQ_ARG_TOPIC,
	    .help = "with --exec: put a message failed past its retries to "
	    "TOPIC and go on (without: stop, exit 1)",
	    .str = &opt.x.dead_letter },
	{ .lng = "drain-timeout", .arg = "DURATION", .kind = TMQ_ARG_WORD,
	    .help = "with --exec: on SIGTERM or SIGINT, and in a rebalance, "
	    "let running commands finish this long (default 30s)", .secs = &opt.x.drain, .min = 0,
	    .max = 86400, .given = &opt.have_drain },
	TMQ_COMMON_OPTIONS(&opt.root),
	{ 0 }
};

static const struct tmq_cmd cmd = {
	.name = "tmq-get",
	.usage = "[-0fJ] [-o POS] [--until TIME] [-n N] [-P N[,N...]] "
	    "[-K SEP | -F FMT] TOPIC...\n"
	    "-g GROUP [--commit] [--window DURATION] [--session-timeout DURATION] "
	    "[--offset-reset POLICY] "
	    "[-0fJ] [-o start|now] [-n N] [-P N[,N...]] [-K SEP | -F FMT] "
	    "TOPIC\n"
	    "-g GROUP --exec CMD [--shell] [--jobs N] [--order partition|key] "
	    "[--retries N] [--backoff D[,MAX]] [--timeout DURATION] "
	    "[--dead-letter TOPIC] [--drain-timeout DURATION] [-f] "
	    "[-o start|now] [-n N] TOPIC",
	.summary = "Read messages from topics, partitions in turn, one message "
	    "each.",
	.operands = "topic",
	.opts = options,
};

static void
print_notice(void *arg, const char *msg)
{
	(void)arg;
	tmq_warn(&cmd, "%s", msg);
}

/* --exec's options: with it only, and it with -g and no printing. */
static int
check_exec(void)
{
	if (opt.x.command == NULL) {
		if (opt.have_shell || opt.have_jobs || opt.have_order ||
		    opt.have_retries || opt.have_backoff || opt.have_timeout ||
		    opt.have_drain || opt.x.dead_letter != NULL)
			return tmq_usage_error(&cmd, "--shell, --jobs, --order, "
			    "--retries, --backoff, --timeout, --dead-letter and "
			    "--drain-timeout need --exec");
		return 0;
	}
	if (opt.group == NULL)
		return tmq_usage_error(&cmd, "--exec needs -g");
	if (opt.given_k || opt.given_f || opt.json || opt.null)
		return tmq_usage_error(&cmd, "--exec prints no messages: -J, "
		    "-K, -F and -0 do not go with it");
	return 0;
}

/* The checks on the options that need them all: 0, or a usage error
 * (said). */
static int
check_usage(int argc)
{
	unsigned first = 0, second = 0;
	char f = 0, g = 0;
	int rc;
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
	if ((rc = check_exec()) != 0)
		return rc;
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

/* The options' places, freed. */
static void
free_opts(void)
{
	tmq_format_free(&opt.pr.fmt);
	free(opt.parts.v);
	free(opt.keysep);
	tmq_position_free(&opt.pos);
}

/* What the options say: how to print, and what to read. */
static void
settle(struct tmq_readspec *s, int argc, char **argv)
{
	if (opt.given_f)
		opt.pr.mode = TMQ_PRINT_FORMAT;
	else if (opt.given_k) {
		opt.pr.mode = TMQ_PRINT_KEYED;
		opt.pr.keysep = opt.keysep;
	} else if (opt.json)
		opt.pr.mode = TMQ_PRINT_JSON;
	if (opt.null)
		opt.pr.term = '\0';
	s->root = opt.root;
	s->group = opt.group;
	s->topics = argv + optind;
	s->ntopics = argc - optind;
	s->parts = opt.parts.v;
	s->nparts = opt.parts.n;
	s->pos = &opt.pos;
	s->have_until = opt.have_until;
	s->until = opt.until;
	s->count = opt.count;
	s->follow = opt.follow;
	s->commit = opt.commit;
	s->window = opt.window > 0 ? opt.window : DEFAULT_WINDOW;
	s->session = opt.session > 0 ? opt.session : DEFAULT_SESSION;
	s->reset = opt.reset;
	s->no_resolve = opt.no_resolve;
	s->notice = print_notice;
	if (opt.x.command != NULL) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		s->exec = 1;
		opt.x.jobs = opt.have_jobs ? (unsigned)opt.jobs :
		    n > 0 ? (unsigned)n : 1;
		opt.x.retries = (unsigned)opt.retries;
	}
}

int
main(int argc, char **argv)
{
	struct tmq_readspec spec = { 0 };
	struct tmq_readloop l;
	struct tmq_output out = { 0 };
	struct tmq_error e;
	struct tmq_msg *m = NULL;
	const struct tmq_topic *t;
	enum tmq_turn turn;
	int rc, fatal = 1, corrupt = 0, opened = 0, skipped = 0, gone;

	tmq_start(&cmd);
	spec.started = tmq_now();	/* before --until is read: now is not before */
	if ((rc = tmq_options(&cmd, argc, argv)) >= 0 ||
	    (rc = check_usage(argc)) != 0)
		return free_opts(), rc;
	settle(&spec, argc, argv);
	tmq_stop_catch();
	/* A member whose reader went away (| head) must still leave the
	 * group, handing its partitions over: see EPIPE, not die of SIGPIPE. */
	if (spec.group != NULL)
		signal(SIGPIPE, SIG_IGN);
	if (tmq_output_open(&out, STDOUT_FILENO, 1 << 16, &e) < 0) {
		tmq_report(&cmd, &e);
		goto out;
	}
	if (spec.exec) {
		if ((fatal = tmq_exec_run(&spec, &opt.x, &out, &e) < 0))
			tmq_report(&cmd, &e);
		goto out;
	}
	opened = 1;
	if (tmq_readloop_open(&l, &spec, &out, &e) < 0) {
		if (tmq_stop)
			fatal = 0;	/* a signal while setting up: exit 0 */
		else
			tmq_report(&cmd, &e);
		goto out;
	}
	if ((m = malloc(sizeof *m)) == NULL)
		goto out;
	opt.pr.out = out.f;
	fatal = 0;
	while ((turn = tmq_readloop_next(&l, m, &t, &e)) != TMQ_TURN_END) {
		if (turn == TMQ_TURN_RECORD)
			tmq_print(&opt.pr, t, m);
		else if (turn == TMQ_TURN_CORRUPT) {
			fflush(out.f);
			tmq_report(&cmd, &e);
			corrupt = 1;
		} else if (turn == TMQ_TURN_ERROR ||
		    (turn == TMQ_TURN_IDLE && tmq_readloop_wait(&l, &e) < 0)) {
			/* A read or a wait the signal ended is the stop itself,
			 * no failure; what went wrong while stopping is one,
			 * unsaid. */
			if (tmq_stop && e.code == TMQ_ERR_STOPPED)
				break;
			if (!tmq_stop)
				tmq_report(&cmd, &e);
			fatal = 1;
			break;
		}
	}
	/* What was printed goes out before the teardown: closing the
	 * inotify descriptor waits out the kernel's grace period (10 to 20
	 * ms), which the last record (-n) should not wait for. */
	fflush(out.f);
	if (tmq_readloop_finish(&l, &e) < 0) {
		tmq_report(&cmd, &e);
		fatal = 1;
	}
out:
	if (opened) {
		skipped = tmq_readloop_skipped(&l);
		tmq_readloop_free(&l);
	}
	free(m);
	free_opts();
	/* A reader that went away (| head -1) is no error: a member left
	 * the group (handing its partitions over) and committed what the
	 * reader took; then it ends as any reader does, by SIGPIPE. */
	gone = tmq_output_reader_gone(&out);
	if (tmq_output_close(&out) < 0 && !gone) {
		tmq_warn_stdout(&cmd, out.err);
		return TMQ_EXIT_FAIL;
	}
	if (gone) {
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	/* stdout itself, as every tool's, is checked at exit too. */
	if (tmq_close_stdout(&cmd) < 0)
		return TMQ_EXIT_FAIL;
	return fatal || corrupt || skipped ? TMQ_EXIT_FAIL : TMQ_EXIT_OK;
}
