/* fuzz-deflate.c: libFuzzer target for the small-payload deflate encoder:
 * whatever goes in, zlib must inflate exactly that back out. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "codec/fastdeflate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tmq_fastdeflate z;
	static int ready;
	static unsigned char out[4096], back[4096];
	z_stream s;
	size_t zl;

	if (!ready) {
		tmq_fastdeflate_init(&z);
		ready = 1;
	}
	if (size > TMQ_FASTDEFLATE_MAX)
		size = TMQ_FASTDEFLATE_MAX;
	zl = tmq_fastdeflate(&z, data, size, out, sizeof out);
	if (zl == 0)
		abort();	/* 4 KB always holds a 1 KB input */
	memset(&s, 0, sizeof s);
	inflateInit2(&s, -15);
	s.next_in = out;
	s.avail_in = (uInt)zl;
	s.next_out = back;
	s.avail_out = sizeof back;
	if (inflate(&s, Z_FINISH) != Z_STREAM_END ||
	    sizeof back - s.avail_out != size || memcmp(back, data, size) != 0)
		abort();
	inflateEnd(&s);
	return 0;
}
