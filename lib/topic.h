/* topic.h: topic definitions (ROOT/NAME.twc) and the topic directory. */
#ifndef TMQ_TOPIC_H
#define TMQ_TOPIC_H

#include <stddef.h>

#include "error.h"

#define TMQ_MAX_TYPES 65536
#define TMQ_MAX_PARTITIONS 65536

struct tmq_topic {
	char *name;
	int dirfd;		/* ROOT/NAME, opened without following links */
	int key_width;		/* 1, 2, 4, 8, or -N for charN */
	unsigned partitions;
	char **types;		/* by index; NULL where an index is unused */
	unsigned ntypes;	/* one past the highest index */
	char *group_topic;	/* for a group made by the tools: its topic */
};

/* Open the topic NAME under rootfd. */
int tmq_topic_open(int rootfd, const char *name, struct tmq_topic *t,
    struct tmq_error *e);
void tmq_topic_close(struct tmq_topic *t);
/* 1 when rootfd holds a definition NAME.twc (a regular file), else 0. */
int tmq_topic_exists(int rootfd, const char *name);
/* 1 when NAME.twc is a regular file and NAME itself does not exist: what
 * the library's delete_topic leaves (it removes the directory only).  For
 * the library that topic no longer exists, and its create_topic makes it
 * anew; so for us: not listed, created over, and removed by delete. */
int tmq_topic_leftover(int rootfd, const char *name);
/* Parse a definition from memory (used by tmq_topic_open and the fuzzer). */
int tmq_topic_parse(const char *json, size_t n, struct tmq_topic *t,
    struct tmq_error *e);

/* Create a topic: the directory, then the definition, so that a topic whose
 * .twc exists is complete.  types may be NULL; group_topic is written as an
 * extra "topic" field when not NULL. */
int tmq_topic_create(int rootfd, const char *name, int key_width,
    unsigned partitions, char *const *types, unsigned ntypes,
    const char *group_topic, struct tmq_error *e);
/* Write t's definition into another root (an archive); no directory. */
int tmq_topic_write_def(int rootfd, const struct tmq_topic *t,
    struct tmq_error *e);
/* Remove the definition, then the directory and its files. */
int tmq_topic_delete(int rootfd, const char *name, struct tmq_error *e);
/* Names of the definitions in the root, sorted; groups only when asked
 * (groups: 0 topics only, 1 groups only, 2 both).  Free with tmq_names_free. */
int tmq_topic_names(int rootfd, int groups, char ***names, size_t *n,
    struct tmq_error *e);
void tmq_names_free(char **names, size_t n);
/* Index of a type name, or -1. */
int tmq_topic_type_index(const struct tmq_topic *t, const char *type);

#endif
