/* number.c: whole numbers as the command line gives them (see number.h). */
#include <string.h>

#include "util/number.h"

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

int
tmq_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *v,
    struct tmq_error *e)
{
	static const struct { const char *suffix; unsigned shift; } units[] = {
		{ "", 0 }, { "K", 10 }, { "KiB", 10 }, { "M", 20 },
		{ "MiB", 20 }, { "G", 30 }, { "GiB", 30 },
	};
	uint64_t x = 0;
	const char *p = s;
	size_t i;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - 9) / 10)
			return tmq_fail(e, "'%.40s': over %llu bytes", s,
			    (unsigned long long)max);
		x = x * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return tmq_fail(e, "'%.40s': not a size", s);
	for (i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(p, units[i].suffix) == 0)
			break;
	if (i == sizeof units / sizeof units[0])
		return tmq_fail(e, "'%.40s': not a size (a number, then "
		    "nothing, K, M or G)", s);
	if (x > (max >> units[i].shift))
		return tmq_fail(e, "'%.40s': over %llu bytes", s,
		    (unsigned long long)max);
	x <<= units[i].shift;
	if (x < min)
		return tmq_fail(e, "'%.40s': under %llu byte%s", s,
		    (unsigned long long)min, min == 1 ? "" : "s");
	*v = x;
	return 0;
}
