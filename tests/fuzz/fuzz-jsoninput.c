/* fuzz-jsoninput.c: libFuzzer target for tmq-put -J's line parser.  The
 * first byte picks the topic's key type (u8, u64 or char4), the rest is
 * the line.  Besides not crashing: a typed payload taken from the line's
 * own text is one strict JSON object (the hand-written span finder found
 * the member's whole value), a timestamp's repr reads back as it, and
 * the line is read as it is read with a space after it (which no line of
 * tmq-get -J's own shape has: the whole check reads it, not the reader
 * of that shape). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flow/jsoninput.h"
#include "codec/jsontext.h"
#include "codec/timestamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tmq_jsonin jin, jin2;
	static int ready;
	static char *types[] = { "Order", NULL, "Refund" };
	static const int widths[] = { 1, 8, -4 };
	struct tmq_topic t = { .name = "t", .dirfd = -1, .key_width = 1,
	    .partitions = 4, .types = types, .ntypes = 3 };
	struct tmq_jsonmsg m, m2;
	struct tmq_error e;
	char buf[40], *spaced;
	int rc, rc2;

	if (!ready) {
		if (tmq_jsonin_init(&jin, &e) < 0 ||
		    tmq_jsonin_init(&jin2, &e) < 0)
			abort();
		ready = 1;
	}
	if (size < 1)
		return 0;
	t.key_width = widths[data[0] % 3];
	rc = tmq_jsonin_parse(&jin, &t, (const char *)data + 1, size - 1, &m,
	    &e);
	if ((spaced = malloc(size)) == NULL)
		abort();
	memcpy(spaced, data + 1, size - 1);
	spaced[size - 1] = ' ';
	rc2 = tmq_jsonin_parse(&jin2, &t, spaced, size, &m2, &e);
	if ((rc < 0) != (rc2 < 0))
		abort();
	if (rc == 0 && (memcmp(m.key, m2.key, tmq_key_bytes(t.key_width)) !=
	    0 ||
	    m.payload.type != m2.payload.type ||
	    m.payload.type_index != m2.payload.type_index ||
	    m.payload.len != m2.payload.len ||
	    memcmp(m.payload.data, m2.payload.data, m.payload.len) != 0 ||
	    m.as_text != m2.as_text || m.has_ts != m2.has_ts ||
	    (m.has_ts && memcmp(&m.ts, &m2.ts, sizeof m.ts) != 0)))
		abort();
	free(spaced);
	if (rc < 0)
		return 0;
	if (m.payload.type == TMQ_TYPED && !m.as_text &&
	    tmq_json_strict_object(m.payload.data, m.payload.len, &e) < 0)
		abort();
	if (m.has_ts) {
		tmq_ts_repr(m.ts, buf, sizeof buf);
		if (strtod(buf, NULL) != m.ts)
			abort();
	}
	return 0;
}
