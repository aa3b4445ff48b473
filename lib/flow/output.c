/* output.c: output that counts what its reader took (see output.h).
 *
 * The stream is a stdio cookie stream so that every byte write(2)
 * accepts is counted exactly, even when a write fails half way (a reader
 * gone); stdio's own buffer is then what __fpending says. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sockios.h>
#include <poll.h>
#include <stdio_ext.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/monoclock.h"
#include "flow/output.h"
#include "util/stop.h"

/* Once told to stop (SIGINT, SIGTERM: tmq_stop), write on only as fast as
 * the reader takes it: a reader that takes nothing for this long (ms) is
 * not waited for, and what is left is dropped. */
#define DRAIN_MS 1000
/* The size asked for a pipe on standard output. */
#define PIPE_BYTES (1024 * 1024)

static ssize_t
cookie_write(void *arg, const char *buf, size_t n)
{
	struct tmq_output *o = arg;
	size_t done = 0, chunk;
	ssize_t w;

	while (done < n) {
		chunk = n - done;
		if (tmq_stop) {
			struct pollfd p = { o->fd, POLLOUT, 0 };

			/* A blocking write could wait for ever on a reader
			 * that stopped reading: wait for room, at most
			 * DRAIN_MS (another signal ends it at once), and
			 * write no more than a pipe then surely holds. */
			if (o->interrupted || poll(&p, 1, DRAIN_MS) != 1 ||
			    (p.revents & POLLOUT) == 0) {
				o->interrupted = 1;
				return done > 0 ? (ssize_t)done : -1;
			}
			if (chunk > PIPE_BUF)
				chunk = PIPE_BUF;
		}
		w = write(o->fd, buf + done, chunk);
		if (w < 0) {
			/* A signal is not a write error: write on (and once
			 * stopping, as above). */
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				struct pollfd p = { o->fd, POLLOUT, 0 };

				if (!tmq_stop)
					poll(&p, 1, -1);
				continue;
			}
			/* What went out before the error counts; stdio
			 * takes the short count as the error. */
			o->err = errno;
			return done > 0 ? (ssize_t)done : -1;
		}
		done += (size_t)w;
		o->written += (uint64_t)w;
	}
	return (ssize_t)done;
}

static int
cookie_close(void *arg)
{
	(void)arg;
	return 0;
}

int
tmq_output_open(struct tmq_output *o, int fd, size_t bufsize,
    struct tmq_error *e)
{
	cookie_io_functions_t io = { NULL, cookie_write, NULL, cookie_close };
	struct stat st;

	o->fd = fd;
	o->written = o->known = 0;
	o->interrupted = 0;
	o->err = 0;
	o->kind = TMQ_OUT_PLAIN;
	if (fstat(fd, &st) == 0) {
		if (S_ISFIFO(st.st_mode)) {
			o->kind = TMQ_OUT_PIPE;
			/* A pipe of 1 MiB rather than 64 KiB, where the system
			 * allows it: with a reader as fast as we are (tmq-get
			 * -J | tmq-put -J), each side waits on the other far
			 * less often (the copy: 9% more records a second).
			 * What sits in it is still not taken (FIONREAD). */
			(void)fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES);
		}
		else if (S_ISSOCK(st.st_mode))
			o->kind = TMQ_OUT_SOCKET;
	}
	o->f = fopencookie(o, "w", io);
	if (o->f == NULL)
		return tmq_fail_errno(e, "standard output");
	if (bufsize > 0)
		setvbuf(o->f, NULL, _IOFBF, bufsize);
	return 0;
}

uint64_t
tmq_output_pos(const struct tmq_output *o)
{
	return o->written + __fpending(o->f);
}

int
tmq_output_taken(struct tmq_output *o, uint64_t *taken,
    struct tmq_error *e)
{
	int queued = 0;

	if (o->kind == TMQ_OUT_PIPE && ioctl(o->fd, FIONREAD, &queued) < 0)
		return tmq_fail_errno(e, "standard output: cannot tell what "
		    "the pipe still holds");
	if (o->kind == TMQ_OUT_SOCKET && ioctl(o->fd, SIOCOUTQ, &queued) < 0)
		return tmq_fail_errno(e, "standard output: cannot tell what "
		    "the socket still holds");
	if (queued < 0)
		queued = 0;
	/* Asked after the count: a reader there then was there for it. */
	if (o->kind == TMQ_OUT_SOCKET && tmq_output_reader_gone(o)) {
		*taken = o->known;
		return 0;
	}
	*taken = (uint64_t)queued < o->written ? o->written -
	    (uint64_t)queued : 0;
	o->known = *taken;
	return 0;
}

int
tmq_output_reader_gone(const struct tmq_output *o)
{
	struct pollfd p = { o->fd, 0, 0 };

	if (o->err == EPIPE)
		return 1;
	if (o->kind == TMQ_OUT_PLAIN)
		return 0;
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

int
tmq_output_hup_fd(const struct tmq_output *o)
{
	return o->kind == TMQ_OUT_PLAIN ? -1 : o->fd;
}

int
tmq_output_wait_taken(struct tmq_output *o, int timeout_ms,
    struct tmq_error *e)
{
	long long end = tmq_mono_ms() + timeout_ms, left;
	int step = 1;

	if (o->kind == TMQ_OUT_PLAIN)
		return 1;
	/* Nothing wakes a writer when its pipe empties: look again, more
	 * and more slowly, up to 50 ms apart. */
	for (;;) {
		struct pollfd p = { o->fd, 0, 0 };
		uint64_t taken;
		int r;

		if (tmq_output_taken(o, &taken, e) < 0)
			return -1;
		if (taken == o->written)
			return 1;
		left = end - tmq_mono_ms();
		if (left <= 0)
			return 0;
		if (step > left)
			step = (int)left + 1;
		r = poll(&p, 1, step);
		if (r < 0 && errno == EINTR)
			return 0;	/* a signal: let the caller see it */
		if (r < 0)
			return tmq_fail_errno(e, "standard output: poll");
		if (r > 0 && (p.revents & (POLLERR | POLLHUP)))
			return 2;
		if (step < 50)
			step *= 2;
	}
}

int
tmq_output_close(struct tmq_output *o)
{
	int rc = 0;

	if (o->f == NULL)
		return 0;
	if ((fflush(o->f) != 0 || ferror(o->f)) && !o->interrupted)
		rc = -1;
	fclose(o->f);
	o->f = NULL;
	return rc;
}
