/* offsetrange.c: out-of-range committed offsets (see offsetrange.h). */
#include <stdio.h>
#include <string.h>

#include "group/offsetrange.h"

enum tmq_range
tmq_range_of(int64_t committed, uint64_t first, uint64_t end)
{
	if (committed == -2 || committed == -1)
		return TMQ_IN_RANGE;	/* never committed (group.h), or "now" */
	if (committed < 0)
		return TMQ_BEFORE_FIRST;	/* no offset: none to resume at */
	if ((uint64_t)committed > end)
		return TMQ_PAST_END;
	if ((uint64_t)committed < first)
		return TMQ_BEFORE_FIRST;
	return TMQ_IN_RANGE;
}

const char *
tmq_range_text(enum tmq_range r)
{
	return r == TMQ_PAST_END ? "past the end" :
	    r == TMQ_BEFORE_FIRST ? "before the first offset" : "in range";
}

void
tmq_range_describe(const char *group, unsigned partition, int64_t committed,
    uint64_t first, uint64_t end, char *buf, size_t sz)
{
	enum tmq_range r = tmq_range_of(committed, first, end);

	snprintf(buf, sz, "group %s: partition %u: committed offset %lld is "
	    "out of range, %s (%llu)", group, partition, (long long)committed,
	    tmq_range_text(r),
	    (unsigned long long)(r == TMQ_PAST_END ? end : first));
}

static const char *const names[] = { "start", "now", "fail" };

int
tmq_reset_parse(const char *s, enum tmq_reset *r, struct tmq_error *e)
{
	unsigned i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(s, names[i]) == 0) {
			*r = (enum tmq_reset)i;
			return 0;
		}
	return tmq_fail(e, "'%.40s': not a policy (want start, now or fail)",
	    s);
}

const char *
tmq_reset_name(enum tmq_reset r)
{
	return names[r];
}
