/* message.h: one message, one line: KEY TS BODY '\n' (tmq-format(5)).  A codec
 * holds the reusable compression state and buffers; one per thread. */
#ifndef TMQ_MESSAGE_H
#define TMQ_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "codec/keys.h"
#include "codec/payload.h"
#include "codec/rawdeflate.h"

/* The TwainMQ library refuses a line longer than this, newline included. */
#define TMQ_LINE_MAX 4096

struct tmq_msg {
	uint64_t offset;
	unsigned partition;
	unsigned char key[TMQ_KEY_MAX_BYTES];
	double ts;
	struct tmq_payload payload;	/* points into the codec's buffer */
};

struct tmq_codec {
	struct tmq_deflater def;
	struct tmq_inflater inf;
	unsigned char *scratch;		/* header + payload, then deflate */
	size_t scratch_cap;
	unsigned char *b85;		/* decoded body */
	size_t b85_cap;
	/* Leave typed payloads' JSON to the caller (tmq_payload_split), who
	 * reads it with checks of its own; 0 as init leaves it. */
	int typed_unchecked;
};

int tmq_codec_init(struct tmq_codec *c, struct tmq_error *e);
void tmq_codec_free(struct tmq_codec *c);

/* What a payload too large for a message is told, however it was found
 * (longer than the reader takes, or encoding past the line): the real
 * limit, the line's, and what fits in it. */
#define TMQ_TOO_LARGE "too large for a message: its line would be over " \
	"the 4096-byte limit (about 3200 bytes of random data fit; more of " \
	"text that compresses; a topic made with tmq-topic create " \
	"--max-message SIZE takes more)"

/* Encode one line (newline included) into out, of at most outcap bytes.
 * Returns the line's length, or -1 when the line would be longer than
 * outcap (the caller passes TMQ_LINE_MAX to enforce the limit). */
long tmq_line_encode(struct tmq_codec *c, int key_width,
    const unsigned char *key, double ts, const struct tmq_payload *p,
    char *out, size_t outcap, struct tmq_error *e);

/* Decode a line (without its newline) into m.  ntypes bounds the type index
 * of a typed payload.  m->payload points into the codec until the next call. */
int tmq_line_decode(struct tmq_codec *c, int key_width, unsigned ntypes,
    const char *line, size_t n, struct tmq_msg *m, struct tmq_error *e);
/* Decode only the timestamp of a line: cheap, for seeking by time. */
int tmq_line_ts(int key_width, const char *line, size_t n, double *ts);

#endif
