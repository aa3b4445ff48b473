/* tmq-put: append messages from the arguments or standard input. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "flow/follow.h"
#include "util/grow.h"
#include "codec/keys.h"
#include "codec/message.h"
#include "codec/names.h"
#include "flow/producer.h"
#include "flow/records.h"
#include "store/root.h"
#include "util/stop.h"
#include "store/topic.h"

/* What the options set. */
static struct tmq_producer_opts po;
static const char *root, **files;	/* --file names, in argv */
static const char *follow;		/* --follow FILE */
static size_t nfiles, files_cap;
static uint64_t partition;		/* -p */
static unsigned given_partition;
static int whole, null, bytes;

static int
add_file(const char *arg, struct tmq_error *e)
{
	if (tmq_grow(&files, &files_cap, nfiles + 1, sizeof *files) < 0)
		return tmq_fail(e, "out of memory");
	files[nfiles++] = arg;
	return 0;
}

static const struct tmq_option options[] = {
	{ .lng = "null", .shrt = '0',
	    .help = "records on stdin end with NUL, not newline", .flag = &null },
	{ .lng = "bytes", .shrt = 'b', .help = "payloads are raw bytes, not text",
	    .flag = &bytes },
	{ .lng = "file", .shrt = 'F', .arg = "FILE", .kind = TMQ_ARG_FILE,
	    .help = "with -l: put FILE as one message (repeatable)",
	    .call = add_file },
	{ .lng = "json", .shrt = 'J',
	    .help = "each record a JSON object as tmq-get -J or kcat -J print it",
	    .flag = &po.json },
	{ .lng = "keep-time",
	    .help = "with -J: keep each record's timestamp, not now",
	    .flag = &po.keep_time },
	{ .lng = "keep-offsets",
	    .help = "with -J: keep each record's partition and offset (and "
	    "time): skip what is stored, refuse gaps", .flag = &po.keep_offsets },
	{ .lng = "key", .shrt = 'k', .arg = "KEY", .kind = TMQ_ARG_WORD,
	    .help = "the key of every message", .str = &po.key },
	{ .lng = "partition", .shrt = 'p', .arg = "N", .kind = TMQ_ARG_WORD,
	    .help = "every message to partition N, whatever its key picks",
	    .num = &partition, .max = UINT32_MAX - 1,
	    .given = &given_partition },
	{ .lng = "key-delimiter", .shrt = 'K', .arg = "SEP",
	    .kind = TMQ_ARG_WORD, .help = "each record is KEY SEP PAYLOAD",
	    .str = &po.keydelim_arg },
	{ .lng = "whole", .shrt = 'l',
	    .help = "all of stdin (or each --file) is one message",
	    .flag = &whole },
	{ .lng = "type", .shrt = 'T', .arg = "NAME", .kind = TMQ_ARG_TYPE,
	    .help = "typed messages of type NAME: each record a JSON object",
	    .str = &po.type_name },
	{ .lng = "follow", .arg = "FILE", .kind = TMQ_ARG_FILE,
	    .help = "put each line added to FILE, following it as tail -F, "
	    "and go on where the last run stopped", .str = &follow },
	{ .lng = "sync",
	    .help = "make each batch durable (fdatasync) before reading on",
	    .flag = &po.sync },
	TMQ_COMMON_OPTIONS(&root),
	{ 0 }
};

static const struct tmq_cmd cmd = {
	.name = "tmq-put",
	.usage = "[-0l] [-k KEY | -K SEP] [-p N] [-b | -T NAME] [--sync] "
	    "[-F FILE]... TOPIC [MESSAGE...]\n"
	    "[-0] -J [-p N] [--keep-time | --keep-offsets] [--sync] TOPIC "
	    "[MESSAGE...]\n"
	    "[-0] [-k KEY | -K SEP | -J] [-p N] [-b | -T NAME] [--sync] "
	    "--follow FILE TOPIC",
	.summary = "Append messages to a topic: the MESSAGE operands, else one "
	    "per line of standard input.",
	.operands = "topic",
	.opts = options,
};

struct put {
	struct tmq_producer prod;
	const char *what;	/* what a record is called: record, message */
	int bad;		/* a record was refused */
	/* -l -F FILE...: each file one record, batched with the others, its
	 * number the file's place in files (from 1), which a refusal names. */
	const char **files;
	unsigned long file;
};

/* SIGINT, SIGTERM: read no more, write what was read, say how far. */
static void
on_signal(int sig)
{
	(void)sig;
	tmq_stop = 1;
}

static void
reject(void *arg, unsigned long recno, const char *msg)
{
	struct put *pp = arg;

	if (pp->files != NULL)
		tmq_warn(&cmd, "%s: %s 1: %s", pp->prod.topic->name,
		    pp->files[recno - 1], msg);
	else
		tmq_warn(&cmd, "%s: %s %lu: %s", pp->prod.topic->name,
		    pp->what, recno, msg);
	pp->bad = 1;
}

/* Queue one record; returns -1 only on a fatal (write) error. */
static int
put_one(struct put *pp, const char *rec, size_t n, unsigned long recno)
{
	struct tmq_error e;

	if (tmq_producer_put(&pp->prod, rec, n, recno, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	return 0;
}

static int
flush(struct put *pp)
{
	struct tmq_error e;

	if (tmq_producer_flush(&pp->prod, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	return 0;
}

/* The longest record read: what the topic takes (a -J record may be
 * twice that: base64, escapes), or what a line's payload can be. */
static size_t
record_max(const struct tmq_topic *t)
{
	size_t m = t->max_message;

	if (m > 0 && po.json)
		m = 2 * m + 65536;
	return m > TMQ_PAYLOAD_MAX ? m : TMQ_PAYLOAD_MAX;
}

/* What a record longer than record_max is told. */
static const char *
too_long(const struct tmq_topic *t, char *buf, size_t sz)
{
	if (t->max_message == 0)
		return TMQ_TOO_LARGE;
	snprintf(buf, sz, "longer than the topic's max_message (%zu bytes%s)",
	    t->max_message, po.json ? ", twice that for a -J record" : "");
	return buf;
}

/* The records of fd, put; flushed at its end unless more inputs follow
 * (-F FILE...: the files, each one record, batched together, their blobs
 * made durable together). */
static int
put_stream(struct put *pp, int fd, int delim, const char *what, int more)
{
	char toolong[120];
	struct tmq_records rr;
	struct tmq_error e;
	const char *rec;
	size_t n;
	int rc;

	pp->what = what;
	if (tmq_records_open(&rr, fd, delim, record_max(pp->prod.topic), &e) <
	    0)
		return tmq_report(&cmd, &e), -1;
	for (;;) {
		if (tmq_stop)
			break;
		rc = tmq_records_next(&rr, tmq_producer_pending(&pp->prod),
		    &rec, &n, &e);
		if (rc == TMQ_REC_EOF || rc == TMQ_REC_STOP)
			break;
		if (rc < 0) {
			/* The input failed, not the topic: what was read is
			 * put (and said first), and the caller goes on to its
			 * next input. */
			if (flush(pp) < 0) {
				tmq_records_close(&rr);
				return -1;
			}
			tmq_warn(&cmd, "%s: %s", fd == STDIN_FILENO ?
			    "standard input" : what, e.msg);
			pp->bad = 1;
			break;
		}
		/* Nothing more is ready: let what we hold land now, so a slow
		 * pipe sees each message at once.  Before a refusal too, so
		 * that refusals are told in input order. */
		if ((rc == TMQ_REC_WAIT || rc == TMQ_REC_TOOLONG) &&
		    flush(pp) < 0) {
			tmq_records_close(&rr);
			return -1;
		}
		if (rc == TMQ_REC_WAIT)
			continue;
		if (rc == TMQ_REC_TOOLONG) {
			tmq_warn(&cmd, "%s: %s %lu: %s", pp->prod.topic->name,
			    what, rr.recno, too_long(pp->prod.topic, toolong,
			    sizeof toolong));
			tmq_producer_skip(&pp->prod);
			pp->bad = 1;
			continue;
		}
		if (put_one(pp, rec, n, pp->files != NULL ? pp->file :
		    rr.recno) < 0) {
			tmq_records_close(&rr);
			return -1;
		}
	}
	tmq_records_close(&rr);
	return more ? 0 : flush(pp);
}

static void
follow_notice(void *arg, const char *msg)
{
	(void)arg;
	tmq_warn(&cmd, "%s", msg);
}

/* How many records a batch holds at most, and (about) how many bytes:
 * what is put, then confirmed (the state saved); a KILL repeats at most
 * one batch. */
#define FOLLOW_BATCH 512
#define FOLLOW_BATCH_BYTES (1024 * 1024)

/* A batch, its records copied as they come (each is valid only until the
 * next is read), so that how far they go is written before any of them
 * is (follow.h). */
struct fbatch {
	char *buf;
	size_t len, cap;
	size_t ends[FOLLOW_BATCH];
	unsigned n;
};

/* What was written, as a failed put says it (producer.h), appended to e:
 * lines 1 to n of this run. */
static void
say_written(struct tmq_error *e, unsigned long n)
{
	size_t len = strlen(e->msg);

	if (n == 0)
		snprintf(e->msg + len, sizeof e->msg - len, "; no line was "
		    "written");
	else if (n == 1)
		snprintf(e->msg + len, sizeof e->msg - len, "; line 1 was "
		    "written, line 2 and later were not");
	else
		snprintf(e->msg + len, sizeof e->msg - len, "; lines 1 to %lu "
		    "were written, line %lu and later were not", n, n + 1);
}

/* The batch: how far it goes written (not yet in place), its records
 * put, then how far it goes put in place.  A failure of the first writes
 * none of it; of the last, all of it, kept for the next run. */
static int
follow_batch(struct put *pp, struct tmq_follow *f, struct fbatch *b,
    unsigned long *recno)
{
	struct tmq_error e;
	size_t at = 0;
	unsigned i;

	if (tmq_follow_prepare(f, &e) < 0) {
		say_written(&e, *recno);
		return tmq_report(&cmd, &e), -1;
	}
	for (i = 0; i < b->n; i++) {
		if (put_one(pp, b->buf + at, b->ends[i] - at, ++*recno) < 0) {
			tmq_follow_abandon(f);
			return -1;
		}
		at = b->ends[i];
	}
	b->n = 0;
	b->len = 0;
	if (flush(pp) < 0) {
		tmq_follow_abandon(f);
		return -1;
	}
	if (tmq_follow_save(f, &e) < 0) {
		say_written(&e, *recno);
		return tmq_report(&cmd, &e), -1;
	}
	return 0;
}

/* --follow FILE: each record added to FILE, and how far they were taken,
 * kept around their writing. */
static int
put_follow(struct put *pp, const struct tmq_topic *t)
{
	struct tmq_follow f;
	struct tmq_error e;
	struct fbatch b;
	const char *rec;
	size_t n;
	unsigned long recno = 0;
	int rc;

	/* (SIGINT and SIGTERM, caught in main without SA_RESTART, end a
	 * wait and stop the loop: tmq_stop.) */
	memset(&b, 0, sizeof b);
	pp->what = "line";
	if (tmq_follow_open(&f, t, follow, null ? '\0' : '\n',
	    TMQ_PAYLOAD_MAX, follow_notice, NULL, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	rc = 0;
	while (!tmq_stop && rc == 0) {
		int r = tmq_follow_next(&f, &rec, &n, &e);

		if (r < 0) {
			tmq_report(&cmd, &e);
			rc = -1;
			break;
		}
		if (r == TMQ_FOLLOW_RECORD) {
			if (tmq_grow(&b.buf, &b.cap, b.len + n, 1) < 0) {
				tmq_warn(&cmd, "out of memory");
				rc = -1;
				break;
			}
			if (n > 0)
				memcpy(b.buf + b.len, rec, n);
			b.len += n;
			b.ends[b.n++] = b.len;
			if (b.n < FOLLOW_BATCH && b.len < FOLLOW_BATCH_BYTES)
				continue;
		} else if (r == TMQ_FOLLOW_TOOLONG) {
			tmq_warn(&cmd, "%s: %s: a line skipped: %s", t->name,
			    follow, TMQ_TOO_LARGE);
			pp->bad = 1;
			continue;
		}
		/* A batch, or all there is for now. */
		if (follow_batch(pp, &f, &b, &recno) < 0) {
			rc = -1;
			break;
		}
		if (r == TMQ_FOLLOW_WAIT && !tmq_stop &&
		    tmq_follow_wait(&f, 1000, &e) < 0) {
			tmq_report(&cmd, &e);
			rc = -1;
		}
	}
	/* Stopped: what was taken is written and kept, so that the next run
	 * repeats nothing. */
	if (rc == 0 && follow_batch(pp, &f, &b, &recno) < 0)
		rc = -1;
	tmq_follow_close(&f);
	free(b.buf);
	return rc;
}

/* --keep-offsets: what a stopped partition held back. */
static void
say_held(const struct tmq_producer *p)
{
	unsigned i;

	for (i = 0; i < p->topic->partitions; i++) {
		const struct tmq_offpart *op = &p->oc.parts[i];

		if (op->stopped && op->held > 0)
			tmq_warn(&cmd, "%s: partition %u: %llu more record%s "
			    "not written after offset %llu", p->topic->name, i,
			    (unsigned long long)op->held, op->held == 1 ? "" :
			    "s", (unsigned long long)op->stopped_at);
	}
}

/* The checks on the options that need them all. */
static int
check_usage(struct tmq_producer_opts *o, int nops)
{
	struct tmq_error e;
	size_t i;
	int dash = 0;

	/* Standard input has one end: a second "-F -" could only put an
	 * empty message. */
	for (i = 0; i < nfiles; i++)
		if (strcmp(files[i], "-") == 0 && dash++)
			return tmq_usage_error(&cmd, "-F - (standard input) "
			    "given more than once");
	if (nops < 1)
		return tmq_usage_error(&cmd, "missing topic");
	if (o->keep_time && !o->json)
		return tmq_usage_error(&cmd, "--keep-time needs -J");
	if (o->keep_offsets && !o->json)
		return tmq_usage_error(&cmd, "--keep-offsets needs -J");
	if (o->keep_offsets && given_partition)
		return tmq_usage_error(&cmd, "-p and --keep-offsets do not go "
		    "together (each record keeps its own partition)");
	o->have_partition = given_partition != 0;
	o->partition = (unsigned)partition;
	/* A JSON record carries its own key and type. */
	if (o->json && (o->key != NULL || o->keydelim_arg != NULL ||
	    o->ptype != TMQ_TEXT || whole))
		return tmq_usage_error(&cmd, "-J does not go with -k, -K, -b, "
		    "-T or -l");
	if (o->key != NULL && o->keydelim_arg != NULL)
		return tmq_usage_error(&cmd, "-k and -K do not go together");
	if (o->keydelim_arg != NULL) {
		char *sep;

		if (tmq_key_delimiter_parse(o->keydelim_arg, &sep,
		    &o->keydelimlen, &e) < 0)
			return tmq_usage_error(&cmd, "-K: %s", e.msg);
		o->keydelim = sep;
		/* Lines never hold a newline, nor -0 records a NUL: such a
		 * key would never be found in what standard input gives. */
		if (nops == 1 && memchr(sep, null ? '\0' : '\n',
		    o->keydelimlen) != NULL)
			return tmq_usage_error(&cmd, "-K: '%s' holds the record "
			    "separator (%s)", o->keydelim_arg, null ?
			    "NUL, with -0" : "newline; -0 reads NUL-separated "
			    "records");
	}
	if (nfiles > 0 && !whole)
		return tmq_usage_error(&cmd, "--file needs -l");
	if (whole && nops > 1)
		return tmq_usage_error(&cmd, "-l takes no MESSAGE operands");
	if (null && whole)
		return tmq_usage_error(&cmd, "-0 and -l do not go together");
	if (follow != NULL && (whole || nfiles > 0 || nops > 1))
		return tmq_usage_error(&cmd, "--follow does not go with -l, -F "
		    "or MESSAGE operands");
	if (follow != NULL && *follow == '\0')
		return tmq_usage_error(&cmd, "--follow: empty file name");
	return 0;
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	struct tmq_topic t;
	struct tmq_error e;
	struct put pp;
	int c, fd, fatal = 0, i, rc;

	tmq_start(&cmd);
	memset(&pp, 0, sizeof pp);
	if ((rc = tmq_options(&cmd, argc, argv)) >= 0)
		goto out;
	/* Whichever came last would win, silently: messages of another kind
	 * than meant. */
	if (bytes && po.type_name != NULL) {
		rc = tmq_usage_error(&cmd, "-b and -T do not go together");
		goto out;
	}
	po.ptype = bytes ? TMQ_BYTES : po.type_name != NULL ? TMQ_TYPED :
	    TMQ_TEXT;
	if ((rc = check_usage(&po, argc - optind)) != 0)
		goto out;
	rc = TMQ_EXIT_FAIL;
	/* A group's log is written by its members and tmq-commit: a message
	 * of ours there would break the group's protocol (tmq-format(5)). */
	if (tmq_is_group_topic(argv[optind])) {
		tmq_warn(&cmd, "%s: a consumer group's log, not a topic",
		    argv[optind]);
		goto out;
	}
	if (tmq_root_open_opt(root, 0, &fd, &e) < 0) {
		tmq_report(&cmd, &e);
		goto out;
	}
	c = tmq_topic_open(fd, argv[optind], &t, &e);
	close(fd);
	if (c < 0) {
		tmq_report(&cmd, &e);
		goto out;
	}
	po.reject = reject;
	po.arg = &pp;
	/* What a failure counts, saying what was written. */
	po.what = argc - optind > 1 ? "message" : nfiles > 0 ? "file" :
	    "record";
	if (tmq_producer_open(&pp.prod, &t, &po, &e) < 0) {
		tmq_report(&cmd, &e);
		tmq_topic_close(&t);
		goto out;
	}

	/* (A signal ignored when we started, as SIGINT is for a job started
	 * with & without job control, stays ignored; but --follow, which
	 * runs until stopped, is stopped by either.) */
	for (i = 0; i < 2; i++) {
		int sig = i == 0 ? SIGINT : SIGTERM;

		if (follow == NULL && sigaction(sig, NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigaction(sig, &sa, NULL);
	}
	if (follow != NULL)
		fatal = put_follow(&pp, &t) < 0;
	else if (argc - optind > 1) {
		pp.what = "message";
		for (i = optind + 1; i < argc && !fatal && !tmq_stop; i++)
			fatal = put_one(&pp, argv[i], strlen(argv[i]),
			    (unsigned long)(i - optind)) < 0;
	} else if (nfiles > 0) {
		/* A FILE that cannot be read is reported and skipped; "-" is
		 * standard input. */
		pp.files = files;
		for (i = 0; (size_t)i < nfiles && !fatal && !tmq_stop; i++) {
			int stdin_ = strcmp(files[i], "-") == 0;
			int ffd = stdin_ ? STDIN_FILENO :
			    open(files[i], O_RDONLY | O_CLOEXEC);

			if (ffd < 0) {
				/* (what came before it said first) */
				int err = errno;

				if (flush(&pp) < 0) {
					fatal = 1;
					break;
				}
				errno = err;
				tmq_warn(&cmd, "%s: %m", files[i]);
				tmq_producer_skip(&pp.prod);
				pp.bad = 1;
				continue;
			}
			pp.file = (unsigned long)i + 1;
			fatal = put_stream(&pp, ffd, -1, files[i],
			    (size_t)i + 1 < nfiles) < 0;
			if (!stdin_)
				close(ffd);
		}
	} else
		fatal = put_stream(&pp, STDIN_FILENO, whole ? -1 : null ? '\0' :
		    '\n', "record", 0) < 0;
	/* (--follow is stopped so: it has said nothing is lost.) */
	if (!fatal && tmq_stop && follow == NULL) {
		tmq_producer_stop(&pp.prod, &e);
		tmq_report(&cmd, &e);
		fatal = 1;
	} else if (!fatal && flush(&pp) < 0)
		fatal = 1;
	if (po.keep_offsets)
		say_held(&pp.prod);
	tmq_producer_close(&pp.prod);
	tmq_topic_close(&t);
	rc = fatal || pp.bad ? TMQ_EXIT_FAIL : TMQ_EXIT_OK;
out:
	free(files);
	free((char *)po.keydelim);
	return rc;
}
