/* readers.h: the groups that read a topic, and how far each has
 * committed, for retention that knows its readers (tmq-topic prune).
 *
 * A group reads a topic when its definition records the topic (a group
 * tmq made) or the topic kept for it is that topic (a group the TwainMQ
 * library made, once a tmq tool that wrote to it was told its topic:
 * grouptopic.h).  The library's groups whose topic is known nowhere are
 * named apart: nothing says whether they read this topic. */
#ifndef TMQ_READERS_H
#define TMQ_READERS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "store/partfile.h"
#include "store/topic.h"

struct tmq_reader {
	char *name;
	/* Per partition, the first offset the group has not read: 0 for
	 * one never committed (a member starts at the first offset),
	 * UINT64_MAX for "now" (a member starts at the end, whatever is
	 * there).  A committed offset past the partition's end (the topic
	 * made again) is read again from the first offset: 0 too. */
	uint64_t *from;
	uint64_t lost;		/* unread messages in the files pruned */
};

/* One group holding a file back: its index in readers, and where it is. */
struct tmq_holder {
	size_t reader;
	uint64_t from;
};

struct tmq_readers {
	const struct tmq_topic *t;
	struct tmq_reader *r;
	size_t n;
	char **unknown;		/* groups whose topic is known nowhere */
	size_t nunknown;
	struct tmq_holder *holders;	/* of the file last asked about */
	size_t nholders;
	uint64_t last_first, last_end;	/* that file's offsets */
};

/* Find the groups that read t, in the root rootfd, and replay each.  A
 * group that reads t but whose log cannot be read fails the whole (its
 * position cannot be known); notice is told of lines skipped. */
int tmq_readers_load(int rootfd, const struct tmq_topic *t,
    struct tmq_readers *rs, void (*notice)(void *, const char *), void *arg,
    struct tmq_error *e);
/* Which groups have not read all of pf, whose offsets are [pf->first,
 * end): into rs->holders (valid until the next call).  Returns how many. */
size_t tmq_readers_hold(struct tmq_readers *rs, const struct tmq_pfile *pf,
    uint64_t end);
/* The file last asked about was removed: count what each of its holders
 * had not read as lost. */
void tmq_readers_gone(struct tmq_readers *rs);
void tmq_readers_free(struct tmq_readers *rs);

#endif
