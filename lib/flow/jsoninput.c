/* jsoninput.c: JSON lines to messages (see jsoninput.h).
 *
 * One pass checks the line as strict JSON (what tmq-get -J writes is, and
 * a typed payload must be) and notes where the members the message needs
 * are (jsontext.h); they are then read from the line's own text, with no
 * document tree and nothing allocated per line: strings are decoded only
 * when they hold an escape, numbers are read exactly, an integer key up to
 * 2^64-1, and a typed payload is its object's bytes as they were written.
 *
 * Where a member appears twice the last one counts, and numbers become
 * doubles as json-c, which read these lines before, made them: an integer
 * exactly (clamped to 64 bits: such a time is out of range either way),
 * any other number correctly rounded. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"
#include "util/grow.h"
#include "flow/jsoninput.h"
#include "codec/jsontext.h"

int
tmq_jsonin_init(struct tmq_jsonin *j, struct tmq_error *e)
{
	memset(j, 0, sizeof *j);
	j->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (j->c_locale == (locale_t)0)
		return tmq_fail(e, "out of memory");
	return 0;
}

void
tmq_jsonin_free(struct tmq_jsonin *j)
{
	if (j->c_locale != (locale_t)0)
		freelocale(j->c_locale);
	free(j->buf);
	free(j->aux);
	memset(j, 0, sizeof *j);
}

/* The members a message is made of. */
enum { F_KEY, F_TIMESTAMP, F_TS, F_TYPE, F_PAYLOAD, F_PARTITION, F_OFFSET,
	NFIELDS };

struct fields {
	const unsigned char *s;
	int has[NFIELDS];
	struct tmq_json_member at[NFIELDS];
};

static int
field_of(const char *name, size_t n)
{
	switch (n) {
	case 2:
		return memcmp(name, "ts", 2) == 0 ? F_TS : -1;
	case 3:
		return memcmp(name, "key", 3) == 0 ? F_KEY : -1;
	case 4:
		return memcmp(name, "type", 4) == 0 ? F_TYPE : -1;
	case 6:
		return memcmp(name, "offset", 6) == 0 ? F_OFFSET : -1;
	case 7:
		return memcmp(name, "payload", 7) == 0 ? F_PAYLOAD : -1;
	case 9:
		return memcmp(name, "timestamp", 9) == 0 ? F_TIMESTAMP :
		    memcmp(name, "partition", 9) == 0 ? F_PARTITION : -1;
	}
	return -1;
}

static void
on_member(void *arg, const unsigned char *s, const struct tmq_json_member *mb)
{
	struct fields *f = arg;
	const char *name = (const char *)s + mb->name_at;
	size_t n = mb->name_len;
	unsigned char dec[64];
	int k;

	if (mb->name_escaped) {
		/* "\u006bey" is "key": decoded, as every JSON reader does. */
		if (n > sizeof dec)
			return;		/* longer than any of ours decodes */
		n = tmq_json_unescape(s + mb->name_at, n, dec);
		name = (const char *)dec;
	}
	if ((k = field_of(name, n)) >= 0) {
		f->has[k] = 1;
		f->at[k] = *mb;
	}
}

/* A line as tmq-get -J writes it: these members in this order, nothing
 * between them.  Such a line is read here, its values checked one by one
 * as the whole check checks them (jsontext.h), and f filled as the
 * check's visitor fills it: the check's state machine, its look at every
 * member's name and the visitor's calls were half of what tmq-put -J did
 * with a line.  Any other line, and any flaw, is left to the whole check,
 * which then takes it or says what is wrong, as before.  1 when read, 0
 * when left. */
static int
envelope(const unsigned char *s, size_t n, struct fields *f)
{
	static const struct {
		const char *text;
		size_t len;
		int field;
	} member[] = {
		{ "{\"topic\":", 9, -1 },
		{ ",\"partition\":", 13, F_PARTITION },
		{ ",\"offset\":", 10, F_OFFSET },
		{ ",\"key\":", 7, F_KEY },
		{ ",\"timestamp\":", 13, F_TIMESTAMP },
		{ ",\"type\":", 8, F_TYPE },
		{ ",\"payload\":", 11, F_PAYLOAD },
	};
	const size_t last = sizeof member / sizeof *member - 1;
	struct tmq_error e;
	size_t m, i = 0, end;
	int escaped;

	for (m = 0; m <= last; m++) {
		if (n - i < member[m].len ||
		    memcmp(s + i, member[m].text, member[m].len) != 0)
			return 0;
		i += member[m].len;
		if (i >= n)
			return 0;
		escaped = 0;
		if (s[i] == '"')
			end = tmq_json_string_end(s, i, n, TMQ_JSON_RFC8259,
			    &escaped);
		else if (s[i] == '-' || (s[i] >= '0' && s[i] <= '9'))
			end = tmq_json_number_end(s, i, n, TMQ_JSON_RFC8259);
		else if (n - i >= 4 && memcmp(s + i, "null", 4) == 0)
			end = i + 4;
		else if (m == last && s[i] == '{' && n - i >= 3 &&
		    s[n - 2] == '}' && tmq_json_check(s + i, n - 1 - i,
		    TMQ_JSON_RFC8259, TMQ_JSON_DEPTH_MAX, NULL, &e) == 0)
			end = n - 1;	/* an object, to the line's last '}' */
		else
			return 0;
		if (end == 0)
			return 0;
		if (member[m].field >= 0) {
			struct tmq_json_member *mb = &f->at[member[m].field];

			f->has[member[m].field] = 1;
			mb->at = i;
			mb->len = end - i;
			mb->escaped = escaped;
		}
		i = end;
	}
	return i == n - 1 && s[i] == '}';
}

static int
room(unsigned char **p, size_t *cap, size_t n, struct tmq_error *e)
{
	if (tmq_grow(p, cap, n + 1, 1) < 0)
		return tmq_fail(e, "out of memory");
	return 0;
}

/* The text of the string value v (known good), decoded when it holds an
 * escape: into *buf (grown), else pointing into the line. */
static int
string_of(const struct fields *f, const struct tmq_json_member *v,
    unsigned char **buf, size_t *cap, const unsigned char **out,
    size_t *len, struct tmq_error *e)
{
	const unsigned char *q = f->s + v->at + 1;
	size_t n = v->len - 2;

	if (!v->escaped) {
		*out = q;
		*len = n;
		return 0;
	}
	if (room(buf, cap, n, e) < 0)
		return -1;
	*len = tmq_json_unescape(q, n, *buf);
	(*buf)[*len] = '\0';
	*out = *buf;
	return 0;
}

static int
is_number(const struct fields *f, const struct tmq_json_member *v)
{
	unsigned char c = f->s[v->at];

	return c == '-' || (c >= '0' && c <= '9');
}

static int
is_null(const struct fields *f, int k)
{
	return f->has[k] && f->s[f->at[k].at] == 'n';
}

/* The number s[0..n) (known good JSON) as a double, as json-c gave it. */
static int
number_of(struct tmq_jsonin *j, const char *s, size_t n, double *out,
    struct tmq_error *e)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
	    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
	    1e19, 1e20, 1e21, 1e22 };
	size_t i = s[0] == '-', frac = 0;
	int neg = s[0] == '-', point = 0, exact = 1;
	uint64_t v = 0;

	for (; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9) {
			if (s[i] != '.')
				break;	/* an exponent */
			point = 1;
			continue;
		}
		/* v * 10 + d past 2^64 - 1: saturated, as strtoull.  One
		 * compare a digit, not a division (a time's sixteen digits
		 * cost more than the rest of its reading). */
		if (v >= UINT64_C(1844674407370955161) &&
		    (v > UINT64_C(1844674407370955161) || d > 5)) {
			v = UINT64_MAX;
			exact = 0;
			continue;
		}
		v = v * 10 + d;
		frac += (size_t)point;
	}
	if (i == n && !point) {
		/* An integer: json-c's int64 (or uint64), clamped. */
		if (neg) {
			if (v > UINT64_C(1) << 63)
				v = UINT64_C(1) << 63;
			*out = v == 0 ? 0.0 : -(double)v;
		} else
			*out = (double)v;
		return 0;
	}
	/* Both exact doubles: one division rounds correctly, as strtod. */
	if (i == n && exact && v <= UINT64_C(1) << 53 &&
	    frac < sizeof p10 / sizeof *p10) {
		*out = (double)v / p10[frac];
		if (neg)
			*out = -*out;
		return 0;
	}
	if (room((unsigned char **)&j->aux, &j->auxcap, n, e) < 0)
		return -1;
	memcpy(j->aux, s, n);
	j->aux[n] = '\0';
	*out = strtod_l(j->aux, NULL, j->c_locale);
	return 0;
}

static int
get_key(struct tmq_jsonin *j, const struct tmq_topic *t,
    const struct fields *f, unsigned char *key, struct tmq_error *e)
{
	const struct tmq_json_member *v = &f->at[F_KEY];
	const unsigned char *q;
	char kt[16];
	size_t len;

	if (!f->has[F_KEY] || is_null(f, F_KEY)) {
		/* kcat's null key, and a keyless record: key 0 (an empty
		 * charN key), as tmq-put without -k gives. */
		if (t->key_width < 0)
			memset(key, 0, tmq_key_bytes(t->key_width));
		else
			tmq_key_from_u64(t->key_width, 0, key);
		return 0;
	}
	if (f->s[v->at] == '"') {
		if (string_of(f, v, (unsigned char **)&j->aux, &j->auxcap, &q,
		    &len, e) < 0)
			return -1;
		return tmq_key_parse(t->key_width, (const char *)q, len, key,
		    e);
	}
	if (is_number(f, v)) {
		if (t->key_width < 0)
			return tmq_fail(e, "key: a number, not a %s key",
			    tmq_keytype_name(t->key_width, kt, sizeof kt));
		/* From the text: a double would lose digits past 2^53. */
		return tmq_key_parse(t->key_width, (const char *)f->s + v->at,
		    v->len, key, e);
	}
	return tmq_fail(e, "key: not a string, number or null");
}

static int
get_time(struct tmq_jsonin *j, const struct fields *f, struct tmq_jsonmsg *m,
    struct tmq_error *e)
{
	const struct tmq_json_member *v;

	m->has_ts = 0;
	if (f->has[F_TIMESTAMP] && !is_null(f, F_TIMESTAMP)) {
		v = &f->at[F_TIMESTAMP];
		if (!is_number(f, v))
			return tmq_fail(e, "timestamp: not a number");
		if (number_of(j, (const char *)f->s + v->at, v->len, &m->ts,
		    e) < 0)
			return -1;
		m->has_ts = 1;
	} else if (f->has[F_TS] && !is_null(f, F_TS)) {
		/* kcat: milliseconds since the epoch. */
		v = &f->at[F_TS];
		if (!is_number(f, v))
			return tmq_fail(e, "ts: not a number");
		if (number_of(j, (const char *)f->s + v->at, v->len, &m->ts,
		    e) < 0)
			return -1;
		m->ts /= 1e3;
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
	return 0;
}

/* The whole number v (known good JSON) as json-c's int64 gave it: *out,
 * clamped to 0 .. INT64_MAX, and whether it is one at all (no fraction,
 * no exponent) and not below 0 ("-0" is 0). */
static int
whole_of(const struct fields *f, const struct tmq_json_member *v,
    int64_t *out)
{
	const unsigned char *s = f->s + v->at;
	size_t i = s[0] == '-', n = v->len;
	uint64_t x = 0;

	if (!is_number(f, v))
		return -1;
	for (; i < n; i++) {
		unsigned d = s[i] - '0';

		if (d > 9)
			return -1;	/* a fraction or an exponent: a double */
		x = x > (UINT64_MAX - d) / 10 ? UINT64_MAX : x * 10 + d;
	}
	if (s[0] == '-' && x != 0)
		return -1;
	*out = x > INT64_MAX ? INT64_MAX : (int64_t)x;
	return 0;
}

/* "partition" and "offset": whole numbers, as tmq-get -J and kcat -J
 * print them. */
static int
get_offsets(const struct fields *f, struct tmq_jsonmsg *m,
    struct tmq_error *e)
{
	int64_t v;

	if (!f->has[F_PARTITION] || is_null(f, F_PARTITION))
		return tmq_fail(e, "no partition (--keep-offsets)");
	if (whole_of(f, &f->at[F_PARTITION], &v) < 0 ||
	    v >= TMQ_MAX_PARTITIONS)
		return tmq_fail(e, "partition: not a partition number");
	m->partition = (unsigned)v;
	if (!f->has[F_OFFSET] || is_null(f, F_OFFSET))
		return tmq_fail(e, "no offset (--keep-offsets)");
	/* (json-c kept what is past INT64_MAX apart: refused with it.) */
	if (whole_of(f, &f->at[F_OFFSET], &v) < 0 || v == INT64_MAX)
		return tmq_fail(e, "offset: not an offset");
	m->offset = (uint64_t)v;
	return 0;
}

int
tmq_jsonin_parse(struct tmq_jsonin *j, const struct tmq_topic *t,
    const char *s, size_t n, struct tmq_jsonmsg *m, struct tmq_error *e)
{
	struct fields f;
	struct tmq_json_visit visit = { on_member, &f };
	const struct tmq_json_member *pl;
	const unsigned char *q;
	const char *tname = "str";
	size_t len;
	long bl;
	int rc;

	memset(&f, 0, sizeof f);
	f.s = (const unsigned char *)s;
	/* Strict first: its message says what is wrong and where. */
	if (!envelope(f.s, n, &f)) {
		memset(&f, 0, sizeof f);
		f.s = (const unsigned char *)s;
		rc = tmq_json_check(f.s, n, TMQ_JSON_RFC8259,
		    TMQ_JSON_DEPTH_MAX, &visit, e);
		if (rc < 0)
			return rc == TMQ_JSON_NOT_OBJECT ? -1 :
			    tmq_fail_prefix(e, "bad JSON");
	}

	if (get_key(j, t, &f, m->key, e) < 0)
		return -1;
	m->as_text = 0;
	if (get_time(j, &f, m, e) < 0)
		return -1;
	if (j->want_offsets && get_offsets(&f, m, e) < 0)
		return -1;
	if (f.has[F_TYPE] && !is_null(&f, F_TYPE)) {
		if (f.s[f.at[F_TYPE].at] != '"')
			return tmq_fail(e, "type: not a string");
		if (string_of(&f, &f.at[F_TYPE], (unsigned char **)&j->aux,
		    &j->auxcap, &q, &len, e) < 0)
			return -1;
		if (q != (const unsigned char *)j->aux) {
			if (room((unsigned char **)&j->aux, &j->auxcap, len,
			    e) < 0)
				return -1;
			memcpy(j->aux, q, len);
			j->aux[len] = '\0';
		}
		/* A name, read as a C string (as json-c gave it). */
		tname = j->aux;
	}
	if (!f.has[F_PAYLOAD])
		return tmq_fail(e, "no payload");
	pl = &f.at[F_PAYLOAD];
	memset(&m->payload, 0, sizeof m->payload);
	if (strcmp(tname, "str") == 0 || strcmp(tname, "bytes") == 0) {
		m->payload.type = tname[0] == 's' ? TMQ_TEXT : TMQ_BYTES;
		if (is_null(&f, F_PAYLOAD)) {	/* kcat's null payload: empty */
			m->payload.data = (const unsigned char *)"";
			return 0;
		}
		if (f.s[pl->at] != '"')
			return tmq_fail(e, "payload: not a string (type %s)",
			    tname);
		if (string_of(&f, pl, &j->buf, &j->cap, &q, &len, e) < 0)
			return -1;
		if (m->payload.type == TMQ_TEXT) {
			m->payload.data = q;
			m->payload.len = len;
			return 0;
		}
		/* In place: base64 is never shorter than its bytes. */
		if (q != j->buf) {
			if (room(&j->buf, &j->cap, len, e) < 0)
				return -1;
		}
		bl = tmq_base64_decode((const char *)q, len, j->buf);
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
	if (f.s[pl->at] == '"') {
		/* tmq-get -J gives a stored object it cannot print as itself
		 * as a string of its text; a typed payload is always an
		 * object, so a string can mean nothing else. */
		if (string_of(&f, pl, &j->buf, &j->cap, &q, &len, e) < 0)
			return -1;
		m->payload.data = q;
		m->payload.len = len;
		m->as_text = 1;
		return 0;
	}
	if (f.s[pl->at] != '{')
		return tmq_fail(e, "payload: not a JSON object (type %s)",
		    tname);
	m->payload.data = f.s + pl->at;
	m->payload.len = pl->len;
	return 0;
}
