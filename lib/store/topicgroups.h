/* topicgroups.h: the consumer groups that read a topic, as their
 * definitions record it (so that deleting a topic can name them). */
#ifndef TMQ_TOPICGROUPS_H
#define TMQ_TOPICGROUPS_H

#include <stddef.h>

#include "util/error.h"

/* The names (without --group--) of the groups whose definition records
 * topic, sorted.  Groups the TwainMQ library made record no topic and are not
 * among them.  Free with tmq_names_free. */
int tmq_topic_groups(int rootfd, const char *topic, char ***names,
    size_t *n, struct tmq_error *e);

#endif
