/* t-cli.c: lib/cli/cli: options bound once in a table.  Each kind of place
 * gets its value, checked, with the messages the tools give; lists given
 * twice, options taken only whole, empty directory names, negative-number
 * operands; in a tool with subcommands, options a command does not take or
 * needs, and operand counts; tables that are the program's bug abort. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <getopt.h>

#include "cli/cli.h"
#include "util/split.h"
#include "tap.h"

/* What the test tool's options set. */
static struct {
	int flag, sub;
	const char *str, *root;
	uint64_t num;
	struct tmq_partsel parts;
	struct tmq_words words;
	double time;
	struct tmq_position pos;
	char called[64];
	unsigned given_flag, given_str;
} v;

static int
call(const char *arg, struct tmq_error *e)
{
	if (strcmp(arg, "bad") == 0)
		return tmq_fail(e, "'%s': no good", arg);
	snprintf(v.called, sizeof v.called, "%s", arg);
	return 0;
}

static const struct tmq_option options[] = {
	{ .lng = "flag", .shrt = 'f', .help = "a flag", .flag = &v.flag,
	    .given = &v.given_flag },
	{ .lng = "str", .shrt = 's', .arg = "S", .help = "a string",
	    .str = &v.str, .given = &v.given_str },
	{ .lng = "num", .shrt = 'n', .arg = "N", .help = "a number",
	    .num = &v.num, .min = 2, .max = 9 },
	{ .lng = "parts", .shrt = 'P', .arg = "N[,N...]", .help = "a list",
	    .parts = &v.parts },
	{ .lng = "words", .arg = "A,B", .help = "words", .words = &v.words },
	{ .lng = "until", .arg = "TIME", .help = "a time", .time = &v.time },
	{ .lng = "from", .shrt = 'o', .arg = "POS", .help = "a position",
	    .pos = &v.pos, .say_long = 1 },
	{ .lng = "call", .shrt = 'c', .arg = "X", .help = "a callback",
	    .call = call },
	{ .lng = "bare", .arg = "X", .help = "a callback, bare", .call = call,
	    .bare = 1 },
	{ .lng = "force", .help = "whole only", .flag = &v.flag, .whole = 1 },
	{ .lng = "file", .shrt = 'F', .arg = "FILE", .kind = TMQ_ARG_FILE,
	    .help = "a file", .str = &v.str },
	TMQ_COMMON_OPTIONS(&v.root),
	{ 0 }
};

static const struct tmq_cmd tool = {
	.name = "t-tool",
	.usage = "[-f] X...",
	.summary = "A tool to test with.",
	.opts = options,
};

static const struct tmq_cmd negtool = {
	.name = "t-neg",
	.usage = "[-f] X...",
	.summary = "A tool whose operands are numbers.",
	.opts = options,
	.negative_operands = 1,
};

enum { MAKE, SHOW };

static const struct tmq_subcmd subs[] = {
	[MAKE] = { .name = "make", .operands = "NAME", .min = 1, .max = 1,
	    .missing = "name", .help = "make one" },
	[SHOW] = { .name = "show", .operands = "", .help = "show them" },
	{ 0 }
};

static const struct tmq_option subopts[] = {
	{ .lng = "json", .help = "JSON", .on = TMQ_ON(SHOW), .flag = &v.flag },
	{ .lng = "size", .shrt = 'n', .arg = "N", .help = "a size",
	    .on = TMQ_ON(MAKE), .needs = TMQ_ON(MAKE), .num = &v.num,
	    .max = 100 },
	TMQ_COMMON_OPTIONS(&v.root),
	{ 0 }
};

static const struct tmq_cmd subtool = {
	.name = "t-sub",
	.summary = "A tool with commands.",
	.opts = subopts,
	.subs = subs,
	.sub = &v.sub,
};

static char err[4096], out[4096];
static char *args[32];
static int nargs;

/* Read what a temporary file got back into buf. */
static void
slurp(FILE *f, char *buf, size_t sz)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, sz - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Run tmq_options over the words given (NULL-terminated, the tool's name
 * first), its stdout and stderr caught in out and err; v starts zeroed. */
static int
run(const struct tmq_cmd *cmd, ...)
{
	FILE *fe = tmpfile(), *fo = tmpfile();
	int save_err = dup(2), save_out = dup(1), rc;
	const char *w;
	va_list ap;

	free(v.parts.v);
	free(v.words.v);
	memset(&v, 0, sizeof v);
	nargs = 0;
	va_start(ap, cmd);
	while ((w = va_arg(ap, const char *)) != NULL && nargs < 31)
		args[nargs++] = (char *)w;
	va_end(ap);
	args[nargs] = NULL;
	fflush(stdout);
	dup2(fileno(fe), 2);
	dup2(fileno(fo), 1);
	optind = 0;		/* getopt starts afresh */
	rc = tmq_options(cmd, nargs, args);
	fflush(stdout);
	fflush(stderr);
	dup2(save_err, 2);
	dup2(save_out, 1);
	close(save_err);
	close(save_out);
	slurp(fe, err, sizeof err);
	slurp(fo, out, sizeof out);
	return rc;
}

#define HINT(tool) "\nTry '" tool " --help' for more information.\n"

/* A usage error with exactly that message (the hint after it). */
static void
usage_is(int rc, const char *msg, const char *what)
{
	is_int(rc, TMQ_EXIT_USAGE, "%s: a usage error", what);
	is_str(err, msg, "%s: its message", what);
}

static void
test_places(void)
{
	int rc;

	rc = run(&tool, "x", "-f", "-s", "a", "-s", "b", "-n", "7", "-P",
	    "3,1-2", "--words=a,,b", "--until", "@100.5", "-o", "-3", "-c",
	    "ok", "--root", "/r", "rest", NULL);
	is_int(rc, -1, "good options: go on");
	is_str(err, "", "good options: nothing said");
	is_int(v.flag, 1, "-f: the flag set");
	is_str(v.str, "b", "-s twice: the last one");
	is_u64(v.num, 7, "-n 7");
	ok(v.parts.n == 3 && v.parts.v[0] == 1 && v.parts.v[2] == 3,
	    "-P 3,1-2: 1, 2, 3");
	ok(v.words.n == 3 && strcmp(v.words.v[0], "a") == 0 &&
	    strcmp(v.words.v[1], "") == 0 && strcmp(v.words.v[2], "b") == 0,
	    "--words=a,,b: a, (empty), b");
	ok(v.time == 100.5, "--until @100.5");
	ok(v.pos.kind == TMQ_POS_TAIL && v.pos.n == 3, "-o -3: the last 3");
	is_str(v.called, "ok", "-c: the callback had its argument");
	is_str(v.root, "/r", "--root");
	is_int(optind, nargs - 1, "the operand is left at optind");
	is_str(args[optind], "rest", "the operand");
	is_str(args[0], "t-tool", "argv[0] is the tool's name");
	is_int(v.given_flag, 1, "-f came first");
	is_int(v.given_str, 2, "-s second, counted once");
	rc = run(&tool, "x", "rest", NULL);
	ok(rc == -1 && v.given_flag == 0 && v.flag == 0 && v.str == NULL &&
	    v.parts.v == NULL, "nothing given: nothing set");
}

static void
test_checks(void)
{
	int rc;

	rc = run(&tool, "x", "-n", "1", NULL);
	usage_is(rc, "t-tool: -n: '1': out of range (2 to 9)" HINT("t-tool"),
	    "-n below its bounds");
	rc = run(&tool, "x", "--num=10", NULL);
	usage_is(rc, "t-tool: -n: '10': out of range (2 to 9)" HINT("t-tool"),
	    "--num above its bounds: named by its letter");
	rc = run(&tool, "x", "-n", "x", "-n", "1", NULL);
	usage_is(rc, "t-tool: -n: 'x': not a number" HINT("t-tool"),
	    "the first bad value is the one said");
	rc = run(&tool, "x", "--until", "1", NULL);
	usage_is(rc, "t-tool: --until: '1': a bare number is not a time "
	    "(write @1 for Unix seconds)" HINT("t-tool"), "--until 1");
	rc = run(&tool, "x", "-o", "x1", NULL);
	ok(rc == TMQ_EXIT_USAGE && strncmp(err, "t-tool: --from: 'x1': ",
	    22) == 0, "-o's messages name it --from (say_long)");
	rc = run(&tool, "x", "-c", "bad", NULL);
	usage_is(rc, "t-tool: -c: 'bad': no good" HINT("t-tool"),
	    "a callback's message, prefixed");
	rc = run(&tool, "x", "--bare", "bad", NULL);
	usage_is(rc, "t-tool: 'bad': no good" HINT("t-tool"),
	    "a bare callback's message, as it is");
	rc = run(&tool, "x", "-P", "1-0", NULL);
	usage_is(rc, "t-tool: -P: '1-0': range 1-0 runs backwards"
	    HINT("t-tool"), "a bad list");
}

static void
test_rules(void)
{
	int rc;

	rc = run(&tool, "x", "-P", "0", "-P", "1", NULL);
	usage_is(rc, "t-tool: -P given twice: give one list (N[,N...])"
	    HINT("t-tool"), "-P twice");
	rc = run(&tool, "x", "-P", "0", "--parts=1", NULL);
	usage_is(rc, "t-tool: --parts given twice: give one list (N[,N...])"
	    HINT("t-tool"), "--parts after -P: named as given");
	rc = run(&tool, "x", "--words", "a", "--words", "b", NULL);
	usage_is(rc, "t-tool: --words given twice: give one list (A,B)"
	    HINT("t-tool"), "a word list twice");
	rc = run(&tool, "x", "--for", NULL);
	usage_is(rc, "t-tool: '--for': write --force in full" HINT("t-tool"),
	    "--force abbreviated");
	rc = run(&tool, "x", "--force", NULL);
	ok(rc == -1 && v.flag == 1, "--force in full");
	rc = run(&tool, "x", "--fi=a", NULL);
	ok(rc == -1 && strcmp(v.str, "a") == 0,
	    "others may be abbreviated (--fi for --file)");
	rc = run(&tool, "x", "-F", "", NULL);
	usage_is(rc, "t-tool: -F: empty file name" HINT("t-tool"), "-F ''");
	rc = run(&tool, "x", "--root=", NULL);
	usage_is(rc, "t-tool: --root: empty directory name" HINT("t-tool"),
	    "--root=");
	rc = run(&tool, "x", "-X", NULL);
	usage_is(rc, "t-tool: invalid option -- 'X'" HINT("t-tool"),
	    "an unknown letter: getopt's message, then the hint");
}

static void
test_answers(void)
{
	int rc;

	rc = run(&tool, "x", "-h", "-n", "1", NULL);
	is_int(rc, TMQ_EXIT_OK, "-h: exit 0, what follows unread");
	ok(strncmp(out, "usage: t-tool [-f] X...\n\nA tool to test with.\n",
	    44) == 0, "-h: the usage, then the summary");
	ok(strstr(out, "  -n, --num N               a number\n") != NULL,
	    "-h: an option's line");
	rc = run(&tool, "x", "-V", NULL);
	ok(rc == TMQ_EXIT_OK && strncmp(out, "t-tool (tmq) ", 13) == 0,
	    "-V: the version");
	rc = run(&tool, "x", "--completion-helper", NULL);
	ok(rc == TMQ_EXIT_OK && strstr(out, "\n-F file\n--file file\n") !=
	    NULL, "--completion-helper: the kinds");
}

static void
test_negative(void)
{
	int rc;

	rc = run(&negtool, "x", "-f", "g", "0", "-1", NULL);
	ok(rc == -1 && v.flag == 1 && nargs - optind == 3, "-1: an operand");
	is_str(args[nargs - 1], "-1", "-1: as given, its '-' kept");
	rc = run(&negtool, "x", "-n", "5", "-12", NULL);
	ok(rc == -1 && v.num == 5 && strcmp(args[optind], "-12") == 0,
	    "after an option with its argument");
	rc = run(&negtool, "x", "-fn", "5", "-3", NULL);
	ok(rc == -1 && v.num == 5 && strcmp(args[optind], "-3") == 0,
	    "after bundled letters whose last takes the next word");
	rc = run(&negtool, "x", "--num", "-3", NULL);
	usage_is(rc, "t-neg: -n: '-3': not a number" HINT("t-neg"),
	    "an option's argument stays its argument");
	rc = run(&tool, "x", "-1", NULL);
	usage_is(rc, "t-tool: invalid option -- '1'" HINT("t-tool"),
	    "without negative_operands, -1 is an option");
}

static void
test_subcommands(void)
{
	int rc;

	rc = run(&subtool, "x", "-n", "3", "make", "a", NULL);
	ok(rc == -1 && v.sub == MAKE && v.num == 3 &&
	    strcmp(args[optind], "a") == 0, "make -n 3 a");
	rc = run(&subtool, "x", "--json", "show", NULL);
	ok(rc == -1 && v.sub == SHOW && v.flag == 1, "show --json");
	rc = run(&subtool, "x", "--json", "make", "a", NULL);
	usage_is(rc, "t-sub: --json is for show, not make" HINT("t-sub"),
	    "an option the command does not take");
	rc = run(&subtool, "x", "-n", "1", "show", NULL);
	usage_is(rc, "t-sub: -n is for make, not show" HINT("t-sub"),
	    "named as given: its letter");
	rc = run(&subtool, "x", "make", "a", NULL);
	usage_is(rc, "t-sub: make needs -n N" HINT("t-sub"),
	    "an option the command needs");
	rc = run(&subtool, "x", "-n", "1", "make", NULL);
	usage_is(rc, "t-sub: make: missing name" HINT("t-sub"),
	    "a missing operand");
	rc = run(&subtool, "x", "-n", "1", "make", "a", "b", NULL);
	usage_is(rc, "t-sub: make: too many operands" HINT("t-sub"),
	    "too many operands");
	rc = run(&subtool, "x", "show", "a", NULL);
	usage_is(rc, "t-sub: show takes no operands" HINT("t-sub"),
	    "operands to a command that takes none");
	rc = run(&subtool, "x", "frob", NULL);
	usage_is(rc, "t-sub: 'frob': unknown command" HINT("t-sub"),
	    "an unknown command");
	rc = run(&subtool, "x", NULL);
	usage_is(rc, "t-sub: missing command (make or show)" HINT("t-sub"),
	    "no command");
	rc = run(&subtool, "x", "-h", NULL);
	ok(rc == TMQ_EXIT_OK && strncmp(out, "usage: t-sub make NAME -n N\n"
	    "       t-sub show [--json]\n", 55) == 0,
	    "-h: a usage line a command, its options after it");
}

/* Each table is the program's bug: tmq_options aborts on it. */
static const struct tmq_option two_places[] = {
	{ .lng = "x", .help = "x", .flag = &v.flag, .str = &v.str }, { 0 }
};
static const struct tmq_option no_place[] = {
	{ .lng = "x", .help = "x" }, { 0 }
};
static const struct tmq_option flag_arg[] = {
	{ .lng = "x", .arg = "A", .help = "x", .flag = &v.flag }, { 0 }
};
static const struct tmq_option value_noarg[] = {
	{ .lng = "x", .help = "x", .str = &v.str }, { 0 }
};
static const struct tmq_option empty_bounds[] = {
	{ .lng = "x", .arg = "N", .help = "x", .num = &v.num, .min = 3,
	    .max = 2 }, { 0 }
};
static const struct tmq_option on_none[] = {
	{ .lng = "x", .help = "x", .flag = &v.flag }, { 0 }
};
static const struct tmq_option needs_not_on[] = {
	{ .lng = "x", .help = "x", .flag = &v.flag, .on = TMQ_ON(MAKE),
	    .needs = TMQ_ON(SHOW) }, { 0 }
};

static void
aborts(const struct tmq_option *opts, const struct tmq_subcmd *sc,
    const char *want, const char *what)
{
	struct tmq_cmd c = { .name = "t-bad", .usage = "", .summary = "",
	    .opts = opts, .subs = sc, .sub = &v.sub };
	int st, fds[2];
	char buf[256] = "";
	ssize_t n;
	pid_t pid;

	if (pipe(fds) < 0 || (pid = fork()) < 0) {
		ok(0, "%s: fork", what);
		return;
	}
	if (pid == 0) {
		char *w[] = { (char *)"x", NULL };

		dup2(fds[1], 2);
		optind = 0;
		tmq_options(&c, 1, w);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(pid, &st, 0);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "%s: aborts", what);
	is_str(buf, want, "%s: says why", what);
}

static void
test_bad_tables(void)
{
	aborts(two_places, NULL, "t-bad: --x: not one place for its value\n",
	    "two places");
	aborts(no_place, NULL, "t-bad: --x: not one place for its value\n",
	    "no place");
	aborts(flag_arg, NULL, "t-bad: --x: an argument for a flag, or none "
	    "for a value\n", "a flag with an argument");
	aborts(value_noarg, NULL, "t-bad: --x: an argument for a flag, or "
	    "none for a value\n", "a value without one");
	aborts(empty_bounds, NULL, "t-bad: --x: no number in its bounds\n",
	    "min above max");
	aborts(on_none, subs, "t-bad: --x: in no command's table\n",
	    "an option of no command");
	aborts(needs_not_on, subs, "t-bad: --x: in no command's table\n",
	    "needed by a command that does not take it");
}

int
main(void)
{
	test_places();
	test_checks();
	test_rules();
	test_answers();
	test_negative();
	test_subcommands();
	test_bad_tables();
	free(v.parts.v);
	free(v.words.v);
	return done_testing();
}
