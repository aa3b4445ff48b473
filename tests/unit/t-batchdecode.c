/* t-batchdecode.c: lib/codec/batchdecode: a batch gives back every line's
 * message in order, whatever mix of large and small payloads it holds,
 * while what it keeps decoded stays within TMQ_BATCH_BYTES (one payload
 * past each half's share), not a payload for each line. */
#include <stdlib.h>
#include <string.h>

#include "codec/batchdecode.h"
#include "codec/message.h"
#include "tap.h"

#define NLINES 300

static struct tmq_codec codec;

/* Line i's payload: text, most of them short; every seventh (and a run
 * of them in the middle, so that both halves fill up) about 3 MB of one
 * letter, which a 4 KB line holds. */
static size_t
payload_len(size_t i)
{
	if (i % 7 == 3 || (i >= 140 && i < 160))
		return 3000000 + i;
	return 10 + i % 50;
}

static void
payload(size_t i, unsigned char *p, size_t n)
{
	memset(p, 'a' + (int)(i % 26), n);
	p[0] = (unsigned char)('0' + i % 10);
}

/* The most a half may hold: its share, and the payload that passed it
 * (its key too). */
static int
bounded(const struct tmq_dbatch *b)
{
	return b->half[0].outlen <= TMQ_BATCH_BYTES / 2 + TMQ_PAYLOAD_MAX + 8 &&
	    b->half[1].outlen <= TMQ_BATCH_BYTES / 2 + TMQ_PAYLOAD_MAX + 8;
}

int
main(void)
{
	static char lines[NLINES][TMQ_LINE_MAX];
	static long lens[NLINES];
	unsigned char key[2] = { 0, 1 }, *want;
	struct tmq_dbatch b;
	struct tmq_error e;
	struct tmq_msg m;
	const struct tmq_ditem *it;
	size_t i, wrong = 0, over = 0, taken = 0;
	int round;

	want = malloc(4u << 20);
	if (want == NULL || tmq_codec_init(&codec, &e) < 0 ||
	    tmq_dbatch_init(&b, &e) < 0)
		return 1;
	for (i = 0; i < NLINES; i++) {
		struct tmq_payload p = { TMQ_TEXT, 0, want, payload_len(i) };

		payload(i, want, p.len);
		lens[i] = tmq_line_encode(&codec, 2, key, 1.5e9 + (double)i,
		    &p, lines[i], TMQ_LINE_MAX, &e);
		if (lens[i] < 0) {
			diag("line %zu: %s", i, e.msg);
			return 1;
		}
	}
	/* Twice: the batch is used again after a reset. */
	for (round = 0; round < 2; round++) {
		tmq_dbatch_reset(&b);
		for (i = 0; i < NLINES; i++)
			if (tmq_dbatch_add(&b, i % 3, i, 2, 0, lines[i],
			    (size_t)lens[i] - 1, i == 200 ? "planted" : NULL) < 0)
				return 1;
		tmq_dbatch_decode(&b);
		if (!bounded(&b))
			over++;
		for (i = 0; (it = tmq_dbatch_take(&b, &m)) != NULL; i++) {
			size_t n = payload_len(i);

			taken++;
			if (!bounded(&b))
				over++;
			if (it->offset != i || it->src != i % 3) {
				wrong++;
				continue;
			}
			if (i == 200) {
				if (it->ok || strcmp(it->err, "planted") != 0)
					wrong++;
				continue;
			}
			payload(i, want, n);
			if (!it->ok || m.payload.type != TMQ_TEXT ||
			    m.payload.len != n || memcmp(m.payload.data, want,
			    n) != 0 || m.ts != 1.5e9 + (double)i)
				wrong++;
		}
	}
	is_u64(taken, 2 * NLINES, "every line taken, twice");
	is_u64(wrong, 0, "each in order, with its own payload");
	is_u64(over, 0, "never more than the batch's bound decoded at once");
	tmq_dbatch_free(&b);
	tmq_codec_free(&codec);
	free(want);
	return done_testing();
}
