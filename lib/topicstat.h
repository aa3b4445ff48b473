/* topicstat.h: what is in a topic's files: offsets, sizes, time span. */
#ifndef TMQ_TOPICSTAT_H
#define TMQ_TOPICSTAT_H

#include <stdint.h>

#include "partfile.h"
#include "topic.h"

struct tmq_filestat {
	struct tmq_pfile pf;
	uint64_t end;		/* one past the last complete line */
	uint64_t bytes;
	/* The times of the first and the last complete line, each set only
	 * when that line's time could be read. */
	int has_first_ts, has_last_ts;
	double first_ts, last_ts;
};

struct tmq_partstat {
	unsigned partition;
	uint64_t first, end;	/* first offset still on disk, end offset */
	uint64_t bytes;
	struct tmq_filestat *files;
	size_t nfiles;
};

/* Stats of every partition of t (array of t->partitions). */
int tmq_topic_stat(const struct tmq_topic *t, struct tmq_partstat **out,
    struct tmq_error *e);
void tmq_topic_stat_free(struct tmq_partstat *ps, unsigned n);

#endif
