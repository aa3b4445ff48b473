/* jsoninput.c: JSON lines to messages (see jsoninput.h).
 *
 * The line is checked as strict JSON first (what tmq-get -J writes is, and
 * a typed payload must be), then json-c gives the fields.  Two fields are
 * taken from the line's own text: an integer key, which json-c would clamp
 * past 2^64-1, and a typed payload, so that a copy carries the object's
 * bytes as they were written and not json-c's re-serialisation of them. */
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "base64.h"
#include "grow.h"
#include "jsoninput.h"
#include "jsontext.h"
#include "utf8.h"

int
tmq_jsonin_init(struct tmq_jsonin *j, struct tmq_error *e)
{
	memset(j, 0, sizeof *j);
	j->tok = json_tokener_new();
	if (j->tok == NULL)
		return tmq_fail(e, "out of memory");
	return 0;
}

void
tmq_jsonin_free(struct tmq_jsonin *j)
{
	json_object_put(j->obj);
	if (j->tok != NULL)
		json_tokener_free(j->tok);
	free(j->buf);
	memset(j, 0, sizeof *j);
}

/* ---- spans in a line already known to be strict JSON */

static size_t
skip_ws(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
	    s[i] == '\r'))
		i++;
	return i;
}

/* Past the string at s[i] ('"'), found with memchr: a payload is most of
 * a line, and this runs over it for every numeric key. */
static size_t
skip_string(const char *s, size_t i, size_t n)
{
	const char *q;
	size_t j, b;

	for (i++; i < n; i = j + 1) {
		if ((q = memchr(s + i, '"', n - i)) == NULL)
			return n;
		j = (size_t)(q - s);
		for (b = j; b > i && s[b - 1] == '\\'; b--)
			;
		if ((j - b) % 2 == 0)	/* not escaped */
			return j + 1;
	}
	return n;
}

static size_t
skip_value(const char *s, size_t i, size_t n)
{
	int depth = 0;

	if (s[i] == '"')
		return skip_string(s, i, n);
	if (s[i] != '{' && s[i] != '[') {
		while (i < n && !strchr(",}] \t\r\n", s[i]))
			i++;
		return i;
	}
	for (; i < n; i++) {
		if (s[i] == '"')
			i = skip_string(s, i, n) - 1;
		else if (s[i] == '{' || s[i] == '[')
			depth++;
		else if ((s[i] == '}' || s[i] == ']') && --depth == 0)
			return i + 1;
	}
	return n;
}

/* The raw text of the value of the top-level member name (the last one,
 * as json-c keeps the last); 0 when there is none spelled plainly. */
static int
member_span(const char *s, size_t n, const char *name, size_t *at,
    size_t *len)
{
	size_t i = skip_ws(s, 0, n), ks, k, v, nl = strlen(name);
	int found = 0;

	if (i >= n || s[i] != '{')
		return 0;
	for (i++;;) {
		i = skip_ws(s, i, n);
		if (i >= n || s[i] != '"')
			return found;
		ks = i;
		k = skip_string(s, i, n);
		i = skip_ws(s, k, n);
		if (i >= n || s[i] != ':')
			return found;
		i = skip_ws(s, i + 1, n);
		if (i >= n)
			return found;
		v = skip_value(s, i, n);
		if (k - ks == nl + 2 && memcmp(s + ks + 1, name, nl) == 0) {
			*at = i;
			*len = v - i;
			found = 1;
		}
		i = skip_ws(s, v, n);
		if (i < n && s[i] == ',')
			i++;
	}
}

static int
room(struct tmq_jsonin *j, size_t n, struct tmq_error *e)
{
	if (tmq_grow(&j->buf, &j->cap, n + 1, 1) < 0)
		return tmq_fail(e, "out of memory");
	return 0;
}

static int
get_key(const struct tmq_topic *t, const char *s, size_t n,
    struct json_object *o, unsigned char *key, struct tmq_error *e)
{
	char kt[16];
	size_t at, len;

	switch (json_object_get_type(o)) {
	case json_type_null:
		/* kcat's null key, and a keyless record: key 0 (an empty
		 * charN key), as tmq-put without -k gives. */
		if (t->key_width < 0)
			memset(key, 0, tmq_key_bytes(t->key_width));
		else
			tmq_key_from_u64(t->key_width, 0, key);
		return 0;
	case json_type_string:
		return tmq_key_parse(t->key_width, json_object_get_string(o),
		    (size_t)json_object_get_string_len(o), key, e);
	case json_type_int:
	case json_type_double:
		if (t->key_width < 0)
			return tmq_fail(e, "key: a number, not a %s key",
			    tmq_keytype_name(t->key_width, kt, sizeof kt));
		if (!member_span(s, n, "key", &at, &len))
			return tmq_fail(e, "key: field name not plain");
		return tmq_key_parse(t->key_width, s + at, len, key, e);
	default:
		return tmq_fail(e, "key: not a string, number or null");
	}
}

/* "partition" and "offset": whole numbers, as tmq-get -J and kcat -J
 * print them. */
static int
get_offsets(struct json_object *o, struct tmq_jsonmsg *m, struct tmq_error *e)
{
	struct json_object *f;
	int64_t v;

	if (!json_object_object_get_ex(o, "partition", &f) || f == NULL)
		return tmq_fail(e, "no partition (--keep-offsets)");
	if (!json_object_is_type(f, json_type_int) ||
	    (v = json_object_get_int64(f)) < 0 || v >= TMQ_MAX_PARTITIONS)
		return tmq_fail(e, "partition: not a partition number");
	m->partition = (unsigned)v;
	if (!json_object_object_get_ex(o, "offset", &f) || f == NULL)
		return tmq_fail(e, "no offset (--keep-offsets)");
	/* (json-c keeps what is past INT64_MAX apart: refused with it.) */
	if (!json_object_is_type(f, json_type_int) ||
	    (v = json_object_get_int64(f)) < 0 || v == INT64_MAX)
		return tmq_fail(e, "offset: not an offset");
	m->offset = (uint64_t)v;
	return 0;
}

int
tmq_jsonin_parse(struct tmq_jsonin *j, const struct tmq_topic *t,
    const char *s, size_t n, struct tmq_jsonmsg *m, struct tmq_error *e)
{
	struct json_object *o, *f, *ty, *pl;
	const char *tname = "str";
	size_t at, len;
	long bl;

	json_object_put(j->obj);
	j->obj = NULL;
	/* Strict first: its message says what is wrong and where. */
	if (tmq_json_strict_object((const unsigned char *)s, n, e) < 0)
		return e->code == TMQ_ERR_NOTJSON ? -1 :
		    tmq_fail_prefix(e, "bad JSON");
	json_tokener_reset(j->tok);
	o = json_tokener_parse_ex(j->tok, s, (int)n);
	if (o == NULL || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return tmq_fail_code(e, TMQ_ERR_NOTJSON, "not a JSON object");
	}
	j->obj = o;

	if (!json_object_object_get_ex(o, "key", &f))
		f = NULL;
	if (get_key(t, s, n, f, m->key, e) < 0)
		return -1;

	m->has_ts = 0;
	m->as_text = 0;
	if (json_object_object_get_ex(o, "timestamp", &f) && f != NULL) {
		if (!json_object_is_type(f, json_type_double) &&
		    !json_object_is_type(f, json_type_int))
			return tmq_fail(e, "timestamp: not a number");
		m->ts = json_object_get_double(f);
		m->has_ts = 1;
	} else if (json_object_object_get_ex(o, "ts", &f) && f != NULL) {
		/* kcat: milliseconds since the epoch. */
		if (!json_object_is_type(f, json_type_int) &&
		    !json_object_is_type(f, json_type_double))
			return tmq_fail(e, "ts: not a number");
		m->ts = json_object_get_double(f) / 1e3;
		m->has_ts = 1;
	}
	/* The TwainMQ library reads a time through datetime.fromtimestamp,
	 * which fails from year 10000 on (in the reader's zone: before
	 * 9999-12-31T00:00Z in every zone is safe); its consumer would stop at
	 * such a line for good. */
	if (m->has_ts && (!isfinite(m->ts) || m->ts < 0 ||
	    m->ts >= 253402214400.0))
		return tmq_fail(e, "timestamp: out of range (1970 to "
		    "9999-12-30)");

	if (j->want_offsets && get_offsets(o, m, e) < 0)
		return -1;

	if (json_object_object_get_ex(o, "type", &ty) && ty != NULL) {
		if (!json_object_is_type(ty, json_type_string))
			return tmq_fail(e, "type: not a string");
		tname = json_object_get_string(ty);
	}
	if (!json_object_object_get_ex(o, "payload", &pl))
		return tmq_fail(e, "no payload");
	memset(&m->payload, 0, sizeof m->payload);
	if (strcmp(tname, "str") == 0 || strcmp(tname, "bytes") == 0) {
		m->payload.type = tname[0] == 's' ? TMQ_TEXT : TMQ_BYTES;
		if (pl == NULL) {	/* kcat's null payload: empty */
			m->payload.data = (const unsigned char *)"";
			return 0;
		}
		if (!json_object_is_type(pl, json_type_string))
			return tmq_fail(e, "payload: not a string (type %s)",
			    tname);
		len = (size_t)json_object_get_string_len(pl);
		if (m->payload.type == TMQ_TEXT) {
			m->payload.data =
			    (const unsigned char *)json_object_get_string(pl);
			m->payload.len = len;
			return 0;
		}
		if (room(j, len / 4 * 3, e) < 0)
			return -1;
		bl = tmq_base64_decode(json_object_get_string(pl), len, j->buf);
		if (bl < 0)
			return tmq_fail(e, "payload: not base64 (type bytes)");
		m->payload.data = j->buf;
		m->payload.len = (size_t)bl;
		return 0;
	}
	{
		int ti = tmq_topic_type_index(t, tname);

		if (ti < 0)
			return tmq_fail(e, "no type '%s' in the topic", tname);
		m->payload.type = TMQ_TYPED;
		m->payload.type_index = (unsigned)ti;
	}
	if (pl != NULL && json_object_is_type(pl, json_type_string)) {
		/* tmq-get -J gives a stored object it cannot print as itself
		 * as a string of its text; a typed payload is always an
		 * object, so a string can mean nothing else. */
		m->payload.data =
		    (const unsigned char *)json_object_get_string(pl);
		m->payload.len = (size_t)json_object_get_string_len(pl);
		m->as_text = 1;
		return 0;
	}
	if (pl == NULL || !json_object_is_type(pl, json_type_object))
		return tmq_fail(e, "payload: not a JSON object (type %s)",
		    tname);
	if (member_span(s, n, "payload", &at, &len)) {
		m->payload.data = (const unsigned char *)s + at;
		m->payload.len = len;
	} else {
		const char *js = json_object_to_json_string_ext(pl,
		    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

		m->payload.data = (const unsigned char *)js;
		m->payload.len = strlen(js);
	}
	return 0;
}
