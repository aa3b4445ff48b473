/* output.h: an output stream that knows how much of what it wrote its
 * reader has taken.  Writing to a pipe is not handing over: the pipe holds
 * what its reader may never read.  On a pipe (FIONREAD) or a socket
 * (SIOCOUTQ) the kernel says how many written bytes are still queued; on
 * a file, a terminal or a device, written is taken. */
#ifndef TMQ_OUTPUT_H
#define TMQ_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "util/error.h"

enum tmq_outkind { TMQ_OUT_PLAIN, TMQ_OUT_PIPE, TMQ_OUT_SOCKET };

struct tmq_output {
	FILE *f;		/* write here (buffered) */
	int fd;
	enum tmq_outkind kind;
	uint64_t written;	/* bytes write(2) has accepted */
	uint64_t known;		/* taken, as last seen with the reader there */
	int interrupted;	/* stopping (tmq_stop), the reader took nothing
				 * for a while: the rest was dropped */
	int err;		/* the errno of the write that failed, or 0 */
};

/* A buffered stream over fd (not closed at the end).  A signal does not
 * make a write fail; once tmq_stop is set, the stream writes only what the
 * reader takes, and drops the rest (interrupted) when the reader takes
 * nothing for a second, so that a reader that stopped reading cannot keep
 * a tool that was told to stop. */
int tmq_output_open(struct tmq_output *o, int fd, size_t bufsize,
    struct tmq_error *e);
/* Bytes given to the stream so far, written or still buffered: the
 * position at which what was printed last ends. */
uint64_t tmq_output_pos(const struct tmq_output *o);
/* How many of the bytes written so far the reader has taken (a lower
 * bound: others' bytes in the same pipe count as ours not taken).  Bytes
 * still in the stream's buffer are not counted: flush first.  A socket
 * drops what its reader left unread when it closes, so once the reader
 * has gone, what was seen taken before then holds. */
int tmq_output_taken(struct tmq_output *o, uint64_t *taken,
    struct tmq_error *e);
/* The reader has gone (a pipe or socket whose other end is closed), or a
 * write found it gone (EPIPE). */
int tmq_output_reader_gone(const struct tmq_output *o);
/* A descriptor whose poll(2) says when the reader goes (POLLERR, POLLHUP),
 * or -1 where no reader can go (a file, a terminal). */
int tmq_output_hup_fd(const struct tmq_output *o);
/* Wait up to timeout_ms for the reader to take all that was written:
 * 1 when it has (at once for files), 2 when the reader has gone, 0 when
 * the time is up, -1 on error. */
int tmq_output_wait_taken(struct tmq_output *o, int timeout_ms,
    struct tmq_error *e);
/* Flush and free the stream: 0, or -1 when a write failed (output dropped
 * because the tool was stopping is not a failure). */
int tmq_output_close(struct tmq_output *o);

#endif
