/* fuzz-groupmsg.c: libFuzzer target for group message bodies.  The first
 * byte picks the kind and the topic's partition count (8, 1,024 or
 * 65,536).  A body that parses must hold sets of that topic's partitions
 * (ascending, each once, below the count: a list never grows past it,
 * however long the body), survive a round trip, and an offer must be
 * assigned within the topic's bounds (partition 2^32-1 once wrapped the
 * bound and crashed every member). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "group/assignment.h"
#include "group/groupmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_set(const unsigned *v, unsigned n, unsigned limit)
{
	unsigned i;

	if (n > limit)
		abort();
	for (i = 0; i < n; i++)
		if (v[i] >= limit || (i > 0 && v[i] <= v[i - 1]))
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tmq_gparser gp[3];
	static const unsigned limits[3] = { 8, 1024, 65536 };
	struct tmq_gparser *p;
	struct tmq_gmsg m, m2;
	struct tmq_error e;
	enum tmq_gkind k;
	unsigned i, j;
	char *body;

	if (size < 1)
		return 0;
	p = &gp[(data[0] >> 3) % 3];
	if (p->mark == NULL && tmq_gparser_init(p, limits[p - gp], &e) < 0)
		abort();
	k = (enum tmq_gkind)(data[0] % TMQ_G_NKINDS);
	if (tmq_gmsg_parse(p, k, (const char *)data + 1, size - 1, &m, &e) < 0)
		return 0;
	check_set(m.own, m.nown, p->limit);
	check_set(m.parts, m.nparts, p->limit);
	if (m.ncommits > p->limit)
		abort();
	for (i = 0; i < m.ncommits; i++) {
		if (m.commits[i].partition >= p->limit ||
		    m.commits[i].offset < -1)
			abort();
		for (j = 0; j < i; j++)
			if (m.commits[j].partition == m.commits[i].partition)
				abort();
	}
	if (m.has_absent && m.absent < p->limit)
		abort();
	body = tmq_gmsg_body(&m);
	if (body == NULL ||
	    tmq_gmsg_parse(p, k, body, strlen(body), &m2, &e) < 0)
		abort();	/* what we write we must read */
	if (m.nparts != m2.nparts || m.nown != m2.nown ||
	    m.ncommits != m2.ncommits || m.tag != m2.tag || m2.has_absent ||
	    m2.own_extra != 0)
		abort();
	if (k == TMQ_G_REBALOFFER) {
		struct tmq_offer o;

		memset(&o, 0, sizeof o);
		o.own = m.own;
		o.nown = m.nown;
		o.parts = m.parts;
		o.nparts = m.nparts;
		o.own_extra = m.own_extra;
		if (tmq_assign(&o, 1, 8, &e) == 0) {
			for (i = 0; i < o.ngot; i++)
				if (o.got[i] >= 8)
					abort();
			free(o.got);
		}
	}
	tmq_gmsg_clear(&m2);
	tmq_gmsg_clear(&m);
	free(body);
	return 0;
}
