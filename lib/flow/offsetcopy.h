/* offsetcopy.h: tmq-put -J --keep-offsets, a copy that keeps each record's
 * partition and offset, so that it can be rerun after any kill, or given
 * the same records twice, and still end exactly as its source.
 *
 * For each record, against its partition's end in the topic (what is on
 * disk when the partition is first met, then what this copy added):
 * below the end, it must be the message stored there (key, time, type and
 * payload equal) and is skipped, or, when that offset was pruned, skipped
 * unseen; at the end, it is appended; past the end, it would leave a gap.
 * A gap or a differing message stops the partition: nothing more is
 * written to it, and what is held back is counted.  The copy must be the
 * partition's only writer while it runs: it counts what it appends. */
#ifndef TMQ_OFFSETCOPY_H
#define TMQ_OFFSETCOPY_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "store/linereader.h"
#include "codec/message.h"
#include "store/partscan.h"
#include "store/topic.h"

enum tmq_offplace {
	TMQ_OFF_APPEND,		/* at the end: append it */
	TMQ_OFF_SKIP,		/* stored there already: skip it */
	TMQ_OFF_REFUSE,		/* a gap or another message: e says; the
				 * partition is stopped */
	TMQ_OFF_HELD,		/* the partition was stopped before */
	TMQ_OFF_BEGIN		/* the first of a partition that holds no
				 * line: append it, its file starting at its
				 * offset (tmq_appender_begin_at) */
};

struct tmq_offpart {
	uint64_t end;			/* where the next line goes */
	uint64_t held;			/* records not written after a stop */
	uint64_t stopped_at;		/* the offset that stopped it */
	int known, stopped;
	int nofile;			/* it holds no line: none met yet */
	struct tmq_ptail tail;		/* a cut line at its end, when met */
	struct tmq_linereader *lr;	/* reading back, when asked to */
};

struct tmq_offcopy {
	const struct tmq_topic *t;
	struct tmq_offpart *parts;
	struct tmq_codec stored, ours;	/* decoding both, to compare */
	int codecs;
};

int tmq_offcopy_init(struct tmq_offcopy *oc, const struct tmq_topic *t,
    struct tmq_error *e);
/* Where the record for partition at offset, encoded as line[0..n) (newline
 * included), goes.  Before reading a line back, flush (with arg) is called
 * when the partition holds lines not yet written, so that they can be read.
 * -1 on an error that is not the record's (reading the partition). */
int tmq_offcopy_place(struct tmq_offcopy *oc, unsigned partition,
    uint64_t offset, const char *line, size_t n,
    int (*flush)(void *, struct tmq_error *), void *arg, struct tmq_error *e);
void tmq_offcopy_free(struct tmq_offcopy *oc);

#endif
