/* tmq-get: read messages from topics, once or following. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "consumer.h"
#include "position.h"
#include "printer.h"
#include "root.h"
#include "timestamp.h"

enum { OPT_UNTIL = 256 };

static const struct tmq_option options[] = {
	{ "null", '0', NULL, TMQ_ARG_NONE, "end each record with NUL" },
	{ "format", 'F', "FMT", TMQ_ARG_WORD,
	    "print with FMT: %s payload, %k key, %p partition, %o offset, "
	    "%t topic, %T time (ISO 8601), %u time (Unix), %y type, %%; "
	    "\\n \\t \\0" },
	{ "follow", 'f', NULL, TMQ_ARG_NONE, "wait for more at the end" },
	{ "json", 'J', NULL, TMQ_ARG_NONE, "one JSON object a message" },
	{ "key-delimiter", 'K', "SEP", TMQ_ARG_WORD, "print KEY SEP PAYLOAD" },
	{ "count", 'n', "N", TMQ_ARG_WORD, "stop after N messages" },
	{ "from", 'o', "POS", TMQ_ARG_FROM,
	    "start, now, OFFSET, -N (last N), @UNIXSECONDS or ISO 8601 time" },
	{ "partition", 'P', "N[,N...]", TMQ_ARG_WORD,
	    "read only these partitions" },
	{ "until", OPT_UNTIL, "TIME", TMQ_ARG_TIME,
	    "stop each partition at its first message after TIME" },
	TMQ_COMMON_OPTIONS,
	{ 0 }
};

static const struct tmq_cmd cmd = {
	"tmq-get",
	"[-0fJ] [-o POS] [--until TIME] [-n N] [-P N[,N...]] "
	    "[-K SEP | -F FMT] TOPIC...",
	"Read messages from topics, partitions in turn, one message each.",
	"topic",
	options
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
print_notice(void *arg, const char *msg)
{
	(void)arg;
	tmq_warn(&cmd, "%s", msg);
}

int
main(int argc, char **argv)
{
	struct tmq_printer pr = { .mode = TMQ_PRINT_PAYLOAD, .term = '\n' };
	struct tmq_position pos = { .kind = TMQ_POS_START };
	struct tmq_consumer c;
	struct tmq_error e;
	struct tmq_msg *m;
	struct sigaction sa;
	const char *root = NULL, *parts_arg = NULL;
	unsigned *parts = NULL, nparts = 0;
	uint64_t count = 0, seen = 0;
	char *path;
	double until = 0;
	int ch, fd, follow = 0, have_until = 0, corrupt = 0, fatal = 0, i, rc;
	size_t src;

	while ((ch = tmq_getopt(&cmd, argc, argv)) != -1) {
		switch (ch) {
		case '0': pr.term = '\0'; break;
		case 'F':
			if (tmq_format_compile(optarg, &pr.fmt, &e) < 0)
				return tmq_usage_error(&cmd, "%s", e.msg);
			pr.mode = TMQ_PRINT_FORMAT;
			break;
		case 'f': follow = 1; break;
		case 'J': pr.mode = TMQ_PRINT_JSON; break;
		case 'K': pr.mode = TMQ_PRINT_KEYED; pr.keysep = optarg; break;
		case 'n':
			if (tmq_parse_u64(optarg, 1, UINT64_MAX, &count, &e) < 0)
				return tmq_usage_error(&cmd, "-n: %s", e.msg);
			break;
		case 'o':
			if (tmq_position_parse(optarg, &pos, &e) < 0)
				return tmq_usage_error(&cmd, "--from: %s", e.msg);
			break;
		case 'P': parts_arg = optarg; break;
		case OPT_UNTIL:
			if (tmq_time_parse(optarg[0] == '@' ? optarg + 1 : optarg,
			    &until, &e) < 0)
				return tmq_usage_error(&cmd, "--until: %s", e.msg);
			have_until = 1;
			break;
		case 'd': root = optarg; break;
		case TMQ_OPT_DONE: return TMQ_EXIT_OK;
		default: return TMQ_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return tmq_usage_error(&cmd, "missing topic");
	if (tmq_consumer_init(&c, &e) < 0)
		return tmq_report(&cmd, &e);
	c.have_until = have_until;
	c.until = until;
	c.notice = print_notice;
	if (tmq_root_path(root, &path, &e) < 0 ||
	    tmq_root_open(path, 0, &fd, &e) < 0)
		return tmq_report(&cmd, &e);
	free(path);
	for (i = optind; i < argc; i++) {
		struct tmq_topic probe;

		if (parts_arg != NULL) {
			/* The partition list is checked against each topic. */
			if (tmq_topic_open(fd, argv[i], &probe, &e) < 0)
				return tmq_report(&cmd, &e);
			free(parts);
			parts = NULL;
			rc = tmq_parse_list(parts_arg, probe.partitions, &parts,
			    &nparts, &e);
			tmq_topic_close(&probe);
			if (rc < 0) {
				tmq_warn(&cmd, "%s: %s", argv[i], e.msg);
				return TMQ_EXIT_FAIL;
			}
		}
		if (tmq_consumer_add(&c, fd, argv[i], parts, nparts, &e) < 0)
			return tmq_report(&cmd, &e);
	}
	close(fd);
	free(parts);
	if (tmq_consumer_seek(&c, &pos, &e) < 0)
		return tmq_report(&cmd, &e);

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	m = malloc(sizeof *m);
	if (m == NULL)
		return TMQ_EXIT_FAIL;
	pr.out = stdout;
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	while (!stop && (count == 0 || seen < count)) {
		rc = tmq_consumer_next(&c, m, &src, &e);
		if (rc == 1) {
			tmq_print(&pr, &c.topics[c.src[src].topic], m);
			seen++;
			continue;
		}
		if (rc == 2) {
			fflush(stdout);
			tmq_report(&cmd, &e);
			corrupt = 1;
			continue;
		}
		if (rc < 0) {
			tmq_report(&cmd, &e);
			fatal = 1;
			break;
		}
		if (!follow || tmq_consumer_done(&c))
			break;
		/* Whoever reads our output sees everything before we sleep. */
		if (fflush(stdout) != 0)
			break;
		if (tmq_consumer_wait(&c, 1000, &e) < 0) {
			tmq_report(&cmd, &e);
			fatal = 1;
			break;
		}
	}
	free(m);
	tmq_format_free(&pr.fmt);
	tmq_consumer_free(&c);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		tmq_warn(&cmd, "write error on standard output");
		return TMQ_EXIT_FAIL;
	}
	return fatal || corrupt ? TMQ_EXIT_FAIL : TMQ_EXIT_OK;
}
