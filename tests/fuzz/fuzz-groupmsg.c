/* fuzz-groupmsg.c: libFuzzer target for group message bodies.  The first
 * byte picks the kind; a body that parses must survive a round trip. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	tmq_gmsg_clear(&m2);
	tmq_gmsg_clear(&m);
	free(body);
	return 0;
}
