/* fuzz-groupmsg.c: libFuzzer target for group message bodies.  The first
 * byte picks the kind; a body that parses must survive a round trip, and
 * an offer that parses must be assigned within a small topic's bounds
 * (partition 2^32-1 once wrapped the bound and crashed every member). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "assignment.h"
#include "groupmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tmq_gmsg m, m2;
	struct tmq_error e;
	enum tmq_gkind k;
	char *body;

	if (size < 1)
		return 0;
	k = (enum tmq_gkind)(data[0] % TMQ_G_NKINDS);
	if (tmq_gmsg_parse(k, (const char *)data + 1, size - 1, &m, &e) < 0)
		return 0;
	body = tmq_gmsg_body(&m);
	if (body == NULL ||
	    tmq_gmsg_parse(k, body, strlen(body), &m2, &e) < 0)
		abort();	/* what we write we must read */
	if (m.nparts != m2.nparts || m.nown != m2.nown ||
	    m.ncommits != m2.ncommits || m.tag != m2.tag)
		abort();
	if (k == TMQ_G_REBALOFFER) {
		struct tmq_offer o;
		unsigned i;

		memset(&o, 0, sizeof o);
		o.own = m.own;
		o.nown = m.nown;
		o.parts = m.parts;
		o.nparts = m.nparts;
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
