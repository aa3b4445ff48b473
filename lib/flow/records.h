/* records.h: splitting an input stream into records (lines, NUL-ended
 * records, or the whole stream as one), with bounded memory. */
#ifndef TMQ_RECORDS_H
#define TMQ_RECORDS_H

#include <stddef.h>

#include "util/error.h"

enum {
	TMQ_REC_EOF = 0,
	TMQ_REC_OK = 1,
	TMQ_REC_WAIT = 2,	/* nothing buffered and nothing ready to read */
	TMQ_REC_TOOLONG = 3,	/* a record over the limit was skipped */
	TMQ_REC_STOP = 4	/* told to stop (stop.h) while waiting to read */
};

struct tmq_records {
	int fd;
	int delim;		/* '\n', '\0', or -1 for the whole stream */
	size_t max;		/* longest record accepted */
	char *buf;
	size_t cap, start, end;
	int eof, skipping;
	int drained;		/* the last read took all there was */
	int regular;		/* fd is a regular file: never waited for */
	unsigned long recno;	/* number of the record last returned */
};

int tmq_records_open(struct tmq_records *r, int fd, int delim, size_t max,
    struct tmq_error *e);
void tmq_records_close(struct tmq_records *r);
/* The next record (without its delimiter); *rec is valid until the next
 * call.  With probe set, returns TMQ_REC_WAIT instead of blocking when no
 * whole record is buffered and the descriptor has nothing ready, so the
 * caller can flush what it holds before it sleeps in read(). */
int tmq_records_next(struct tmq_records *r, int probe, const char **rec,
    size_t *n, struct tmq_error *e);

#endif
