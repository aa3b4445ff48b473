/* workset.h: the decisions of a member that runs a command per message
 * (tmq-get --exec), pure, so that they are tested without a root
 * (tests/unit/t-workset.c): which of the messages read may start now
 * (--jobs, --order partition or key), what a failure leads to (a retry
 * after an exponential backoff, or the dead letter past --retries), and
 * each partition's commit frontier: the first offset not yet finished.
 *
 * Items stay in the order they were read (within a partition, offsets
 * rise); the caller owns them and gets each back from tmq_ws_pop once it
 * and every earlier item of its partition are finished. */
#ifndef TMQ_WORKSET_H
#define TMQ_WORKSET_H

#include <stddef.h>
#include <stdint.h>

enum tmq_order { TMQ_ORDER_PARTITION, TMQ_ORDER_KEY };

enum tmq_wstate {
	TMQ_W_QUEUED,		/* read, not started yet */
	TMQ_W_RUNNING,
	TMQ_W_WAITING,		/* failed: to start again at not_before */
	TMQ_W_DEAD,		/* failed past --retries: the caller's to
				 * dead-letter (it blocks what it blocked) */
	TMQ_W_DONE,		/* finished: succeeded or dead-lettered */
};

struct tmq_witem {
	unsigned partition;
	uint64_t offset;
	const char *key;	/* "" for none: no order among those */
	enum tmq_wstate state;
	unsigned attempts;	/* started so far */
	double not_before;	/* TMQ_W_WAITING */
	void *data;		/* the caller's */
};

struct tmq_workset {
	enum tmq_order order;
	unsigned jobs;		/* at most this many running */
	unsigned retries;	/* attempts after the first */
	double backoff, backoff_max;
	size_t cap;		/* at most this many items held */
	struct tmq_witem **v;
	size_t n;
	unsigned running;
};

/* cap items at most (at least jobs); v is allocated here: -1 when out of
 * memory. */
int tmq_ws_init(struct tmq_workset *ws, enum tmq_order order, unsigned jobs,
    unsigned retries, double backoff, double backoff_max, size_t cap);
void tmq_ws_free(struct tmq_workset *ws);
/* Whether another item may be added (the reading waits meanwhile). */
int tmq_ws_room(const struct tmq_workset *ws);
/* Add it (queued, no attempt yet): only with room. */
void tmq_ws_add(struct tmq_workset *ws, struct tmq_witem *it);
/* The first item that may start at now, or NULL: fewer than jobs
 * running, queued or waited long enough, and nothing before it that the
 * order puts first (its partition's, or its key's in the partition)
 * unfinished.  stopping: no new message starts (retries do not either). */
struct tmq_witem *tmq_ws_next(struct tmq_workset *ws, double now,
    int stopping);
void tmq_ws_started(struct tmq_workset *ws, struct tmq_witem *it);

enum tmq_wend { TMQ_WEND_DONE, TMQ_WEND_RETRY, TMQ_WEND_DEAD };
/* A running item ended, ok or not, at now: done; or to retry (waiting,
 * not_before set by tmq_ws_backoff); or dead (past the retries). */
enum tmq_wend tmq_ws_ended(struct tmq_workset *ws, struct tmq_witem *it,
    int ok, double now);
/* A dead item was dead-lettered: finished. */
void tmq_ws_done(struct tmq_workset *ws, struct tmq_witem *it);
/* The wait before attempt number attempts + 1 after attempts failed:
 * base, doubled each time, at most max. */
double tmq_ws_backoff(double base, double max, unsigned attempts);
/* A finished item with nothing unfinished before it in its partition,
 * taken out (its offset + 1 is the partition's commit now), or NULL. */
struct tmq_witem *tmq_ws_pop(struct tmq_workset *ws);
/* Take out an item not running (a partition taken away): it is the
 * caller's again. */
void tmq_ws_remove(struct tmq_workset *ws, struct tmq_witem *it);
/* Seconds until a waiting item may start (0: one may now), -1: none. */
double tmq_ws_wake(const struct tmq_workset *ws, double now);
/* Anything held, finished or not. */
int tmq_ws_busy(const struct tmq_workset *ws);

#endif
