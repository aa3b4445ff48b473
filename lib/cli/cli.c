/* cli.c: option tables, start-up, help, usage errors (see cli.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/completion.h"
#include "util/notice.h"
#include "flow/partlist.h"
#include "util/split.h"
#include "flow/timespec.h"
#include "codec/timestamp.h"

#define COMPLETION_HELPER 0x7ff0

static const char *const kind_names[] = {
	"none", "word", "dir", "file", "topic", "group", "keytype", "from",
	"time", "reset", "policy", "type", "order"
};

/* The options given so far, by index in the table: the order in which
 * each was first given (0: not given), and whether by its long name. */
static unsigned *given_order, given_count;
static unsigned char *given_long;

static int
has_short(const struct tmq_option *o)
{
	return o->shrt > 0 && o->shrt < 256;
}

static unsigned
sub_count(const struct tmq_cmd *cmd)
{
	unsigned n = 0;

	while (cmd->subs[n].name != NULL)
		n++;
	return n;
}

/* "-k TYPE" or "--before DATE", as the usage shows it. */
static void
option_usage(const struct tmq_option *o, int brackets, FILE *f)
{
	fputs(brackets ? " [" : " ", f);
	if (has_short(o))
		fprintf(f, "-%c", o->shrt);
	else
		fprintf(f, "--%s", o->lng);
	if (o->arg)
		fprintf(f, " %s", o->arg);
	if (brackets)
		fputc(']', f);
}

/* "list", "list and info", "create, list and info" into f (or with "or"
 * for the last). */
static void
sub_names(const struct tmq_cmd *cmd, unsigned set, const char *last, FILE *f)
{
	unsigned i, n = sub_count(cmd), left = 0;

	for (i = 0; i < n; i++)
		if (set & TMQ_ON(i))
			left++;
	for (i = 0; i < n; i++)
		if (set & TMQ_ON(i)) {
			fputs(cmd->subs[i].name, f);
			left--;
			if (left > 1)
				fputs(", ", f);
			else if (left == 1)
				fprintf(f, " %s ", last);
		}
}

void
tmq_usage(const struct tmq_cmd *cmd, FILE *f)
{
	const struct tmq_option *o;
	const char *p = cmd->usage, *nl;
	unsigned i;
	int first = 1;

	if (cmd->subs != NULL) {
		/* One line a subcommand: its operands, then every option that
		 * belongs to it and not to all (those are in the list). */
		for (i = 0; cmd->subs[i].name != NULL; i++) {
			fprintf(f, "%s %s %s%s%s", i ? "      " : "usage:",
			    cmd->name, cmd->subs[i].name,
			    *cmd->subs[i].operands ? " " : "",
			    cmd->subs[i].operands);
			for (o = cmd->opts; o->lng != NULL; o++)
				if (o->on != TMQ_ON_ALL && (o->on & TMQ_ON(i)))
					option_usage(o, !(o->needs & TMQ_ON(i)),
					    f);
			fputc('\n', f);
		}
		return;
	}
	while (*p) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		fprintf(f, "%s %s %.*s\n", first ? "usage:" : "      ",
		    cmd->name, (int)(nl - p), p);
		first = 0;
		p = *nl ? nl + 1 : nl;
	}
}

static void
help(const struct tmq_cmd *cmd)
{
	const struct tmq_option *o;
	const struct tmq_subcmd *sc;
	char left[64];

	tmq_usage(cmd, stdout);
	printf("\n%s\n\n", cmd->summary);
	if (cmd->subs != NULL) {
		printf("Commands:\n");
		for (sc = cmd->subs; sc->name != NULL; sc++)
			printf("  %-24s  %s\n", sc->name, sc->help);
		printf("\nOptions (each only with the commands named):\n");
	}
	for (o = cmd->opts; o->lng != NULL; o++) {
		if (has_short(o))
			snprintf(left, sizeof left, "-%c, --%s%s%s", o->shrt,
			    o->lng, o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof left, "    --%s%s%s", o->lng,
			    o->arg ? " " : "", o->arg ? o->arg : "");
		if (strlen(left) > 24)
			printf("  %s\n  %24s  ", left, "");
		else
			printf("  %-24s  ", left);
		if (cmd->subs != NULL && o->on != TMQ_ON_ALL) {
			sub_names(cmd, o->on, "and", stdout);
			fputs(": ", stdout);
		}
		printf("%s\n", o->help);
	}
}

/* For the completion scripts: "kind" lines they can parse without ever
 * knowing the option list themselves; in a tool with subcommands, an
 * option that not all of them take is followed by those that do
 * ("-y none delete", "--json none list,describe").  With "=types ROOT
 * TOPIC", the names a "type" argument may take instead (completion.h):
 * the scripts never read a definition themselves.  Either way the exit
 * status is 0; what went wrong, if anything, is said on stderr. */
static void
completion_helper(const struct tmq_cmd *cmd, const char *what, int argc,
    char **argv)
{
	const struct tmq_option *o;
	struct tmq_error e;
	unsigned i;

	if (what != NULL) {
		if (strcmp(what, "types") != 0 || argc != 2)
			tmq_warn(cmd, "--completion-helper=%s: use "
			    "--completion-helper=types ROOT TOPIC", what);
		else if (tmq_completion_types(argv[0], argv[1], stdout, &e) < 0)
			tmq_report(cmd, &e);
		return;
	}
	if (cmd->subs != NULL) {
		printf("operands");
		for (i = 0; cmd->subs[i].name != NULL; i++)
			printf(" %s", cmd->subs[i].name);
		putchar('\n');
	} else
		printf("operands %s\n", cmd->operands ? cmd->operands : "");
	for (o = cmd->opts; o->lng != NULL; o++) {
		char subs[256] = "";

		if (cmd->subs != NULL && o->on != TMQ_ON_ALL)
			for (i = 0; cmd->subs[i].name != NULL; i++)
				if (o->on & TMQ_ON(i)) {
					strlcat(subs, *subs ? "," : " ",
					    sizeof subs);
					strlcat(subs, cmd->subs[i].name,
					    sizeof subs);
				}
		if (has_short(o))
			printf("-%c %s%s\n", o->shrt, kind_names[o->kind],
			    subs);
		printf("--%s %s%s\n", o->lng, kind_names[o->kind], subs);
	}
}

/* The words hide_negatives hid from getopt: each is passed as the
 * same string without its '-', and put back once the options are read. */
static char **hidden;
static size_t nhidden;

/* The option of a table with that short letter, or NULL. */
static const struct tmq_option *
short_option(const struct tmq_cmd *cmd, int c)
{
	const struct tmq_option *o;

	for (o = cmd->opts; o->lng != NULL; o++)
		if (c != 0 && o->shrt == c)
			return o;
	return NULL;
}

/* Whether the long option w (to its '=', if any) takes its argument from
 * the next word; getopt_long takes unique prefixes too. */
static int
long_takes_next(const struct tmq_cmd *cmd, const char *w)
{
	const struct tmq_option *o, *hit = NULL;
	size_t len;
	int n = 0;

	if (strchr(w, '=') != NULL)
		return 0;
	len = strlen(w);
	for (o = cmd->opts; o->lng != NULL; o++)
		if (strncmp(o->lng, w, len) == 0) {
			if (o->lng[len] == '\0')
				return o->arg != NULL;
			hit = o;
			n++;
		}
	return n == 1 && hit->arg != NULL;
}

static void
hide_negatives(const struct tmq_cmd *cmd, int argc, char **argv)
{
	const struct tmq_option *o;
	const char *w;
	int i, j;

	hidden = calloc((size_t)argc + 1, sizeof *hidden);
	if (hidden == NULL)
		return;		/* then getopt says what it says */
	for (i = 1; i < argc; i++) {
		w = argv[i];
		if (strcmp(w, "--") == 0)
			break;
		if (w[0] != '-' || w[1] == '\0')
			continue;
		if (w[1] == '-') {
			if (long_takes_next(cmd, w + 2))
				i++;
			continue;
		}
		if (strspn(w + 1, "0123456789") == strlen(w + 1) &&
		    short_option(cmd, w[1]) == NULL) {
			hidden[nhidden++] = argv[i];
			argv[i] = argv[i] + 1;
			continue;
		}
		/* Bundled letters: one that takes an argument ends them, and
		 * takes the next word when it is the last. */
		for (j = 1; w[j] != '\0'; j++) {
			o = short_option(cmd, (unsigned char)w[j]);
			if (o == NULL)
				break;
			if (o->arg != NULL) {
				if (w[j + 1] == '\0')
					i++;
				break;
			}
		}
	}
}

/* Once the options are read: the hidden words back among the operands. */
static void
unhide(int argc, char **argv)
{
	size_t k;
	int i;

	for (i = optind; i < argc; i++)
		for (k = 0; k < nhidden; k++)
			if (argv[i] == hidden[k] + 1)
				argv[i] = hidden[k];
	free(hidden);
	hidden = NULL;
	nhidden = 0;
}

/* The word of the long option getopt_long has just returned: the one
 * before optind, or the one before its argument when that came apart. */
static const char *
opt_word(char **argv, const char *arg)
{
	if (arg != NULL && optind >= 2 && argv[optind - 1] == arg)
		return argv[optind - 2];
	return argv[optind - 1];
}

/* Whether that word ("--dry", "--y=x") stops short of the name. */
static int
abbreviated(const char *name, char **argv, const char *arg)
{
	const char *w = opt_word(argv, arg);

	if (strncmp(w, "--", 2) != 0)
		return 0;
	return strcspn(w + 2, "=") < strlen(name);
}

static const struct tmq_cmd *exit_cmd;
static int stdout_closed;

/* A closed 0, 1 or 2 would be taken by the first file opened: a partition
 * file or a group's log on fd 2 would get the tool's messages as lines of
 * the log.  Each closed one is held by /dev/null opened the wrong way
 * round, so that using it fails as on a closed descriptor (EBADF): a
 * write to stdout is still reported, a read of stdin still said.  In
 * order, so that each open takes the descriptor just found closed. */
static void
hold_std_fds(void)
{
	int fd, nfd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			nfd = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
			if (nfd >= 0 && nfd != fd)
				close(nfd);
		}
}

/* The errno of the first flush of standard output that failed. */
static int stdout_errno;

int
tmq_flush_stdout(void)
{
	errno = 0;
	if (fflush(stdout) == 0)
		return 0;
	if (stdout_errno == 0)
		stdout_errno = errno;
	return EOF;
}

void
tmq_warn_stdout(const struct tmq_cmd *cmd, int err)
{
	if (err != 0)
		tmq_warn(cmd, "write error on standard output: %s",
		    strerror(err));
	else
		tmq_warn(cmd, "write error on standard output");
}

int
tmq_close_stdout(const struct tmq_cmd *cmd)
{
	int pending, failed, err = 0;

	if (stdout_closed)
		return 0;
	stdout_closed = 1;
	/* As coreutils' close_stream: a stdout that was never open is no
	 * error when nothing was written to it.  The error is the close's
	 * (its flush of what is pending), else an earlier tmq_flush_stdout's,
	 * else unknown (a flush stdio made on its own keeps no errno). */
	pending = __fpending(stdout) != 0;
	failed = ferror(stdout) != 0;
	errno = 0;
	if (fclose(stdout) != 0 && (pending || errno != EBADF)) {
		failed = 1;
		err = errno;
	}
	if (!failed)
		return 0;
	if (err == 0)
		err = stdout_errno;
	tmq_warn_stdout(cmd, err);
	return -1;
}

int tmq_cli_quiet;

static void
close_stdout_at_exit(void)
{
	if (tmq_close_stdout(exit_cmd) < 0)
		_exit(TMQ_EXIT_FAIL);
}

static void
print_notice(void *arg, const char *msg)
{
	const struct tmq_cmd *cmd = arg;

	fprintf(stderr, "%s: %s\n", cmd->name, msg);
}

void
tmq_start(const struct tmq_cmd *cmd)
{
	if (exit_cmd != NULL)
		return;
	hold_std_fds();
	exit_cmd = cmd;
	atexit(close_stdout_at_exit);
	/* lib/'s notices go to stderr under the tool's name. */
	tmq_notice_sink(print_notice, (void *)cmd);
}

/* How many of an option's places are set. */
static int
places(const struct tmq_option *o)
{
	return (o->flag != NULL) + (o->str != NULL) + (o->num != NULL) +
	    (o->parts != NULL) + (o->words != NULL) + (o->time != NULL) +
	    (o->secs != NULL) + (o->pos != NULL) + (o->call != NULL);
}

/* A table that would let an option through unchecked, or refuse it
 * everywhere, or has nowhere to put its value, is the program's bug. */
static void
check_table(const struct tmq_cmd *cmd)
{
	const struct tmq_option *o;
	const char *why = NULL;

	for (o = cmd->opts; o->lng != NULL && why == NULL; o++) {
		if (cmd->subs != NULL && (o->on == 0 || (o->needs & ~o->on) != 0))
			why = "in no command's table";
		else if (o->shrt == 'h' || o->shrt == 'V')
			why = places(o) != 0 ? "answered by tmq_options" : NULL;
		else if (places(o) != 1)
			why = "not one place for its value";
		else if ((o->flag == NULL) != (o->arg != NULL))
			why = "an argument for a flag, or none for a value";
		else if (o->num != NULL && o->min > o->max)
			why = "no number in its bounds";
		if (why != NULL) {
			fprintf(stderr, "%s: --%s: %s\n", cmd->name, o->lng, why);
			abort();
		}
	}
	if (cmd->subs != NULL && cmd->sub == NULL) {
		fprintf(stderr, "%s: nowhere for the command\n", cmd->name);
		abort();
	}
}

/* "-n" or "--from": the option as messages about its value name it. */
static void
option_name(const struct tmq_option *o, int as_given_long, char *buf,
    size_t sz)
{
	if (as_given_long || o->say_long || !has_short(o))
		snprintf(buf, sz, "--%s", o->lng);
	else
		snprintf(buf, sz, "-%c", o->shrt);
}

/* Put the argument where the option says, checked; a usage error (said)
 * when it fails its check. */
static int
store(const struct tmq_cmd *cmd, const struct tmq_option *o, const char *arg)
{
	struct tmq_error e;
	char name[300];
	int rc = 0;

	if (o->flag != NULL)
		*o->flag = 1;
	else if (o->str != NULL)
		*o->str = arg;
	else if (o->num != NULL)
		rc = tmq_parse_u64(arg, o->min, o->max, o->num, &e);
	else if (o->parts != NULL) {
		free(o->parts->v);
		o->parts->v = NULL;
		o->parts->n = 0;
		rc = tmq_partlist_parse(arg, &o->parts->v, &o->parts->n, &e);
	} else if (o->words != NULL) {
		free(o->words->v);
		o->words->v = NULL;
		o->words->n = 0;
		rc = tmq_split(arg, ',', &o->words->v, &o->words->n, &e);
	} else if (o->time != NULL)
		rc = tmq_timespec_parse(arg, tmq_now(), o->time, &e);
	else if (o->secs != NULL) {
		rc = tmq_duration_parse(arg, o->secs, &e);
		if (rc == 0 && (*o->secs < (double)o->min ||
		    *o->secs > (double)o->max))
			rc = tmq_fail(&e, "'%s': out of range (%llu s to %llu s)",
			    arg, (unsigned long long)o->min,
			    (unsigned long long)o->max);
	}
	else if (o->pos != NULL)
		rc = tmq_position_parse(arg, o->pos, &e);
	else
		rc = o->call(arg, &e);
	if (rc == 0)
		return 0;
	if (o->bare)
		return tmq_usage_error(cmd, "%s", e.msg), -1;
	option_name(o, 0, name, sizeof name);
	return tmq_usage_error(cmd, "%s: %s", name, e.msg), -1;
}

/* One option as getopt_long returned it: c, the value it was given for
 * the option's index in the table (below 256 a short letter; 256 + i the
 * long option i).  Returns 0 when its value is stored; 'h' or 'V' for -h
 * and -V, to answer; -1 after a usage error said without the --help
 * hint, -2 after one said in full. */
static int
take(const struct tmq_cmd *cmd, int c, char **argv)
{
	const struct tmq_option *o;
	int was_long = c >= 256;
	unsigned li;

	if (was_long)
		li = (unsigned)(c - 256);
	else
		for (li = 0, o = cmd->opts; o->lng != NULL && o->shrt != c; o++)
			li++;
	o = &cmd->opts[li];
	if (was_long && o->whole && abbreviated(o->lng, argv, optarg)) {
		fprintf(stderr, "%s: '%.*s': write --%s in full\n", cmd->name,
		    (int)strcspn(opt_word(argv, optarg), "="),
		    opt_word(argv, optarg), o->lng);
		return -1;
	}
	/* "-d ''" from an unset variable would be the default root: a delete
	 * there instead of where it was meant. */
	if (optarg != NULL && *optarg == '\0' &&
	    (o->kind == TMQ_ARG_DIR || o->kind == TMQ_ARG_FILE)) {
		if (was_long || !has_short(o))
			fprintf(stderr, "%s: --%s", cmd->name, o->lng);
		else
			fprintf(stderr, "%s: -%c", cmd->name, o->shrt);
		fprintf(stderr, ": empty %s name\n",
		    o->kind == TMQ_ARG_DIR ? "directory" : "file");
		return -1;
	}
	if (given_order[li] != 0 && (o->parts != NULL || o->words != NULL)) {
		/* A list given twice ("-P 0 -P 1"): the last alone would be
		 * taken, the first dropped without a word. */
		if (was_long || !has_short(o))
			fprintf(stderr, "%s: --%s", cmd->name, o->lng);
		else
			fprintf(stderr, "%s: -%c", cmd->name, o->shrt);
		fprintf(stderr, " given twice: give one list (%s)\n", o->arg);
		return -1;
	}
	if (given_order[li] == 0) {
		given_order[li] = ++given_count;
		given_long[li] = (unsigned char)was_long;
		if (o->given != NULL)
			*o->given = given_order[li];
	}
	if (o->shrt == 'h' || o->shrt == 'V')
		return o->shrt;
	return store(cmd, o, optarg) < 0 ? -2 : 0;
}

/* In a tool with subcommands, once the options are read: the index of
 * the subcommand at argv[optind] (optind moves past it), or -1 after a
 * usage error (said). */
static int
subcommand(const struct tmq_cmd *cmd, int argc, char **argv)
{
	const struct tmq_option *o, *bad = NULL;
	const struct tmq_subcmd *sc;
	unsigned i, nsubs = sub_count(cmd), k, first = 0;
	int nargs;

	if (optind >= argc) {
		fprintf(stderr, "%s: missing command (", cmd->name);
		sub_names(cmd, TMQ_ON_ALL, "or", stderr);
		fputs(")\n", stderr);
		fprintf(stderr, "Try '%s --help' for more information.\n",
		    cmd->name);
		return -1;
	}
	for (i = 0; i < nsubs; i++)
		if (strcmp(argv[optind], cmd->subs[i].name) == 0)
			break;
	if (i == nsubs)
		return tmq_usage_error(cmd, "'%s': unknown command",
		    argv[optind]), -1;
	sc = &cmd->subs[i];
	optind++;
	/* The first option given, in the order given, that this command
	 * does not take: never ignored, for an ignored --dry-run would do
	 * what it was meant to prevent. */
	for (k = 0, o = cmd->opts; o->lng != NULL; k++, o++)
		if (given_order != NULL && given_order[k] != 0 &&
		    !(o->on & TMQ_ON(i)) &&
		    (bad == NULL || given_order[k] < first)) {
			bad = o;
			first = given_order[k];
		}
	if (bad != NULL) {
		k = (unsigned)(bad - cmd->opts);
		fprintf(stderr, "%s: ", cmd->name);
		if (given_long[k] || bad->shrt <= 0 || bad->shrt >= 256)
			fprintf(stderr, "--%s", bad->lng);
		else
			fprintf(stderr, "-%c", bad->shrt);
		fputs(" is for ", stderr);
		sub_names(cmd, bad->on, "and", stderr);
		fprintf(stderr, ", not %s\n", sc->name);
		fprintf(stderr, "Try '%s --help' for more information.\n",
		    cmd->name);
		return -1;
	}
	for (k = 0, o = cmd->opts; o->lng != NULL; k++, o++)
		if ((o->needs & TMQ_ON(i)) && given_order[k] == 0) {
			if (has_short(o))
				return tmq_usage_error(cmd, "%s needs -%c%s%s",
				    sc->name, o->shrt, o->arg ? " " : "",
				    o->arg ? o->arg : ""), -1;
			return tmq_usage_error(cmd, "%s needs --%s%s%s",
			    sc->name, o->lng, o->arg ? " " : "",
			    o->arg ? o->arg : ""), -1;
		}
	nargs = argc - optind;
	if (nargs < sc->min)
		return tmq_usage_error(cmd, "%s: missing %s", sc->name,
		    sc->missing), -1;
	if (sc->max >= 0 && nargs > sc->max) {
		if (sc->max == 0)
			return tmq_usage_error(cmd, "%s takes no operands",
			    sc->name), -1;
		return tmq_usage_error(cmd, "%s: too many operands",
		    sc->name), -1;
	}
	return (int)i;
}

int
tmq_options(const struct tmq_cmd *cmd, int argc, char **argv)
{
	const struct tmq_option *o;
	struct option *longs;
	char shorts[3 * 128 + 1];
	size_t n = 0, i, s = 0;
	int c, rc = -1, sub;

	check_table(cmd);
	for (o = cmd->opts; o->lng != NULL; o++)
		n++;
	longs = calloc(n + 2, sizeof *longs);
	given_order = calloc(n + 1, sizeof *given_order);
	given_long = calloc(n + 1, 1);
	given_count = 0;
	if (longs == NULL || given_order == NULL || given_long == NULL) {
		fprintf(stderr, "%s: out of memory\n", cmd->name);
		rc = TMQ_EXIT_FAIL;
		goto out;
	}
	for (i = 0, o = cmd->opts; i < n; i++, o++) {
		longs[i].name = o->lng;
		longs[i].has_arg = o->arg ? required_argument : no_argument;
		longs[i].val = 256 + (int)i;
		if (has_short(o) && s + 3 < sizeof shorts) {
			shorts[s++] = (char)o->shrt;
			if (o->arg)
				shorts[s++] = ':';
		}
	}
	shorts[s] = '\0';
	longs[n].name = "completion-helper";
	longs[n].has_arg = optional_argument;
	longs[n].val = COMPLETION_HELPER;
	/* getopt's own messages start with argv[0]: the tool's name, not the
	 * path it was run by. */
	argv[0] = (char *)cmd->name;
	if (cmd->negative_operands)
		hide_negatives(cmd, argc, argv);
	while (rc < 0 && (c = getopt_long(argc, argv, shorts, longs,
	    NULL)) != -1) {
		if (c == COMPLETION_HELPER) {
			completion_helper(cmd, optarg, argc - optind,
			    argv + optind);
			rc = TMQ_EXIT_OK;
			break;
		}
		if (c != '?' && c != ':')
			c = take(cmd, c, argv);
		if (c == 'h') {
			help(cmd);
			rc = TMQ_EXIT_OK;
		} else if (c == 'V') {
			printf("%s (%s) %s\n", cmd->name, PACKAGE_NAME,
			    PACKAGE_VERSION);
			rc = TMQ_EXIT_OK;
		} else if (c == -2)
			rc = TMQ_EXIT_USAGE;	/* said in full */
		else if (c != 0) {
			fprintf(stderr, "Try '%s --help' for more "
			    "information.\n", cmd->name);
			rc = TMQ_EXIT_USAGE;
		}
	}
	if (hidden != NULL)
		unhide(argc, argv);
	if (rc < 0 && tmq_cli_quiet)
		tmq_notice_set_quiet(1);
	if (rc < 0 && cmd->subs != NULL) {
		if ((sub = subcommand(cmd, argc, argv)) < 0)
			rc = TMQ_EXIT_USAGE;
		else
			*cmd->sub = sub;
	}
out:
	free(longs);
	free(given_order);
	free(given_long);
	given_order = NULL;
	given_long = NULL;
	return rc;
}

int
tmq_usage_error(const struct tmq_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", cmd->name);
	return TMQ_EXIT_USAGE;
}

void
tmq_warn(const struct tmq_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
tmq_report(const struct tmq_cmd *cmd, const struct tmq_error *e)
{
	fprintf(stderr, "%s: %s\n", cmd->name, e->msg);
	return TMQ_EXIT_FAIL;
}

int
tmq_subcmd_exec(const struct tmq_cmd *cmd, int argc, char **argv)
{
	return cmd->subs[*cmd->sub].exec(argv + optind, argc - optind);
}
