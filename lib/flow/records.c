/* records.c: input records (see records.h).  The buffer grows up to the
 * record limit and no further: a longer record is read past, not held. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "flow/records.h"
#include "util/stop.h"

int
tmq_records_open(struct tmq_records *r, int fd, int delim, size_t max,
    struct tmq_error *e)
{
	struct stat st;

	memset(r, 0, sizeof *r);
	r->fd = fd;
	r->delim = delim;
	r->max = max;
	r->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	r->cap = 256 * 1024;
	r->buf = malloc(r->cap);
	if (r->buf == NULL)
		return tmq_fail(e, "out of memory");
	return 0;
}

void
tmq_records_close(struct tmq_records *r)
{
	free(r->buf);
	r->buf = NULL;
}

static int
ready(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) != 0;
}

/* Wait until fd can be read: 0, or 1 when told to stop (stop.h).  The
 * signal that sets the flag is held off from the look at the flag until
 * the wait has begun (ppoll), so that it cannot come between them and be
 * missed by a read that then blocks for ever. */
static int
wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	sigset_t stop, old;
	int rc = 0;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &stop, &old) < 0)
		return tmq_stop != 0;
	if (tmq_stop)
		rc = 1;
	else if (ppoll(&p, 1, NULL, &old) < 0 && errno == EINTR && tmq_stop)
		rc = 1;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int
tmq_records_next(struct tmq_records *r, int probe, const char **rec,
    size_t *n, struct tmq_error *e)
{
	ssize_t got;

	for (;;) {
		size_t have = r->end - r->start;
		char *d = NULL;

		if (r->delim >= 0 && have > 0)
			d = memchr(r->buf + r->start, r->delim, have);
		if (d != NULL) {
			size_t len = (size_t)(d - (r->buf + r->start));
			int skipped = r->skipping;

			*rec = r->buf + r->start;
			*n = len;
			r->start += len + 1;
			r->skipping = 0;
			r->recno++;
			if (skipped || len > r->max)
				return TMQ_REC_TOOLONG;
			return TMQ_REC_OK;
		}
		if (r->eof) {
			if (have == 0 && !r->skipping &&
			    (r->delim >= 0 || r->recno > 0))
				return TMQ_REC_EOF;
			/* The last record may lack its delimiter. */
			*rec = r->buf + r->start;
			*n = have;
			r->start = r->end;
			r->recno++;
			if (r->skipping || have > r->max) {
				r->skipping = 0;
				return TMQ_REC_TOOLONG;
			}
			if (r->delim < 0)
				r->delim = -2;	/* one record only */
			return TMQ_REC_OK;
		}
		if (have > r->max) {
			/* Over the limit and no end in sight: drop what we
			 * hold and read on to the delimiter. */
			r->skipping = 1;
			r->start = r->end = 0;
			have = 0;
		}
		if (r->start > 0) {
			memmove(r->buf, r->buf + r->start, have);
			r->start = 0;
			r->end = have;
		}
		if (r->end == r->cap) {
			size_t nc = r->cap * 2;
			char *nb;

			if (nc > r->max + 2)
				nc = r->max + 2;
			if (nc <= r->cap) {
				r->skipping = 1;
				r->start = r->end = 0;
				continue;
			}
			nb = realloc(r->buf, nc);
			if (nb == NULL)
				return tmq_fail(e, "out of memory");
			r->buf = nb;
			r->cap = nc;
		}
		/* A read that came back short took all there was: nothing
		 * is ready (one poll fewer for a record that comes alone).
		 * A regular file is never waited for: a short read there is
		 * its end, and the next read says so at once. */
		if (r->regular) {
			if (tmq_stop)
				return TMQ_REC_STOP;
		} else if (probe && (r->drained || !ready(r->fd)))
			return TMQ_REC_WAIT;
		else if (tmq_stop_caught && wait_readable(r->fd))
			return TMQ_REC_STOP;
		/* Where no stop is caught (tmq-put), a signal ends the
		 * process wherever it waits: the read itself is the wait,
		 * three system calls fewer a record that comes alone. */
		got = read(r->fd, r->buf + r->end, r->cap - r->end);
		if (got < 0) {
			if (errno == EINTR) {
				if (tmq_stop)
					return TMQ_REC_STOP;
				continue;
			}
			/* An input another process made non-blocking. */
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if (wait_readable(r->fd))
					return TMQ_REC_STOP;
				continue;
			}
			/* A closed standard input (<&-) or one open only for
			 * writing: say so, not just "read error". */
			if (errno == EBADF)
				return tmq_fail_errno(e, "not open for reading");
			return tmq_fail_errno(e, "read error");
		}
		if (got == 0)
			r->eof = 1;
		r->drained = (size_t)got < r->cap - r->end;
		r->end += (size_t)got;
	}
}
