/* regfile.h: opening the files of a root that must be regular files
 * (partition files, definitions, members' lock files, the group lock) and
 * the directories that must be directories (.tmq).
 *
 * Anyone who can write to a root can put a FIFO, a device node, a socket,
 * a directory or a symbolic link where a partition file, a definition or
 * a lock file belongs.  A FIFO blocks open and read for ever, a device may
 * never end (or swallow what is written), a link leads out of the root:
 * each is refused here, with a message that says what was found.  Every
 * file tmq opens in a root is opened here (snapshots by the equivalent in
 * groupsnapfile.c); what tmq creates anew there is made with O_EXCL, which
 * never opens what is already there. */
#ifndef TMQ_REGFILE_H
#define TMQ_REGFILE_H

#include <sys/types.h>

#include "util/error.h"

/* openat(dirfd, name, flags, mode) with O_NOFOLLOW, O_NONBLOCK and
 * O_CLOEXEC added, for a regular file only: the file descriptor, or -1
 * with e set to "NAME: not a regular file (a FIFO)", "NAME: a symbolic
 * link" (both TMQ_ERR_FILEKIND), or "NAME: " and the system's message
 * (TMQ_ERR_SYS; errno is kept).  Nothing
 * else is ever opened: a name that is not a regular file already is
 * refused before open, and what open found is checked again with fstat. */
int tmq_open_regular(int dirfd, const char *name, int flags, mode_t mode,
    struct tmq_error *e);
/* The same, naming the file shown (a path that says where it is, such as
 * "--group--G/.tmq/lock", already fit to print) in the messages rather
 * than name. */
int tmq_open_regular_as(int dirfd, const char *name, const char *shown,
    int flags, mode_t mode, struct tmq_error *e);
/* What a file of mode m is, for a message: "a FIFO", "a socket", ... */
const char *tmq_file_kind(mode_t m);
/* The directory name in dirfd (one component) would not open (errno
 * kept, as tmq_subdir_beneath left it): e says why, naming it shown:
 * "SHOWN is a symbolic link (not followed)", "SHOWN: not a directory (a
 * FIFO)" (TMQ_ERR_FILEKIND), or "SHOWN: " and the system's message
 * (TMQ_ERR_SYS).  Returns -1. */
int tmq_subdir_fail(int dirfd, const char *name, const char *shown,
    struct tmq_error *e);

#endif
