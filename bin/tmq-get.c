/* tmq-get: read messages from topics, once or following. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "keys.h"
#include "output.h"
#include "position.h"
#include "printer.h"
#include "readloop.h"
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
	uint64_t count;
	double window, session;
	double until;
	int null, follow, commit, json, no_resolve;
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
	    "TOPIC",
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
		tmq_warn(&cmd, "write error on standard output");
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
