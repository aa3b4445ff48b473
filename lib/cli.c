/* cli.c: option tables, help, usage errors (see cli.h). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "grow.h"

#define COMPLETION_HELPER 0x7ff0

static const char *const kind_names[] = {
	"none", "word", "dir", "file", "topic", "group", "keytype", "from",
	"time", "reset"
};

void
tmq_usage(const struct tmq_cmd *cmd, FILE *f)
{
	const char *p = cmd->usage, *nl;
	int first = 1;

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
	char left[64];

	tmq_usage(cmd, stdout);
	printf("\n%s\n\n", cmd->summary);
	for (o = cmd->opts; o->lng != NULL; o++) {
		if (o->shrt > 0 && o->shrt < 256)
			snprintf(left, sizeof left, "-%c, --%s%s%s", o->shrt,
			    o->lng, o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof left, "    --%s%s%s", o->lng,
			    o->arg ? " " : "", o->arg ? o->arg : "");
		if (strlen(left) > 24)
			printf("  %s\n  %24s  %s\n", left, "", o->help);
		else
			printf("  %-24s  %s\n", left, o->help);
	}
}

/* For the completion scripts: "kind" lines they can parse without ever
 * knowing the option list themselves. */
static void
completion_helper(const struct tmq_cmd *cmd)
{
	const struct tmq_option *o;

	printf("operands %s\n", cmd->operands ? cmd->operands : "");
	for (o = cmd->opts; o->lng != NULL; o++) {
		if (o->shrt > 0 && o->shrt < 256)
			printf("-%c %s\n", o->shrt, kind_names[o->kind]);
		printf("--%s %s\n", o->lng, kind_names[o->kind]);
	}
}

static const struct tmq_cmd *exit_cmd;
static int stdout_closed;

int
tmq_close_stdout(const struct tmq_cmd *cmd)
{
	int pending, failed;

	if (stdout_closed)
		return 0;
	stdout_closed = 1;
	/* As coreutils' close_stream: a stdout that was never open is no
	 * error when nothing was written to it. */
	pending = __fpending(stdout) != 0;
	failed = ferror(stdout) != 0;
	if (fclose(stdout) != 0 && (pending || errno != EBADF))
		failed = 1;
	if (!failed)
		return 0;
	tmq_warn(cmd, "write error on standard output");
	return -1;
}

static void
close_stdout_at_exit(void)
{
	if (tmq_close_stdout(exit_cmd) < 0)
		_exit(TMQ_EXIT_FAIL);
}

int
tmq_getopt(const struct tmq_cmd *cmd, int argc, char **argv)
{
	static struct option *longs;
	static char shorts[128];
	static const struct tmq_cmd *built;
	const struct tmq_option *o;
	size_t n = 0, i, s = 0;
	int c;

	if (built != cmd) {
		for (o = cmd->opts; o->lng != NULL; o++)
			n++;
		free(longs);
		longs = calloc(n + 2, sizeof *longs);
		if (longs == NULL) {
			fprintf(stderr, "%s: out of memory\n", cmd->name);
			return '?';
		}
		s = 0;
		for (i = 0, o = cmd->opts; i < n; i++, o++) {
			longs[i].name = o->lng;
			longs[i].has_arg = o->arg ? required_argument :
			    no_argument;
			longs[i].val = o->shrt;
			if (o->shrt > 0 && o->shrt < 256 &&
			    s + 3 < sizeof shorts) {
				shorts[s++] = (char)o->shrt;
				if (o->arg)
					shorts[s++] = ':';
			}
		}
		shorts[s] = '\0';
		longs[n].name = "completion-helper";
		longs[n].val = COMPLETION_HELPER;
		built = cmd;
		/* getopt's own messages start with argv[0]: the tool's name,
		 * not the path it was run by. */
		argv[0] = (char *)cmd->name;
		if (exit_cmd == NULL) {
			exit_cmd = cmd;
			atexit(close_stdout_at_exit);
		}
	}
	c = getopt_long(argc, argv, shorts, longs, NULL);
	switch (c) {
	case 'h':
		help(cmd);
		return TMQ_OPT_DONE;
	case 'V':
		printf("%s (%s) %s\n", cmd->name, PACKAGE_NAME, PACKAGE_VERSION);
		return TMQ_OPT_DONE;
	case COMPLETION_HELPER:
		completion_helper(cmd);
		return TMQ_OPT_DONE;
	case '?':
		fprintf(stderr, "Try '%s --help' for more information.\n",
		    cmd->name);
		return '?';
	default:
		return c;
	}
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
tmq_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v,
    struct tmq_error *e)
{
	uint64_t x = 0;
	const char *p = s;

	if (*p == '\0')
		return tmq_fail(e, "'%s': not a number", s);
	for (; *p; p++) {
		unsigned d = (unsigned char)*p - '0';

		if (d > 9)
			return tmq_fail(e, "'%.40s': not a number", s);
		if (x > (UINT64_MAX - d) / 10)
			return tmq_fail(e, "'%.40s': number too large", s);
		x = x * 10 + d;
	}
	if (x < min || x > max)
		return tmq_fail(e, "'%.40s': out of range (%llu to %llu)", s,
		    (unsigned long long)min, (unsigned long long)max);
	*v = x;
	return 0;
}

int
tmq_parse_list(const char *s, unsigned limit, unsigned **v, unsigned *n,
    struct tmq_error *e)
{
	char *copy = strdup(s), *tok, *save = NULL;
	unsigned *out = NULL, cnt = 0, i, j;
	size_t cap = 0;
	unsigned char *seen;
	uint64_t a, b;

	if (copy == NULL)
		return tmq_fail(e, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');

		if (dash != NULL)
			*dash = '\0';
		if (tmq_parse_u64(tok, 0, UINT32_MAX, &a, e) < 0 ||
		    (dash != NULL && tmq_parse_u64(dash + 1, a, UINT32_MAX, &b,
		    e) < 0))
			goto bad;
		if (dash == NULL)
			b = a;
		for (; a <= b; a++) {
			if (a >= limit) {
				tmq_fail(e, "partition %llu does not exist "
				    "(topic has %u)", (unsigned long long)a,
				    limit);
				goto bad;
			}
			if (tmq_grow(&out, &cap, cnt + 1, sizeof *out) < 0) {
				tmq_fail(e, "out of memory");
				goto bad;
			}
			out[cnt++] = (unsigned)a;
		}
	}
	free(copy);
	if (cnt == 0)
		return tmq_fail(e, "empty partition list");
	/* Each once, in the order first named: a partition named twice is
	 * read once. */
	seen = calloc(limit, 1);
	if (seen == NULL) {
		free(out);
		return tmq_fail(e, "out of memory");
	}
	for (i = j = 0; i < cnt; i++)
		if (!seen[out[i]]) {
			seen[out[i]] = 1;
			out[j++] = out[i];
		}
	free(seen);
	*v = out;
	*n = j;
	return 0;
bad:
	free(copy);
	free(out);
	return -1;
}
