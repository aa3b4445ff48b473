/* position.c: parsing start positions (see position.h). */
#include <string.h>

#include "position.h"
#include "timespec.h"
#include "timestamp.h"

static int
parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		unsigned d = (unsigned char)*s - '0';

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

int
tmq_position_parse(const char *s, struct tmq_position *p, struct tmq_error *e)
{
	memset(p, 0, sizeof *p);
	if (*s == '\0')
		return tmq_fail(e, "empty position");
	if (strcmp(s, "start") == 0 || strcmp(s, "beginning") == 0) {
		p->kind = TMQ_POS_START;
		return 0;
	}
	if (strcmp(s, "now") == 0 || strcmp(s, "end") == 0) {
		p->kind = TMQ_POS_NOW;
		return 0;
	}
	/* "-1h" is a time (an hour ago), "-5" the last five: the unit
	 * tells them apart. */
	if (s[0] == '-' && s[1] != '\0' && !tmq_timespec_is_duration(s)) {
		if (parse_u64(s + 1, &p->n) < 0)
			return tmq_fail(e, "'%s': bad position (-N wants a "
			    "count)", s);
		p->kind = TMQ_POS_TAIL;
		return 0;
	}
	if (s[0] >= '0' && s[0] <= '9' && strspn(s, "0123456789") == strlen(s)) {
		if (parse_u64(s, &p->n) < 0)
			return tmq_fail(e, "'%s': offset too large", s);
		p->kind = TMQ_POS_OFFSET;
		return 0;
	}
	p->kind = TMQ_POS_TIME;
	/* "1795600800.6" was once a time here; now the grammar has one
	 * spelling for Unix seconds everywhere. */
	if (strspn(s, "0123456789.") == strlen(s) && strchr(s, '.') ==
	    strrchr(s, '.') && strpbrk(s, "0123456789") != NULL)
		return tmq_fail(e, "'%s': a bare number with a fraction is not "
		    "a position (write @%s for Unix seconds)", s, s);
	if (tmq_timespec_parse(s, tmq_now(), &p->t, NULL) < 0)
		return tmq_fail(e, "'%s': bad position (want start, now, an "
		    "offset, -N, or a time: %s)", s, TMQ_TIMESPEC_WANT);
	return 0;
}
