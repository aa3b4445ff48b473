/* fuzz-groupsnap.c: libFuzzer target for the format of group snapshots
 * (groupsnap.c).  The checksum would stop nearly every input at the door,
 * so the input is a snapshot without it and the target seals it, to
 * reach the parser; the first byte chooses whether it is sealed or taken
 * as it is.  A snapshot that decodes must encode back to the same bytes
 * and hold only what a log can leave (no committed offset below -2, no
 * member heard past the position, lists of the topic's partitions,
 * ascending); one refused leaves nothing behind. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "group/groupsnap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tmq_gstate g;
	struct tmq_gsnap_pos pos;
	struct tmq_error e;
	unsigned char *buf, *again;
	size_t n, an, i;
	uint64_t h;

	if (size < 1)
		return 0;
	n = size - 1 + ((data[0] & 1) ? 8 : 0);
	buf = malloc(n ? n : 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data + 1, size - 1);
	if (data[0] & 1) {
		h = XXH3_64bits(buf, size - 1);
		for (i = 0; i < 8; i++)
			buf[size - 1 + i] = (unsigned char)(h >> (8 * i));
	}
	tmq_gstate_init(&g, 1);
	if (tmq_gsnap_decode(buf, n, &g, &pos, &e) == 0) {
		unsigned k, j;

		for (k = 0; k < g.ncommitted; k++)
			if (g.committed[k] < TMQ_NOT_COMMITTED)
				abort();
		for (k = 0; k < g.nmembers; k++) {
			const struct tmq_gmember *m = &g.members[k];

			if (m->last_offset >= g.read_to ||
			    tmq_gstate_find(&g, m->id) != m)
				abort();
			for (j = 0; j < m->nconfirmed; j++)
				if (m->confirmed[j] >= pos.nparts ||
				    (j > 0 && m->confirmed[j] <= m->confirmed[j - 1]))
					abort();
		}
		for (k = 0; k < g.noffers; k++)
			if (tmq_gstate_find(&g, g.offers[k].member) == NULL)
				abort();
		if (tmq_gsnap_encode(&g, &pos, &again, &an, &e) < 0)
			abort();
		if (an != n || memcmp(again, buf, n) != 0)
			abort();	/* what we read we must write back */
		free(again);
		tmq_gsnap_pos_free(&pos);
		tmq_gstate_free(&g);
	} else if (g.members != NULL || g.committed != NULL ||
	    pos.firsts != NULL || g.member_ix.slot != NULL) {
		abort();	/* a refused snapshot leaves nothing behind */
	}
	free(buf);
	return 0;
}
