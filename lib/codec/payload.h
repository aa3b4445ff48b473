/* payload.h: what a message carries before compression (tmq-format(5)): text
 * (UTF-8, no marker), bytes (0xFC, then the bytes) or typed (0xFB, a 2-byte
 * big-endian type index, then a JSON object). */
#ifndef TMQ_PAYLOAD_H
#define TMQ_PAYLOAD_H

#include <stddef.h>

#include "util/error.h"

#define TMQ_MAGIC_BYTES 0xFC
#define TMQ_MAGIC_TYPED 0xFB

enum tmq_ptype { TMQ_TEXT, TMQ_BYTES, TMQ_TYPED };

struct tmq_payload {
	enum tmq_ptype type;
	unsigned type_index;		/* TMQ_TYPED only */
	const unsigned char *data;	/* the text, the bytes, or the JSON */
	size_t len;
};

/* Split an inflated payload into its parts, checking text is UTF-8 and a
 * typed payload carries a JSON object; the multi-line markers 0xF8..0xFA
 * and any other non-UTF-8 first byte are errors. */
int tmq_payload_parse(const unsigned char *raw, size_t n, struct tmq_payload *p,
    struct tmq_error *e);
/* The same, leaving a typed payload's JSON unchecked, for a caller that
 * reads it with checks of its own (group messages: groupmsg.h). */
int tmq_payload_split(const unsigned char *raw, size_t n, struct tmq_payload *p,
    struct tmq_error *e);
/* Write the marker bytes for p into hdr (at most 3); returns how many. */
size_t tmq_payload_header(const struct tmq_payload *p, unsigned char hdr[3]);

#endif
