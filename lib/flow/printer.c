/* printer.c: message output (see printer.h).  This is tmq-get's inner
 * loop, so it writes with the unlocked stdio calls and no allocations. */
#include <stdio.h>
#include <string.h>

#include "base64.h"
#include "escape.h"
#include "jsontext.h"
#include "printer.h"
#include "timestamp.h"

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
put_u64(FILE *f, unsigned long long v)
{
	char buf[24];
	int i = 24;

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(buf + i, 1, (size_t)(24 - i), f);
}

static void
put_key(FILE *f, const struct tmq_topic *t, const struct tmq_msg *m)
{
	char buf[TMQ_KEY_MAX_BYTES];
	size_t n = tmq_key_format(t->key_width, m->key, buf);

	fwrite_unlocked(buf, 1, n, f);
}

/* A typed payload as itself when it is strict JSON on one line.  One that
 * is not (a line break in its white space, which would end the line;
 * NaN, Infinity or a lone surrogate escape, which the TwainMQ library's
 * json.dumps writes and JSON tools refuse) is given as a JSON string of
 * its text: every line stays JSON, and tmq-put -J puts that text back as
 * it was.  A typed payload is always an object, so the string cannot be
 * mistaken for one. */
static void
put_typed(FILE *f, const unsigned char *s, size_t n)
{
	struct tmq_error e;

	if (memchr(s, '\n', n) != NULL || memchr(s, '\r', n) != NULL ||
	    tmq_json_strict_object(s, n, &e) < 0)
		tmq_escape_json(f, s, n);
	else
		fwrite_unlocked(s, 1, n, f);
}

void
tmq_print_json(FILE *f, const struct tmq_topic *t, const struct tmq_msg *m)
{
	char buf[TMQ_KEY_MAX_BYTES];
	const char *ty;
	size_t n;

	fputs_unlocked("{\"topic\":", f);
	tmq_escape_json(f, (const unsigned char *)t->name, strlen(t->name));
	fputs_unlocked(",\"partition\":", f);
	put_u64(f, m->partition);
	fputs_unlocked(",\"offset\":", f);
	put_u64(f, m->offset);
	fputs_unlocked(",\"key\":", f);
	n = tmq_key_format(t->key_width, m->key, buf);
	/* u64 keys are strings, as in protobuf's JSON mapping: above 2^53
	 * a JSON number loses digits in jq and JavaScript, and a field
	 * whose type changed with its value would trip every consumer. */
	if (t->key_width < 0 || t->key_width == 8)
		tmq_escape_json(f, (const unsigned char *)buf, n);
	else
		fwrite_unlocked(buf, 1, n, f);
	fputs_unlocked(",\"timestamp\":", f);
	n = tmq_ts_repr(m->ts, buf, sizeof buf);
	fwrite_unlocked(buf, 1, n, f);
	fputs_unlocked(",\"type\":", f);
	ty = tmq_type_name(t, m);
	tmq_escape_json(f, (const unsigned char *)ty, strlen(ty));
	fputs_unlocked(",\"payload\":", f);
	switch (m->payload.type) {
	case TMQ_TEXT:
		tmq_escape_json(f, m->payload.data, m->payload.len);
		break;
	case TMQ_BYTES:
		fputc_unlocked('"', f);
		tmq_base64_write(f, m->payload.data, m->payload.len);
		fputc_unlocked('"', f);
		break;
	case TMQ_TYPED:
		put_typed(f, m->payload.data, m->payload.len);
		break;
	}
	fputc_unlocked('}', f);
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
	case TMQ_PRINT_JSON:
		tmq_print_json(p->out, t, m);
		break;
	}
	fputc_unlocked(p->term, p->out);
}
