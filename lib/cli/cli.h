/* cli.h: what every tool's main() shares: one option table per tool feeds
 * getopt_long, -h, and the shell completions (--completion-helper), so the
 * three never drift apart; plus the fixed exit codes and error printing. */
#ifndef TMQ_CLI_H
#define TMQ_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "error.h"

enum { TMQ_EXIT_OK = 0, TMQ_EXIT_FAIL = 1, TMQ_EXIT_USAGE = 2 };

/* What an option's argument is, for completion. */
enum tmq_argkind {
	TMQ_ARG_NONE, TMQ_ARG_WORD, TMQ_ARG_DIR, TMQ_ARG_FILE, TMQ_ARG_TOPIC,
	TMQ_ARG_GROUP, TMQ_ARG_KEYTYPE, TMQ_ARG_FROM, TMQ_ARG_TIME,
	TMQ_ARG_RESET, TMQ_ARG_POLICY,
	TMQ_ARG_TYPE		/* a type of the topic operand (tmq-put -T) */
};

/* The subcommands an option belongs to, in a tool that has subcommands:
 * TMQ_ON(i) for the i-th entry of the tool's subcommand table, or'd. */
#define TMQ_ON(i)	(1u << (i))
#define TMQ_ON_ALL	(~0u)

struct tmq_option {
	const char *lng;	/* long name, without "--" */
	int shrt;		/* short letter, or a value > 255 for none */
	const char *arg;	/* argument name ("DIR"), NULL for none */
	enum tmq_argkind kind;
	const char *help;
	/* Tools with subcommands only.  on: the subcommands that take the
	 * option (any other refuses it: a usage error, never ignored); it is
	 * never 0.  needs: those of them that cannot do without it. */
	unsigned on, needs;
};

/* A subcommand ("tmq-topic create"). */
struct tmq_subcmd {
	const char *name;	/* "create" */
	const char *operands;	/* for the usage: "NAME [KEY...]", or "" */
	int min, max;		/* how many operands; max -1: no limit */
	const char *missing;	/* what a missing operand is: "topic name" */
	const char *help;	/* one line, for -h */
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
	const char *whole;		/* the long options taken only by their
					 * whole name, never abbreviated, ' '-
					 * separated: those that delete, move
					 * offsets or answer for the user */
};

/* The options every tool has, to put at the end of its table. */
#define TMQ_COMMON_OPTIONS \
	{ "root", 'd', "DIR", TMQ_ARG_DIR, "the root directory (default $TMQ_ROOT, " \
	    "else ${XDG_DATA_HOME:-~/.local/share}/tmq)", TMQ_ON_ALL, 0 }, \
	{ "help", 'h', NULL, TMQ_ARG_NONE, "show this help and exit", \
	    TMQ_ON_ALL, 0 }, \
	{ "version", 'V', NULL, TMQ_ARG_NONE, "show the version and exit", \
	    TMQ_ON_ALL, 0 }

/* Returned by tmq_getopt for -h, -V and --completion-helper after printing
 * what they print: main() then returns 0. */
#define TMQ_OPT_DONE (-2)

/* getopt_long over the table.  The first call, which must come before the
 * tool opens any file, holds a closed standard input, output or error
 * (/dev/null, unusable: no file of the root can become one of them), and
 * arranges that a write error on standard output, found when it is flushed
 * and closed at exit, is reported and makes the exit status 1
 * (tmq_close_stdout), whatever path main() took.  Returns the option (its short letter, or
 * the value given for long-only ones), -1 at the end, '?' on a usage error
 * (the message is already on stderr), or TMQ_OPT_DONE. */
int tmq_getopt(const struct tmq_cmd *cmd, int argc, char **argv);

/* Flush and close standard output, once; on a write error say so and
 * return -1.  For a tool that wants the status before it returns. */
int tmq_close_stdout(const struct tmq_cmd *cmd);

/* For a tool whose operands are numbers and which has no digit options:
 * make the words that look like negative numbers ("-1") operands, not
 * options, for the tool to say what is wrong with them.  Call before the
 * first tmq_getopt. */
void tmq_negative_operands(const struct tmq_cmd *cmd, int argc, char **argv);

/* For a tool with subcommands, once tmq_getopt has returned -1: the index
 * of the subcommand at argv[optind] (optind moves past it), or -1 after a
 * usage error (on stderr): no subcommand, an unknown one, an option given
 * that it does not take, one that it needs missing, or too few or too many
 * operands. */
int tmq_subcommand(const struct tmq_cmd *cmd, int argc, char **argv);

void tmq_usage(const struct tmq_cmd *cmd, FILE *f);
/* "tmq-x: msg" and the --help hint on stderr; returns TMQ_EXIT_USAGE. */
int tmq_usage_error(const struct tmq_cmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "tmq-x: msg" on stderr. */
void tmq_warn(const struct tmq_cmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Print a struct tmq_error; returns TMQ_EXIT_FAIL. */
int tmq_report(const struct tmq_cmd *cmd, const struct tmq_error *e);

/* Whole unsigned decimal numbers within [min, max], for options. */
int tmq_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v,
    struct tmq_error *e);

#endif
