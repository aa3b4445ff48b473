/* producer.h: turning records into messages on a topic: key, payload type,
 * checks, partition, encoding, batched append.  Records are encoded a
 * batch at a time, split over two cores when there are two. */
#ifndef TMQ_PRODUCER_H
#define TMQ_PRODUCER_H

#include <stddef.h>

#include "appender.h"
#include "jsoninput.h"
#include "message.h"
#include "offsetcopy.h"
#include "parallel.h"
#include "payload.h"
#include "topic.h"

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
	/* Told of each record refused, in input order. */
	void (*reject)(void *arg, unsigned long recno, const char *msg);
	void *arg;
};

struct tmq_prec {			/* one queued record */
	size_t at, len;			/* in the batch arena */
	unsigned long recno;
	int ok;
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
};

int tmq_producer_open(struct tmq_producer *p, const struct tmq_topic *t,
    const struct tmq_producer_opts *o, struct tmq_error *e);
/* Queue one record (numbered recno for messages).  Returns 0, or -1 when
 * writing failed (nothing more can be written); refused records go to the
 * reject callback, and nothing of them is written. */
int tmq_producer_put(struct tmq_producer *p, const char *rec, size_t n,
    unsigned long recno, struct tmq_error *e);
/* Encode what is queued and write it: one write() per partition. */
int tmq_producer_flush(struct tmq_producer *p, struct tmq_error *e);
/* Anything queued and not yet written? */
int tmq_producer_pending(const struct tmq_producer *p);
void tmq_producer_close(struct tmq_producer *p);

#endif
