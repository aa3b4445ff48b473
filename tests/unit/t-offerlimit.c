/* t-offerlimit.c: the group size limit (lib/group/group.h,
 * TMQ_GROUP_MAX_PARTITIONS) holds.  At the limit every offer a member can
 * make - all partitions accepted, owning none, all, every k-th, a
 * contiguous half, or pseudo-random sets of several densities - and every
 * confirm encodes into one line within TMQ_LINE_MAX; well past it, one
 * does not (so the limit is not a guess made for nothing). */
#include <stdlib.h>
#include <string.h>

#include "group/group.h"
#include "group/groupmsg.h"
#include "codec/keys.h"
#include "codec/message.h"
#include "codec/payload.h"
#include "tap.h"

static struct tmq_codec codec;

static long
encode(enum tmq_gkind k, unsigned *own, unsigned nown, unsigned *parts,
    unsigned nparts)
{
	static char line[1 << 20];
	struct tmq_gmsg m;
	struct tmq_payload pl;
	struct tmq_error e;
	unsigned char key[4] = { 0xff, 0xff, 0xff, 0xff };
	char *body;
	long n;

	memset(&m, 0, sizeof m);
	m.kind = k;
	m.own = own;
	m.nown = nown;
	m.parts = parts;
	m.nparts = nparts;
	body = tmq_gmsg_body(&m);
	memset(&pl, 0, sizeof pl);
	pl.type = TMQ_TYPED;
	pl.type_index = (unsigned)k;
	pl.data = (const unsigned char *)body;
	pl.len = strlen(body);
	/* The widest timestamp the encoding has. */
	n = tmq_line_encode(&codec, 4, key, 4102444799.999999, &pl, line,
	    sizeof line, &e);
	free(body);
	return n;
}

/* The largest line over the offers and confirms of own (of n). */
static long
worst(unsigned *own, unsigned nown, unsigned *all, unsigned n)
{
	long a = encode(TMQ_G_REBALOFFER, own, nown, all, n);
	long b = encode(TMQ_G_REBALCONFIRM, NULL, 0, own, nown);

	return a > b ? a : b;
}

int
main(void)
{
	struct tmq_error e;
	const unsigned n = TMQ_GROUP_MAX_PARTITIONS;
	unsigned *all, *own, i, k, nown, seed;
	long w, most = 0;

	if (tmq_codec_init(&codec, &e) < 0)
		return 99;
	all = malloc(4 * n * sizeof *all);
	own = malloc(4 * n * sizeof *own);
	for (i = 0; i < 4 * n; i++)
		all[i] = i;
	w = worst(NULL, 0, all, n);
	ok(w > 0 && w <= TMQ_LINE_MAX, "owning none: %ld bytes", w);
	w = worst(all, n, all, n);
	ok(w > 0 && w <= TMQ_LINE_MAX, "owning all: %ld bytes", w);
	for (k = 2; k <= 16; k++) {
		for (nown = 0, i = k - 1; i < n; i += k)
			own[nown++] = i;
		w = worst(own, nown, all, n);
		if (w > most)
			most = w;
		ok(w > 0 && w <= TMQ_LINE_MAX, "owning every %u-th: %ld bytes",
		    k, w);
	}
	for (nown = 0, i = n / 2; i < n; i++)
		own[nown++] = i;
	w = worst(own, nown, all, n);
	ok(w > 0 && w <= TMQ_LINE_MAX, "owning the upper half: %ld bytes", w);
	for (seed = 1; seed <= 40; seed++) {
		unsigned x = seed * 2654435761u, density = 20 + seed % 7 * 10;

		for (nown = 0, i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			if ((x >> 16) % 100 < density)
				own[nown++] = i;
		}
		w = worst(own, nown, all, n);
		if (w > most)
			most = w;
		ok(w > 0 && w <= TMQ_LINE_MAX, "owning a random %u%% (seed %u): "
		    "%ld bytes", density, seed, w);
	}
	diag("the longest line at %u partitions: %ld of %d bytes", n, most,
	    TMQ_LINE_MAX);
	w = encode(TMQ_G_REBALOFFER, all, 2 * n, all, 2 * n);
	ok(w > TMQ_LINE_MAX, "at %u partitions an offer of all does not fit "
	    "(%ld bytes)", 2 * n, w);
	free(all);
	free(own);
	tmq_codec_free(&codec);
	return done_testing();
}
