/* groupwait.h: tmq-group wait, a barrier on a group's progress: done when
 * the group has committed every partition of its topic up to the end that
 * partition had when the wait began. */
#ifndef TMQ_GROUPWAIT_H
#define TMQ_GROUPWAIT_H

#include <stdint.h>
#include <sys/types.h>

#include "group/group.h"
#include "store/topic.h"
#include "store/watch.h"

struct tmq_gwpart {
	uint64_t target;	/* the partition's end when the wait began */
	uint64_t first;		/* its first offset then */
	int64_t committed;	/* as the wait began */
	int stale;		/* out of range then: only a new commit counts */
	uint64_t lag;		/* left to commit, by the last look */
	int64_t now;		/* committed, by the last look */
};

struct tmq_gwait {
	struct tmq_group *g;
	unsigned nparts;
	struct tmq_gwpart *parts;
	uint64_t total;		/* left over all partitions, by the last look */
	unsigned behind;	/* partitions with some left */
	struct tmq_watch w;	/* the group's log, and the root */
	int rootfd;
	dev_t dev;		/* the log directory's */
	ino_t ino;
};

/* Begin a wait on g (replayed), a group of the root rootfd, for its topic
 * t: the targets are t's partitions' ends now.  Watches the group's log,
 * and the root for the group's removal. */
int tmq_gwait_begin(struct tmq_gwait *w, int rootfd, struct tmq_group *g,
    const struct tmq_topic *t, struct tmq_error *e);
/* Read what the log gained and look again: 1 when every partition is
 * committed up to its target, 0 when not yet (parts[].lag say what is
 * left), -1 on an error (the group deleted meanwhile, say). */
int tmq_gwait_check(struct tmq_gwait *w, struct tmq_error *e);
/* Sleep until the log changes or timeout_ms passes (-1: no limit); 0 when
 * it is over, -1 on an error. */
int tmq_gwait_sleep(struct tmq_gwait *w, int timeout_ms, struct tmq_error *e);
void tmq_gwait_free(struct tmq_gwait *w);

#endif
