/* producer.h: turning records into messages on a topic: key, payload type,
 * checks, partition, encoding, batched append. */
#ifndef TMQ_PRODUCER_H
#define TMQ_PRODUCER_H

#include <stddef.h>

#include "appender.h"
#include "message.h"
#include "payload.h"
#include "topic.h"

struct tmq_producer_opts {
	const char *key;	/* -k: one key for every record */
	const char *keydelim;	/* -K: key before the first delimiter */
	enum tmq_ptype ptype;	/* -b, -T */
	const char *type_name;	/* -T */
	int sync;		/* --sync */
};

struct tmq_producer {
	const struct tmq_topic *topic;
	struct tmq_producer_opts o;
	size_t delimlen;
	unsigned type_index;
	unsigned char fixed_key[TMQ_KEY_MAX_BYTES];
	unsigned fixed_partition;
	struct tmq_codec codec;
	struct tmq_appender app;
	char line[TMQ_LINE_MAX];
	unsigned long written;	/* messages queued so far */
};

int tmq_producer_open(struct tmq_producer *p, const struct tmq_topic *t,
    const struct tmq_producer_opts *o, struct tmq_error *e);
/* Check and queue one record: 0, -1 when the record is refused (nothing
 * of it is queued), -2 when writing earlier records failed. */
int tmq_producer_put(struct tmq_producer *p, const char *rec, size_t n,
    struct tmq_error *e);
int tmq_producer_flush(struct tmq_producer *p, struct tmq_error *e);
size_t tmq_producer_pending(const struct tmq_producer *p);
void tmq_producer_close(struct tmq_producer *p);

#endif
