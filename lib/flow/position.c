/* position.c: parsing start positions (see position.h). */
#include <stdlib.h>
#include <string.h>

#include "flow/position.h"
#include "store/topic.h"
#include "flow/timespec.h"
#include "codec/timestamp.h"

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
	/* A duration that is one, but too long ago, says so. */
	if (tmq_timespec_is_duration(s))
		return tmq_timespec_parse(s, tmq_now(), &p->t, e);
	if (tmq_timespec_parse(s, tmq_now(), &p->t, NULL) < 0)
		return tmq_fail(e, "'%s': bad position (want start, now, an "
		    "offset, -N, or a time: %s)", s, TMQ_TIMESPEC_WANT);
	return 0;
}

static int
cmp_at(const void *a, const void *b)
{
	const struct tmq_offset_at *x = a, *y = b;

	return x->partition < y->partition ? -1 : x->partition > y->partition;
}

/* "P=O,P=O,...": each element whole, each partition once. */
static int
parse_pairs(const char *s, struct tmq_position *p, struct tmq_error *e)
{
	struct tmq_offset_at *at;
	size_t cap = 1, n = 0, i;
	const char *q;
	char num[24];

	for (q = s; *q; q++)
		cap += *q == ',';
	/* More pairs than partitions can be is a repeat, said below; the
	 * array is bounded by the list's length, which the caller holds. */
	at = calloc(cap, sizeof *at);
	if (at == NULL)
		return tmq_fail(e, "out of memory");
	for (q = s;; q++) {
		size_t len = strcspn(q, ",");
		const char *eq = memchr(q, '=', len);
		uint64_t part;

		if (len == 0 || eq == NULL || eq == q || eq == q + len - 1) {
			tmq_fail(e, "'%.40s': want PARTITION=OFFSET pairs "
			    "separated by commas (0=1200,1=1180)", s);
			goto bad;
		}
		if ((size_t)(eq - q) >= sizeof num) {
			tmq_fail(e, "'%.40s': no partition %.*s", s,
			    (int)(eq - q > 20 ? 20 : eq - q), q);
			goto bad;
		}
		memcpy(num, q, (size_t)(eq - q));
		num[eq - q] = '\0';
		if (strspn(num, "0123456789") != strlen(num) ||
		    parse_u64(num, &part) < 0 || part >= TMQ_MAX_PARTITIONS) {
			tmq_fail(e, "'%.40s': no partition %s (at most %u)", s,
			    num, TMQ_MAX_PARTITIONS - 1);
			goto bad;
		}
		if ((size_t)(q + len - eq - 1) >= sizeof num) {
			tmq_fail(e, "'%.40s': partition %s: offset too large", s,
			    num);
			goto bad;
		}
		memcpy(num, eq + 1, (size_t)(q + len - eq - 1));
		num[q + len - eq - 1] = '\0';
		if (strspn(num, "0123456789") != strlen(num)) {
			tmq_fail(e, "'%.40s': partition %u: '%s' is not an "
			    "offset", s, (unsigned)part, num);
			goto bad;
		}
		if (parse_u64(num, &at[n].offset) < 0) {
			tmq_fail(e, "'%.40s': partition %u: offset too large", s,
			    (unsigned)part);
			goto bad;
		}
		at[n++].partition = (unsigned)part;
		q += len;
		if (*q == '\0')
			break;
	}
	qsort(at, n, sizeof *at, cmp_at);
	for (i = 1; i < n; i++)
		if (at[i].partition == at[i - 1].partition) {
			tmq_fail(e, "'%.40s': partition %u named twice", s,
			    at[i].partition);
			goto bad;
		}
	p->kind = TMQ_POS_PAIRS;
	p->at = at;
	p->nat = (unsigned)n;
	return 0;
bad:
	free(at);
	return -1;
}

int
tmq_position_parse_from(const char *s, struct tmq_position *p,
    struct tmq_error *e)
{
	tmq_position_free(p);
	if (strchr(s, '=') != NULL)
		return parse_pairs(s, p, e);
	return tmq_position_parse(s, p, e);
}

int
tmq_position_offset_of(const struct tmq_position *p, unsigned partition,
    uint64_t *offset)
{
	struct tmq_offset_at key, *hit;

	if (p->kind != TMQ_POS_PAIRS || p->nat == 0)
		return 0;
	key.partition = partition;
	hit = bsearch(&key, p->at, p->nat, sizeof *p->at, cmp_at);
	if (hit == NULL)
		return 0;
	*offset = hit->offset;
	return 1;
}

void
tmq_position_free(struct tmq_position *p)
{
	free(p->at);
	memset(p, 0, sizeof *p);
}
