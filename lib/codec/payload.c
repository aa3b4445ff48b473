/* payload.c: payload kinds (see payload.h). */
#include "codec/jsontext.h"
#include "codec/payload.h"
#include "util/utf8.h"

int
tmq_payload_parse(const unsigned char *raw, size_t n, struct tmq_payload *p,
    struct tmq_error *e)
{
	if (tmq_payload_split(raw, n, p, e) < 0)
		return -1;
	if (p->type == TMQ_TYPED && !tmq_json_is_object(p->data, p->len))
		return tmq_fail(e, "typed payload is not a JSON object");
	return 0;
}

int
tmq_payload_split(const unsigned char *raw, size_t n, struct tmq_payload *p,
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
