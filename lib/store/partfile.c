/* partfile.c: naming partition files (see partfile.h; listing them:
 * dirlist.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/partfile.h"

/* Decimal without sign or leading zeros ("0" itself is fine). */
static int
number(const char **p, char stop, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (*s < '0' || *s > '9' || (*s == '0' && s[1] >= '0' && s[1] <= '9'))
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (*s != stop)
		return -1;
	*p = s + 1;
	*v = x;
	return 0;
}

int
tmq_pfile_parse(const char *name, struct tmq_pfile *pf)
{
	const char *p = name;
	uint64_t part, day, first;
	int i;

	if (number(&p, '-', &part) < 0 || part > 0xffffffffu)
		return -1;
	for (i = 0; i < 8; i++)
		if (p[i] < '0' || p[i] > '9')
			return -1;
	day = strtoul(p, NULL, 10);
	if (p[8] != '_')
		return -1;
	p += 9;
	if (number(&p, '.', &first) < 0 || strcmp(p, "tmf") != 0)
		return -1;
	if (strlen(name) >= sizeof pf->name)
		return -1;
	pf->partition = (unsigned)part;
	pf->day = (unsigned)day;
	pf->first = first;
	strcpy(pf->name, name);
	return 0;
}

void
tmq_pfile_name(struct tmq_pfile *pf)
{
	snprintf(pf->name, sizeof pf->name, "%u-%08u_%llu.tmf", pf->partition,
	    pf->day, (unsigned long long)pf->first);
}

int
tmq_pfiles_chain(const struct tmq_pfile *prev, uint64_t lines, int cut,
    const struct tmq_pfile *next, struct tmq_error *e)
{
	uint64_t end = 0;

	if (tmq_pfile_end(prev, lines, &end, e) < 0)
		return -1;
	if (end == next->first)
		return 0;
	return tmq_fail(e, "partition %u: %s starts at offset %llu, but %s "
	    "before it ends at %llu%s: its files do not chain",
	    next->partition, next->name, (unsigned long long)next->first,
	    prev->name, (unsigned long long)end, cut ? " (its last line cut "
	    "short)" : "");
}

int
tmq_pfile_end(const struct tmq_pfile *pf, uint64_t lines, uint64_t *end,
    struct tmq_error *e)
{
	if (lines > UINT64_MAX - pf->first)
		return tmq_fail(e, "partition %u: %s: corrupt: offsets run past "
		    "2^64-1", pf->partition, pf->name);
	*end = pf->first + lines;
	return 0;
}
