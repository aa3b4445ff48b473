/* names.h: which topic and group names are allowed (tmq-format(5)). */
#ifndef TMQ_NAMES_H
#define TMQ_NAMES_H

#include <stddef.h>

#include "error.h"

#define TMQ_GROUP_PREFIX "--group--"
#define TMQ_NAME_MAX 255

/* A user-given topic name: [A-Za-z0-9_.-]+, not "." or "..", not starting
 * with "-" (so never "--group--..."), at most 255 bytes with ".twc". */
int tmq_topic_name_check(const char *name, struct tmq_error *e);
/* A user-given group name: the same rules. */
int tmq_group_name_check(const char *name, struct tmq_error *e);
/* A name found in a root, groups included (for reading and dumping). */
int tmq_any_name_check(const char *name, struct tmq_error *e);
/* Is this the topic of a group? */
int tmq_is_group_topic(const char *name);
/* The topic of group's log, "--group--GROUP", into buf (of n bytes;
 * TMQ_GROUP_LOG_MAX holds it for every group name allowed). */
#define TMQ_GROUP_LOG_MAX (TMQ_NAME_MAX + 16)
void tmq_group_log_name(const char *group, char *buf, size_t n);

#endif
