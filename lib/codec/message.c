/* message.c: encoding and decoding lines (see message.h). */
#include <stdlib.h>
#include <string.h>

#include "codec/base85.h"
#include "util/grow.h"
#include "codec/message.h"
#include "util/utf8.h"
#include "codec/timestamp.h"

int
tmq_codec_init(struct tmq_codec *c, struct tmq_error *e)
{
	memset(c, 0, sizeof *c);
	if (tmq_deflater_init(&c->def, e) < 0)
		return -1;
	if (tmq_inflater_init(&c->inf, e) < 0) {
		tmq_deflater_free(&c->def);
		return -1;
	}
	return 0;
}

void
tmq_codec_free(struct tmq_codec *c)
{
	tmq_deflater_free(&c->def);
	tmq_inflater_free(&c->inf);
	free(c->scratch);
	free(c->b85);
	memset(c, 0, sizeof *c);
}

long
tmq_line_encode(struct tmq_codec *c, int key_width, const unsigned char *key,
    double ts, const struct tmq_payload *p, char *out, size_t outcap,
    struct tmq_error *e)
{
	size_t kch = tmq_key_chars(key_width), hdr, raw, room, fit, z, need;
	unsigned char *comp;

	/* The markers count: the reader bounds what the line inflates to. */
	if (p->len + (p->type == TMQ_TEXT ? 0 : p->type == TMQ_BYTES ? 1 : 3) >
	    TMQ_PAYLOAD_MAX)
		return outcap == TMQ_LINE_MAX ?
		    tmq_fail_code(e, TMQ_ERR_TOOLARGE, "%s", TMQ_TOO_LARGE) :
		    tmq_fail(e, "payload is %zu bytes, over the %u-byte limit",
		    p->len, TMQ_PAYLOAD_MAX);
	raw = p->len + 3;
	/* Room for the raw payload and, after it, its deflate (which for
	 * incompressible data is a few bytes longer than the input). */
	room = raw + raw / 1000 + 64;
	if (tmq_grow(&c->scratch, &c->scratch_cap, raw + room, 1) < 0)
		return tmq_fail(e, "out of memory");
	hdr = tmq_payload_header(p, c->scratch);
	if (p->len > 0)
		memcpy(c->scratch + hdr, p->data, p->len);
	comp = c->scratch + raw;
	/* No more deflate than the line has room for (and a little: zlib
	 * may need a few bytes more than its stream to say it is done): a
	 * payload that cannot fit is found so within its first blocks, not
	 * after all of it (what fits is the same stream either way). */
	fit = room <= outcap ? room : (outcap > kch + TMQ_TS_CHARS + 1 ?
	    tmq_b85_declen(outcap - kch - TMQ_TS_CHARS - 1) : 0) + 64;
	z = tmq_deflate(&c->def, c->scratch, hdr + p->len, comp,
	    fit < room ? fit : room);
	if (z == 0 && fit >= room)
		return tmq_fail(e, "cannot compress the payload");
	need = z == 0 ? 0 : kch + TMQ_TS_CHARS + tmq_b85_enclen(z) + 1;
	if (z == 0 || need > outcap)
		return outcap == TMQ_LINE_MAX ?
		    tmq_fail_code(e, TMQ_ERR_TOOLARGE, "%s", TMQ_TOO_LARGE) :
		    tmq_fail(e, "the line would be over the %zu-byte limit",
		    outcap);
	tmq_b85_encode(key, tmq_key_bytes(key_width), out);
	tmq_ts_encode(ts, out + kch);
	tmq_b85_encode(comp, z, out + kch + TMQ_TS_CHARS);
	out[need - 1] = '\n';
	return (long)need;
}

int
tmq_line_ts(int key_width, const char *line, size_t n, double *ts)
{
	size_t kch = tmq_key_chars(key_width);

	if (n < kch + TMQ_TS_CHARS)
		return -1;
	return tmq_ts_decode(line + kch, ts);
}

int
tmq_line_decode(struct tmq_codec *c, int key_width, unsigned ntypes,
    const char *line, size_t n, struct tmq_msg *m, struct tmq_error *e)
{
	size_t kch = tmq_key_chars(key_width), kb = tmq_key_bytes(key_width);
	const unsigned char *raw;
	size_t rawlen, body;
	long z;

	if (n < kch + TMQ_TS_CHARS + 2)
		return tmq_fail(e, "line too short (%zu bytes)", n);
	if (tmq_b85_decode(line, kch, m->key) != (long)kb)
		return tmq_fail(e, "bad base85 in the key");
	if (key_width < 0 &&
	    !tmq_utf8_valid(m->key, tmq_key_strlen(key_width, m->key)))
		return tmq_fail(e, "key is not valid UTF-8");
	if (tmq_ts_decode(line + kch, &m->ts) < 0)
		return tmq_fail(e, "bad base85 in the timestamp");
	body = n - kch - TMQ_TS_CHARS;
	if (tmq_grow(&c->b85, &c->b85_cap, tmq_b85_declen(body) + 1, 1) < 0)
		return tmq_fail(e, "out of memory");
	z = tmq_b85_decode(line + kch + TMQ_TS_CHARS, body, c->b85);
	if (z < 0)
		return tmq_fail(e, "bad base85 in the body");
	if (tmq_inflate(&c->inf, c->b85, (size_t)z, &raw, &rawlen, e) < 0)
		return -1;
	if ((c->typed_unchecked ? tmq_payload_split : tmq_payload_parse)(raw,
	    rawlen, &m->payload, e) < 0)
		return -1;
	if (m->payload.type == TMQ_TYPED && m->payload.type_index >= ntypes)
		return tmq_fail(e, "unknown type index %u",
		    m->payload.type_index);
	return 0;
}
