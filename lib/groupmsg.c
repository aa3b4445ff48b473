/* groupmsg.c: group message bodies (see groupmsg.h).  Tags are unsigned
 * 64-bit and exceed 2^63, which json-c keeps exact as uint64. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "groupmsg.h"
#include "jsontext.h"
#include "timestamp.h"

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
	m->nown = m->nparts = m->ncommits = 0;
}

static int
get_field(struct json_object *o, const char *name, enum json_type type,
    struct json_object **out, struct tmq_error *e)
{
	if (!json_object_object_get_ex(o, name, out))
		return tmq_fail(e, "missing \"%s\"", name);
	if (type == json_type_double &&
	    json_object_is_type(*out, json_type_int))
		return 0;
	if (!json_object_is_type(*out, type))
		return tmq_fail(e, "bad \"%s\"", name);
	return 0;
}

/* A JSON array of partition numbers. */
static int
get_parts(struct json_object *o, const char *name, unsigned **v, unsigned *n,
    struct tmq_error *e)
{
	struct json_object *a;
	size_t len, i;

	if (get_field(o, name, json_type_array, &a, e) < 0)
		return -1;
	len = json_object_array_length(a);
	*v = calloc(len ? len : 1, sizeof **v);
	if (*v == NULL)
		return tmq_fail(e, "out of memory");
	for (i = 0; i < len; i++) {
		struct json_object *x = json_object_array_get_idx(a, i);
		int64_t p;

		if (!json_object_is_type(x, json_type_int) ||
		    (p = json_object_get_int64(x)) < 0 || p > UINT32_MAX)
			return tmq_fail(e, "bad partition in \"%s\"", name);
		(*v)[i] = (unsigned)p;
	}
	*n = (unsigned)len;
	return 0;
}

/* json-c clamps integers past 2^64-1 to 2^64-1: when a tag reads as that,
 * make sure the text really says 18446744073709551615. */
static int
max_tag_is_exact(const char *json, size_t n)
{
	static const char max[] = "18446744073709551615";
	const char *p = json, *end = json + n;

	while (p < end && (p = memchr(p, '"', (size_t)(end - p))) != NULL) {
		if ((size_t)(end - p) >= 5 && memcmp(p, "\"tag\"", 5) == 0) {
			p += 5;
			while (p < end && (*p == ' ' || *p == ':' || *p == '\t' ||
			    *p == '\n' || *p == '\r'))
				p++;
			return (size_t)(end - p) >= sizeof max - 1 &&
			    memcmp(p, max, sizeof max - 1) == 0 &&
			    (p + sizeof max - 1 == end ||
			    p[sizeof max - 1] < '0' || p[sizeof max - 1] > '9');
		}
		p++;
	}
	return 0;
}

int
tmq_gmsg_parse(enum tmq_gkind k, const char *json, size_t n,
    struct tmq_gmsg *m, struct tmq_error *e)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o, *f;
	int rc = -1;

	m->kind = k;
	m->tag = 0;
	m->end = 0;
	m->own = m->parts = NULL;
	m->commits = NULL;
	m->nown = m->nparts = m->ncommits = 0;
	if (tok == NULL)
		return tmq_fail(e, "out of memory");
	o = json_tokener_parse_ex(tok, json, (int)n);
	if (o == NULL || !json_object_is_type(o, json_type_object) ||
	    !tmq_json_only_space(json + tok->char_offset, n - (size_t)tok->char_offset)) {
		tmq_fail(e, "%s: body is not a JSON object", tmq_gkind_names[k]);
		goto out;
	}
	switch (k) {
	case TMQ_G_JOINED:
	case TMQ_G_ABORTJOIN:
		if (get_field(o, "tag", json_type_int, &f, e) < 0)
			goto bad;
		errno = 0;
		m->tag = json_object_get_uint64(f);
		if (errno != 0 || json_object_get_int64(f) < 0 ||
		    (m->tag == UINT64_MAX && !max_tag_is_exact(json, n))) {
			tmq_fail(e, "bad \"tag\"");
			goto bad;
		}
		break;
	case TMQ_G_BEGINREBAL:
		if (get_field(o, "timestamp", json_type_double, &f, e) < 0)
			goto bad;
		m->end = json_object_get_double(f);
		if (!isfinite(m->end)) {
			tmq_fail(e, "bad \"timestamp\"");
			goto bad;
		}
		break;
	case TMQ_G_REBALOFFER:
		if (get_parts(o, "own", &m->own, &m->nown, e) < 0 ||
		    get_parts(o, "partitions", &m->parts, &m->nparts, e) < 0)
			goto bad;
		break;
	case TMQ_G_REBALCONFIRM:
		if (get_parts(o, "partitions", &m->parts, &m->nparts, e) < 0)
			goto bad;
		break;
	case TMQ_G_ENDREBAL:
		break;
	case TMQ_G_COMMIT: {
		size_t len, i;

		if (get_field(o, "partition_offsets", json_type_array, &f, e) < 0)
			goto bad;
		len = json_object_array_length(f);
		m->commits = calloc(len ? len : 1, sizeof *m->commits);
		if (m->commits == NULL) {
			tmq_fail(e, "out of memory");
			goto bad;
		}
		for (i = 0; i < len; i++) {
			struct json_object *pair = json_object_array_get_idx(f, i);
			struct json_object *p, *off;
			int64_t pv;

			if (!json_object_is_type(pair, json_type_array) ||
			    json_object_array_length(pair) != 2 ||
			    !json_object_is_type(p = json_object_array_get_idx(
			    pair, 0), json_type_int) ||
			    !json_object_is_type(off = json_object_array_get_idx(
			    pair, 1), json_type_int) ||
			    (pv = json_object_get_int64(p)) < 0 || pv > UINT32_MAX ||
			    json_object_get_int64(off) < -1) {
				tmq_fail(e, "bad \"partition_offsets\"");
				goto bad;
			}
			/* json-c clamps what is past 2^63-1: such an offset
			 * must be refused, not taken as 2^63-1. */
			if (json_object_get_int64(off) >= 0 &&
			    json_object_get_uint64(off) > INT64_MAX) {
				tmq_fail(e, "offset %llu for partition %u is past "
				    "2^63-1", (unsigned long long)
				    json_object_get_uint64(off), (unsigned)pv);
				goto bad;
			}
			m->commits[i].partition = (unsigned)pv;
			m->commits[i].offset = json_object_get_int64(off);
		}
		m->ncommits = (unsigned)len;
		break;
	}
	default:
		tmq_fail(e, "unknown group message");
		goto bad;
	}
	rc = 0;
	goto out;
bad:
	tmq_fail_prefix(e, "%s", tmq_gkind_names[k]);
	tmq_gmsg_clear(m);
out:
	json_object_put(o);
	json_tokener_free(tok);
	return rc;
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
