/* producer.h: turning records into messages on a topic: key, payload type,
 * checks, partition, encoding, batched append.  Records are encoded a
 * batch at a time, split over two cores when there are two. */
#ifndef TMQ_PRODUCER_H
#define TMQ_PRODUCER_H

#include <stddef.h>

#include "store/appender.h"
#include "store/blob.h"
#include "flow/jsoninput.h"
#include "codec/message.h"
#include "flow/offsetcopy.h"
#include "util/parallel.h"
#include "codec/payload.h"
#include "store/topic.h"

struct tmq_producer_opts {
	const char *key;	/* -k: one key for every record */
	const char *keydelim;	/* -K: key before the first delimiter */
	size_t keydelimlen;	/* its length (it may hold a NUL) */
	const char *keydelim_arg;	/* as the user wrote it (messages) */
	enum tmq_ptype ptype;	/* -b, -T */
	const char *type_name;	/* -T */
	int sync;		/* --sync */
	int json;		/* -J: each record a JSON object (jsoninput.h) */
	int keep_time;		/* --keep-time: its timestamp, not now */
	/* --keep-offsets (with json): each record's partition and offset
	 * kept, its timestamp too (offsetcopy.h). */
	int keep_offsets;
	/* -p: every record to this partition, its key kept (kcat's -p). */
	int have_partition;
	unsigned partition;
	/* Told of each record refused, in input order. */
	void (*reject)(void *arg, unsigned long recno, const char *msg);
	void *arg;
	/* What a record is called where a failure says what was written
	 * ("record", "message", "file"; NULL: "record"). */
	const char *what;
};

struct tmq_prec {			/* one queued record */
	size_t at, len;			/* in the batch arena */
	unsigned long recno;
	unsigned long seq;		/* its place among all put, from 1 */
	int ok;
	int write_failed;		/* not ok: its blob could not be
					 * written (a full disk): the put ends */
	unsigned partition;
	uint64_t offset;		/* --keep-offsets */
	size_t line_at, line_len;	/* in its half's output */
	char err[256];
};

struct tmq_phalf {			/* one thread's share of a batch */
	struct tmq_producer *p;
	size_t from, to;
	struct tmq_codec codec;
	struct tmq_jsonin jin;		/* -J */
	char *out;
	size_t outcap, outlen;
	int ready;
	struct tmq_blobstage blobs;	/* its records' blobs, to land */
};

struct tmq_producer {
	const struct tmq_topic *topic;
	struct tmq_producer_opts o;
	size_t delimlen;
	unsigned type_index;
	unsigned char fixed_key[TMQ_KEY_MAX_BYTES];
	unsigned fixed_partition;
	struct tmq_appender app;
	struct tmq_par par;
	struct tmq_phalf half[2];
	struct tmq_prec *recs;
	size_t nrecs;
	char *arena;
	size_t arena_len, arena_cap;
	unsigned long written;	/* messages queued so far */
	unsigned long skipped;	/* --keep-offsets: stored there already */
	struct tmq_offcopy oc;	/* --keep-offsets */
	unsigned long seq;	/* records put so far (refused ones too) */
	unsigned long refused_last;	/* the last refused, or 0 */
	int failed;		/* a write failed: nothing more is written */
};

/* What is written when a write fails.  Records are numbered in the order
 * they are put, from 1, refused ones (and those tmq_producer_skip counts)
 * included.  Lines reach the topic a batch at a time (appender.h), each
 * batch the records that follow the last, whatever their partitions; the
 * first write that fails ends the put, and nothing after it is written.
 * So what is written is records 1 to N (but the refused), and the error
 * says which N: "records 1 to N were written, record N+1 and later were
 * not".  Only when a batch had been written to some partitions when the
 * write to another failed (a filesystem that fails but for lack of room,
 * or fills while another fills it: near full, batches are written record
 * by record) did records after N reach the topic too, and the error says
 * that as well: which, by their partitions.  Within each partition, what
 * is written is always the first of the records the input had for it.
 * Killed with SIGKILL, a put leaves the same: the first N records, but
 * for a kill in the midst of a batch's writes, whose records then are in
 * some partitions and not others. */
int tmq_producer_open(struct tmq_producer *p, const struct tmq_topic *t,
    const struct tmq_producer_opts *o, struct tmq_error *e);
/* Queue one record (numbered recno for messages).  Returns 0, or -1 when
 * writing failed (nothing more can be written: e ends with what was
 * written, as above); refused records go to the reject callback, and
 * nothing of them is written. */
int tmq_producer_put(struct tmq_producer *p, const char *rec, size_t n,
    unsigned long recno, struct tmq_error *e);
/* Count a record the caller refused itself (too long, unreadable): it
 * takes its place in the numbering, and nothing of it is written. */
void tmq_producer_skip(struct tmq_producer *p);
/* Encode what is queued and write it (appender.h: one write() per
 * partition).  -1 as tmq_producer_put. */
int tmq_producer_flush(struct tmq_producer *p, struct tmq_error *e);
/* Told to stop: write what is queued, then fill e with "TOPIC:
 * interrupted" and what was written (as a failure says it); -1. */
int tmq_producer_stop(struct tmq_producer *p, struct tmq_error *e);
/* Anything queued and not yet written? */
int tmq_producer_pending(const struct tmq_producer *p);
void tmq_producer_close(struct tmq_producer *p);

#endif
