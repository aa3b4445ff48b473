/* execreport.c: a --exec member's report, as text and back (see
 * execreport.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group/execreport.h"
#include "util/grow.h"

size_t
tmq_xreport_format(const struct tmq_xreport *r, char *buf, size_t cap)
{
	size_t len, i;
	int n;

	n = snprintf(buf, cap, "exec %llu %llu %llu\n",
	    (unsigned long long)r->run, (unsigned long long)r->retried,
	    (unsigned long long)r->dead);
	if (n < 0 || (size_t)n >= cap || r->n > TMQ_XREPORT_MAX_RUNS)
		return 0;
	len = (size_t)n;
	for (i = 0; i < r->n; i++) {
		const struct tmq_xrun *x = &r->v[i];

		n = snprintf(buf + len, cap - len, "run %u %llu %u %.3f\n",
		    x->partition, (unsigned long long)x->offset, x->attempt,
		    x->started);
		if (n < 0 || (size_t)n >= cap - len)
			return 0;
		len += (size_t)n;
	}
	if (cap - len < 5)
		return 0;
	memcpy(buf + len, "end\n", 5);
	return len + 4;
}

/* A decimal number of at most 20 digits, no sign, no leading zero (but 0
 * itself), at *s and ending with stop: 0 and *s past stop, or -1. */
static int
number(const char **s, const char *end, char stop, uint64_t max, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	if (p == end || *p < '0' || *p > '9' || (*p == '0' && p + 1 < end &&
	    p[1] >= '0' && p[1] <= '9'))
		return -1;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (x > (max - (uint64_t)(*p - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	if (p == end || *p != stop)
		return -1;
	*s = p + 1;
	*v = x;
	return 0;
}

/* "SECONDS.MMM" at *s ending with '\n'. */
static int
seconds(const char **s, const char *end, double *v)
{
	uint64_t whole, frac;
	const char *f;

	if (number(s, end, '.', 1ULL << 40, &whole) < 0)
		return -1;
	f = *s;
	if (end - f < 4 || f[0] < '0' || f[0] > '9' || f[1] < '0' ||
	    f[1] > '9' || f[2] < '0' || f[2] > '9' || f[3] != '\n')
		return -1;
	frac = (uint64_t)(f[0] - '0') * 100 + (uint64_t)(f[1] - '0') * 10 +
	    (uint64_t)(f[2] - '0');
	*s = f + 4;
	*v = (double)whole + (double)frac / 1000;
	return 0;
}

int
tmq_xreport_parse(const char *text, size_t len, struct tmq_xreport *r)
{
	const char *s = text, *end = text + len;
	size_t cap = 0;

	memset(r, 0, sizeof *r);
	if (len < 5 || strncmp(s, "exec ", 5) != 0)
		return 0;
	s += 5;
	if (number(&s, end, ' ', UINT64_MAX, &r->run) < 0 ||
	    number(&s, end, ' ', UINT64_MAX, &r->retried) < 0 ||
	    number(&s, end, '\n', UINT64_MAX, &r->dead) < 0)
		return 0;
	for (;;) {
		struct tmq_xrun x;
		uint64_t p, a;

		if (end - s >= 4 && memcmp(s, "end\n", 4) == 0)
			return 1;
		if (end - s < 4 || memcmp(s, "run ", 4) != 0 ||
		    r->n == TMQ_XREPORT_MAX_RUNS)
			break;
		s += 4;
		if (number(&s, end, ' ', 65535, &p) < 0 ||
		    number(&s, end, ' ', UINT64_MAX, &x.offset) < 0 ||
		    number(&s, end, ' ', UINT32_MAX, &a) < 0 || a == 0 ||
		    seconds(&s, end, &x.started) < 0)
			break;
		x.partition = (unsigned)p;
		x.attempt = (unsigned)a;
		if (tmq_grow(&r->v, &cap, r->n + 1, sizeof *r->v) < 0) {
			tmq_xreport_free(r);
			return -1;
		}
		r->v[r->n++] = x;
	}
	tmq_xreport_free(r);
	return 0;
}

void
tmq_xreport_free(struct tmq_xreport *r)
{
	free(r->v);
	memset(r, 0, sizeof *r);
}
