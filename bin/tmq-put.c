/* tmq-put: append messages from the arguments or standard input. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "keys.h"
#include "names.h"
#include "producer.h"
#include "records.h"
#include "root.h"
#include "topic.h"

enum { OPT_SYNC = 256, OPT_KEEP_TIME };

static const struct tmq_option options[] = {
	{ "null", '0', NULL, TMQ_ARG_NONE,
	    "records on stdin end with NUL, not newline", TMQ_ON_ALL, 0 },
	{ "bytes", 'b', NULL, TMQ_ARG_NONE, "payloads are raw bytes, not text",
	    TMQ_ON_ALL, 0 },
	{ "file", 'F', "FILE", TMQ_ARG_FILE,
	    "with -l: put FILE as one message (repeatable)", TMQ_ON_ALL, 0 },
	{ "json", 'J', NULL, TMQ_ARG_NONE,
	    "each record a JSON object as tmq-get -J or kcat -J print it",
	    TMQ_ON_ALL, 0 },
	{ "keep-time", OPT_KEEP_TIME, NULL, TMQ_ARG_NONE,
	    "with -J: keep each record's timestamp, not now", TMQ_ON_ALL, 0 },
	{ "key", 'k', "KEY", TMQ_ARG_WORD, "the key of every message",
	    TMQ_ON_ALL, 0 },
	{ "key-delimiter", 'K', "SEP", TMQ_ARG_WORD,
	    "each record is KEY SEP PAYLOAD", TMQ_ON_ALL, 0 },
	{ "whole", 'l', NULL, TMQ_ARG_NONE,
	    "all of stdin (or each --file) is one message", TMQ_ON_ALL, 0 },
	{ "type", 'T', "NAME", TMQ_ARG_TYPE,
	    "typed messages of type NAME: each record a JSON object",
	    TMQ_ON_ALL, 0 },
	{ "sync", OPT_SYNC, NULL, TMQ_ARG_NONE,
	    "make each batch durable (fdatasync) before reading on",
	    TMQ_ON_ALL, 0 },
	TMQ_COMMON_OPTIONS,
	{ 0 }
};

static const struct tmq_cmd cmd = {
	"tmq-put",
	"[-0l] [-k KEY | -K SEP] [-b | -T NAME] [--sync] [-F FILE]... TOPIC "
	    "[MESSAGE...]\n"
	    "[-0] -J [--keep-time] [--sync] TOPIC [MESSAGE...]",
	"Append messages to a topic: the MESSAGE operands, else one per line "
	"of standard input.",
	"topic",
	options,
	NULL,
	NULL
};

struct put {
	struct tmq_producer prod;
	const char *what;	/* what a record is called: record, message */
	int bad;		/* a record was refused */
};

static void
reject(void *arg, unsigned long recno, const char *msg)
{
	struct put *pp = arg;

	tmq_warn(&cmd, "%s: %s %lu: %s", pp->prod.topic->name, pp->what,
	    recno, msg);
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

static int
put_stream(struct put *pp, int fd, int delim, const char *what)
{
	struct tmq_records rr;
	struct tmq_error e;
	const char *rec;
	size_t n;
	int rc;

	pp->what = what;
	if (tmq_records_open(&rr, fd, delim, TMQ_PAYLOAD_MAX, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	for (;;) {
		rc = tmq_records_next(&rr, tmq_producer_pending(&pp->prod),
		    &rec, &n, &e);
		if (rc == TMQ_REC_EOF)
			break;
		if (rc < 0) {
			/* The input failed, not the topic: what was read is
			 * put, and the caller goes on to its next input. */
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
			tmq_warn(&cmd, "%s: %s %lu: longer than %u bytes",
			    pp->prod.topic->name, what, rr.recno,
			    TMQ_PAYLOAD_MAX);
			pp->bad = 1;
			continue;
		}
		if (put_one(pp, rec, n, rr.recno) < 0) {
			tmq_records_close(&rr);
			return -1;
		}
	}
	tmq_records_close(&rr);
	return flush(pp);
}

/* The checks on the options that need them all. */
static int
check_usage(struct tmq_producer_opts *o, const char **files, int nfiles,
    int whole, int null, int nops)
{
	struct tmq_error e;
	int i, dash = 0;

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
	return 0;
}

int
main(int argc, char **argv)
{
	struct tmq_producer_opts o = { 0 };
	struct tmq_topic t;
	struct tmq_error e;
	struct put pp;
	const char *root = NULL, **files;
	int c, fd, nfiles = 0, whole = 0, null = 0, bytes = 0, fatal = 0, i, rc;

	memset(&pp, 0, sizeof pp);
	/* --file names point into argv; there are fewer than argc of them. */
	files = calloc((size_t)argc, sizeof *files);
	if (files == NULL)
		return TMQ_EXIT_FAIL;
	while ((c = tmq_getopt(&cmd, argc, argv)) != -1) {
		switch (c) {
		case '0': null = 1; break;
		case 'b': o.ptype = TMQ_BYTES; bytes = 1; break;
		case 'F': files[nfiles++] = optarg; break;
		case 'J': o.json = 1; break;
		case OPT_KEEP_TIME: o.keep_time = 1; break;
		case 'k': o.key = optarg; break;
		case 'K': o.keydelim_arg = optarg; break;
		case 'l': whole = 1; break;
		case 'T': o.ptype = TMQ_TYPED; o.type_name = optarg; break;
		case OPT_SYNC: o.sync = 1; break;
		case 'd': root = optarg; break;
		case TMQ_OPT_DONE: rc = TMQ_EXIT_OK; goto out;
		default: rc = TMQ_EXIT_USAGE; goto out;
		}
	}
	/* Whichever came last would win, silently: messages of another kind
	 * than meant. */
	if (bytes && o.type_name != NULL) {
		rc = tmq_usage_error(&cmd, "-b and -T do not go together");
		goto out;
	}
	if ((rc = check_usage(&o, files, nfiles, whole, null,
	    argc - optind)) != 0)
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
	o.reject = reject;
	o.arg = &pp;
	if (tmq_producer_open(&pp.prod, &t, &o, &e) < 0) {
		tmq_report(&cmd, &e);
		tmq_topic_close(&t);
		goto out;
	}

	if (argc - optind > 1) {
		pp.what = "message";
		for (i = optind + 1; i < argc && !fatal; i++)
			fatal = put_one(&pp, argv[i], strlen(argv[i]),
			    (unsigned long)(i - optind)) < 0;
	} else if (nfiles > 0) {
		/* A FILE that cannot be read is reported and skipped; "-" is
		 * standard input. */
		for (i = 0; i < nfiles && !fatal; i++) {
			int stdin_ = strcmp(files[i], "-") == 0;
			int ffd = stdin_ ? STDIN_FILENO :
			    open(files[i], O_RDONLY | O_CLOEXEC);

			if (ffd < 0) {
				tmq_warn(&cmd, "%s: %m", files[i]);
				pp.bad = 1;
				continue;
			}
			fatal = put_stream(&pp, ffd, -1, files[i]) < 0;
			if (!stdin_)
				close(ffd);
		}
	} else
		fatal = put_stream(&pp, STDIN_FILENO, whole ? -1 : null ? '\0' :
		    '\n', "record") < 0;
	if (!fatal && flush(&pp) < 0)
		fatal = 1;
	tmq_producer_close(&pp.prod);
	tmq_topic_close(&t);
	rc = fatal || pp.bad ? TMQ_EXIT_FAIL : TMQ_EXIT_OK;
out:
	free(files);
	free((char *)o.keydelim);
	return rc;
}
