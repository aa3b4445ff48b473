/* filelock.h: whole-file locks that hold between machines.
 *
 * Open file description locks (F_OFD_SETLKW): NFS and GlusterFS carry them
 * to the server like POSIX fcntl locks, and unlike those they belong to
 * the open file, so closing another descriptor of the same file in this
 * process does not drop them.  Producers on a shared filesystem hold one
 * exclusively around each append (appender.c); readers there hold one
 * shared around each read (directread.c).  The topic's directory is held
 * with flock(2) while a partition's file of the day is started.
 *
 * Anyone who may write to a root may take these locks too, and keep them:
 * a wait for one lasts as long as they like, so every wait here ends when
 * the tool is told to stop (tmq_stop, stop.h: SIGINT or SIGTERM).  Once
 * told, a lock is waited for TMQ_STOP_LOCK_MS at most (a member leaving
 * its group writes once more, and an honest writer holds a lock for
 * moments), once in the process's life: after that, a busy lock is tried
 * once.  A signal more ends that wait at once. */
#ifndef TMQ_FILELOCK_H
#define TMQ_FILELOCK_H

#define TMQ_STOP_LOCK_MS 1000

/* Wait for the lock of type F_WRLCK or F_RDLCK on all of fd's file, or
 * drop it (F_UNLCK).  0, or -1 with errno set: EINTR when told to stop
 * while another held the lock. */
int tmq_file_lock(int fd, short type);
/* The same, waited for ms milliseconds at most: -1 with errno EAGAIN
 * when another still holds it then (EINTR when told to stop). */
int tmq_file_lock_for(int fd, short type, int ms);
/* flock(fd, LOCK_EX), waited for as tmq_file_lock waits. */
int tmq_flock_ex(int fd);

#endif
