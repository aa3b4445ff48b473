/* payload.c: payload kinds (see payload.h). */
#include <json-c/json.h>

#include "payload.h"
#include "utf8.h"

int
tmq_json_is_object(const unsigned char *s, size_t n)
{
	struct json_tokener *tok;
	struct json_object *o;
	int ok;

	/* JSON text is UTF-8 (RFC 8259), and json-c does not check: the
	 * library's json.loads fails on anything else. */
	if (n > (size_t)INT32_MAX || !tmq_utf8_valid(s, n))
		return 0;
	tok = json_tokener_new();
	if (tok == NULL)
		return 0;
	o = json_tokener_parse_ex(tok, (const char *)s, (int)n);
	/* The whole input must be the one object, with nothing after it. */
	ok = o != NULL && json_object_is_type(o, json_type_object) &&
	    json_tokener_get_error(tok) == json_tokener_success &&
	    tok->char_offset == (int)n;
	json_object_put(o);
	json_tokener_free(tok);
	return ok;
}

int
tmq_payload_parse(const unsigned char *raw, size_t n, struct tmq_payload *p,
    struct tmq_error *e)
{
	if (n > 0 && raw[0] == TMQ_MAGIC_BYTES) {
		p->type = TMQ_BYTES;
		p->data = raw + 1;
		p->len = n - 1;
		return 0;
	}
	if (n > 0 && raw[0] == TMQ_MAGIC_TYPED) {
		if (n < 3)
			return tmq_fail(e, "typed payload too short");
		p->type = TMQ_TYPED;
		p->type_index = (unsigned)raw[1] << 8 | raw[2];
		p->data = raw + 3;
		p->len = n - 3;
		if (!tmq_json_is_object(p->data, p->len))
			return tmq_fail(e, "typed payload is not a JSON object");
		return 0;
	}
	if (n > 0 && raw[0] >= 0xF8 && raw[0] <= 0xFA)
		return tmq_fail(e, "multi-line message (marker 0x%02X) is not "
		    "supported", raw[0]);
	if (!tmq_utf8_valid(raw, n))
		return tmq_fail(e, "text payload is not valid UTF-8");
	p->type = TMQ_TEXT;
	p->data = raw;
	p->len = n;
	return 0;
}

size_t
tmq_payload_header(const struct tmq_payload *p, unsigned char hdr[3])
{
	switch (p->type) {
	case TMQ_BYTES:
		hdr[0] = TMQ_MAGIC_BYTES;
		return 1;
	case TMQ_TYPED:
		hdr[0] = TMQ_MAGIC_TYPED;
		hdr[1] = (unsigned char)(p->type_index >> 8);
		hdr[2] = (unsigned char)p->type_index;
		return 3;
	default:
		return 0;
	}
}
