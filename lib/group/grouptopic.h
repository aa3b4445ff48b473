/* grouptopic.h: the topic of a group that the TwainMQ library made.  Its
 * definition records none (tmq's groups name theirs: tmq-format(5),
 * Definitions), so tools are told it (-t, or the topic a member reads).
 * Once a tool that writes to the group's log is told it, it is kept in
 * --group--NAME/.tmq/topic, where the library never looks, for the tools
 * that look at the group without being told: tmq-topic prune, which must
 * know every group that reads a topic, and describe and list. */
#ifndef TMQ_GROUPTOPIC_H
#define TMQ_GROUPTOPIC_H

#include <stddef.h>

#include "util/error.h"

/* Keep topic (a topic of the group's root) as the topic of the group whose
 * log directory is logdirfd, unless that is what is kept already.  A
 * cache: nothing is lost when it cannot be written, so failing says
 * nothing. */
void tmq_group_topic_keep(int logdirfd, const char *topic);
/* The topic kept for the group whose log directory is logdirfd into buf
 * (TMQ_NAME_MAX + 2 bytes): 1 when there is one that is a topic of the
 * root rootfd, 0 when there is none, -1 when what is there is not one of
 * ours (e says what: a forged or damaged file is not taken). */
int tmq_group_topic_recall(int rootfd, int logdirfd, char *buf,
    struct tmq_error *e);

#endif
