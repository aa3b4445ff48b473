/* groupmsg.c: group message bodies (see groupmsg.h).  A body is checked
 * as strict JSON (jsontext.h: one pass, a fixed stack), then its fields
 * are read from its text: no document tree, whose nodes would cost some
 * forty times the bytes of a list of small numbers.  Tags are unsigned
 * 64-bit, above 2^63 too, and read exactly. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group/groupmsg.h"
#include "util/grow.h"
#include "codec/jsontext.h"
#include "codec/timestamp.h"

const char *const tmq_gkind_names[TMQ_G_NKINDS] = {
	"~~TWAIN~~JOINED", "~~TWAIN~~ABORTJOIN", "~~TWAIN~~REBALOFFER",
	"~~TWAIN~~REBALCONFIRM", "~~TWAIN~~BEGINREBAL", "~~TWAIN~~ENDREBAL",
	"~~TWAIN~~COMMIT"
};

int
tmq_gkind_of(const char *type_name)
{
	int i;

	for (i = 0; i < TMQ_G_NKINDS; i++)
		if (strcmp(tmq_gkind_names[i], type_name) == 0)
			return i;
	return -1;
}

void
tmq_gmsg_clear(struct tmq_gmsg *m)
{
	free(m->own);
	free(m->parts);
	free(m->commits);
	m->own = m->parts = NULL;
	m->commits = NULL;
	m->nown = m->nparts = m->ncommits = m->own_extra = 0;
}

int
tmq_gparser_init(struct tmq_gparser *gp, unsigned limit, struct tmq_error *e)
{
	gp->limit = limit;
	gp->mark = calloc(limit ? limit : 1, sizeof *gp->mark);
	if (gp->mark == NULL)
		return tmq_fail(e, "out of memory");
	return 0;
}

void
tmq_gparser_free(struct tmq_gparser *gp)
{
	free(gp->mark);
	gp->mark = NULL;
	gp->limit = 0;
}

size_t
tmq_gmsg_max_body(unsigned limit)
{
	/* An offer takes at most 7 bytes a partition in each of its two
	 * lists ("65535, "), a commit at most 30 ("[65535, 2^63-1], "). */
	return (size_t)limit * 48 + 4096;
}

/* --- Reading a body (already checked to be strict JSON) --------------- */

#define MARK_PART (1u << 31)	/* in the offer's partitions */
#define MARK_OWN (1u << 30)	/* in its own */
#define MARK_AT 0x3fffffffu	/* a commit's position + 1 */

static size_t
ws(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
	    s[i] == '\r'))
		i++;
	return i;
}

/* Past the string at s[i] ('"'); its escapes are well formed. */
static size_t
skip_string(const char *s, size_t i, size_t n)
{
	for (i++; i < n && s[i] != '"'; i++)
		if (s[i] == '\\')
			i++;
	return i + 1;
}

/* Past the value at s[i]. */
static size_t
skip_value(const char *s, size_t i, size_t n)
{
	size_t depth = 0;

	do {
		if (s[i] == '"')
			i = skip_string(s, i, n);
		else if (s[i] == '{' || s[i] == '[') {
			depth++;
			i++;
		} else if (s[i] == '}' || s[i] == ']') {
			depth--;
			i++;
		} else if (depth > 0)
			i++;
		else {
			while (i < n && !strchr(",}] \t\r\n", s[i]))
				i++;
		}
	} while (depth > 0 && i < n);
	return i;
}

static int
hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* Whether the string at s[i] ('"') says name (plain ASCII), escapes
 * decoded as every JSON reader decodes them. */
static int
key_is(const char *s, size_t i, size_t n, const char *name)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	size_t k = 0;

	for (i++; i < n && s[i] != '"'; i++) {
		int c = (unsigned char)s[i];

		if (c == '\\') {
			const char *e = strchr(from, s[++i]);

			if (s[i] == 'u') {
				c = hexval(s[i + 1]) << 12 | hexval(s[i + 2]) << 8 |
				    hexval(s[i + 3]) << 4 | hexval(s[i + 4]);
				i += 4;
			} else
				c = (unsigned char)to[e - from];
		}
		if (name[k] == '\0' || c != (unsigned char)name[k])
			return 0;
		k++;
	}
	return name[k] == '\0';
}

/* The value of the object's last member called name (json-c and the TwainMQ
 * library keep the last): its start in *at, or 0 when there is none. */
static int
member(const char *s, size_t n, const char *name, size_t *at)
{
	size_t i = ws(s, 0, n) + 1;
	int found = 0;

	for (;;) {
		size_t k;

		i = ws(s, i, n);
		if (i >= n || s[i] != '"')
			return found;
		k = i;
		i = ws(s, skip_string(s, i, n), n) + 1;	/* the ':' */
		i = ws(s, i, n);
		if (key_is(s, k, n, name)) {
			*at = i;
			found = 1;
		}
		i = ws(s, skip_value(s, i, n), n);
		if (i < n && s[i] == ',')
			i++;
	}
}

/* The integer at s[*i]: -1 when it is not one (a fraction, an exponent,
 * not a number), else its sign in *neg and its value in *v, or 1 when
 * it is past 2^64-1.  *i is left after it. */
static int
get_int(const char *s, size_t *i, size_t n, int *neg, uint64_t *v)
{
	size_t k = *i;
	int over = 0;

	*neg = 0;
	*v = 0;
	if (k < n && s[k] == '-') {
		*neg = 1;
		k++;
	}
	if (k >= n || s[k] < '0' || s[k] > '9')
		return -1;
	for (; k < n && s[k] >= '0' && s[k] <= '9'; k++) {
		unsigned d = (unsigned)(s[k] - '0');

		if (*v > (UINT64_MAX - d) / 10)
			over = 1;
		else
			*v = *v * 10 + d;
	}
	if (k < n && (s[k] == '.' || s[k] == 'e' || s[k] == 'E'))
		return -1;
	*i = k;
	return over;
}

/* A partition number at s[*i]: 0 .. 2^32-1 ("-0" is 0, as it is to json-c
 * and to the TwainMQ library). */
static int
get_partition(const char *s, size_t *i, size_t n, uint32_t *p)
{
	uint64_t v;
	int neg;

	if (get_int(s, i, n, &neg, &v) != 0 || (neg && v != 0) ||
	    v > UINT32_MAX)
		return -1;
	*p = (uint32_t)v;
	return 0;
}

static int
add_u(unsigned **v, size_t *cap, unsigned *n, unsigned x)
{
	if (tmq_grow(v, cap, (size_t)*n + 1, sizeof **v) < 0)
		return -1;
	(*v)[(*n)++] = x;
	return 0;
}

static void
absent(struct tmq_gmsg *m, uint32_t p)
{
	if (!m->has_absent) {
		m->has_absent = 1;
		m->absent = p;
	}
}

/* The array of partitions at s[at] into *v (each once, in the order
 * first named), marking each with bit; *accepted counts the entries
 * (repeats too) already marked MARK_PART. */
static int
get_parts(struct tmq_gparser *gp, const char *s, size_t at, size_t n,
    const char *name, uint32_t bit, unsigned **v, unsigned *nv,
    unsigned *accepted, struct tmq_gmsg *m, struct tmq_error *e)
{
	size_t i = at, cap = 0;

	if (s[i] != '[')
		return tmq_fail(e, "bad \"%s\"", name);
	i = ws(s, i + 1, n);
	if (s[i] == ']')
		return 0;
	for (;;) {
		uint32_t p;

		if (get_partition(s, &i, n, &p) < 0)
			return tmq_fail(e, "bad partition in \"%s\"", name);
		if (p >= gp->limit)
			absent(m, p);
		else {
			if ((gp->mark[p] & MARK_PART) && accepted != NULL)
				(*accepted)++;
			if (!(gp->mark[p] & bit)) {
				if (add_u(v, &cap, nv, p) < 0)
					return tmq_fail(e, "out of memory");
				gp->mark[p] |= bit;
			}
		}
		i = ws(s, i, n);
		if (s[i] == ']')
			return 0;
		i = ws(s, i + 1, n);	/* past the ',' */
	}
}

/* The array of [partition, offset] pairs at s[at]. */
static int
get_commits(struct tmq_gparser *gp, const char *s, size_t at, size_t n,
    struct tmq_gmsg *m, struct tmq_error *e)
{
	size_t i = at, cap = 0;

	if (s[i] != '[')
		return tmq_fail(e, "bad \"partition_offsets\"");
	i = ws(s, i + 1, n);
	if (s[i] == ']')
		return 0;
	for (;;) {
		uint32_t p;
		uint64_t v;
		size_t o;
		int neg, over;

		if (s[i] != '[')
			return tmq_fail(e, "bad \"partition_offsets\"");
		i = ws(s, i + 1, n);
		if (get_partition(s, &i, n, &p) < 0)
			return tmq_fail(e, "bad \"partition_offsets\"");
		i = ws(s, i, n);
		if (s[i] != ',')
			return tmq_fail(e, "bad \"partition_offsets\"");
		o = i = ws(s, i + 1, n);
		over = get_int(s, &i, n, &neg, &v);
		if (over < 0 || (neg && (over || v > 1)))
			return tmq_fail(e, "bad \"partition_offsets\"");
		/* Past 2^63-1: refused, not taken as 2^63-1. */
		if (!neg && (over || v > INT64_MAX))
			return tmq_fail(e, "offset %.*s%s for partition %u is "
			    "past 2^63-1", (int)(i - o > 40 ? 40 : i - o), s + o,
			    i - o > 40 ? "..." : "", (unsigned)p);
		i = ws(s, i, n);
		if (s[i] != ']')
			return tmq_fail(e, "bad \"partition_offsets\"");
		i = ws(s, i + 1, n);
		if (p >= gp->limit)
			absent(m, p);
		else if ((gp->mark[p] & MARK_AT) != 0)
			m->commits[(gp->mark[p] & MARK_AT) - 1].offset = neg &&
			    v ? -1 : (int64_t)v;
		else {
			if (tmq_grow(&m->commits, &cap, (size_t)m->ncommits + 1,
			    sizeof *m->commits) < 0)
				return tmq_fail(e, "out of memory");
			m->commits[m->ncommits].partition = p;
			m->commits[m->ncommits].offset = neg && v ? -1 :
			    (int64_t)v;
			gp->mark[p] |= ++m->ncommits;
		}
		if (s[i] == ']')
			return 0;
		i = ws(s, i + 1, n);	/* past the ',' */
	}
}

/* A tag: an integer 0 .. 2^64-1, kept exact. */
static int
get_tag(const char *s, size_t at, size_t n, uint64_t *tag)
{
	size_t i = at;
	int neg;

	if (get_int(s, &i, n, &neg, tag) != 0 || (neg && *tag != 0))
		return -1;
	return 0;
}

/* A number, integer or not, and finite. */
static int
get_double(const char *s, size_t at, size_t n, double *d)
{
	size_t i = at;
	char buf[64], *copy = buf, *end;

	if (s[i] != '-' && (s[i] < '0' || s[i] > '9'))
		return -1;
	while (i < n && !strchr(",}] \t\r\n", s[i]))
		i++;
	if (i - at >= sizeof buf && (copy = malloc(i - at + 1)) == NULL)
		return -1;
	memcpy(copy, s + at, i - at);
	copy[i - at] = '\0';
	*d = strtod(copy, &end);
	if (copy != buf)
		free(copy);
	return isfinite(*d) ? 0 : -1;
}

static int
cmp_u(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

static void
unmark(struct tmq_gparser *gp, const unsigned *v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		gp->mark[v[i]] = 0;
}

/* The body's fields into m; the marks are the caller's to clear. */
static int
read_body(struct tmq_gparser *gp, enum tmq_gkind k, const char *s, size_t n,
    struct tmq_gmsg *m, struct tmq_error *e)
{
	size_t at, at2;

	switch (k) {
	case TMQ_G_JOINED:
	case TMQ_G_ABORTJOIN:
		if (!member(s, n, "tag", &at))
			return tmq_fail(e, "missing \"tag\"");
		if (get_tag(s, at, n, &m->tag) < 0)
			return tmq_fail(e, "bad \"tag\"");
		return 0;
	case TMQ_G_BEGINREBAL:
		if (!member(s, n, "timestamp", &at))
			return tmq_fail(e, "missing \"timestamp\"");
		if (get_double(s, at, n, &m->end) < 0)
			return tmq_fail(e, "bad \"timestamp\"");
		return 0;
	case TMQ_G_REBALOFFER: {
		unsigned accepted = 0, i, kept = 0;

		if (!member(s, n, "own", &at))
			return tmq_fail(e, "missing \"own\"");
		if (!member(s, n, "partitions", &at2))
			return tmq_fail(e, "missing \"partitions\"");
		/* What it accepts first: owned entries are counted against
		 * it.  A partition past the topic in own is said first. */
		if (s[at] != '[')
			return tmq_fail(e, "bad \"own\"");
		if (get_parts(gp, s, at2, n, "partitions", MARK_PART, &m->parts,
		    &m->nparts, NULL, m, e) < 0)
			return -1;
		{
			int had = m->has_absent;
			uint32_t was = m->absent;

			m->has_absent = 0;
			if (get_parts(gp, s, at, n, "own", MARK_OWN, &m->own,
			    &m->nown, &accepted, m, e) < 0)
				return -1;
			if (!m->has_absent) {
				m->has_absent = had;
				m->absent = was;
			}
		}
		for (i = 0; i < m->nown; i++)
			kept += (gp->mark[m->own[i]] & MARK_PART) != 0;
		m->own_extra = accepted - kept;
		return 0;
	}
	case TMQ_G_REBALCONFIRM:
		if (!member(s, n, "partitions", &at))
			return tmq_fail(e, "missing \"partitions\"");
		return get_parts(gp, s, at, n, "partitions", MARK_PART,
		    &m->parts, &m->nparts, NULL, m, e);
	case TMQ_G_ENDREBAL:
		return 0;
	case TMQ_G_COMMIT:
		if (!member(s, n, "partition_offsets", &at))
			return tmq_fail(e, "missing \"partition_offsets\"");
		return get_commits(gp, s, at, n, m, e);
	default:
		return tmq_fail(e, "unknown group message");
	}
}

int
tmq_gmsg_parse(struct tmq_gparser *gp, enum tmq_gkind k, const char *json,
    size_t n, struct tmq_gmsg *m, struct tmq_error *e)
{
	struct tmq_error why;
	unsigned i;
	int rc;

	m->kind = k;
	m->tag = 0;
	m->end = 0;
	m->own = m->parts = NULL;
	m->commits = NULL;
	m->nown = m->nparts = m->ncommits = m->own_extra = 0;
	m->has_absent = 0;
	m->absent = 0;
	if ((unsigned)k >= TMQ_G_NKINDS)
		return tmq_fail(e, "unknown group message");
	if (n > tmq_gmsg_max_body(gp->limit))
		return tmq_fail(e, "%s: body of %zu bytes, longer than any "
		    "message for %u partitions", tmq_gkind_names[k], n,
		    gp->limit);
	if (tmq_json_strict_object((const unsigned char *)json, n, &why) < 0)
		return why.code == TMQ_ERR_NOTJSON ?
		    tmq_fail(e, "%s: body is not a JSON object",
		    tmq_gkind_names[k]) :
		    tmq_fail(e, "%s: body is not a JSON object (%s)",
		    tmq_gkind_names[k], why.msg);
	rc = read_body(gp, k, json, n, m, e);
	unmark(gp, m->parts, m->nparts);
	unmark(gp, m->own, m->nown);
	for (i = 0; i < m->ncommits; i++)
		gp->mark[m->commits[i].partition] = 0;
	if (rc < 0) {
		tmq_gmsg_clear(m);
		m->has_absent = 0;
		return tmq_fail_prefix(e, "%s", tmq_gkind_names[k]);
	}
	if (m->nown > 1)
		qsort(m->own, m->nown, sizeof *m->own, cmp_u);
	if (m->nparts > 1)
		qsort(m->parts, m->nparts, sizeof *m->parts, cmp_u);
	return 0;
}

/* A growing string. */
struct sb {
	char *s;
	size_t len, cap;
	int oom;
};

static void
sb_add(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
sb_add(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len :
		    0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if (b->s != NULL && (size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		{
			size_t nc = (b->cap ? b->cap : 64) * 2 + (size_t)n;
			char *ns = realloc(b->s, nc);

			if (ns == NULL) {
				b->oom = 1;
				return;
			}
			b->s = ns;
			b->cap = nc;
		}
	}
}

static void
sb_parts(struct sb *b, const unsigned *v, unsigned n)
{
	unsigned i;

	sb_add(b, "[");
	for (i = 0; i < n; i++)
		sb_add(b, "%s%u", i ? "," : "", v[i]);
	sb_add(b, "]");
}

char *
tmq_gmsg_body(const struct tmq_gmsg *m)
{
	struct sb b = { NULL, 0, 0, 0 };
	char num[40];
	unsigned i;

	switch (m->kind) {
	case TMQ_G_JOINED:
	case TMQ_G_ABORTJOIN:
		sb_add(&b, "{\"tag\":%llu}", (unsigned long long)m->tag);
		break;
	case TMQ_G_BEGINREBAL:
		tmq_ts_repr(m->end, num, sizeof num);
		sb_add(&b, "{\"timestamp\":%s}", num);
		break;
	case TMQ_G_REBALOFFER:
		sb_add(&b, "{\"own\":");
		sb_parts(&b, m->own, m->nown);
		sb_add(&b, ",\"partitions\":");
		sb_parts(&b, m->parts, m->nparts);
		sb_add(&b, "}");
		break;
	case TMQ_G_REBALCONFIRM:
		sb_add(&b, "{\"partitions\":");
		sb_parts(&b, m->parts, m->nparts);
		sb_add(&b, "}");
		break;
	case TMQ_G_ENDREBAL:
		sb_add(&b, "{}");
		break;
	case TMQ_G_COMMIT:
		sb_add(&b, "{\"partition_offsets\":[");
		for (i = 0; i < m->ncommits; i++)
			sb_add(&b, "%s[%u,%lld]", i ? "," : "",
			    m->commits[i].partition,
			    (long long)m->commits[i].offset);
		sb_add(&b, "]}");
		break;
	default:
		break;
	}
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}
