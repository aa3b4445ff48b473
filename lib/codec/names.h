/* names.h: which topic and group names are allowed (tmq-format(5)). */
#ifndef TMQ_NAMES_H
#define TMQ_NAMES_H

#include <stddef.h>

#include "util/error.h"

#define TMQ_GROUP_PREFIX "--group--"
#define TMQ_NAME_MAX 255
/* Room for a group's log name, TMQ_GROUP_PREFIX and the group's name. */
#define TMQ_GROUP_LOG_MAX (sizeof TMQ_GROUP_PREFIX + TMQ_NAME_MAX)

/* A user-given topic name: [A-Za-z0-9_.-]+, not "." or "..", not starting
 * with "-" (so never "--group--..."), at most 255 bytes with ".twc". */
int tmq_topic_name_check(const char *name, struct tmq_error *e);
/* A user-given group name: the same rules. */
int tmq_group_name_check(const char *name, struct tmq_error *e);
/* A name found in a root, groups included (for reading and dumping). */
int tmq_any_name_check(const char *name, struct tmq_error *e);
/* A type name (a definition's message_types, tmq-topic create -t): 1 to
 * TMQ_TYPE_NAME_MAX bytes of valid UTF-8 without a control character
 * (C0, DEL, C1) or a bidirectional control (U+200E, U+200F, U+202A to
 * U+202E, U+2066 to U+2069).  Every Python identifier passes (the
 * TwainMQ library names types by their class), and so do the groups'
 * ~~TWAIN~~ types; what passes is printed as it is (tmq-get -F %y, -J),
 * so nothing a co-user declares reaches a terminal as an escape sequence
 * or a JSON string as invalid UTF-8. */
#define TMQ_TYPE_NAME_MAX 255
int tmq_type_name_check(const char *name, struct tmq_error *e);
/* Is this the topic of a group? */
int tmq_is_group_topic(const char *name);
/* The topic that is group's log, "--group--GROUP", into buf (sz bytes,
 * TMQ_GROUP_LOG_MAX for any name that passes the check); returns buf.
 * The one place a log's name is made. */
char *tmq_group_log_name(const char *group, char *buf, size_t sz);
/* The group whose log the topic name is (the rest of it), or name itself
 * when it is no group's: what messages call it. */
const char *tmq_group_of_log(const char *name);

#endif
