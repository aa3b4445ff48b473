/* t-decimal.c: lib/util/decimal: lengths at every power of ten and next
 * to it, digits as printf writes them, fixed widths with their zeros. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/decimal.h"
#include "tap.h"

static unsigned long bad;

static void
agrees(uint64_t v)
{
	char want[32], got[32];
	int n = snprintf(want, sizeof want, "%" PRIu64, v);
	char *end = tmq_dec_put(got, v);

	*end = '\0';
	if ((tmq_dec_len(v) != n || end - got != n || strcmp(got, want) != 0) &&
	    bad++ < 5)
		diag("%s: length %d, written %s", want, tmq_dec_len(v), got);
}

int
main(void)
{
	uint64_t p = 1, x = 0x9E3779B97F4A7C15u;
	unsigned long i, n = 0;
	char buf[32];

	agrees(0);
	agrees(UINT64_MAX);
	for (i = 0; i < 20; i++, p *= 10, n += 3) {
		agrees(p - 1);
		agrees(p);
		agrees(p + 1);
	}
	for (i = 0; i < 64; i++, n += 2) {
		agrees(UINT64_C(1) << i);
		agrees((UINT64_C(1) << i) - 1);
	}
	for (i = 0; i < 200000; i++, n++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		agrees(x >> (x % 64));
	}
	ok(bad == 0, "length and digits agree with printf on %lu numbers "
	    "(%lu differ)", n + 2, bad);

	memset(buf, 'x', sizeof buf);
	tmq_dec_fixed(buf, 5, 6);
	ok(memcmp(buf, "000005x", 7) == 0, "six digits of 5");
	memset(buf, 'x', sizeof buf);
	tmq_dec_fixed(buf, 1234567, 3);
	ok(memcmp(buf, "567x", 4) == 0, "the three lowest of 1234567");
	memset(buf, 'x', sizeof buf);
	tmq_dec_fixed(buf, UINT64_MAX, 20);
	ok(memcmp(buf, "18446744073709551615x", 21) == 0, "twenty of 2^64 - 1");
	memset(buf, 'x', sizeof buf);
	tmq_dec_fixed(buf, 0, 1);
	ok(memcmp(buf, "0x", 2) == 0, "one of 0");
	return done_testing();
}
