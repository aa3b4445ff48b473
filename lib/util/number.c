/* number.c: whole numbers as the command line gives them (see number.h). */
#include "number.h"

int
tmq_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v,
    struct tmq_error *e)
{
	uint64_t x = 0;
	const char *p = s;

	if (*p == '\0')
		return tmq_fail(e, "'%s': not a number", s);
	for (; *p; p++) {
		unsigned d = (unsigned char)*p - '0';

		if (d > 9)
			return tmq_fail(e, "'%.40s': not a number", s);
		if (x > (UINT64_MAX - d) / 10)
			return tmq_fail(e, "'%.40s': number too large", s);
		x = x * 10 + d;
	}
	if (x < min || x > max)
		return tmq_fail(e, "'%.40s': out of range (%llu to %llu)", s,
		    (unsigned long long)min, (unsigned long long)max);
	*v = x;
	return 0;
}
