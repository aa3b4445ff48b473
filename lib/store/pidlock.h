/* pidlock.h: a lock file held for as long as a process runs, saying who
 * holds it.
 *
 * One process at a time may do a thing (follow a file into a topic): it
 * holds an open file description lock (F_OFD_SETLK, the kernel's, or a
 * network file system's server's) on DIR/NAME for as long as it runs, and
 * the kernel drops it when the process ends, however it ends (SIGKILL
 * too).  The file is made and locked under a temporary name, its holder's
 * pid and host written inside, then renamed into place without replacing
 * (replace.h, nq's habit): whoever finds the name finds it locked.  A file
 * left by a process that died is taken over, locked where it is.  The pid
 * inside is a hint for messages, written by whoever held it last (a
 * co-user may write anything there): the lock is the truth. */
#ifndef TMQ_PIDLOCK_H
#define TMQ_PIDLOCK_H

#include <stddef.h>

#include "util/error.h"

/* Take the lock on name in dirfd without waiting: 0 and *fd held; 1 when
 * another process holds it, holder then saying who as the file says
 * ("pid 123", "pid 123 on HOST", or "" when it does not say); -1 with e
 * set (naming shown): no locks on this file system, or a failure. */
int tmq_pidlock_take(int dirfd, const char *name, const char *shown, int *fd,
    char *holder, size_t holdersz, struct tmq_error *e);
/* Let go: name removed while we still hold it (so that nobody locks a
 * file no longer under its name), then fd closed. */
void tmq_pidlock_drop(int dirfd, const char *name, int fd);

#endif
