/* decimal.c: whole numbers in decimal (see decimal.h). */
#include <string.h>

#include "util/decimal.h"

const char tmq_dec_two[201] =
    "0001020304050607080910111213141516171819"
    "2021222324252627282930313233343536373839"
    "4041424344454647484950515253545556575859"
    "6061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

int
tmq_dec_len(uint64_t v)
{
	static const uint64_t p10[20] = { 1ULL, 10ULL, 100ULL, 1000ULL,
	    10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
	    1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
	    10000000000000ULL, 100000000000000ULL, 1000000000000000ULL,
	    10000000000000000ULL, 100000000000000000ULL,
	    1000000000000000000ULL, 10000000000000000000ULL };
	/* v | 1 has v's digits (a power of ten is even) and a bit set:
	 * bits * log10(2) is its length, or one less. */
	uint64_t w = v | 1;
	int t = ((64 - __builtin_clzll(w)) * 1233) >> 12;

	return t + (w >= p10[t]);
}

void
tmq_dec_fixed(char *o, uint64_t v, int k)
{
	/* Below 2^32 in 32-bit steps (a multiplication, not a call). */
	for (; k >= 2 && v >= UINT64_C(1) << 32; k -= 2, v /= 100)
		memcpy(o + k - 2, tmq_dec_two + 2 * (v % 100), 2);
	{
		uint32_t w = (uint32_t)v;

		for (; k >= 2; k -= 2, w /= 100)
			memcpy(o + k - 2, tmq_dec_two + 2 * (w % 100), 2);
		if (k == 1)
			o[0] = (char)('0' + w % 10);
	}
}

char *
tmq_dec_put(char *o, uint64_t v)
{
	int len = tmq_dec_len(v);

	tmq_dec_fixed(o, v, len);
	return o + len;
}
