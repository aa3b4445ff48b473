/* filelock.h: whole-file locks that hold between machines.
 *
 * Open file description locks (F_OFD_SETLKW): NFS and GlusterFS carry them
 * to the server like POSIX fcntl locks, and unlike those they belong to
 * the open file, so closing another descriptor of the same file in this
 * process does not drop them.  Producers on a shared filesystem hold one
 * exclusively around each append (appender.c); readers there hold one
 * shared around each read (directread.c). */
#ifndef TMQ_FILELOCK_H
#define TMQ_FILELOCK_H

/* Wait for the lock of type F_WRLCK or F_RDLCK on all of fd's file, or
 * drop it (F_UNLCK).  0, or -1 with errno set. */
int tmq_file_lock(int fd, short type);

#endif
