/* partitioner.c: the TwainMQ library maps a key to a partition with a
 * SplitMix64 finaliser computed on Python's unbounded integers, so nothing may
 * be truncated to 64 bits: each multiply adds 64 bits to the number.  The
 * number is kept here as little-endian 64-bit limbs.  A u64 key grows to four
 * limbs, a char40 key to eight.  The widest key fits in a few kilobytes of
 * stack, so the function cannot fail. */
#include <stdint.h>
#include <string.h>

#include "codec/keys.h"
#include "codec/partitioner.h"

typedef unsigned __int128 u128;

/* x ^= x >> s, for 0 < s < 64 */
static void
xorshift(uint64_t *x, size_t n, unsigned s)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t hi = i + 1 < n ? x[i + 1] : 0;

		x[i] ^= x[i] >> s | hi << (64 - s);
	}
}

/* x *= m; x has room for one more limb; returns the new length */
static size_t
mul(uint64_t *x, size_t n, uint64_t m)
{
	u128 carry = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		u128 p = (u128)x[i] * m + carry;

		x[i] = (uint64_t)p;
		carry = p >> 64;
	}
	x[n] = (uint64_t)carry;
	return carry ? n + 1 : n;
}

unsigned
tmq_partition_of(int width, const unsigned char *key, unsigned nparts)
{
	uint64_t x[(TMQ_KEY_MAX_BYTES + 7) / 8 + 3];
	size_t nbytes, n, i;
	u128 r = 0;

	if (nparts <= 1)
		return 0;
	nbytes = width < 0 ? tmq_key_strlen(width, key) : (size_t)width;
	n = (nbytes + 7) / 8;
	memset(x, 0, (n + 3) * sizeof *x);
	/* Big-endian bytes into little-endian limbs. */
	for (i = 0; i < nbytes; i++) {
		size_t bit = (nbytes - 1 - i) * 8;

		x[bit / 64] |= (uint64_t)key[i] << (bit % 64);
	}
	if (n == 0)
		n = 1;
	xorshift(x, n, 30);
	n = mul(x, n, UINT64_C(0xbf58476d1ce4e5b9));
	xorshift(x, n, 27);
	n = mul(x, n, UINT64_C(0x94d049bb133111eb));
	xorshift(x, n, 31);
	for (i = n; i-- > 0;)
		r = ((r << 64) | x[i]) % nparts;
	return (unsigned)r;
}
