/* partscan.h: a partition file's end and a partition's range, counted
 * from the file's index (partindex.h).
 *
 * What counts a file's lines (a partition's end for tmq-get -o -N and
 * now, a group member's resume, tmq-commit's check, a producer starting
 * the next day's file, and tmq-topic info and list, tmq-group describe
 * and the metrics, which want its times too) starts at the index's last
 * entry and reads only what lies past it, noting the entries it passes
 * into the index: the next count starts where this one ended.  Lines are
 * counted as the TwainMQ library counts them (a last line without its
 * newline counts), holes as the NUL bytes they read as (holes.h), and
 * the answers are those a count from the first byte gives. */
#ifndef TMQ_PARTSCAN_H
#define TMQ_PARTSCAN_H

#include <stdint.h>

#include "util/error.h"
#include "store/holes.h"
#include "store/partindex.h"
#include "store/topic.h"

#define TMQ_PSCAN_TIMES 1	/* the first and the last complete line's */
#define TMQ_PSCAN_HOLES 2	/* the file's holes, all told */
/* The count a write waits on (a producer starting the next day's file,
 * a member's last commit and its leave on its way out): a stop (tmq_stop)
 * is heeded only after TMQ_PSCAN_GRACE_MS of counting, so that a tool
 * told to stop still writes what it owes, and a file a co-user grows
 * without end cannot hold it. */
#define TMQ_PSCAN_WRITE 4
#define TMQ_PSCAN_GRACE_MS 500

struct tmq_pscan {
	uint64_t lines;		/* lines, a last one without newline too */
	int partial;		/* the last line has no newline yet */
	uint64_t size;		/* the file's end, where reading stopped */
	uint64_t after_nl;	/* the byte after the last newline (0: none) */
	uint64_t complete;	/* complete lines counted (past the entry) */
	double maxts;		/* the maxts of an entry at after_nl */
	struct tmq_holes holes;	/* TMQ_PSCAN_HOLES */
	int has_first_ts, has_last_ts;	/* TMQ_PSCAN_TIMES: set when that */
	double first_ts, last_ts;	/* line's time could be read */
};

/* Count x's file, open as fd (read as how says, directread.h) from the
 * index's last entry on, adding the entries passed to x and saving them
 * (unless nosave: the caller saves).  Leaves fd's offset at s->size.
 * 0, or -1 with errno (EINTR when told to stop: at once, or with
 * TMQ_PSCAN_WRITE after its grace). */
int tmq_pscan_file(struct tmq_pidx *x, int fd, int how, unsigned flags,
    int nosave, struct tmq_pscan *s);

/* The end offset of a partition: the offset the next complete line will
 * take (a partial last line is not counted: it is still being written);
 * and its first offset still on disk (both 0 when it has no file). */
int tmq_partition_end(const struct tmq_topic *t, unsigned partition,
    uint64_t *end, struct tmq_error *e);
int tmq_partition_range(const struct tmq_topic *t, unsigned partition,
    uint64_t *first, uint64_t *end, struct tmq_error *e);
/* The end, as tmq_partition_end, and whether the last file ends in a cut
 * line (or one being written): then cut is set, with the file's name and
 * size. */
struct tmq_ptail {
	int cut;
	char name[64];
	uint64_t size;
};
int tmq_partition_tail(const struct tmq_topic *t, unsigned partition,
    uint64_t *end, struct tmq_ptail *tail, struct tmq_error *e);

#endif
