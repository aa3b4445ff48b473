/* directread.h: reading files that other machines append to.
 *
 * A shared filesystem's client caches pages and file sizes.  On GlusterFS
 * (FUSE) a client even puts its own O_APPEND writes into its page cache at
 * its own, stale, end of file while the server appends them at the real
 * end, so a plain read() on that client returns lines in the wrong places
 * (see tmq(7), Shared file systems).  Where the file lives on a network or
 * FUSE filesystem we therefore open it O_DIRECT and read aligned blocks
 * with pread(), keeping the position in the descriptor's file offset as a
 * plain read() would.  Such a read takes no lock: a reader stopped (or
 * hung, or on a frozen machine) must never hold up a producer.  It needs
 * none, because a producer there writes through a descriptor opened
 * O_DSYNC (appender.c), which GlusterFS's write-behind passes straight to
 * the server: no client holds a write the server has not got, so a
 * direct read returns what the server holds, and a line being appended
 * shows as a short last line, as on a local disk.  Elsewhere all this is
 * a plain read().
 * TMQ_READ=direct or =cached forces one way. */
#ifndef TMQ_DIRECTREAD_H
#define TMQ_DIRECTREAD_H

#include <stdint.h>
#include <sys/types.h>

#include "util/error.h"
#include "store/holes.h"

/* How a descriptor is read: bits of */
#define TMQ_DR_DIRECT 1	/* O_DIRECT: aligned reads through a bounce buffer */
#define TMQ_DR_LOCAL 2	/* a local filesystem's file: a read that came back
			 * short of what it asked reached the end as it was */
#define TMQ_DR_BINARY 4	/* set by the opener of a binary file (an index):
			 * its NUL bytes are its own, not a client's
			 * not-yet-arrived data, and are not read again */

/* Check TMQ_READ; the other calls treat a bad value as auto. */
int tmq_read_mode_check(struct tmq_error *e);
/* Whether fd's files are read as a shared filesystem's are: it is on one
 * (fstype.h), or TMQ_READ=direct says to read every root so. */
int tmq_read_as_shared(int fd);
/* *fd was opened read-only as name under dirfd (a regular file): on a
 * shared filesystem (or with TMQ_READ=direct) swap it for an O_DIRECT
 * descriptor at the same file offset.  *how gets TMQ_DR_* bits.  -1 with
 * e set when the filesystem refuses O_DIRECT: its client cache cannot be
 * bypassed, so what we would read there could be wrong (TMQ_READ=cached
 * reads anyway); *fd is then closed. */
int tmq_dr_reopen(int dirfd, const char *name, int *fd, int *how,
    struct tmq_error *e);
/* Open name under dirfd for reading (regfile.h) as tmq_dr_reopen would
 * make it, in one open: the directory's filesystem decides (its files are
 * on it). */
int tmq_dr_openat(int dirfd, const char *name, int *how, struct tmq_error *e);
/* pread, and read() from the descriptor's offset (which it advances). */
ssize_t tmq_dr_pread(int fd, int how, void *dst, size_t n, off_t pos);
ssize_t tmq_dr_read(int fd, int how, void *dst, size_t n);
/* Count the lines of the file as the TwainMQ library does (a last line with no
 * newline counts too); *partial tells whether there was one.  Holes are
 * not read (holes.h): *holes (when not NULL) sums them. */
int tmq_dr_count_lines(int fd, int how, uint64_t *lines, int *partial,
    struct tmq_holes *holes);
/* The true size of the file and its last byte (-1 when empty or not
 * readable): on a shared filesystem fstat's size can be stale, so a direct
 * descriptor is read forward to the server's end of file. */
int tmq_dr_tail(int fd, int how, off_t *size, int *last);
/* Where the last line of the file fd reads (how) begins, the file being
 * size bytes: after its last newline, or 0.  Read back a block at a time,
 * so a line's length at most. */
int tmq_dr_line_start(int fd, int how, off_t size, off_t *start);
/* tmq_dr_read that does not read holes (holes.h): returns the bytes of
 * data read, or 0 with hole->bytes set when the descriptor's offset was
 * in a hole (hole->at): the offset is then past it, at the next data or
 * the file's end; 0 with hole->bytes 0 at the end of the file; -1 on
 * error.  *sparse is the descriptor's own: zero it when the file is
 * opened.  Until a hole is met, a read costs one lseek more only when
 * what it read holds a NUL byte (honest data never does); once one was
 * (*sparse set), each read stops where the data does.  NUL bytes that are
 * no hole's, on a network or FUSE filesystem, are read again a few times
 * (about a second at most) before they count as data: its client may
 * return zeros for bytes it has not got yet (CephFS).  With unsettled not
 * NULL (a follower, which looks again at its next turn), they are neither
 * read again nor taken: the bytes before the first of them are returned
 * (0 when it is the first read), the descriptor's offset left at it, and
 * *unsettled set, for the caller to read them again later (the writer's
 * client may have flushed them by then) or to take them (unsettled NULL)
 * once they have stayed. */
ssize_t tmq_read_data(int fd, int how, int *sparse, void *dst, size_t n,
    struct tmq_holes *hole, int *unsettled);

#endif
