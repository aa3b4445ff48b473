/* partidx.h: the encoding of a partition file's sparse index, and the
 * checks that need no file (lib/store/partindex.h says what the index is
 * for, where it lives, who writes it and why each check is there).
 *
 * Pure: bytes in, values out, no I/O.  partindex.c (store) opens, locks,
 * reads and writes the index, and hands the bytes it read here; the
 * fuzzer and t-partidx feed these the bytes of their choice.
 *
 * The file, integers little-endian, doubles as their IEEE 754 bits:
 *
 *   header, 64 bytes:
 *     "TMQPIDX1", u32 version (2), u32 step (TMQ_PIDX_STEP),
 *     u32 partition, u32 day, u64 first (the partition file's name),
 *     i32 key width, u32 head length (TMQ_PIDX_HEAD),
 *     u64 XXH3 of the partition file's first head length bytes,
 *     u64 XXH3 of the topic's name, u64 XXH3 of the 56 bytes before it
 *   the stamp, 32 bytes, rewritten in place by each writer:
 *     u64 the partition file's size, i64 and u32 its change time (st_ctim:
 *     seconds, nanoseconds), 8 zero bytes, u32 XXH32 of the 28 bytes
 *     before it, seeded with the header's own
 *   then records, 32 bytes each, in the order of the file:
 *     u64 line: the lines of the file before pos
 *     u64 pos: a line's first byte (just after a newline)
 *     f64 maxts: the largest time of those lines a seek by time can stop
 *         at, -inf when none; a NaN time counts as +inf
 *     u32 XXH32 of the 32 bytes of the partition file before pos
 *     u32 XXH32 of the 28 bytes before it, seeded with the header's own */
#ifndef TMQ_PARTIDX_H
#define TMQ_PARTIDX_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "codec/base85.h"

#define TMQ_PIDX_STEP (64 * 1024)	/* bytes of file between entries */
#define TMQ_PIDX_HEAD 4096		/* bytes of file in its identity */
#define TMQ_PIDX_HDR 64			/* the header proper */
#define TMQ_PIDX_STAMP 32		/* the stamp after it */
#define TMQ_PIDX_START (TMQ_PIDX_HDR + TMQ_PIDX_STAMP)	/* the records' */
#define TMQ_PIDX_REC 32
#define TMQ_PIDX_WIN 32			/* bytes before pos in each record */
/* Lines at least this long are skipped by readers ("line too long",
 * linereader.c's buffer): a seek by time never stops at one. */
#define TMQ_PIDX_LONG (64 * 1024)

/* A place in a partition file: a line's first byte, the lines before
 * it, and the largest time among them that a seek by time could stop at
 * (-inf when none). */
struct tmq_pidx_ent {
	uint64_t line;
	uint64_t pos;
	double maxts;
};

/* What an index's header says it is the index of: the partition file's
 * name (partition, day, FIRST), its topic's key width, and the hash of
 * the topic's name (tmq_pidx_topic_hash). */
struct tmq_pidx_id {
	uint32_t partition;
	uint32_t day;
	uint64_t first;
	int key_width;
	uint64_t topic_hash;
};

/* The hash of a topic's name, as headers hold it. */
uint64_t tmq_pidx_topic_hash(const char *name);

/* A header for id, with head_hash (XXH3 of the file's first
 * TMQ_PIDX_HEAD bytes): TMQ_PIDX_HDR bytes into b, and the seed of its
 * records and stamp into *seed. */
void tmq_pidx_header_encode(unsigned char *b, const struct tmq_pidx_id *id,
    uint64_t head_hash, uint32_t *seed);
/* Decode the n bytes at b as the header of id's index: 0 with *head_hash
 * and *seed, or -1 with *why ("not an index", "damaged", "of an older
 * version", "of another kind", "not this file's index"). */
int tmq_pidx_header_decode(const unsigned char *b, size_t n,
    const struct tmq_pidx_id *id, uint64_t *head_hash, uint32_t *seed,
    const char **why);
/* A record (TMQ_PIDX_REC bytes) sealed with the header's seed; decode
 * gives -1 for one whose checksum fails or whose fields no record of a
 * file can hold. */
void tmq_pidx_record_encode(unsigned char *b, uint32_t seed,
    const struct tmq_pidx_ent *at, uint32_t win);
int tmq_pidx_record_decode(const unsigned char *b, uint32_t seed,
    struct tmq_pidx_ent *at, uint32_t *win);

/* The stamp: the partition file's size and change time as the index's
 * user last saw them (partindex.h, "A file rewritten in place"). */
struct tmq_pidx_stamp {
	uint64_t size;
	int64_t ctime_sec;
	uint32_t ctime_nsec;
};
void tmq_pidx_stamp_encode(unsigned char *b, uint32_t seed,
    const struct tmq_pidx_stamp *s);
int tmq_pidx_stamp_decode(const unsigned char *b, uint32_t seed,
    struct tmq_pidx_stamp *s);
/* The file now against the stamp: */
enum {
	TMQ_PIDX_SAME,		/* its change time is the stamp's */
	TMQ_PIDX_GROWN,		/* changed and larger: appended to */
	TMQ_PIDX_INPLACE,	/* changed, the same size: written in place
				 * (or an append under way: look again) */
	TMQ_PIDX_SHORTER	/* changed and smaller: truncated */
};
int tmq_pidx_stamp_cmp(const struct tmq_pidx_stamp *was,
    const struct tmq_pidx_stamp *now);

/* The most records an index of a file of size bytes may hold and be one
 * of ours (a writer's records, plus what growth since the stamp adds). */
uint64_t tmq_pidx_max_records(uint64_t size);

/* a before b, as records of one file are: both further on. */
int tmq_pidx_ordered(const struct tmq_pidx_ent *a,
    const struct tmq_pidx_ent *b);

/* What a lookup looks for; tmq_pidx_before: does at come at or before
 * it (a line: at->line <= line; a time: maxts below t, or not above t
 * when strict; the last: always). */
enum { TMQ_PIDX_BY_LINE, TMQ_PIDX_BY_TIME, TMQ_PIDX_BY_TIME_STRICT,
    TMQ_PIDX_LAST };
int tmq_pidx_before(const struct tmq_pidx_ent *at, int by, uint64_t line,
    double t);

/* A record's window: the n bytes of the file before its position (n is
 * TMQ_PIDX_WIN, or the position when it is smaller).  tmq_pidx_window:
 * 0 with *win their hash when the last of them is a newline (a line's
 * start follows), else -1. */
int tmq_pidx_window(const unsigned char *b, size_t n, uint32_t *win);

/* A running maxts: a line's time folded in (NaN as +inf). */
static inline double
tmq_pidx_ts(double maxts, double ts)
{
	if (isnan(ts))
		ts = INFINITY;
	return ts > maxts ? ts : maxts;
}
/* A running maxts kept from lines' encoded times, for counts that look at
 * every line: two encoded times of finite non-negative doubles (all but
 * NaN, infinities, negative times and those past 1e300 or so) compare as
 * their base85 digits do, most significant first, so a time is decoded
 * only when it is larger than the largest so far, and then only from the
 * first character that differs; the others go through the decoder.
 * tmq_tsmax_get gives what tmq_pidx_ts folding each line's time gives. */
struct tmq_tsmax {
	int have;			/* raw holds a time of the fast kind */
	unsigned char raw[16];		/* its ten characters */
	double other;			/* the largest of the other times */
};
void tmq_tsmax_init(struct tmq_tsmax *m, double from);
void tmq_tsmax_slow(struct tmq_tsmax *m, const char *c);
double tmq_tsmax_get(const struct tmq_tsmax *m);
/* Fold a line's ten timestamp characters (c, not NUL-terminated): a time
 * that does not decode counts for nothing. */
static inline void
tmq_tsmax_fold(struct tmq_tsmax *m, const char *c)
{
	const unsigned char *u = (const unsigned char *)c, *dg = tmq_b85_digit;
	uint64_t a, b, x;
	unsigned i, bad;

	if (!m->have) {
		tmq_tsmax_slow(m, c);
		return;
	}
	memcpy(&a, c, 8);
	memcpy(&b, m->raw, 8);
	if ((x = a ^ b) != 0) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		i = (unsigned)__builtin_clzll(x) >> 3;
#else
		i = (unsigned)__builtin_ctzll(x) >> 3;
#endif
	} else if (u[8] != m->raw[8])
		i = 8;
	else if (u[9] != m->raw[9])
		i = 9;
	else
		return;			/* the same time */
	/* Characters before i are the largest's: digits.  A smaller digit
	 * at i is a smaller time, or no time at all (0xff is no digit). */
	if (dg[u[i]] < dg[m->raw[i]])
		return;
	bad = dg[u[0]] | dg[u[1]] | dg[u[2]] | dg[u[3]] | dg[u[4]] |
	    dg[u[5]] | dg[u[6]] | dg[u[7]] | dg[u[8]] | dg[u[9]];
	if ((bad & 0x80) || dg[u[0]] >= 41 || dg[u[5]] >= 82) {
		tmq_tsmax_slow(m, c);
		return;
	}
	memcpy(m->raw, c, 10);
}

#endif
