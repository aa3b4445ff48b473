/* partlist.c: the partition lists of -P (see partlist.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flow/partlist.h"
#include "store/topic.h"

/* One number of the list, below TMQ_MAX_PARTITIONS. */
static int
number(const char *list, const char *s, size_t len, unsigned *out,
    struct tmq_error *e)
{
	uint64_t x = 0;
	size_t i;

	if (len == 0 || len > 20)
		goto bad;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			goto bad;
		x = x * 10 + (unsigned)(s[i] - '0');
		if (x >= TMQ_MAX_PARTITIONS)
			return tmq_fail(e, "'%.40s': no topic has partition "
			    "%.*s (at most %u partitions)", list, (int)len, s,
			    TMQ_MAX_PARTITIONS);
	}
	*out = (unsigned)x;
	return 0;
bad:
	return tmq_fail(e, "'%.40s': '%.*s' is not a partition number", list,
	    (int)(len > 40 ? 40 : len), s);
}

int
tmq_partlist_parse(const char *s, unsigned **v, unsigned *n,
    struct tmq_error *e)
{
	unsigned char *set;
	const char *p = s, *end, *dash;
	unsigned a, b, i, cnt = 0, *out;

	if (*s == '\0')
		return tmq_fail(e, "'': empty partition list");
	set = calloc(TMQ_MAX_PARTITIONS / 8, 1);
	if (set == NULL)
		return tmq_fail(e, "out of memory");
	for (;;) {
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		if (end == p) {
			tmq_fail(e, "'%.40s': empty element", s);
			goto bad;
		}
		dash = memchr(p, '-', (size_t)(end - p));
		if (number(s, p, (size_t)((dash ? dash : end) - p), &a, e) < 0 ||
		    (dash != NULL && number(s, dash + 1,
		    (size_t)(end - dash - 1), &b, e) < 0))
			goto bad;
		if (dash == NULL)
			b = a;
		else if (b < a) {
			tmq_fail(e, "'%.40s': range %u-%u runs backwards", s, a,
			    b);
			goto bad;
		}
		for (i = a; i <= b; i++)
			if (!(set[i / 8] & (1u << (i % 8)))) {
				set[i / 8] |= (unsigned char)(1u << (i % 8));
				cnt++;
			}
		if (*end == '\0')
			break;
		p = end + 1;
	}
	out = malloc(cnt * sizeof *out);
	if (out == NULL) {
		free(set);
		return tmq_fail(e, "out of memory");
	}
	for (i = 0, cnt = 0; i < TMQ_MAX_PARTITIONS; i++)
		if (set[i / 8] & (1u << (i % 8)))
			out[cnt++] = i;
	free(set);
	*v = out;
	*n = cnt;
	return 0;
bad:
	free(set);
	return -1;
}

int
tmq_partlist_check(const unsigned *v, unsigned n, unsigned partitions,
    struct tmq_error *e)
{
	/* Sorted: the last is the largest. */
	if (n > 0 && v[n - 1] >= partitions)
		return tmq_fail(e, "partition %u does not exist (topic has %u)",
		    v[n - 1], partitions);
	return 0;
}
