/* utf8.c: strict UTF-8 validation.  Text payloads are checked on every put
 * and every decode, so ASCII runs are skipped eight bytes at a time. */
#include <stdint.h>
#include <string.h>

#include "util/utf8.h"

int
tmq_utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];

		if (c < 0x80) {
			uint64_t w;

			if (i + 8 <= n) {
				memcpy(&w, s + i, 8);
				if ((w & 0x8080808080808080ULL) == 0) {
					i += 8;
					continue;
				}
			}
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			if (i + 1 >= n || (s[i + 1] & 0xc0) != 0x80)
				return 0;
			i += 2;
		} else if (c >= 0xe0 && c <= 0xef) {
			unsigned char lo = 0x80, hi = 0xbf;

			if (c == 0xe0)
				lo = 0xa0;
			else if (c == 0xed)
				hi = 0x9f;	/* no surrogates */
			if (i + 2 >= n || s[i + 1] < lo || s[i + 1] > hi ||
			    (s[i + 2] & 0xc0) != 0x80)
				return 0;
			i += 3;
		} else if (c >= 0xf0 && c <= 0xf4) {
			unsigned char lo = 0x80, hi = 0xbf;

			if (c == 0xf0)
				lo = 0x90;
			else if (c == 0xf4)
				hi = 0x8f;
			if (i + 3 >= n || s[i + 1] < lo || s[i + 1] > hi ||
			    (s[i + 2] & 0xc0) != 0x80 || (s[i + 3] & 0xc0) != 0x80)
				return 0;
			i += 4;
		} else
			return 0;
	}
	return 1;
}
