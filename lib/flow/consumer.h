/* consumer.h: reading several partitions of several topics in turn, one
 * message from each (as the TwainMQ library's consumer does), from a position,
 * up to a time, and waiting for more. */
#ifndef TMQ_CONSUMER_H
#define TMQ_CONSUMER_H

#include <stddef.h>
#include <sys/types.h>

#include "codec/batchdecode.h"
#include "store/blob.h"
#include "store/dirlist.h"
#include "store/linereader.h"
#include "codec/message.h"
#include "flow/position.h"
#include "store/topic.h"

struct tmq_source {
	size_t topic;			/* index into consumer's topics */
	unsigned partition;
	struct tmq_linereader lr;
	int open;			/* lr is set up */
	int stopped;			/* past --until */
	uint64_t until_floor;		/* --until stops no message below
					 * this offset (tmq_consumer_until_ends) */
	int failed;			/* could not be read: said, skipped */
	int dry;			/* had nothing in this fill() */
	int idle;			/* at its end: asked again when woken */
	int queued;			/* in the consumer's quiet queue */
	/* Its server away (fstype.h: tmq_fs_outage), with retry_outages
	 * set: tried again from retry_at (seconds), backoff_ms after the
	 * last try (tmq_outage_backoff). */
	int away;
	int backoff_ms;
	double retry_at;
};

/* What the consumer keeps for each topic besides its definition. */
struct tmq_ctopic {
	struct tmq_dirlist dl;		/* the directory, listed once */
	size_t *src_of;			/* partition -> source, or SIZE_MAX */
	int wd;				/* inotify watch, or -1 */
	ino_t ino;			/* the directory's, as first opened */
	int dead;			/* its descriptor lost its mount */
};

struct tmq_consumer {
	struct tmq_topic *topics;
	struct tmq_ctopic **ct;		/* one for each of topics */
	size_t ntopics;
	struct tmq_source *src;
	size_t nsrc, next;
	struct tmq_dbatch batch;	/* read ahead, decoded on two cores */
	int have_until;
	double until;
	int ifd;			/* inotify, or -1 */
	int poll_only;			/* a topic where inotify cannot see */
	/* Partitions that could not be read (a planted FIFO or link, an
	 * unreadable or corrupt file): each is said through notice and
	 * skipped, and the others are read; the caller exits 1 at the end. */
	unsigned long failures;
	int watching;			/* inotify watches every topic */
	long long removed_ms;		/* the last look for a removed topic
					 * directory (tmq_consumer_wait) */
	size_t srccap;			/* room in src */
	size_t spare_next;		/* where spare_fd looks next */
	size_t *quiet;			/* sources that became quiet, oldest */
	size_t qhead, qtail, qcap;	/* first from quiet[qhead] */
	/* Set by a reader that runs on (a follower, a member): a partition
	 * whose network filesystem's server is away is tried again, said
	 * once, rather than failed; away counts those that are. */
	int retry_outages;
	size_t away;
	/* With retry_outages: the root as -d gave it (NULL: $TMQ_ROOT or
	 * the default), opened again when a topic's directory descriptor
	 * outlives its mount (a FUSE client killed and mounted again). */
	const char *root;
	/* A descriptor whose POLLERR or POLLHUP ends a wait at once (the
	 * output's, when its reader may go away), or -1. */
	int hup_fd;
	/* Called with notices for stderr ("offset 3 is gone ..."). */
	void (*notice)(void *arg, const char *msg);
	void *notice_arg;
	/* tmq-get --no-resolve: a blob reference given as it is, not the
	 * payload it refers to (blob.h); 0 as init leaves it: resolved. */
	int no_resolve;
	unsigned char *blob;		/* the last blob read */
	size_t blob_cap;
};

int tmq_consumer_init(struct tmq_consumer *c, struct tmq_error *e);
void tmq_consumer_free(struct tmq_consumer *c);
/* Add a topic's partitions (all when parts is NULL). */
int tmq_consumer_add(struct tmq_consumer *c, int rootfd, const char *name,
    const unsigned *parts, unsigned nparts, struct tmq_error *e);
/* Open a topic only (for a group's own bookkeeping); returns its index. */
int tmq_consumer_add_topic(struct tmq_consumer *c, int rootfd,
    const char *name, size_t *index, struct tmq_error *e);
/* Add one partition of an added topic. */
int tmq_consumer_add_source(struct tmq_consumer *c, size_t topic,
    unsigned partition, struct tmq_error *e);
/* Drop every source (a group member's assignment changed). */
void tmq_consumer_clear_sources(struct tmq_consumer *c);
/* Position every source. */
int tmq_consumer_seek(struct tmq_consumer *c, const struct tmq_position *p,
    struct tmq_error *e);
/* Position one source at an offset. */
int tmq_consumer_seek_source(struct tmq_consumer *c, size_t i,
    uint64_t offset, struct tmq_error *e);
/* The next message in turn: 1 (m filled, *src its source), 0 when none is
 * ready, -1 on an error that stops reading, 2 for a corrupt line (reported
 * in e; it was skipped and the caller may go on).  A blob reference is
 * given as the payload it refers to (valid until the next call), unless
 * no_resolve; one whose blob is missing or damaged is a corrupt line. */
int tmq_consumer_next(struct tmq_consumer *c, struct tmq_msg *m, size_t *src,
    struct tmq_error *e);
/* The offset the next message of source i will have (what was read ahead
 * but not yet returned counts as not read). */
uint64_t tmq_consumer_position(const struct tmq_consumer *c, size_t i);
/* Close the file of one source (a quiet one first), to be opened again
 * when it is read: 0, or -1 when no source holds one. */
int tmq_consumer_spare_fd(struct tmq_consumer *c);
/* Source i cannot be read: say so (through notice, with its topic's
 * name), count it, and skip it from now on. */
void tmq_consumer_fail_source(struct tmq_consumer *c, size_t i,
    const struct tmq_error *e);
/* --until at or after the moment the reader started (now, or later):
 * every message already in a partition then is read, whatever its stamp,
 * and only a message past those and stamped after the time ends the
 * partition.  Producers' clocks disagree: one a day ahead would
 * otherwise end a partition at its first message, long before the
 * partition's end.  With now, the partitions' ends at the start, as
 * kcat -e reads.  Call once the sources are placed. */
int tmq_consumer_until_ends(struct tmq_consumer *c, struct tmq_error *e);
/* Every source has passed --until. */
int tmq_consumer_done(const struct tmq_consumer *c);
/* Every source has failed (nothing is left to wait for). */
int tmq_consumer_all_failed(const struct tmq_consumer *c);
/* Sleep until a topic directory changes or timeout_ms passes. */
int tmq_consumer_wait(struct tmq_consumer *c, int timeout_ms,
    struct tmq_error *e);

#endif
