/* regfile.h: opening the files of a root that must be regular files
 * (partition files, definitions).
 *
 * Anyone who can write to a root can put a FIFO, a device node, a
 * directory or a symbolic link where a partition file or a definition
 * belongs.  A FIFO blocks open and read for ever, a device may never end
 * (or swallow what is written), a link leads out of the root: each is
 * refused here, with a message that says what was found. */
#ifndef TMQ_REGFILE_H
#define TMQ_REGFILE_H

#include <sys/types.h>

#include "error.h"

/* openat(dirfd, name, flags, mode) with O_NOFOLLOW, O_NONBLOCK and
 * O_CLOEXEC added, for a regular file only: the file descriptor, or -1
 * with e set to "NAME: not a regular file (a FIFO)", "NAME: a symbolic
 * link", or "NAME: " and the system's message (errno is kept).  Nothing
 * else is ever opened: a name that is not a regular file already is
 * refused before open, and what open found is checked again with fstat. */
int tmq_open_regular(int dirfd, const char *name, int flags, mode_t mode,
    struct tmq_error *e);

#endif
