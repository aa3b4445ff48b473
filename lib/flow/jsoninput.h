/* jsoninput.h: one message from one JSON object, the shape tmq-get -J and
 * tmq-dump -J print (key, type, payload as text, base64 bytes or a typed
 * object, timestamp in seconds) or kcat -J prints (key, payload as text or
 * null, ts in milliseconds).  What a message does not need (topic, kcat's
 * tstype and broker) is ignored, and so are partition and offset unless
 * they are asked for (tmq-put -J --keep-offsets). */
#ifndef TMQ_JSONINPUT_H
#define TMQ_JSONINPUT_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "codec/keys.h"
#include "codec/payload.h"
#include "store/topic.h"

/* Reusable parse state: one per thread. */
struct tmq_jsonin {
	unsigned char *buf;		/* a decoded payload */
	size_t cap;
	char *aux;			/* a decoded key, number or type */
	size_t auxcap;
	locale_t c_locale;		/* numbers are read in the C locale */
	/* Set by the caller: each object must carry its partition and
	 * offset, whole numbers (tmq_jsonmsg's partition, offset). */
	int want_offsets;
};

struct tmq_jsonmsg {
	unsigned char key[TMQ_KEY_MAX_BYTES];
	struct tmq_payload payload;	/* points into the jsonin or the line */
	int has_ts;
	double ts;			/* seconds, when has_ts */
	/* A typed payload given as a string: the stored text of an object
	 * that tmq-get -J could not print as itself (see printer.c), to be
	 * put back as written. */
	int as_text;
	/* With want_offsets: where the message stands in its source. */
	unsigned partition;
	uint64_t offset;
};

int tmq_jsonin_init(struct tmq_jsonin *j, struct tmq_error *e);
/* Parse s[0..n) into m for topic t: the key checked against its key type,
 * the type against its types.  m stays valid until the next call, and as
 * long as s does. */
int tmq_jsonin_parse(struct tmq_jsonin *j, const struct tmq_topic *t,
    const char *s, size_t n, struct tmq_jsonmsg *m, struct tmq_error *e);
void tmq_jsonin_free(struct tmq_jsonin *j);

#endif
