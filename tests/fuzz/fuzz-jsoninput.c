/* fuzz-jsoninput.c: libFuzzer target for tmq-put -J's line parser.  The
 * first byte picks the topic's key type (u8, u64 or char4), the rest is
 * the line.  Besides not crashing: a typed payload taken from the line's
 * own text is one strict JSON object (the hand-written span finder found
 * the member's whole value), and a timestamp's repr reads back as it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsoninput.h"
#include "jsontext.h"
#include "timestamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tmq_jsonin jin;
	static int ready;
	static char *types[] = { "Order", NULL, "Refund" };
	static const int widths[] = { 1, 8, -4 };
	struct tmq_topic t = { "t", -1, 1, 4, types, 3, NULL };
	struct tmq_jsonmsg m;
	struct tmq_error e;
	char buf[40];

	if (!ready) {
		if (tmq_jsonin_init(&jin, &e) < 0)
			abort();
		ready = 1;
	}
	if (size < 1)
		return 0;
	t.key_width = widths[data[0] % 3];
	if (tmq_jsonin_parse(&jin, &t, (const char *)data + 1, size - 1, &m,
	    &e) < 0)
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
