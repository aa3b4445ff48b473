/* fuzz-line.c: libFuzzer target for the line decoder.  The first byte
 * picks the key type and type count; the rest is one line as read from a
 * partition file. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "codec/message.h"

static const int widths[] = { 1, 2, 4, 8, -1, -3, -8, -40 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tmq_codec c;
	static struct tmq_msg *m;
	static int ready;
	struct tmq_error e;
	int width;

	if (!ready) {
		if (tmq_codec_init(&c, &e) < 0)
			abort();
		m = malloc(sizeof *m);
		ready = 1;
	}
	if (size < 1)
		return 0;
	width = widths[data[0] & 7];
	tmq_line_decode(&c, width, data[0] >> 3, (const char *)data + 1,
	    size - 1, m, &e);
	return 0;
}
