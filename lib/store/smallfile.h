/* smallfile.h: small files of tmq's own in a root (a group's recorded
 * topic, tmq-put --follow's state), read whole.
 *
 * Read as any file of a root is: only a regular file, not through a link,
 * never blocking (a FIFO), and no larger than what the caller would ever
 * write; what it holds is the caller's to check as strictly as a message.
 * Writing them is another concern, replace.h's (tmq_write_replace), as
 * for every file put in place whole: a reader finds the old file or the
 * new one, never a mix, whenever the writer is killed. */
#ifndef TMQ_SMALLFILE_H
#define TMQ_SMALLFILE_H

#include <stddef.h>
#include <sys/stat.h>

#include "util/error.h"

/* Read dirfd/name whole into buf (at most max bytes; buf has max + 1, and
 * what is read is NUL-terminated): 1 read, with *n its length; 0 when
 * there is no such file; -1 when it is there but is not what we write (a
 * FIFO, a link, longer than max) or cannot be read: e says why, naming
 * shown. */
int tmq_small_read(int dirfd, const char *name, const char *shown, char *buf,
    size_t max, size_t *n, struct tmq_error *e);
/* The same, and *st what fstat said of the file read (its owner and
 * modes: who may have written it). */
int tmq_small_read_st(int dirfd, const char *name, const char *shown,
    char *buf, size_t max, size_t *n, struct stat *st, struct tmq_error *e);

#endif
