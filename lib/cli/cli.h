/* cli.h: what every tool's main() shares: one option table per tool feeds
 * getopt_long, -h, and the shell completions (--completion-helper), so the
 * three never drift apart, and says where each option's value goes and how
 * it is checked, so no main() handles an option itself; plus start-up, the
 * fixed exit codes and error printing. */
#ifndef TMQ_CLI_H
#define TMQ_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "util/error.h"
#include "util/number.h"
#include "flow/position.h"

enum { TMQ_EXIT_OK = 0, TMQ_EXIT_FAIL = 1, TMQ_EXIT_USAGE = 2 };

/* What an option's argument is, for completion. */
enum tmq_argkind {
	TMQ_ARG_NONE, TMQ_ARG_WORD, TMQ_ARG_DIR, TMQ_ARG_FILE, TMQ_ARG_TOPIC,
	TMQ_ARG_GROUP, TMQ_ARG_KEYTYPE, TMQ_ARG_FROM, TMQ_ARG_TIME,
	TMQ_ARG_RESET, TMQ_ARG_POLICY,
	TMQ_ARG_TYPE,		/* a type of the topic operand (tmq-put -T) */
	TMQ_ARG_ORDER		/* partition or key (tmq-get --order) */
};

/* The subcommands an option belongs to, in a tool that has subcommands:
 * TMQ_ON(i) for the i-th entry of the tool's subcommand table, or'd. */
#define TMQ_ON(i)	(1u << (i))
#define TMQ_ON_ALL	(~0u)

/* The values of a list option, given once ("-P 0,2": v {0, 2}, n 2);
 * v is malloc'd (one block), NULL until the option is given. */
struct tmq_partsel {
	unsigned *v;
	unsigned n;
};
struct tmq_words {
	char **v;		/* "-t A,,B": "A", "", "B" */
	unsigned n;
};

/* One option, written with designated initializers: what it is called,
 * how -h and the completions show it, and where its value goes and how it
 * is checked.  Exactly one of the places (flag ... call) is set, save for
 * -h and -V (TMQ_COMMON_OPTIONS), which tmq_options answers itself.  A
 * value that fails its check is a usage error, "-n: MESSAGE" (the short
 * letter when there is one), said when the option is read. */
struct tmq_option {
	const char *lng;	/* long name, without "--" */
	int shrt;		/* short letter, or 0 for none */
	const char *arg;	/* argument name ("DIR"), NULL for none */
	enum tmq_argkind kind;	/* for completion */
	const char *help;
	/* Tools with subcommands only.  on: the subcommands that take the
	 * option (any other refuses it: a usage error, never ignored); it is
	 * never 0.  needs: those of them that cannot do without it. */
	unsigned on, needs;
	/* Taken only by its whole long name, never abbreviated: for the
	 * options that delete, move offsets or answer for the user. */
	unsigned whole : 1;
	/* Messages about its value name the long option ("--from: ..."),
	 * not the letter. */
	unsigned say_long : 1;
	/* Its callback's messages are said as they are, unprefixed (they
	 * name what they are about: "bad format: ..."). */
	unsigned bare : 1;

	int *flag;			/* set to 1 */
	const char **str;		/* the argument (the last given) */
	uint64_t *num;			/* a whole number in [min, max] */
	uint64_t min, max;
	struct tmq_partsel *parts;	/* a partition list (partlist.h) */
	struct tmq_words *words;	/* a ','-separated list of words */
	double *time;			/* a time of tmq(7) TIMES */
	double *secs;			/* a duration (timespec.h), in
					 * [min, max] seconds */
	struct tmq_position *pos;	/* a position (position.h) */
	/* The odd one: the argument to check and keep as it likes; on
	 * failure, e says why. */
	int (*call)(const char *arg, struct tmq_error *e);

	/* When set, the order in which it was first given among the
	 * options (1, 2, ...); 0 when not given. */
	unsigned *given;
};

/* A subcommand ("tmq-topic create"). */
struct tmq_subcmd {
	const char *name;	/* "create" */
	const char *operands;	/* for the usage: "NAME [KEY...]", or "" */
	int min, max;		/* how many operands; max -1: no limit */
	const char *missing;	/* what a missing operand is: "topic name" */
	const char *help;	/* one line, for -h */
	/* Its body (tmux's cmd-*.c entries): run with its operands, n of
	 * them as min and max allow, once the options are parsed; the exit
	 * status. */
	int (*exec)(char **operands, int n);
};

struct tmq_cmd {
	const char *name;		/* "tmq-get" */
	const char *usage;		/* lines after "usage: ", '\n'-separated;
					 * NULL when there are subcommands:
					 * their usage comes from the tables */
	const char *summary;		/* one line: what the tool does */
	const char *operands;		/* completion of operands: "topic",
					 * "group", "file", "grouplog" (a
					 * group's log, --group--NAME, after
					 * "--"); NULL when there are
					 * subcommands */
	const struct tmq_option *opts;	/* ends with a zeroed entry */
	const struct tmq_subcmd *subs;	/* ends with a zeroed entry; NULL
					 * for a tool without subcommands */
	int *sub;			/* where the subcommand's index goes */
	/* The operands are numbers and the tool has no digit options: the
	 * words that look like negative numbers ("-1") are operands, not
	 * options, for the tool to say what is wrong with them. */
	int negative_operands;
};

/* -q, --quiet: set by tmq_options, which then silences notices
 * (notice.h). */
extern int tmq_cli_quiet;

/* The options every tool has, to put at the end of its table; root: where
 * -d's argument goes. */
#define TMQ_COMMON_OPTIONS(root) \
	{ .lng = "root", .shrt = 'd', .arg = "DIR", .kind = TMQ_ARG_DIR, \
	    .help = "the root directory (default $TMQ_ROOT, " \
	    "else ${XDG_DATA_HOME:-~/.local/share}/tmq)", .on = TMQ_ON_ALL, \
	    .str = (root) }, \
	{ .lng = "quiet", .shrt = 'q', \
	    .help = "say no notices on stderr, only what makes the exit " \
	    "status 1 or 2", .on = TMQ_ON_ALL, .flag = &tmq_cli_quiet }, \
	{ .lng = "help", .shrt = 'h', .help = "show this help and exit", \
	    .on = TMQ_ON_ALL }, \
	{ .lng = "version", .shrt = 'V', .help = "show the version and exit", \
	    .on = TMQ_ON_ALL }

/* The first thing main() does, before it opens any file.  Holds a closed
 * standard input, output or error (/dev/null, unusable: no file of the
 * root can become one of them); arranges that a write error on standard
 * output, found when it is flushed and closed at exit, is reported and
 * makes the exit status 1 (tmq_close_stdout), whatever path main() took;
 * and sends lib/'s notices to stderr as "TOOL: MESSAGE". */
void tmq_start(const struct tmq_cmd *cmd);

/* Read the options (getopt_long over the table) into the places the table
 * names, each checked as it is read; then, in a tool with subcommands, the
 * subcommand into *cmd->sub: refused with a usage error when missing or
 * unknown, or when given an option that it does not take, or without one
 * that it needs, or with too few or too many operands.  Returns -1 when
 * the tool goes on (its operands begin at optind), else what main()
 * returns: TMQ_EXIT_OK after -h, -V or --completion-helper has printed
 * what it prints, TMQ_EXIT_USAGE after a usage error (said on stderr). */
int tmq_options(const struct tmq_cmd *cmd, int argc, char **argv);
/* After tmq_options, for a tool with subcommands: run the one given (its
 * exec, with the operands after it); its exit status. */
int tmq_subcmd_exec(const struct tmq_cmd *cmd, int argc, char **argv);

/* fflush(stdout), its errno kept for the write error said at exit. */
int tmq_flush_stdout(void);
/* Say that standard output failed, with err's message (0: unknown). */
void tmq_warn_stdout(const struct tmq_cmd *cmd, int err);

/* Flush and close standard output, once; on a write error say so and
 * return -1.  For a tool that wants the status before it returns. */
int tmq_close_stdout(const struct tmq_cmd *cmd);

void tmq_usage(const struct tmq_cmd *cmd, FILE *f);
/* "tmq-x: msg" and the --help hint on stderr; returns TMQ_EXIT_USAGE. */
int tmq_usage_error(const struct tmq_cmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "tmq-x: msg" on stderr. */
void tmq_warn(const struct tmq_cmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Print a struct tmq_error; returns TMQ_EXIT_FAIL. */
int tmq_report(const struct tmq_cmd *cmd, const struct tmq_error *e);


#endif
