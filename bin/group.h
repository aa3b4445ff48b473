/* group.h: what the subcommands of tmq-group share.  tmq-group.c holds the
 * tool's tables (its options, and an entry per subcommand whose exec is its
 * body) and main; each long body is in group-SUB.c, as tmux's commands
 * are in cmd-*.c. */
#ifndef TMQ_BIN_GROUP_H
#define TMQ_BIN_GROUP_H

#include <stdint.h>

#include "cli/cli.h"
#include "flow/position.h"
#include "group/group.h"
#include "group/groupinfo.h"
#include "store/topic.h"

/* What the options set (tmq-group.c). */
struct group_args {
	const char *root, *topic;
	struct tmq_partsel parts;	/* -P, when given */
	int json, prom, yes, dry, force;
	unsigned have_to, have_shift, have_maxlag, have_timeout;
	double timeout;			/* wait --timeout, seconds */
	struct tmq_position to;
	int64_t shift;
	uint64_t maxlag;
	double window;
	int rootfd, sub;
};
extern struct group_args group_args;
extern const struct tmq_cmd group_cmd;

/* Say the partitions whose files could not be read; how many.  With
 * damage, those with holes in their files too (their lag stands). */
unsigned group_say_problems(const struct tmq_ginfo *gi, int damage);
/* Load a group, and open its topic when t is not NULL; -1 once said. */
int group_load(struct group_args *a, const char *name, struct tmq_group *g,
    struct tmq_topic *t);

/* The entries' execs, the subcommands' bodies: their operands, noperands
 * of them. */
int group_list(char **operands, int noperands);
int group_describe(char **operands, int noperands);
int group_rebalance(char **operands, int noperands);
int group_reset(char **operands, int noperands);
int group_delete(char **operands, int noperands);
int group_wait(char **operands, int noperands);

#endif
