/* partidx.c: the encoding of a partition file's index and the checks
 * that need no file (see partidx.h; lib/store/partindex.c does the
 * files). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <xxhash.h>

#include "codec/base85.h"
#include "codec/partidx.h"

#define MAGIC "TMQPIDX1"
#define IDX_VERSION 2
/* An index may hold one record per TMQ_PIDX_STEP of file; one with more
 * than one per SLACK_STEP, plus SLACK_RECS (what 512 MiB of growth since
 * this client last saw the file's size adds), is not one of ours. */
#define SLACK_STEP (TMQ_PIDX_STEP / 8)
#define SLACK_RECS 8192

static void
put32(unsigned char *b, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static void
put64(unsigned char *b, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t
get32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
}

static uint64_t
get64(const unsigned char *b)
{
	return (uint64_t)get32(b) | (uint64_t)get32(b + 4) << 32;
}

uint64_t
tmq_pidx_topic_hash(const char *name)
{
	return XXH3_64bits(name, strlen(name));
}

void
tmq_pidx_header_encode(unsigned char *b, const struct tmq_pidx_id *id,
    uint64_t head_hash, uint32_t *seed)
{
	uint64_t sum;

	memset(b, 0, TMQ_PIDX_HDR);
	memcpy(b, MAGIC, 8);
	put32(b + 8, IDX_VERSION);
	put32(b + 12, TMQ_PIDX_STEP);
	put32(b + 16, id->partition);
	put32(b + 20, id->day);
	put64(b + 24, id->first);
	put32(b + 32, (uint32_t)id->key_width);
	put32(b + 36, TMQ_PIDX_HEAD);
	put64(b + 40, head_hash);
	put64(b + 48, id->topic_hash);
	sum = XXH3_64bits(b, 56);
	put64(b + 56, sum);
	*seed = (uint32_t)sum;
}

int
tmq_pidx_header_decode(const unsigned char *b, size_t n,
    const struct tmq_pidx_id *id, uint64_t *head_hash, uint32_t *seed,
    const char **why)
{
	if (n < TMQ_PIDX_HDR || memcmp(b, MAGIC, 8) != 0) {
		*why = "not an index";
		return -1;
	}
	if (get64(b + 56) != XXH3_64bits(b, 56)) {
		*why = "damaged";
		return -1;
	}
	if (get32(b + 8) == 1) {
		*why = "of an older version";
		return -1;
	}
	if (get32(b + 8) != IDX_VERSION || get32(b + 12) != TMQ_PIDX_STEP ||
	    get32(b + 36) != TMQ_PIDX_HEAD) {
		*why = "of another kind";
		return -1;
	}
	if (get32(b + 16) != id->partition || get32(b + 20) != id->day ||
	    get64(b + 24) != id->first ||
	    (int32_t)get32(b + 32) != id->key_width ||
	    get64(b + 48) != id->topic_hash) {
		*why = "not this file's index";
		return -1;
	}
	*head_hash = get64(b + 40);
	*seed = (uint32_t)get64(b + 56);
	return 0;
}

void
tmq_pidx_record_encode(unsigned char *b, uint32_t seed,
    const struct tmq_pidx_ent *at, uint32_t win)
{
	uint64_t bits;

	memcpy(&bits, &at->maxts, 8);
	put64(b, at->line);
	put64(b + 8, at->pos);
	put64(b + 16, bits);
	put32(b + 24, win);
	put32(b + 28, XXH32(b, 28, seed));
}

int
tmq_pidx_record_decode(const unsigned char *b, uint32_t seed,
    struct tmq_pidx_ent *at, uint32_t *win)
{
	uint64_t bits;

	if (get32(b + 28) != XXH32(b, 28, seed))
		return -1;
	at->line = get64(b);
	at->pos = get64(b + 8);
	bits = get64(b + 16);
	memcpy(&at->maxts, &bits, 8);
	*win = get32(b + 24);
	/* A line is a byte at least (its newline), and a record is at a
	 * line's start past the first: there are lines before it.  A NaN
	 * maxts is none of ours (a NaN time counts as +inf). */
	if (at->pos == 0 || at->line == 0 || at->line > at->pos ||
	    at->pos > (uint64_t)INT64_MAX || isnan(at->maxts))
		return -1;
	return 0;
}

void
tmq_pidx_stamp_encode(unsigned char *b, uint32_t seed,
    const struct tmq_pidx_stamp *st)
{
	memset(b, 0, TMQ_PIDX_STAMP);
	put64(b, st->size);
	put64(b + 8, (uint64_t)st->ctime_sec);
	put32(b + 16, st->ctime_nsec);
	put32(b + 28, XXH32(b, 28, seed));
}

int
tmq_pidx_stamp_decode(const unsigned char *b, uint32_t seed,
    struct tmq_pidx_stamp *st)
{
	if (get32(b + 28) != XXH32(b, 28, seed) || get64(b + 20) != 0 ||
	    get64(b) > (uint64_t)INT64_MAX || get32(b + 16) >= 1000000000u)
		return -1;
	st->size = get64(b);
	st->ctime_sec = (int64_t)get64(b + 8);
	st->ctime_nsec = get32(b + 16);
	return 0;
}

int
tmq_pidx_stamp_cmp(const struct tmq_pidx_stamp *was,
    const struct tmq_pidx_stamp *now)
{
	/* (no user can set a change time: one that is the stamp's says
	 * nothing was written since, whatever a client's size says) */
	if (now->ctime_sec == was->ctime_sec &&
	    now->ctime_nsec == was->ctime_nsec)
		return TMQ_PIDX_SAME;
	if (now->size > was->size)
		return TMQ_PIDX_GROWN;
	return now->size == was->size ? TMQ_PIDX_INPLACE : TMQ_PIDX_SHORTER;
}

uint64_t
tmq_pidx_max_records(uint64_t size)
{
	return size / SLACK_STEP + SLACK_RECS;
}

int
tmq_pidx_ordered(const struct tmq_pidx_ent *a, const struct tmq_pidx_ent *b)
{
	return a->line < b->line && a->pos < b->pos &&
	    b->line - a->line <= b->pos - a->pos && a->maxts <= b->maxts;
}

int
tmq_pidx_before(const struct tmq_pidx_ent *at, int by, uint64_t line,
    double t)
{
	switch (by) {
	case TMQ_PIDX_BY_LINE:
		return at->line <= line;
	case TMQ_PIDX_BY_TIME:
		return at->maxts < t;
	case TMQ_PIDX_BY_TIME_STRICT:
		return at->maxts <= t;
	}
	return 1;
}

int
tmq_pidx_window(const unsigned char *b, size_t n, uint32_t *win)
{
	if (n == 0 || b[n - 1] != '\n')
		return -1;
	*win = XXH32(b, n, 0);
	return 0;
}

/* --- The running maxts -------------------------------------------------- */

void
tmq_tsmax_init(struct tmq_tsmax *m, double from)
{
	memset(m, 0, sizeof *m);
	m->other = from;
}

/* The fast kind (partidx.h): the first digit of each group tells it
 * (below 41: under 2^31, so no sign and no NaN; below 82: no overflow). */
void
tmq_tsmax_slow(struct tmq_tsmax *m, const char *c)
{
	uint64_t bits;
	double ts;
	unsigned j, bad = 0;

	if (tmq_b85_decode64(c, &bits) < 0)
		return;
	memcpy(&ts, &bits, 8);
	if (!m->have) {
		unsigned char d[10];

		for (j = 0; j < 10; j++)
			bad |= d[j] = tmq_b85_digit[(unsigned char)c[j]];
		if (!(bad & 0x80) && d[0] < 41 && d[5] < 82) {
			memcpy(m->raw, c, 10);
			m->have = 1;
			return;
		}
	}
	m->other = tmq_pidx_ts(m->other, ts);
}

double
tmq_tsmax_get(const struct tmq_tsmax *m)
{
	uint64_t bits;
	double ts;

	if (!m->have || tmq_b85_decode64((const char *)m->raw, &bits) < 0)
		return m->other;
	memcpy(&ts, &bits, 8);
	return tmq_pidx_ts(m->other, ts);
}
