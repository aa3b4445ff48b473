/* tmq-get: read messages from topics, once or following. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "consumer.h"
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

enum { OPT_UNTIL = 256, OPT_COMMIT, OPT_WINDOW, OPT_RESET };

/* Long enough for the TwainMQ library's members, which answer when their owner
 * polls; short enough that a cron job is not kept waiting. */
#define DEFAULT_WINDOW 5.0

static const struct tmq_option options[] = {
	{ "null", '0', NULL, TMQ_ARG_NONE, "end each record with NUL",
	    TMQ_ON_ALL, 0 },
	{ "format", 'F', "FMT", TMQ_ARG_WORD,
	    "print with FMT: %s payload, %k key, %p partition, %o offset, "
	    "%t topic, %T time (ISO 8601), %u time (Unix), %m time (epoch ms), "
	    "%S payload size, %y type, %%; "
	    "\\n \\t \\0", TMQ_ON_ALL, 0 },
	{ "follow", 'f', NULL, TMQ_ARG_NONE, "wait for more at the end",
	    TMQ_ON_ALL, 0 },
	{ "group", 'g', "GROUP", TMQ_ARG_GROUP,
	    "read as a member of consumer group GROUP", TMQ_ON_ALL, 0 },
	{ "json", 'J', NULL, TMQ_ARG_NONE, "one JSON object a message",
	    TMQ_ON_ALL, 0 },
	{ "key-delimiter", 'K', "SEP", TMQ_ARG_WORD, "print KEY SEP PAYLOAD",
	    TMQ_ON_ALL, 0 },
	{ "count", 'n', "N", TMQ_ARG_WORD, "stop after N messages",
	    TMQ_ON_ALL, 0 },
	{ "from", 'o', "POS", TMQ_ARG_FROM,
	    "start, now, OFFSET, -N (last N), or a TIME (tmq(7): ISO 8601, "
	    "@SECONDS, 1h ago)",
	    TMQ_ON_ALL, 0 },
	{ "partition", 'P', "N[,N...]", TMQ_ARG_WORD,
	    "read only these partitions", TMQ_ON_ALL, 0 },
	{ "until", OPT_UNTIL, "TIME", TMQ_ARG_TIME,
	    "stop each partition at its first message after TIME (with -f, "
	    "at TIME by the clock too)", TMQ_ON_ALL, 0 },
	{ "commit", OPT_COMMIT, NULL, TMQ_ARG_NONE,
	    "with -g: commit what the reader took (at exit, and every "
	    "second or 1000 messages)", TMQ_ON_ALL, 0 },
	{ "window", OPT_WINDOW, "SECONDS", TMQ_ARG_WORD,
	    "with -g: length of the rebalances this member starts "
	    "(default 5)", TMQ_ON_ALL, 0 },
	{ "offset-reset", OPT_RESET, "POLICY", TMQ_ARG_POLICY,
	    "with -g: a committed offset out of range reads from start "
	    "(default), now, or is an error (fail)", TMQ_ON_ALL, 0 },
	TMQ_COMMON_OPTIONS,
	{ 0 }
};

static const struct tmq_cmd cmd = {
	"tmq-get",
	"[-0fJ] [-o POS] [--until TIME] [-n N] [-P N[,N...]] "
	    "[-K SEP | -F FMT] TOPIC...\n"
	    "-g GROUP [--commit] [--window SECONDS] [--offset-reset POLICY] "
	    "[-0fJ] [-o start|now] [-n N] [-P N[,N...]] [-K SEP | -F FMT] "
	    "TOPIC",
	"Read messages from topics, partitions in turn, one message each.",
	"topic",
	options,
	NULL,
	"commit offset-reset"
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
	tmq_stop = 1;	/* and lib/'s long loops stop too */
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

/* At a normal end with --commit: what is still in the pipe is not taken,
 * and would be read again by the group.  Give the reader the time to take
 * it (or to go away), answering the group and committing meanwhile; a
 * signal cuts this short. */
static int
wait_taken(struct tmq_gconsumer *gc, struct tmq_output *out,
    struct tmq_error *e)
{
	double last = tmq_now();
	int rc, timeout;

	if (fflush(out->f) != 0)
		return 0;
	while (!stop) {
		timeout = tmq_gc_timeout(gc);
		if (timeout < 0 || timeout > 1000)
			timeout = 1000;
		if ((rc = tmq_output_wait_taken(out, timeout, e)) != 0)
			return rc < 0 ? -1 : 0;
		if (tmq_gc_poll(gc, e) < 0)
			return -1;
		if (tmq_now() - last >= 1.0) {
			if (tmq_gc_commit(gc, e) < 0)
				return -1;
			last = tmq_now();
		}
	}
	return 0;
}

struct opts {
	struct tmq_printer pr;
	struct tmq_position pos;
	const char *root, *group;
	unsigned *parts, nparts;	/* -P, when given */
	char *keysep;			/* -K, escapes resolved */
	char modes[4];			/* of -K, -F and -J, those given */
	uint64_t count;
	double until, window;
	int follow, have_until, have_from, commit, have_reset;
	enum tmq_reset reset;
};

static int
parse(int argc, char **argv, struct opts *o)
{
	struct tmq_error e;
	uint64_t v;
	int ch;

	while ((ch = tmq_getopt(&cmd, argc, argv)) != -1) {
		if ((ch == 'K' || ch == 'F' || ch == 'J') &&
		    strchr(o->modes, ch) == NULL)
			o->modes[strlen(o->modes)] = (char)ch;
		switch (ch) {
		case '0': o->pr.term = '\0'; break;
		case 'F':
			tmq_format_free(&o->pr.fmt);
			if (tmq_format_compile(optarg, &o->pr.fmt, &e) < 0)
				return tmq_usage_error(&cmd, "%s", e.msg);
			o->pr.mode = TMQ_PRINT_FORMAT;
			break;
		case 'f': o->follow = 1; break;
		case 'g': o->group = optarg; break;
		case 'J': o->pr.mode = TMQ_PRINT_JSON; break;
		case 'K':
			free(o->keysep);
			if (tmq_key_delimiter_parse(optarg, &o->keysep,
			    &o->pr.keyseplen, &e) < 0)
				return tmq_usage_error(&cmd, "-K: %s", e.msg);
			o->pr.mode = TMQ_PRINT_KEYED;
			o->pr.keysep = o->keysep;
			break;
		case 'n':
			if (tmq_parse_u64(optarg, 1, UINT64_MAX, &o->count, &e) < 0)
				return tmq_usage_error(&cmd, "-n: %s", e.msg);
			break;
		case 'o':
			if (tmq_position_parse(optarg, &o->pos, &e) < 0)
				return tmq_usage_error(&cmd, "--from: %s", e.msg);
			o->have_from = 1;
			break;
		case 'P':
			free(o->parts);
			o->parts = NULL;
			if (tmq_partlist_parse(optarg, &o->parts, &o->nparts,
			    &e) < 0)
				return tmq_usage_error(&cmd, "-P: %s", e.msg);
			break;
		case OPT_UNTIL:
			if (tmq_timespec_parse(optarg, tmq_now(), &o->until,
			    &e) < 0)
				return tmq_usage_error(&cmd, "--until: %s", e.msg);
			o->have_until = 1;
			break;
		case OPT_COMMIT: o->commit = 1; break;
		case OPT_RESET:
			if (tmq_reset_parse(optarg, &o->reset, &e) < 0)
				return tmq_usage_error(&cmd, "--offset-reset: %s",
				    e.msg);
			o->have_reset = 1;
			break;
		case OPT_WINDOW:
			if (tmq_parse_u64(optarg, 1, 86400, &v, &e) < 0)
				return tmq_usage_error(&cmd, "--window: %s", e.msg);
			o->window = (double)v;
			break;
		case 'd': o->root = optarg; break;
		case TMQ_OPT_DONE: return -1;
		default: return TMQ_EXIT_USAGE;
		}
	}
	if (strlen(o->modes) > 1)
		return tmq_usage_error(&cmd, "-%c and -%c do not go together",
		    o->modes[0], o->modes[1]);
	if (optind >= argc)
		return tmq_usage_error(&cmd, "missing topic");
	if (o->group == NULL && (o->commit || o->window > 0))
		return tmq_usage_error(&cmd, "--commit and --window need -g");
	if (o->group == NULL && o->have_reset)
		return tmq_usage_error(&cmd, "--offset-reset needs -g");
	if (o->group != NULL) {
		if (argc - optind != 1)
			return tmq_usage_error(&cmd, "-g reads exactly one topic");
		if (o->have_from && o->pos.kind != TMQ_POS_START &&
		    o->pos.kind != TMQ_POS_NOW)
			return tmq_usage_error(&cmd, "with -g, --from is start or "
			    "now (where a new group begins)");
	}
	if (o->window == 0)
		o->window = DEFAULT_WINDOW;
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

	if (o->parts == NULL)
		return 0;
	if (tmq_consumer_add_topic(c, rootfd, topic, &ti, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	if (tmq_partlist_check(o->parts, o->nparts, c->topics[ti].partitions,
	    &e) < 0) {
		tmq_warn(&cmd, "%s: %s", topic, e.msg);
		return -1;
	}
	return 0;
}

/* Open the root and set the sources up: the topics' partitions, or the
 * group's share or fixed partitions. */
static int
setup(const struct opts *o, struct tmq_consumer *c, struct tmq_gconsumer *gc,
    int argc, char **argv)
{
	struct tmq_error e;
	int fd, i, rc = 0;

	if (tmq_root_open_opt(o->root, 0, &fd, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	for (i = optind; i < argc && rc == 0; i++) {
		if (check_partitions(o, c, fd, argv[i]) < 0) {
			rc = -1;
			break;
		}
		if (o->group == NULL)
			rc = tmq_consumer_add(c, fd, argv[i], o->parts, o->nparts,
			    &e);
		else if (o->parts != NULL)
			rc = tmq_gc_fixed(gc, c, fd, o->group, argv[i], o->parts,
			    o->nparts, o->pos.kind == TMQ_POS_NOW, &e);
		else
			rc = tmq_gc_join(gc, c, fd, o->group, argv[i],
			    o->pos.kind == TMQ_POS_NOW, o->window, &e);
		/* Told to stop meanwhile: whatever gave up (joining, a long
		 * replay) did so on purpose. */
		if (rc < 0 && !stop)
			tmq_report(&cmd, &e);
	}
	close(fd);
	if (rc == 0 && o->group == NULL && tmq_consumer_seek(c, &o->pos, &e) < 0)
		rc = stop ? -1 : (tmq_report(&cmd, &e), -1);
	return rc;
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct tmq_consumer c;
	struct tmq_gconsumer gc;
	struct tmq_error e;
	struct tmq_msg *m = NULL;
	struct tmq_output out;
	struct sigaction sa;
	uint64_t seen = 0, since_commit = 0;
	double last_commit, before;
	int corrupt = 0, fatal = 1, rc, timeout, grouped, reader_gone = 0;
	unsigned long c_failures;
	size_t src;

	memset(&o, 0, sizeof o);
	memset(&gc, 0, sizeof gc);
	memset(&out, 0, sizeof out);
	gc.lockfd = -1;
	o.pr.mode = TMQ_PRINT_PAYLOAD;
	o.pr.term = '\n';
	o.pos.kind = TMQ_POS_START;
	if ((rc = parse(argc, argv, &o)) != 0) {
		tmq_format_free(&o.pr.fmt);
		free(o.parts);
		free(o.keysep);
		return rc < 0 ? TMQ_EXIT_OK : rc;
	}
	grouped = o.group != NULL;
	if (tmq_consumer_init(&c, &e) < 0) {
		tmq_format_free(&o.pr.fmt);
		free(o.parts);
		free(o.keysep);
		return tmq_report(&cmd, &e);
	}
	c.have_until = o.have_until;
	c.until = o.until;
	c.notice = print_notice;
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
	gc.reset = o.reset;
	if (setup(&o, &c, &gc, argc, argv) < 0) {
		if (stop)
			fatal = 0;	/* a signal while setting up: exit 0 */
		goto out;
	}
	gc.autocommit = o.commit;
	gc.flush = flush_output;
	gc.flush_arg = &out;
	/* Commit only what the reader took, not what sits in a pipe. */
	gc.taken = output_taken;
	gc.taken_arg = &out;
	fatal = 0;

	m = malloc(sizeof *m);
	if (m == NULL) {
		fatal = 1;
		goto out;
	}
	o.pr.out = out.f;
	last_commit = tmq_now();
	while (!stop && (o.count == 0 || seen < o.count)) {
		if (grouped && (seen & 1023) == 0 && tmq_gc_poll(&gc, &e) < 0) {
			tmq_report(&cmd, &e);
			fatal = 1;
			break;
		}
		/* The clock before the read: a message stamped before --until
		 * that lands after this read is the only one the clock may cut
		 * off, and only when its writer was that slow. */
		before = tmq_now();
		rc = tmq_consumer_next(&c, m, &src, &e);
		if (rc == 1) {
			tmq_print(&o.pr, &c.topics[c.src[src].topic], m);
			seen++;
			if (grouped) {
				if (ferror(out.f))
					break;	/* not delivered: not ours to commit */
				if (tmq_gc_delivered(&gc, m->partition, m->offset,
				    tmq_output_pos(&out), &e) < 0) {
					tmq_report(&cmd, &e);
					fatal = 1;
					break;
				}
				if (o.commit && ++since_commit >= 1000) {
					if (tmq_gc_commit(&gc, &e) < 0) {
						tmq_report(&cmd, &e);
						fatal = 1;
						break;
					}
					since_commit = 0;
					last_commit = tmq_now();
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
			tmq_report(&cmd, &e);
			fatal = 1;
			break;
		}
		/* Nothing to read now. */
		if (grouped) {
			unsigned gen = gc.generation;

			if (tmq_gc_poll(&gc, &e) < 0) {
				tmq_report(&cmd, &e);
				fatal = 1;
				break;
			}
			if (o.commit && tmq_now() - last_commit >= 1.0) {
				if (tmq_gc_commit(&gc, &e) < 0) {
					tmq_report(&cmd, &e);
					fatal = 1;
					break;
				}
				last_commit = tmq_now();
				since_commit = 0;
			}
			if (gc.generation != gen)
				continue;	/* a new share: read it first */
		}
		if (tmq_consumer_done(&c) ||
		    (!grouped && tmq_consumer_all_failed(&c)))
			break;
		/* Partitions that stay idle never pass --until by a message:
		 * the clock ends them too, once all is read up to now. */
		if (o.have_until && before >= o.until &&
		    (!grouped || tmq_gc_settled(&gc)))
			break;
		if (!o.follow && (!grouped || tmq_gc_settled(&gc)))
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
		if (o.have_until) {
			double left = (o.until - tmq_now()) * 1000;

			if (left < timeout)
				timeout = left > 0 ? (int)left + 1 : 0;
		}
		if (tmq_consumer_wait(&c, timeout, &e) < 0) {
			tmq_report(&cmd, &e);
			fatal = 1;
			break;
		}
	}
	if (grouped && o.commit && !fatal && !ferror(out.f) &&
	    wait_taken(&gc, &out, &e) < 0) {
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
	tmq_format_free(&o.pr.fmt);
	free(o.parts);
	free(o.keysep);
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
