/* offsetcopy.c: a copy that keeps offsets (see offsetcopy.h).
 *
 * A rerun after a kill starts where the copy's ends are (tmq-get --from
 * with tmq-topic info --ends), so reading back is rare: the records of a
 * batch that landed before the kill, or a whole backup given again.  Each
 * partition's reader is opened when first needed and read forward, so a
 * backup given twice costs one pass over what is stored. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/directread.h"
#include "codec/keys.h"
#include "util/notice.h"
#include "flow/offsetcopy.h"
#include "store/partscan.h"
#include "codec/timestamp.h"

int
tmq_offcopy_init(struct tmq_offcopy *oc, const struct tmq_topic *t,
    struct tmq_error *e)
{
	memset(oc, 0, sizeof *oc);
	oc->t = t;
	oc->parts = calloc(t->partitions, sizeof *oc->parts);
	if (oc->parts == NULL)
		return tmq_fail(e, "out of memory");
	return 0;
}

static const char *
type_name(const struct tmq_topic *t, const struct tmq_payload *p)
{
	if (p->type == TMQ_TEXT)
		return "str";
	if (p->type == TMQ_BYTES)
		return "bytes";
	return p->type_index < t->ntypes && t->types[p->type_index] != NULL ?
	    t->types[p->type_index] : "?";
}

/* Say how the stored message s and the record's r differ, naming both;
 * 0 when they do not. */
static int
differ(const struct tmq_topic *t, const struct tmq_msg *s,
    const struct tmq_msg *r, unsigned partition, uint64_t offset,
    struct tmq_error *e)
{
	char a[TMQ_KEY_MAX_BYTES + 21], b[TMQ_KEY_MAX_BYTES + 21];
	size_t kb = tmq_key_bytes(t->key_width), n;

	if (memcmp(s->key, r->key, kb) != 0) {
		n = tmq_key_format(t->key_width, s->key, a);
		a[n] = '\0';
		n = tmq_key_format(t->key_width, r->key, b);
		b[n] = '\0';
		return tmq_fail(e, "partition %u offset %llu holds another "
		    "message: key '%.60s' there, '%.60s' in the record",
		    partition, (unsigned long long)offset, a, b);
	}
	if (s->ts != r->ts) {
		tmq_ts_repr(s->ts, a, sizeof a);
		tmq_ts_repr(r->ts, b, sizeof b);
		return tmq_fail(e, "partition %u offset %llu holds another "
		    "message: timestamp %s there, %s in the record", partition,
		    (unsigned long long)offset, a, b);
	}
	if (s->payload.type != r->payload.type ||
	    (s->payload.type == TMQ_TYPED &&
	    s->payload.type_index != r->payload.type_index))
		return tmq_fail(e, "partition %u offset %llu holds another "
		    "message: type %s there, %s in the record", partition,
		    (unsigned long long)offset, type_name(t, &s->payload),
		    type_name(t, &r->payload));
	for (n = 0; n < s->payload.len && n < r->payload.len &&
	    s->payload.data[n] == r->payload.data[n]; n++)
		;
	if (n < s->payload.len || n < r->payload.len)
		return tmq_fail(e, "partition %u offset %llu holds another "
		    "message: the payloads differ from byte %zu (%zu bytes "
		    "there, %zu in the record)", partition,
		    (unsigned long long)offset, n, s->payload.len,
		    r->payload.len);
	return 0;
}

/* Compare the line stored at offset with ours: TMQ_OFF_SKIP when they are
 * one message (or the stored one was pruned), TMQ_OFF_REFUSE when not. */
static int
compare(struct tmq_offcopy *oc, unsigned partition, uint64_t offset,
    const char *line, size_t n, struct tmq_error *e)
{
	const struct tmq_topic *t = oc->t;
	struct tmq_offpart *op = &oc->parts[partition];
	struct tmq_msg sm, rm;
	struct tmq_line l;
	uint64_t gap_to;
	int rc;

	if (!oc->codecs) {
		if (tmq_codec_init(&oc->stored, e) < 0)
			return -1;
		if (tmq_codec_init(&oc->ours, e) < 0) {
			tmq_codec_free(&oc->stored);
			return -1;
		}
		oc->codecs = 1;
	}
	if (op->lr == NULL) {
		if ((op->lr = calloc(1, sizeof *op->lr)) == NULL)
			return tmq_fail(e, "out of memory");
		if (tmq_lr_open(op->lr, t, partition, t->key_width,
		    e) < 0) {
			free(op->lr);
			op->lr = NULL;
			return tmq_fail_prefix(e, "%s", t->name);
		}
	}
	if (tmq_lr_offset(op->lr) != offset) {
		if (tmq_lr_seek(op->lr, offset, &gap_to, e) < 0)
			return tmq_fail_prefix(e, "%s", t->name);
		if (gap_to > offset)	/* pruned: it was there */
			return TMQ_OFF_SKIP;
	}
	rc = tmq_lr_next(op->lr, &l, e);
	if (rc < 0)
		return tmq_fail_prefix(e, "%s", t->name);
	if (rc == 0 || l.offset != offset)
		return tmq_fail(e, "%s: partition %u offset %llu: not found "
		    "below the end (%llu)", t->name, partition,
		    (unsigned long long)offset, (unsigned long long)op->end);
	if (l.problem != NULL) {
		tmq_fail(e, "partition %u offset %llu holds a corrupt line (%s)",
		    partition, (unsigned long long)offset, l.problem);
		return TMQ_OFF_REFUSE;
	}
	if (tmq_line_decode(&oc->stored, t->key_width, t->ntypes, l.p, l.n,
	    &sm, e) < 0) {
		tmq_fail_prefix(e, "partition %u offset %llu holds a line that "
		    "does not decode", partition, (unsigned long long)offset);
		return TMQ_OFF_REFUSE;
	}
	if (tmq_line_decode(&oc->ours, t->key_width, t->ntypes, line, n - 1,
	    &rm, e) < 0)
		return -1;	/* (ours: the producer's bug) */
	return differ(t, &sm, &rm, partition, offset, e) < 0 ?
	    TMQ_OFF_REFUSE : TMQ_OFF_SKIP;
}

/* The partition ends in a cut line (op->tail): 1 when it is the start of
 * line[0..n), the record at its offset (this copy's own write of it, cut
 * short), 0 (e set) when not, -1 when it cannot be read. */
static int
own_cut(struct tmq_offcopy *oc, unsigned partition, const char *line,
    size_t n, struct tmq_error *e)
{
	const struct tmq_topic *t = oc->t;
	const struct tmq_ptail *tl = &oc->parts[partition].tail;
	off_t start;
	size_t cut;
	char *buf;
	int fd, how, own = 0;

	fd = tmq_dr_openat(t->dirfd, tl->name, &how, e);
	if (fd < 0)
		return tmq_fail_prefix(e, "%s: partition %u", t->name,
		    partition);
	if (tmq_dr_line_start(fd, how, (off_t)tl->size, &start) < 0) {
		tmq_fail_errno(e, "%s: partition %u: %s", t->name, partition,
		    tl->name);
		close(fd);
		return -1;
	}
	cut = (size_t)((off_t)tl->size - start);
	if (cut < n) {
		if ((buf = malloc(cut > 0 ? cut : 1)) == NULL) {
			close(fd);
			return tmq_fail(e, "out of memory");
		}
		own = tmq_dr_pread(fd, how, buf, cut, start) == (ssize_t)cut &&
		    memcmp(buf, line, cut) == 0;
		free(buf);
	}
	close(fd);
	if (own)
		return 1;
	tmq_fail(e, "partition %u: %s ends in a cut line (%zu bytes from "
	    "byte %lld) that is not the start of the record at its offset: "
	    "nothing more is written to it; if nothing else writes there, cut "
	    "it off (truncate -s %lld %s/%s, in the root) and run again",
	    partition, tl->name, cut, (long long)start, (long long)start,
	    t->name, tl->name);
	return 0;
}

int
tmq_offcopy_place(struct tmq_offcopy *oc, unsigned partition,
    uint64_t offset, const char *line, size_t n,
    int (*flush)(void *, struct tmq_error *), void *arg, struct tmq_error *e)
{
	struct tmq_offpart *op = &oc->parts[partition];
	int rc;

	if (op->stopped) {
		op->held++;
		return TMQ_OFF_HELD;
	}
	if (!op->known) {
		if (tmq_partition_tail(oc->t, partition, &op->end, &op->tail,
		    e) < 0)
			return tmq_fail_prefix(e, "%s", oc->t->name);
		op->known = 1;
		op->nofile = op->end == 0 && !op->tail.cut;
	}
	if (offset == op->end) {
		if (op->tail.cut) {
			op->tail.cut = 0;
			if ((rc = own_cut(oc, partition, line, n, e)) < 0)
				return -1;
			if (rc == 0) {
				op->stopped = 1;
				op->stopped_at = offset;
				return TMQ_OFF_REFUSE;
			}
		}
		op->nofile = 0;
		op->end++;
		return TMQ_OFF_APPEND;
	}
	/* A partition that holds no line may begin anywhere (a file's name
	 * holds its first offset; prune leaves partitions that begin past
	 * 0): the copy is exact from there. */
	if (offset > op->end && op->nofile) {
		op->nofile = 0;
		op->end = offset + 1;
		tmq_notice("%s: partition %u held no message: it begins at "
		    "offset %llu, its first record's (exact from there)",
		    oc->t->name, partition, (unsigned long long)offset);
		return TMQ_OFF_BEGIN;
	}
	if (offset > op->end) {
		op->stopped = 1;
		op->stopped_at = offset;
		return tmq_fail(e, "partition %u offset %llu would leave a gap "
		    "after its end (%llu): nothing more is written to it",
		    partition, (unsigned long long)offset,
		    (unsigned long long)op->end), TMQ_OFF_REFUSE;
	}
	/* Below the end: what this copy queued must be on disk to be read
	 * back. */
	if (flush(arg, e) < 0)
		return -1;
	rc = compare(oc, partition, offset, line, n, e);
	if (rc == TMQ_OFF_REFUSE) {
		char why[sizeof e->msg];

		op->stopped = 1;
		op->stopped_at = offset;
		memcpy(why, e->msg, sizeof why);
		tmq_fail(e, "%.400s: nothing more is written to it", why);
	}
	return rc;
}

void
tmq_offcopy_free(struct tmq_offcopy *oc)
{
	unsigned p;

	if (oc->parts != NULL)
		for (p = 0; p < oc->t->partitions; p++)
			if (oc->parts[p].lr != NULL) {
				tmq_lr_close(oc->parts[p].lr);
				free(oc->parts[p].lr);
			}
	free(oc->parts);
	if (oc->codecs) {
		tmq_codec_free(&oc->stored);
		tmq_codec_free(&oc->ours);
	}
	memset(oc, 0, sizeof *oc);
}
