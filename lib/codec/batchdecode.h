/* batchdecode.h: decoding a batch of lines at once, split over two cores,
 * for the consumer: lines go in, in reading order; decoded messages (or
 * the reason a line is corrupt) come out in the same order.
 *
 * What a batch keeps is bounded by bytes, not by lines: each half stops
 * decoding once it holds TMQ_BATCH_BYTES / 2 bytes of payloads (one
 * payload, of at most TMQ_PAYLOAD_MAX, past it), and what it left is
 * decoded when it is taken.  512 lines of 4 KB that each inflate to
 * 3.35 MB would otherwise be 1.7 GB held at once, for a reader that
 * wants one message. */
#ifndef TMQ_BATCHDECODE_H
#define TMQ_BATCHDECODE_H

#include <stddef.h>
#include <stdint.h>

#include "codec/message.h"
#include "util/parallel.h"

#define TMQ_BATCH_BYTES (8u << 20)

struct tmq_ditem {
	size_t src;			/* the caller's source index */
	uint64_t offset;
	int key_width;
	unsigned ntypes;
	size_t line_at, line_len;	/* in the batch's line arena */
	int problem;			/* the reader's: corrupt (err says
					 * why) */
	int done;			/* decoded, or found not to decode */
	int ok;				/* decoded (else err says why) */
	int half;			/* which half decoded it */
	double ts;
	struct tmq_payload payload;	/* data: offset into the half's arena */
	size_t key_at, pay_at;
	char err[200];
};

struct tmq_dhalf {
	struct tmq_dbatch *b;
	size_t from, to;
	struct tmq_codec codec;
	struct tmq_msg *m;
	unsigned char *out;
	size_t outlen, outcap;
	int ready;
};

struct tmq_dbatch {
	struct tmq_ditem *items;
	size_t n, cap, pos;
	char *lines;
	size_t lines_len, lines_cap;
	struct tmq_dhalf half[2];
	struct tmq_par par;
	int oom;
};

int tmq_dbatch_init(struct tmq_dbatch *b, struct tmq_error *e);
void tmq_dbatch_free(struct tmq_dbatch *b);
/* Empty the batch (what was not taken is dropped). */
void tmq_dbatch_reset(struct tmq_dbatch *b);
/* Queue a line (copied, and so is problem: the reason the reader found it
 * corrupt, or NULL).  -1 when out of memory. */
int tmq_dbatch_add(struct tmq_dbatch *b, size_t src, uint64_t offset,
    int key_width, unsigned ntypes, const char *line, size_t len,
    const char *problem);
/* Decode what was queued, up to the batch's bound in bytes (the rest is
 * decoded as it is taken). */
void tmq_dbatch_decode(struct tmq_dbatch *b);
/* The next item in order, or NULL; its message into m (payload pointing
 * into the batch until the next take or reset). */
const struct tmq_ditem *tmq_dbatch_take(struct tmq_dbatch *b,
    struct tmq_msg *m);
/* The first item not yet taken from source src, or NULL. */
const struct tmq_ditem *tmq_dbatch_pending(const struct tmq_dbatch *b,
    size_t src);

#endif
