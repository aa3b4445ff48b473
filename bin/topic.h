/* topic.h: what the subcommands of tmq-topic share.  tmq-topic.c holds the
 * tool's tables (its options, and an entry per subcommand whose exec is its
 * body) and main; each long body is in topic-SUB.c, as tmux's commands
 * are in cmd-*.c. */
#ifndef TMQ_BIN_TOPIC_H
#define TMQ_BIN_TOPIC_H

#include <stdint.h>

#include "cli/cli.h"
#include "store/topicstat.h"

/* What the options set (tmq-topic.c). */
struct topic_args {
	const char *root, *before, *archive;
	struct tmq_words types;	/* -t */
	int width;		/* -k, u16 by default as in TwainMQ */
	int dry;
	uint64_t partitions;
	int lng, yes, json, prom, null, with_groups, ends, keep_unread, sub;
	int if_not_exists;	/* create --if-not-exists */
	uint64_t max_message;	/* create --max-message, 0 when not given */
};
extern struct topic_args topic_args;
extern const struct tmq_cmd topic_cmd;

/* Open the root (-d, TMQ_ROOT, the default), making it when create is
 * set; -1 once said. */
int topic_open_root(const struct topic_args *a, int create, int *fd);
/* Say the partitions that could not be read, and those with holes in
 * their files (counted all the same); how many. */
unsigned topic_say_problems(const struct tmq_partstat *ps, unsigned n);

/* The entries' execs, the subcommands' bodies: their operands, noperands
 * of them. */
int topic_create(char **operands, int noperands);
int topic_list(char **operands, int noperands);
int topic_info(char **operands, int noperands);
int topic_partition(char **operands, int noperands);
int topic_prune(char **operands, int noperands);
int topic_delete(char **operands, int noperands);

#endif
