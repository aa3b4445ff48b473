/* producer.c: records to lines (see producer.h).
 *
 * Without -k or -K every message has key 0 (an empty key on charN topics):
 * they all go to one partition and keep their order, and `tmq-topic
 * partition` still tells where they are.  Spreading keyless records over
 * partitions would need a key the reader cannot know. */
#include <string.h>

#include "partitioner.h"
#include "producer.h"
#include "timestamp.h"
#include "utf8.h"

int
tmq_producer_open(struct tmq_producer *p, const struct tmq_topic *t,
    const struct tmq_producer_opts *o, struct tmq_error *e)
{
	memset(p, 0, sizeof *p);
	p->topic = t;
	p->o = *o;
	if (o->keydelim != NULL) {
		p->delimlen = strlen(o->keydelim);
		if (p->delimlen == 0)
			return tmq_fail(e, "empty key delimiter");
	}
	if (o->ptype == TMQ_TYPED) {
		int i = tmq_topic_type_index(t, o->type_name);

		if (i < 0)
			return tmq_fail(e, "%s: no type '%s' in the topic",
			    t->name, o->type_name);
		p->type_index = (unsigned)i;
	}
	if (o->key != NULL) {
		if (tmq_key_parse(t->key_width, o->key, strlen(o->key),
		    p->fixed_key, e) < 0)
			return tmq_fail_prefix(e, "%s", t->name);
	} else if (t->key_width < 0)
		memset(p->fixed_key, 0, tmq_key_bytes(t->key_width));
	else
		tmq_key_from_u64(t->key_width, 0, p->fixed_key);
	p->fixed_partition = tmq_partition_of(t->key_width, p->fixed_key,
	    t->partitions);
	if (tmq_codec_init(&p->codec, e) < 0)
		return -1;
	if (tmq_appender_open(&p->app, t, o->sync, e) < 0) {
		tmq_codec_free(&p->codec);
		return -1;
	}
	return 0;
}

/* memmem for the delimiter */
static const char *
find(const char *s, size_t n, const char *d, size_t dl)
{
	const char *end = s + n;

	if (dl == 1)
		return memchr(s, d[0], n);
	for (; (size_t)(end - s) >= dl; s++)
		if (s[0] == d[0] && memcmp(s, d, dl) == 0)
			return s;
	return NULL;
}

int
tmq_producer_put(struct tmq_producer *p, const char *rec, size_t n,
    struct tmq_error *e)
{
	const struct tmq_topic *t = p->topic;
	unsigned char keybuf[TMQ_KEY_MAX_BYTES];
	const unsigned char *key = p->fixed_key;
	struct tmq_payload pl;
	unsigned part = p->fixed_partition;
	long len;

	if (p->o.keydelim != NULL) {
		const char *d = find(rec, n, p->o.keydelim, p->delimlen);

		if (d == NULL)
			return tmq_fail(e, "no key (no '%s' in the record)",
			    p->o.keydelim);
		if (tmq_key_parse(t->key_width, rec, (size_t)(d - rec), keybuf,
		    e) < 0)
			return -1;
		key = keybuf;
		part = tmq_partition_of(t->key_width, key, t->partitions);
		n -= (size_t)(d - rec) + p->delimlen;
		rec = d + p->delimlen;
	}
	pl.type = p->o.ptype;
	pl.type_index = p->type_index;
	pl.data = (const unsigned char *)rec;
	pl.len = n;
	if (pl.type == TMQ_TEXT && !tmq_utf8_valid(pl.data, n))
		return tmq_fail(e, "text is not valid UTF-8 (use -b for bytes)");
	if (pl.type == TMQ_TYPED && !tmq_json_is_object(pl.data, n))
		return tmq_fail(e, "not a JSON object (-T %s)", p->o.type_name);
	len = tmq_line_encode(&p->codec, t->key_width, key, tmq_now(), &pl,
	    p->line, sizeof p->line, e);
	if (len < 0)
		return -1;
	if (tmq_appender_add(&p->app, part, p->line, (size_t)len, e) < 0)
		return -2;
	p->written++;
	return 0;
}

int
tmq_producer_flush(struct tmq_producer *p, struct tmq_error *e)
{
	return tmq_appender_flush(&p->app, e);
}

size_t
tmq_producer_pending(const struct tmq_producer *p)
{
	return tmq_appender_pending(&p->app);
}

void
tmq_producer_close(struct tmq_producer *p)
{
	tmq_appender_close(&p->app);
	tmq_codec_free(&p->codec);
}
