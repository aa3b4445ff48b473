/* batchdecode.c: parallel decoding of a batch of lines (see
 * batchdecode.h).  Inflating is most of a read's cost; with two cores the
 * two halves of a batch inflate at once, and the caller still sees the
 * messages one by one in reading order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/batchdecode.h"
#include "util/grow.h"

#define SPLIT_MIN 64

int
tmq_dbatch_init(struct tmq_dbatch *b, struct tmq_error *e)
{
	int i;

	memset(b, 0, sizeof *b);
	for (i = 0; i < 2; i++) {
		b->half[i].b = b;
		b->half[i].m = malloc(sizeof *b->half[i].m);
		if (b->half[i].m == NULL || tmq_codec_init(&b->half[i].codec,
		    e) < 0) {
			tmq_dbatch_free(b);
			return tmq_fail(e, "out of memory");
		}
		b->half[i].ready = 1;
	}
	tmq_par_init(&b->par);
	return 0;
}

void
tmq_dbatch_free(struct tmq_dbatch *b)
{
	int i;

	tmq_par_free(&b->par);
	for (i = 0; i < 2; i++) {
		if (b->half[i].ready)
			tmq_codec_free(&b->half[i].codec);
		free(b->half[i].m);
		free(b->half[i].out);
	}
	free(b->items);
	free(b->lines);
	memset(b, 0, sizeof *b);
}

void
tmq_dbatch_reset(struct tmq_dbatch *b)
{
	b->n = b->pos = b->lines_len = 0;
}

int
tmq_dbatch_add(struct tmq_dbatch *b, size_t src, uint64_t offset,
    int key_width, unsigned ntypes, const char *line, size_t len,
    const char *problem)
{
	struct tmq_ditem *it;

	if (tmq_grow(&b->items, &b->cap, b->n + 1, sizeof *b->items) < 0 ||
	    tmq_grow(&b->lines, &b->lines_cap, b->lines_len + len + 1, 1) < 0)
		return -1;
	it = &b->items[b->n++];
	it->src = src;
	it->offset = offset;
	it->key_width = key_width;
	it->ntypes = ntypes;
	it->problem = problem != NULL;
	it->done = 0;
	if (problem != NULL)
		snprintf(it->err, sizeof it->err, "%s", problem);
	it->line_at = b->lines_len;
	it->line_len = len;
	memcpy(b->lines + b->lines_len, line, len);
	b->lines_len += len;
	return 0;
}

static void
decode_half(void *arg)
{
	struct tmq_dhalf *h = arg;
	struct tmq_dbatch *b = h->b;
	struct tmq_error e;
	size_t i;

	h->outlen = 0;
	for (i = h->from; i < h->to; i++) {
		struct tmq_ditem *it = &b->items[i];
		size_t kb;

		/* Bounded by bytes: the rest waits until it is taken (at
		 * least one is decoded, so a take always gets on). */
		if (h->outlen >= TMQ_BATCH_BYTES / 2)
			break;
		it->half = (int)(h - b->half);
		it->done = 1;
		it->ok = 0;
		if (it->problem)
			continue;
		if (tmq_line_decode(&h->codec, it->key_width, it->ntypes,
		    b->lines + it->line_at, it->line_len, h->m, &e) < 0) {
			size_t m = strlen(e.msg);

			if (m >= sizeof it->err)
				m = sizeof it->err - 1;
			memcpy(it->err, e.msg, m);
			it->err[m] = '\0';
			continue;
		}
		kb = tmq_key_bytes(it->key_width);
		if (tmq_grow(&h->out, &h->outcap, h->outlen + kb +
		    h->m->payload.len, 1) < 0) {
			strcpy(it->err, "out of memory");
			continue;
		}
		it->key_at = h->outlen;
		memcpy(h->out + h->outlen, h->m->key, kb);
		h->outlen += kb;
		it->pay_at = h->outlen;
		memcpy(h->out + h->outlen, h->m->payload.data,
		    h->m->payload.len);
		h->outlen += h->m->payload.len;
		it->ts = h->m->ts;
		it->payload = h->m->payload;
		it->ok = 1;
	}
}

/* Decode [from, b->n), none of which is decoded yet, split over the two
 * halves. */
static void
decode_rest(struct tmq_dbatch *b, size_t from)
{
	size_t n = b->n - from;
	size_t mid = n >= SPLIT_MIN ? from + n / 2 : b->n;
	size_t i;

	for (i = from; i < b->n; i++)
		b->items[i].done = 0;
	b->half[0].from = from;
	b->half[0].to = mid;
	b->half[1].from = mid;
	b->half[1].to = b->n;
	if (mid < b->n)
		tmq_par_run(&b->par, decode_half, &b->half[0], &b->half[1]);
	else
		decode_half(&b->half[0]);
}

void
tmq_dbatch_decode(struct tmq_dbatch *b)
{
	decode_rest(b, 0);
}

/* The item at b->pos was left undecoded (its half was full).  When items
 * after it are decoded, they are all one half's (the second's, from the
 * split: the gaps before them are filled by the other alone, whose items
 * are all taken); decode up to them on the other half.  Else decode the
 * rest of the batch on both. */
static void
decode_more(struct tmq_dbatch *b)
{
	size_t k;
	struct tmq_dhalf *h;

	for (k = b->pos; k < b->n && !b->items[k].done; k++)
		;
	if (k == b->n) {
		decode_rest(b, b->pos);
		return;
	}
	h = &b->half[1 - b->items[k].half];
	h->from = b->pos;
	h->to = k;
	decode_half(h);
}

const struct tmq_ditem *
tmq_dbatch_take(struct tmq_dbatch *b, struct tmq_msg *m)
{
	const struct tmq_ditem *it;
	const struct tmq_dhalf *h;

	if (b->pos >= b->n)
		return NULL;
	if (!b->items[b->pos].done)
		decode_more(b);
	it = &b->items[b->pos++];
	m->offset = it->offset;
	if (it->ok) {
		h = &b->half[it->half];
		memcpy(m->key, h->out + it->key_at, tmq_key_bytes(it->key_width));
		m->ts = it->ts;
		m->payload = it->payload;
		m->payload.data = h->out + it->pay_at;
	}
	return it;
}

const struct tmq_ditem *
tmq_dbatch_pending(const struct tmq_dbatch *b, size_t src)
{
	size_t i;

	for (i = b->pos; i < b->n; i++)
		if (b->items[i].src == src)
			return &b->items[i];
	return NULL;
}
