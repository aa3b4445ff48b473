/* topicstat.h: what is in a topic's files: offsets, sizes, time span. */
#ifndef TMQ_TOPICSTAT_H
#define TMQ_TOPICSTAT_H

#include <stdint.h>

#include "store/holes.h"
#include "store/partfile.h"
#include "store/topic.h"

struct tmq_filestat {
	struct tmq_pfile pf;
	uint64_t end;		/* one past the last complete line */
	int partial;		/* a last line without its newline follows:
				 * it takes offset end all the same */
	uint64_t bytes;
	/* The times of the first and the last complete line, each set only
	 * when that line's time could be read. */
	int has_first_ts, has_last_ts;
	double first_ts, last_ts;
	struct tmq_holes holes;	/* skipped, not read (holes.h) */
};

struct tmq_partstat {
	unsigned partition;
	uint64_t first, end;	/* first offset still on disk, end offset */
	uint64_t bytes;
	struct tmq_filestat *files;
	size_t nfiles;
	char *problem;		/* tmq_topic_stat_each: why it could not be
				 * read, or why its files cannot be right
				 * (they do not chain: tmq_pfiles_chain);
				 * its figures are then 0; or NULL */
	char *damage;		/* "TOPIC: partition P: FILE: N bytes of holes
				 * at byte X skipped" when its files have
				 * holes (its figures stand), or NULL */
};

/* Stats of every partition of t (array of t->partitions); a partition
 * that cannot be read fails the whole. */
int tmq_topic_stat(const struct tmq_topic *t, struct tmq_partstat **out,
    struct tmq_error *e);
/* The same for showing: a partition that cannot be read (a planted FIFO,
 * a corrupt file) gets a problem, with "TOPIC: " before it, and the others
 * are counted.  Returns the number of such partitions, or -1.  (Both set
 * damage, for the caller to say.) */
int tmq_topic_stat_each(const struct tmq_topic *t, struct tmq_partstat **out,
    struct tmq_error *e);
void tmq_topic_stat_free(struct tmq_partstat *ps, unsigned n);
/* The messages still on disk (end - first) and the bytes of n partitions'
 * stats, summed. */
void tmq_topic_stat_sum(const struct tmq_partstat *ps, unsigned n,
    uint64_t *msgs, uint64_t *bytes);

#endif
