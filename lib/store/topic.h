/* topic.h: topic definitions (ROOT/NAME.twc) and the topic directory. */
#ifndef TMQ_TOPIC_H
#define TMQ_TOPIC_H

#include <stddef.h>

#include "util/error.h"

struct tmq_pidx_said;

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
	/* What its files' indexes said (partindex.h): each refusal once
	 * for as long as t is open; NULL: once for each index object. */
	struct tmq_pidx_said *said;
	/* "max_message" (tmq-topic create --max-message): the longest payload
	 * tmq-put takes, one too long for a line kept in a blob (blob.h); 0
	 * for a topic without it (a line's payload only). */
	size_t max_message;
};

/* The type of a blob reference's message (blob.h), reserved. */
#define TMQ_BLOB_TYPE "tmq.blob"
/* The bound on --max-message (tmq-topic(1)). */
#define TMQ_MAX_MESSAGE_LIMIT (256u << 20)

/* Open the topic NAME under rootfd.  A missing one is TMQ_ERR_NOTOPIC
 * (TMQ_ERR_NOGROUP for a group's log, --group--NAME). */
int tmq_topic_open(int rootfd, const char *name, struct tmq_topic *t,
    struct tmq_error *e);
/* Fail with that: "NAME: no such topic", or "G: no such group" for
 * --group--G. */
int tmq_topic_no_such(const char *name, struct tmq_error *e);
void tmq_topic_close(struct tmq_topic *t);
/* 1 when rootfd holds a definition NAME.twc (a regular file), else 0. */
int tmq_topic_exists(int rootfd, const char *name);
/* 1 when NAME.twc is a regular file and NAME itself does not exist: what
 * the TwainMQ library's delete_topic leaves (it removes the directory
 * only).  For the TwainMQ library that topic no longer exists, and its
 * create_topic makes it anew; so for us: not listed, created over, and removed
 * by delete. */
int tmq_topic_leftover(int rootfd, const char *name);
/* Whether t is defined as key_width, partitions and types say (the type
 * names in order): 1 when it is, else 0 with what differs, the first
 * difference, in why ("4 partitions, not 2"). */
int tmq_topic_same(const struct tmq_topic *t, int key_width,
    unsigned partitions, char *const *types, unsigned ntypes, char *why,
    size_t whysz);
/* Parse a definition from memory (used by tmq_topic_open and the fuzzer). */
int tmq_topic_parse(const char *json, size_t n, struct tmq_topic *t,
    struct tmq_error *e);

/* Create a topic so that every other process sees it whole or not at all
 * (topicmake.c): built under NAME+tmq, the definition published, then the
 * directory renamed into place.  One create or delete of a name at a time
 * (the others wait); what a killed one left is cleared first.  types may
 * be NULL; group_topic is written as an extra "topic" field when not
 * NULL.  A name taken (a topic there, or its directory without its
 * definition: another's create between its steps) is TMQ_ERR_EXISTS. */
int tmq_topic_create(int rootfd, const char *name, int key_width,
    unsigned partitions, char *const *types, unsigned ntypes,
    const char *group_topic, struct tmq_error *e);
/* Called on the new topic (t->dirfd is its directory, not yet in place)
 * to write its first messages: a group's first commit. */
typedef int (*tmq_topic_fill)(const struct tmq_topic *t, void *arg,
    struct tmq_error *e);
int tmq_topic_create_filled(int rootfd, const char *name, int key_width,
    unsigned partitions, char *const *types, unsigned ntypes,
    const char *group_topic, tmq_topic_fill fill, void *arg,
    struct tmq_error *e);
/* tmq_topic_create with "max_message" in the definition (max_message
 * from 1 to TMQ_MAX_MESSAGE_LIMIT, or 0 for none); a topic with it must
 * have the type TMQ_BLOB_TYPE among its types (blob.h). */
int tmq_topic_create_max(int rootfd, const char *name, int key_width,
    unsigned partitions, char *const *types, unsigned ntypes,
    size_t max_message, struct tmq_error *e);
/* Create t's like in another root (an archive: prune.h), as
 * tmq_topic_create does, with no file of the day in it: an archive is
 * given whole files, and never written to. */
int tmq_topic_create_bare(int rootfd, const struct tmq_topic *t,
    struct tmq_error *e);
/* Delete a topic (or a group's log), so that every other process sees it
 * whole or not at all: the directory moved away, the definition removed,
 * then the directory's own entries (topicown.h), never what is foreign.
 * 0 deleted; -1 not deleted (e says why: no such topic, entries that are
 * not the topic's, ...); 1 deleted, but something was left (e says
 * what).  Clears what a killed create or delete of the name left; that
 * alone is a success. */
int tmq_topic_delete(int rootfd, const char *name, struct tmq_error *e);
/* 1 when something of NAME is in the root but not a whole topic (both
 * NAME.twc and NAME/): one of them alone, or only the work directory
 * NAME+tmq of a create or delete (running, or killed).  What delete
 * removes although no topic is there. */
int tmq_topic_partial(int rootfd, const char *name);
/* Names of the definitions in the root, sorted; groups only when asked
 * (groups: 0 topics only, 1 groups only, 2 both).  Free with tmq_names_free. */
int tmq_topic_names(int rootfd, int groups, char ***names, size_t *n,
    struct tmq_error *e);
void tmq_names_free(char **names, size_t n);
/* Index of a type name, or -1. */
int tmq_topic_type_index(const struct tmq_topic *t, const char *type);

#endif
