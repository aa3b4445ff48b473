/* printer.c: message output (see printer.h).  This is tmq-get's inner
 * loop, so it writes with the unlocked stdio calls and no allocations,
 * and a JSON object is made in a buffer and written in one call. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/base64.h"
#include "util/decimal.h"
#include "util/escape.h"
#include "codec/jsontext.h"
#include "flow/printer.h"
#include "codec/timestamp.h"

const char *
tmq_type_name(const struct tmq_topic *t, const struct tmq_msg *m)
{
	switch (m->payload.type) {
	case TMQ_TEXT:
		return "str";
	case TMQ_BYTES:
		return "bytes";
	default:
		return m->payload.type_index < t->ntypes &&
		    t->types[m->payload.type_index] ?
		    t->types[m->payload.type_index] : "?";
	}
}

static void
put_u64(FILE *f, uint64_t v)
{
	char buf[20];

	fwrite_unlocked(buf, 1, (size_t)(tmq_dec_put(buf, v) - buf), f);
}

static void
put_key(FILE *f, const struct tmq_topic *t, const struct tmq_msg *m)
{
	char buf[TMQ_KEY_MAX_BYTES];
	size_t n = tmq_key_format(t->key_width, m->key, buf);

	fwrite_unlocked(buf, 1, n, f);
}

/* A JSON object is built in a buffer and written with one call: stdio
 * calls field by field, and escaping a byte at a time, cost twice what
 * the rest of tmq-get -J does.  A payload longer than the buffer goes out
 * in pieces. */
#define JBUF 16384
#define PIECE 1024		/* input bytes escaped at a time (6x out) */

struct jbuf {
	FILE *f;
	size_t n;
	char b[JBUF];
};

static char *
jb_room(struct jbuf *j, size_t k)
{
	if (j->n + k > JBUF) {
		fwrite_unlocked(j->b, 1, j->n, j->f);
		j->n = 0;
	}
	return j->b + j->n;
}

static void
jb_put(struct jbuf *j, const void *s, size_t k)
{
	if (k > JBUF / 2) {
		jb_room(j, JBUF);
		fwrite_unlocked(s, 1, k, j->f);
		return;
	}
	memcpy(jb_room(j, k), s, k);
	j->n += k;
}

static void
jb_lit(struct jbuf *j, const char *s)
{
	jb_put(j, s, strlen(s));
}

static void
jb_u64(struct jbuf *j, uint64_t v)
{
	char buf[20];

	jb_put(j, buf, (size_t)(tmq_dec_put(buf, v) - buf));
}

/* A JSON string, quotes included. */
static void
jb_string(struct jbuf *j, const unsigned char *s, size_t n)
{
	size_t i, k;
	char *o;

	o = jb_room(j, 1);
	*o = '"';
	j->n++;
	for (i = 0; i < n; i += k) {
		k = n - i < PIECE ? n - i : PIECE;
		o = jb_room(j, 6 * k);
		j->n += tmq_escape_json_buf(o, s + i, k);
	}
	o = jb_room(j, 1);
	*o = '"';
	j->n++;
}

static void
jb_base64(struct jbuf *j, const unsigned char *s, size_t n)
{
	size_t i, k;

	jb_put(j, "\"", 1);
	/* In whole groups of three, so that only the last is padded. */
	for (i = 0; i < n; i += k) {
		k = n - i < 3 * PIECE ? n - i : 3 * PIECE;
		j->n += tmq_base64_encode(jb_room(j, 4 * PIECE), s + i, k);
	}
	jb_put(j, "\"", 1);
}

/* A typed payload as itself when it is strict JSON on one line, from its
 * '{' to its '}'.  One that is not (a line break in its white space, which
 * would end the line; white space before or after the object, which a
 * reader of the line drops; NaN, Infinity or a lone surrogate escape,
 * which the TwainMQ library's json.dumps writes and JSON tools refuse) is
 * given as a JSON string of its text: every line stays JSON, and tmq-put
 * -J puts that text back as it was.  A typed payload is always an object,
 * so the string cannot be mistaken for one. */
static void
jb_typed(struct jbuf *j, const unsigned char *s, size_t n)
{
	struct tmq_error e;

	if (n == 0 || s[0] != '{' || s[n - 1] != '}' ||
	    memchr(s, '\n', n) != NULL || memchr(s, '\r', n) != NULL ||
	    tmq_json_strict_object(s, n, &e) < 0)
		jb_string(j, s, n);
	else
		jb_put(j, s, n);
}

#define LIT(o, s) (memcpy((o), (s), sizeof(s) - 1), (o) + sizeof(s) - 1)

static char *
quoted(char *o, const void *s, size_t n)
{
	*o++ = '"';
	o += tmq_escape_json_buf(o, s, n);
	*o++ = '"';
	return o;
}

static void
json_object(struct jbuf *j, const struct tmq_topic *t,
    const struct tmq_msg *m)
{
	char key[TMQ_KEY_MAX_BYTES], *o;
	const char *ty = tmq_type_name(t, m);
	size_t kn, nn = strlen(t->name), tn = strlen(ty);
	/* u64 keys are strings, as in protobuf's JSON mapping: above 2^53
	 * a JSON number loses digits in jq and JavaScript, and a field
	 * whose type changed with its value would trip every consumer. */
	int kstr = t->key_width < 0 || t->key_width == 8;

	if (t->key_width > 0)
		kn = (size_t)(tmq_dec_put(key, tmq_key_to_u64(t->key_width,
		    m->key)) - key);
	else
		kn = tmq_key_format(t->key_width, m->key, key);
	/* All but the payload in one go, room for the worst escapes made
	 * once: the names and the time (at most 32 bytes) around fixed text
	 * and two 20-digit numbers. */
	if (160 + 6 * (nn + tn + kn) <= JBUF) {
		o = jb_room(j, 160 + 6 * (nn + tn + kn));
		o = LIT(o, "{\"topic\":");
		o = quoted(o, t->name, nn);
		o = LIT(o, ",\"partition\":");
		o = tmq_dec_put(o, m->partition);
		o = LIT(o, ",\"offset\":");
		o = tmq_dec_put(o, m->offset);
		o = LIT(o, ",\"key\":");
		if (kstr)
			o = quoted(o, key, kn);
		else {
			memcpy(o, key, kn);
			o += kn;
		}
		o = LIT(o, ",\"timestamp\":");
		o += tmq_ts_repr(m->ts, o, 40);
		o = LIT(o, ",\"type\":");
		o = quoted(o, ty, tn);
		o = LIT(o, ",\"payload\":");
		j->n = (size_t)(o - j->b);
	} else {
		char ts[40];

		jb_lit(j, "{\"topic\":");
		jb_string(j, (const unsigned char *)t->name, nn);
		jb_lit(j, ",\"partition\":");
		jb_u64(j, m->partition);
		jb_lit(j, ",\"offset\":");
		jb_u64(j, m->offset);
		jb_lit(j, ",\"key\":");
		if (kstr)
			jb_string(j, (const unsigned char *)key, kn);
		else
			jb_put(j, key, kn);
		jb_lit(j, ",\"timestamp\":");
		jb_put(j, ts, tmq_ts_repr(m->ts, ts, sizeof ts));
		jb_lit(j, ",\"type\":");
		jb_string(j, (const unsigned char *)ty, tn);
		jb_lit(j, ",\"payload\":");
	}
	switch (m->payload.type) {
	case TMQ_TEXT:
		jb_string(j, m->payload.data, m->payload.len);
		break;
	case TMQ_BYTES:
		jb_base64(j, m->payload.data, m->payload.len);
		break;
	case TMQ_TYPED:
		jb_typed(j, m->payload.data, m->payload.len);
		break;
	}
	jb_put(j, "}", 1);
}

void
tmq_print_json(FILE *f, const struct tmq_topic *t, const struct tmq_msg *m)
{
	struct jbuf j;

	j.f = f;
	j.n = 0;
	json_object(&j, t, m);
	fwrite_unlocked(j.b, 1, j.n, f);
}

static void
print_format(const struct tmq_printer *p, const struct tmq_topic *t,
    const struct tmq_msg *m)
{
	FILE *f = p->out;
	char buf[48];
	const char *s;
	size_t i, n;

	for (i = 0; i < p->fmt.nops; i++) {
		const struct tmq_fmt_op *op = &p->fmt.ops[i];

		switch (op->field) {
		case 0:
			fwrite_unlocked(op->text, 1, op->len, f);
			break;
		case 's':
			fwrite_unlocked(m->payload.data, 1, m->payload.len, f);
			break;
		case 'k':
			put_key(f, t, m);
			break;
		case 'p':
			put_u64(f, m->partition);
			break;
		case 'o':
			put_u64(f, m->offset);
			break;
		case 't':
			fputs_unlocked(t->name, f);
			break;
		case 'T':
			n = tmq_ts_iso(m->ts, buf, sizeof buf);
			fwrite_unlocked(buf, 1, n, f);
			break;
		case 'm':
			n = tmq_ts_millis(m->ts, buf, sizeof buf);
			fwrite_unlocked(buf, 1, n, f);
			break;
		case 'S':
			put_u64(f, m->payload.len);
			break;
		case 'u':
			n = tmq_ts_repr(m->ts, buf, sizeof buf);
			fwrite_unlocked(buf, 1, n, f);
			break;
		case 'y':
			s = tmq_type_name(t, m);
			fputs_unlocked(s, f);
			break;
		}
	}
}

void
tmq_print(const struct tmq_printer *p, const struct tmq_topic *t,
    const struct tmq_msg *m)
{
	switch (p->mode) {
	case TMQ_PRINT_PAYLOAD:
		fwrite_unlocked(m->payload.data, 1, m->payload.len, p->out);
		break;
	case TMQ_PRINT_KEYED:
		put_key(p->out, t, m);
		fwrite_unlocked(p->keysep, 1, p->keyseplen, p->out);
		fwrite_unlocked(m->payload.data, 1, m->payload.len, p->out);
		break;
	case TMQ_PRINT_FORMAT:
		print_format(p, t, m);
		return;		/* a format carries its own separators */
	case TMQ_PRINT_JSON: {
		struct jbuf j;

		j.f = p->out;
		j.n = 0;
		json_object(&j, t, m);
		jb_put(&j, &p->term, 1);
		fwrite_unlocked(j.b, 1, j.n, p->out);
		return;
	}
	}
	fputc_unlocked(p->term, p->out);
}
