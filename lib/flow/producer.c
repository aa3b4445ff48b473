/* producer.c: records to lines (see producer.h).
 *
 * Records are copied into a batch and encoded when the batch is full or
 * the caller flushes (tmq-put does whenever its input has nothing more
 * ready).  Encoding is deflate, most of a put's cost: a batch of enough
 * records is split in two halves encoded at once on two cores, then the
 * lines are appended in input order, so order within a key is kept.
 *
 * Without -k or -K every message has key 0 (an empty key on charN topics):
 * they all go to one partition and keep their order, and `tmq-topic
 * partition` still tells where they are.  Spreading keyless records over
 * partitions would need a key the reader cannot know. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/blob.h"
#include "util/grow.h"
#include "codec/jsontext.h"
#include "codec/partitioner.h"
#include "flow/producer.h"
#include "codec/timestamp.h"
#include "util/utf8.h"

#define BATCH_RECS 512
#define BATCH_BYTES (512 * 1024)
/* Records too long for a line (blobs, on a topic with --max-message) may
 * fill a batch to this: their blobs are made durable a batch at a time,
 * and a batch of a few would wait on the disk for each few. */
#define BATCH_BLOB_BYTES (8 * 1024 * 1024)
/* Below this a batch is not worth a second thread (interactive input). */
#define SPLIT_MIN 32

int
tmq_producer_open(struct tmq_producer *p, const struct tmq_topic *t,
    const struct tmq_producer_opts *o, struct tmq_error *e)
{
	int i;

	memset(p, 0, sizeof *p);
	p->topic = t;
	p->o = *o;
	for (i = 0; i < 2; i++)
		tmq_blobstage_init(&p->half[i].blobs, t);
	if (o->keydelim != NULL) {
		p->delimlen = o->keydelimlen;
		if (p->delimlen == 0)
			return tmq_fail(e, "empty key delimiter");
	}
	if (o->ptype == TMQ_TYPED) {
		int ti = tmq_topic_type_index(t, o->type_name);

		if (ti < 0)
			return tmq_fail(e, "%s: no type '%s' in the topic",
			    t->name, o->type_name);
		p->type_index = (unsigned)ti;
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
	if (o->have_partition) {
		if (o->partition >= t->partitions)
			return tmq_fail(e, "%s: partition %u does not exist "
			    "(topic has %u)", t->name, o->partition,
			    t->partitions);
		p->fixed_partition = o->partition;
	}
	p->recs = calloc(BATCH_RECS, sizeof *p->recs);
	if (p->recs == NULL)
		return tmq_fail(e, "out of memory");
	for (i = 0; i < 2; i++) {
		p->half[i].p = p;
		if (tmq_codec_init(&p->half[i].codec, e) < 0) {
			tmq_producer_close(p);
			return -1;
		}
		p->half[i].ready = 1;
		if (o->json && tmq_jsonin_init(&p->half[i].jin, e) < 0) {
			tmq_producer_close(p);
			return -1;
		}
		p->half[i].jin.want_offsets = o->json && o->keep_offsets;
	}
	if (o->json && o->keep_offsets && tmq_offcopy_init(&p->oc, t, e) < 0) {
		tmq_producer_close(p);
		return -1;
	}
	if (tmq_appender_open(&p->app, t, o->sync, e) < 0) {
		tmq_producer_close(p);
		return -1;
	}
	if (o->json && o->keep_offsets)
		tmq_appender_exact(&p->app);
	tmq_par_init(&p->par);
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

/* Encode a line into h's output for r. */
static int
encode_line(struct tmq_phalf *h, struct tmq_prec *r, const unsigned char *key,
    const struct tmq_payload *pl, double ts, struct tmq_error *e)
{
	const struct tmq_topic *t = h->p->topic;
	long len;

	if (tmq_grow(&h->out, &h->outcap, h->outlen + TMQ_LINE_MAX, 1) < 0)
		return tmq_fail(e, "out of memory");
	len = tmq_line_encode(&h->codec, t->key_width, key,
	    ts < 0 ? tmq_now() : ts, pl, h->out + h->outlen, TMQ_LINE_MAX, e);
	if (len < 0)
		return -1;
	r->line_at = h->outlen;
	r->line_len = (size_t)len;
	h->outlen += (size_t)len;
	return 0;
}

/* A payload too long for a line, on a topic with --max-message: written
 * whole to its blob now, which is made durable and put in place with the
 * batch's others before any of the batch's lines is written (blob.h);
 * its line is the reference to it.  -1 when refused (too long) or not
 * written. */
static int
encode_blob(struct tmq_phalf *h, struct tmq_prec *r, const unsigned char *key,
    const struct tmq_payload *pl, double ts, const char *tname,
    struct tmq_error *e)
{
	const struct tmq_topic *t = h->p->topic;
	struct tmq_blobref br;
	struct tmq_payload ref;
	char json[TMQ_BLOB_REF_MAX];
	int bt = tmq_topic_type_index(t, TMQ_BLOB_TYPE);

	if (pl->len > t->max_message)
		return tmq_fail(e, "payload of %zu bytes, over the topic's "
		    "max_message (%zu bytes)", pl->len, t->max_message);
	if (bt < 0)
		return tmq_fail(e, "no type '%s' in the topic's definition, "
		    "which blob references need", TMQ_BLOB_TYPE);
	memset(&br, 0, sizeof br);
	br.size = pl->len;
	br.kind = pl->type;
	if (pl->type == TMQ_TYPED)
		snprintf(br.type, sizeof br.type, "%s", tname != NULL ? tname :
		    "");
	tmq_blob_hash(pl->data, pl->len, br.hash);
	if (tmq_blob_stage(&h->blobs, &br, pl->data, (size_t)(r - h->p->recs),
	    e) < 0) {
		r->write_failed = 1;
		return -1;
	}
	ref.type = TMQ_TYPED;
	ref.type_index = (unsigned)bt;
	ref.data = (const unsigned char *)json;
	ref.len = tmq_blob_ref_json(&br, json);
	return encode_line(h, r, key, &ref, ts, e);
}

/* Check a payload and encode its line into h's output (ts < 0: now).
 * A typed payload must be strict JSON unless it is a copy (copy: the
 * stored text of a message, given back by tmq-put -J).  utf8: the
 * payload is known to be UTF-8 (it comes from a JSON line that a strict
 * check passed: a string of it decoded, or its text).  -1 when
 * refused. */
static int
encode_payload(struct tmq_phalf *h, struct tmq_prec *r,
    const unsigned char *key, const struct tmq_payload *pl, double ts,
    const char *how, const char *tname, int copy, int utf8,
    struct tmq_error *e)
{
	const struct tmq_topic *t = h->p->topic;
	size_t n = pl->len;

	if (pl->type == TMQ_TEXT && !utf8 && !tmq_utf8_valid(pl->data, n))
		return tmq_fail(e, "text is not valid UTF-8 (use -b for bytes)");
	if (pl->type == TMQ_TYPED && !utf8 && !tmq_utf8_valid(pl->data, n))
		return tmq_fail(e, "JSON is not valid UTF-8 (%s %s)", how, tname);
	/* Nothing but JSON goes in: not the NaN, Infinity and lone
	 * surrogate escapes that JSON tools downstream refuse.  A copy is the
	 * exception: the TwainMQ library may have written them, the reader
	 * took them, and a restore must give back what was there. */
	if (pl->type == TMQ_TYPED) {
		int rc = tmq_json_check(pl->data, n, copy ? TMQ_JSON_LIBRARY :
		    TMQ_JSON_RFC8259, TMQ_JSON_PAYLOAD_DEPTH, NULL, e);

		if (rc == TMQ_JSON_NOT_OBJECT || rc == TMQ_JSON_CUT ||
		    (rc < 0 && copy))
			return tmq_fail(e, "not a JSON object (%s %s)", how,
			    tname);
		if (rc < 0)
			return tmq_fail_prefix(e, "not strict JSON (%s %s)", how,
			    tname);
	}
	/* A blob reference is made here, never given: one copied from
	 * another topic (tmq-get --no-resolve -J) would name a file that is
	 * not in this one. */
	if (tmq_blob_is_ref(t, pl))
		return tmq_fail(e, "type '%s' is tmq's own (blob references "
		    "are made by tmq-put, not given)", TMQ_BLOB_TYPE);
	if (t->max_message > 0 && pl->len > TMQ_BLOB_DIRECT)
		return encode_blob(h, r, key, pl, ts, tname, e);
	if (encode_line(h, r, key, pl, ts, e) < 0) {
		if (t->max_message > 0 && e->code == TMQ_ERR_TOOLARGE)
			return encode_blob(h, r, key, pl, ts, tname, e);
		return -1;
	}
	return 0;
}

/* Check and encode one record into h's output.  -1 when refused. */
static int
encode_one(struct tmq_phalf *h, struct tmq_prec *r, struct tmq_error *e)
{
	struct tmq_producer *p = h->p;
	const struct tmq_topic *t = p->topic;
	const char *rec = p->arena + r->at;
	size_t n = r->len;
	unsigned char keybuf[TMQ_KEY_MAX_BYTES];
	const unsigned char *key = p->fixed_key;
	struct tmq_payload pl;
	struct tmq_jsonmsg jm;
	double ts = -1;

	r->partition = p->fixed_partition;
	if (p->o.json) {
		if (tmq_jsonin_parse(&h->jin, t, rec, n, &jm, e) < 0)
			return -1;
		key = jm.key;
		r->partition = p->o.have_partition ? p->o.partition :
		    tmq_partition_of(t->key_width, key, t->partitions);
		if (p->o.keep_offsets) {
			if (jm.partition != r->partition)
				return tmq_fail(e, "partition %u is not the one "
				    "its key picks in %s (%u of %u)",
				    jm.partition, t->name, r->partition,
				    t->partitions);
			if (!jm.has_ts)
				return tmq_fail(e, "no timestamp "
				    "(--keep-offsets)");
			r->offset = jm.offset;
		}
		if (p->o.keep_time || p->o.keep_offsets) {
			if (!jm.has_ts)
				return tmq_fail(e, "no timestamp (--keep-time)");
			ts = jm.ts;
		}
		pl = jm.payload;
		return encode_payload(h, r, key, &pl, ts, "type",
		    pl.type == TMQ_TYPED ?
		    t->types[pl.type_index] : NULL, jm.as_text, 1, e);
	}
	if (p->o.keydelim != NULL) {
		const char *d = find(rec, n, p->o.keydelim, p->delimlen);

		if (d == NULL)
			return tmq_fail(e, "no key (no '%s' in the record)",
			    p->o.keydelim_arg != NULL ? p->o.keydelim_arg :
			    p->o.keydelim);
		if (tmq_key_parse(t->key_width, rec, (size_t)(d - rec), keybuf,
		    e) < 0)
			return -1;
		key = keybuf;
		r->partition = p->o.have_partition ? p->o.partition :
		    tmq_partition_of(t->key_width, key, t->partitions);
		n -= (size_t)(d - rec) + p->delimlen;
		rec = d + p->delimlen;
	}
	pl.type = p->o.ptype;
	pl.type_index = p->type_index;
	pl.data = (const unsigned char *)rec;
	pl.len = n;
	return encode_payload(h, r, key, &pl, ts, "-T", p->o.type_name, 0, 0,
	    e);
}

static void
encode_half(void *arg)
{
	struct tmq_phalf *h = arg;
	struct tmq_error e;
	size_t i;

	h->outlen = 0;
	tmq_blobstage_init(&h->blobs, h->p->topic);
	for (i = h->from; i < h->to; i++) {
		struct tmq_prec *r = &h->p->recs[i];

		r->write_failed = 0;
		r->ok = encode_one(h, r, &e) == 0;
		if (!r->ok) {
			size_t m = strlen(e.msg);

			if (m >= sizeof r->err)
				m = sizeof r->err - 1;
			memcpy(r->err, e.msg, m);
			r->err[m] = '\0';
		}
	}
}

static int
flush_appender(void *arg, struct tmq_error *e)
{
	struct tmq_producer *p = arg;

	return tmq_appender_pending(&p->app) > 0 ?
	    tmq_appender_flush(&p->app, e) : 0;
}

/* After a failed write: e's message, then what was written (producer.h).
 * first is the first record not handed to the appender; of those it
 * holds, a failed flush says what it lost, and otherwise (out of memory)
 * all it holds are lost.  Nothing more is written. */
static int
fail_written(struct tmq_producer *p, unsigned long first,
    struct tmq_error *e)
{
	const struct tmq_app_lost *lost = &p->app.lost;
	const char *w = p->o.what != NULL ? p->o.what : "record";
	char said[400], parts[64];
	size_t n, m;
	unsigned i;

	p->failed = 1;
	if (lost->lost != 0 && lost->lost < first)
		first = lost->lost;
	else if (lost->lost == 0 && p->app.nlines > 0 &&
	    p->app.lines[0].seq < first)
		first = p->app.lines[0].seq;
	if (first <= 1)
		snprintf(said, sizeof said, "no %s was written", w);
	else if (first == 2)
		snprintf(said, sizeof said, "%s 1 was written%s, %s 2 and "
		    "later were not", w, p->refused_last != 0 ? " or refused" :
		    "", w);
	else
		snprintf(said, sizeof said, "%ss 1 to %lu were written%s, %s "
		    "%lu and later were not", w, first - 1,
		    p->refused_last != 0 && p->refused_last < first ?
		    " (but those refused)" : "", w, first);
	if (lost->lost != 0 && lost->beyond > 0) {
		unsigned shown[TMQ_APP_SHOW_PARTS], ns, j, x;

		/* The first few partitions found, in their order. */
		ns = lost->nbeyond_parts < TMQ_APP_SHOW_PARTS ?
		    lost->nbeyond_parts : TMQ_APP_SHOW_PARTS;
		for (i = 0; i < ns; i++) {
			x = lost->beyond_parts[i];
			for (j = i; j > 0 && shown[j - 1] > x; j--)
				shown[j] = shown[j - 1];
			shown[j] = x;
		}
		m = 0;
		parts[0] = '\0';
		for (i = 0; i < ns; i++)
			m += (size_t)snprintf(parts + m, sizeof parts - m,
			    "%s%u", i == 0 ? "" : i + 1 == lost->nbeyond_parts ?
			    " and " : ", ", shown[i]);
		if (lost->nbeyond_parts > TMQ_APP_SHOW_PARTS)
			snprintf(parts + m, sizeof parts - m, " and %u more",
			    lost->nbeyond_parts - TMQ_APP_SHOW_PARTS);
		n = strlen(said);
		snprintf(said + n, sizeof said - n, " but for %lu of %lu to %lu, "
		    "in partition%s %s (a batch cut short)", lost->beyond,
		    first + 1, lost->beyond_last, lost->nbeyond_parts > 1 ?
		    "s" : "", parts);
	}
	/* Written, but the fdatasync that was to make them durable failed:
	 * they may not be on disk (after a failed fdatasync the kernel may
	 * have dropped them from its cache as well). */
	if (lost->undurable_first != 0) {
		n = strlen(said);
		if (lost->undurable_first == lost->undurable_last)
			snprintf(said + n, sizeof said - n, "; %s %lu may "
			    "not be durable (fdatasync failed)", w,
			    lost->undurable_first);
		else
			snprintf(said + n, sizeof said - n, "; %ss %lu to %lu "
			    "may not be durable (fdatasync failed)", w,
			    lost->undurable_first, lost->undurable_last);
	}
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof e->msg - n, "; %s", said);
	return -1;
}

/* The batch's blobs made durable and put in place, before any of its
 * lines is written: a blob that fails fails its record as one that could
 * not be written, and none after it is landed. */
static void
land_blobs(struct tmq_producer *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct tmq_blobstage *s = &p->half[i].blobs;
		struct tmq_prec *r;

		if (i == 1 && p->half[0].blobs.failed)
			tmq_blobs_drop(s);
		else
			(void)tmq_blobs_land(s);
		if (!s->failed)
			continue;
		r = &p->recs[s->failed_tag];
		r->ok = 0;
		r->write_failed = 1;
		snprintf(r->err, sizeof r->err, "%s", s->err.msg);
	}
}

/* Encode the batch, then queue its lines in input order. */
static int
process(struct tmq_producer *p, struct tmq_error *e)
{
	size_t n = p->nrecs, mid, i;

	if (n == 0)
		return 0;
	mid = n >= SPLIT_MIN ? n / 2 : n;
	p->half[0].from = 0;
	p->half[0].to = mid;
	p->half[1].from = mid;
	p->half[1].to = n;
	if (mid < n)
		tmq_par_run(&p->par, encode_half, &p->half[1], &p->half[0]);
	else
		encode_half(&p->half[0]);
	land_blobs(p);
	p->nrecs = 0;
	p->arena_len = 0;
	for (i = 0; i < n; i++) {
		struct tmq_prec *r = &p->recs[i];
		const struct tmq_phalf *h = &p->half[i < mid ? 0 : 1];

		/* A blob that could not be written is the disk's failure, not
		 * the record's: the put ends there, as at a failed append,
		 * what came before it written first. */
		if (!r->ok && r->write_failed) {
			struct tmq_error fe;

			tmq_fail(e, "%s", r->err);
			if (flush_appender(p, &fe) < 0)
				*e = fe;
			return fail_written(p, r->seq, e);
		}
		if (!r->ok) {
			p->refused_last = r->seq;
			if (p->o.reject != NULL)
				p->o.reject(p->o.arg, r->recno, r->err);
			continue;
		}
		if (p->o.keep_offsets) {
			struct tmq_error re;
			int rc = tmq_offcopy_place(&p->oc, r->partition,
			    r->offset, h->out + r->line_at, r->line_len,
			    flush_appender, p, &re);

			if (rc < 0) {
				*e = re;
				return fail_written(p, r->seq, e);
			}
			if (rc == TMQ_OFF_SKIP)
				p->skipped++;
			if (rc == TMQ_OFF_REFUSE) {
				p->refused_last = r->seq;
				if (p->o.reject != NULL)
					p->o.reject(p->o.arg, r->recno, re.msg);
			}
			if (rc == TMQ_OFF_BEGIN)
				tmq_appender_begin_at(&p->app, r->partition,
				    r->offset);
			else if (rc != TMQ_OFF_APPEND)
				continue;
		}
		if (tmq_appender_add_rec(&p->app, r->partition,
		    h->out + r->line_at, r->line_len, r->seq, e) < 0)
			return fail_written(p, r->seq, e);
		p->written++;
	}
	return 0;
}

int
tmq_producer_put(struct tmq_producer *p, const char *rec, size_t n,
    unsigned long recno, struct tmq_error *e)
{
	struct tmq_prec *r;

	if (p->failed)
		return tmq_fail(e, "%s: nothing more is written after a failed "
		    "write", p->topic->name);
	if (p->nrecs == BATCH_RECS || (p->nrecs > 0 && p->arena_len + n >
	    (n > TMQ_LINE_MAX ? BATCH_BLOB_BYTES : BATCH_BYTES)))
		if (process(p, e) < 0)
			return -1;
	if (tmq_grow(&p->arena, &p->arena_cap, p->arena_len + n, 1) < 0)
		return tmq_fail(e, "out of memory");
	if (n > 0)	/* an empty record may come before any arena */
		memcpy(p->arena + p->arena_len, rec, n);
	r = &p->recs[p->nrecs++];
	r->at = p->arena_len;
	r->len = n;
	r->recno = recno;
	r->seq = ++p->seq;
	p->arena_len += n;
	return 0;
}

void
tmq_producer_skip(struct tmq_producer *p)
{
	p->refused_last = ++p->seq;
}

int
tmq_producer_flush(struct tmq_producer *p, struct tmq_error *e)
{
	if (p->failed)
		return tmq_fail(e, "%s: nothing more is written after a failed "
		    "write", p->topic->name);
	if (process(p, e) < 0)
		return -1;
	if (tmq_appender_flush(&p->app, e) < 0)
		return fail_written(p, p->seq + 1, e);
	return 0;
}

int
tmq_producer_stop(struct tmq_producer *p, struct tmq_error *e)
{
	if (p->failed || tmq_producer_flush(p, e) < 0)
		return -1;
	tmq_fail(e, "%s: interrupted", p->topic->name);
	return fail_written(p, p->seq + 1, e);
}

int
tmq_producer_pending(const struct tmq_producer *p)
{
	return p->nrecs > 0 || tmq_appender_pending(&p->app) > 0;
}

void
tmq_producer_close(struct tmq_producer *p)
{
	int i;

	tmq_par_free(&p->par);
	tmq_appender_close(&p->app);
	if (p->oc.parts != NULL)
		tmq_offcopy_free(&p->oc);
	for (i = 0; i < 2; i++) {
		tmq_blobs_drop(&p->half[i].blobs);
		if (p->half[i].ready)
			tmq_codec_free(&p->half[i].codec);
		tmq_jsonin_free(&p->half[i].jin);
		free(p->half[i].out);
	}
	free(p->recs);
	free(p->arena);
	memset(p, 0, sizeof *p);
	for (i = 0; i < 2; i++)		/* (holding no descriptor) */
		tmq_blobstage_init(&p->half[i].blobs, NULL);
}
