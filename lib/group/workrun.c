/* workrun.c: the commands run for messages, as child processes
 * (workrun.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/grow.h"
#include "group/workrun.h"

extern char **environ;

static int chld_w = -1;

static void
on_chld(int sig)
{
	int saved = errno;
	char c = 0;

	(void)sig;
	if (chld_w >= 0 && write(chld_w, &c, 1) < 0) {
		/* full: a byte is there already */
	}
	errno = saved;
}

int
tmq_run_init(struct tmq_runner *r, char *const *argv, double timeout,
    FILE *out, int errfd, struct tmq_error *e)
{
	struct sigaction sa;

	memset(r, 0, sizeof *r);
	r->argv = argv;
	r->timeout = timeout;
	r->out = out;
	r->errfd = errfd;
	if (pipe2(r->chld, O_CLOEXEC | O_NONBLOCK) < 0) {
		r->chld[0] = r->chld[1] = -1;
		return tmq_fail_errno(e, "pipe");
	}
	chld_w = r->chld[1];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGCHLD, &sa, NULL) < 0)
		return tmq_fail_errno(e, "sigaction");
	return 0;
}

/* The environment with env's names set over it. */
static char **
make_env(char *const *env, size_t nenv)
{
	size_t n = 0, i, k, o = 0;
	char **v;

	while (environ[n] != NULL)
		n++;
	if ((v = malloc((n + nenv + 1) * sizeof *v)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t len = eq != NULL ? (size_t)(eq - environ[i]) + 1 : 0;

		for (k = 0; k < nenv && len > 0; k++)
			if (strncmp(environ[i], env[k], len) == 0)
				break;
		if (len == 0 || k == nenv)
			v[o++] = environ[i];
	}
	for (k = 0; k < nenv; k++)
		v[o++] = env[k];
	v[o] = NULL;
	return v;
}

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int
tmq_run_start(struct tmq_runner *r, struct tmq_job *j,
    char *const *env, size_t nenv, const unsigned char *data, size_t len,
    struct tmq_error *e)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def, none;
	char **envp = NULL;
	int rc;

	j->in = j->out = j->err = -1;
	if (r->n == r->cap &&
	    tmq_grow(&r->v, &r->cap, r->n + 1, sizeof *r->v) < 0)
		return tmq_fail(e, "out of memory");
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 ||
	    pipe2(err, O_CLOEXEC) < 0) {
		rc = tmq_fail_errno(e, "pipe");
		goto fail;
	}
	if ((envp = make_env(env, nenv)) == NULL) {
		rc = tmq_fail(e, "out of memory");
		goto fail;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err[1], 2);
	/* Nothing of ours beside: a command that outlives us must hold no
	 * lock of the group's. */
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_init(&at);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGCHLD);
	sigaddset(&def, SIGHUP);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF |
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
	rc = posix_spawnp(&j->pid, r->argv[0], &fa, &at, r->argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	free(envp);
	if (rc != 0) {
		errno = rc;
		rc = tmq_fail_errno(e, "%s", r->argv[0]);
		goto fail;
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	j->in = in[1];
	j->out = out[0];
	j->err = err[0];
	fcntl(j->in, F_SETFL, O_NONBLOCK);
	fcntl(j->out, F_SETFL, O_NONBLOCK);
	fcntl(j->err, F_SETFL, O_NONBLOCK);
	j->data = data;
	j->len = len;
	j->off = 0;
	if (len == 0)
		close_fd(&j->in);
	j->deadline = r->timeout > 0 ? now_mono() + r->timeout : 0;
	r->v[r->n++] = j;
	return 0;
fail:
	close_fd(&in[0]);
	close_fd(&in[1]);
	close_fd(&out[0]);
	close_fd(&out[1]);
	close_fd(&err[0]);
	close_fd(&err[1]);
	return rc;
}

static void
keep_tail(struct tmq_job *j, const char *s, size_t n)
{
	if (n >= TMQ_RUN_TAIL) {
		memcpy(j->tail, s + n - TMQ_RUN_TAIL, TMQ_RUN_TAIL);
		j->tlen = TMQ_RUN_TAIL;
		return;
	}
	if (j->tlen + n > TMQ_RUN_TAIL) {
		size_t drop = j->tlen + n - TMQ_RUN_TAIL;

		memmove(j->tail, j->tail + drop, j->tlen - drop);
		j->tlen -= drop;
	}
	memcpy(j->tail + j->tlen, s, n);
	j->tlen += n;
}

static void
emit(struct tmq_runner *r, int to_err, const char *s, size_t n)
{
	if (to_err) {
		while (n > 0) {
			ssize_t w = write(r->errfd, s, n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return;
			s += w;
			n -= (size_t)w;
		}
	} else if (n > 0)
		fwrite(s, 1, n, r->out);
}

/* Take what fd has (all of it, when at_end), passing whole lines on. */
static void
drain(struct tmq_runner *r, struct tmq_job *j, int *fd, struct tmq_rbuf *b,
    int to_err, int at_end)
{
	char buf[8192];
	ssize_t n;
	size_t i, start;

	for (;;) {
		n = read(*fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
				close_fd(fd);
			break;
		}
		if (to_err)
			keep_tail(j, buf, (size_t)n);
		start = 0;
		for (i = 0; i < (size_t)n; i++) {
			if (buf[i] != '\n')
				continue;
			if (b->n > 0) {
				emit(r, to_err, b->b, b->n);
				b->n = 0;
			}
			emit(r, to_err, buf + start, i + 1 - start);
			start = i + 1;
		}
		if (start < (size_t)n) {
			size_t rest = (size_t)n - start;

			if (b->n + rest > TMQ_RUN_LINE_MAX) {
				emit(r, to_err, b->b, b->n);
				b->n = 0;
			}
			if (b->n + rest > b->cap &&
			    tmq_grow(&b->b, &b->cap, b->n + rest, 1) < 0) {
				emit(r, to_err, buf + start, rest);
				continue;
			}
			memcpy(b->b + b->n, buf + start, rest);
			b->n += rest;
		}
	}
	if ((at_end || *fd < 0) && b->n > 0) {
		/* A last line without its newline: ended here. */
		emit(r, to_err, b->b, b->n);
		emit(r, to_err, "\n", 1);
		b->n = 0;
	}
}

static void
feed(struct tmq_job *j)
{
	while (j->in >= 0 && j->off < j->len) {
		ssize_t w = write(j->in, j->data + j->off, j->len - j->off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (w < 0) {
			/* EPIPE: it stopped reading; its exit says how it
			 * went. */
			close_fd(&j->in);
			return;
		}
		j->off += (size_t)w;
	}
	close_fd(&j->in);
}

static void
reap(struct tmq_runner *r)
{
	size_t i;

	for (i = r->done; i < r->n; i++) {
		struct tmq_job *j = r->v[i], *t;
		pid_t p;

		do
			p = waitpid(j->pid, &j->status, WNOHANG);
		while (p < 0 && errno == EINTR);
		if (p == 0)
			continue;
		if (p < 0)
			j->status = 127 << 8;	/* (not ours: cannot be) */
		j->reaped = 1;
		close_fd(&j->in);
		if (j->out >= 0)
			drain(r, j, &j->out, &j->obuf, 0, 1);
		if (j->err >= 0)
			drain(r, j, &j->err, &j->ebuf, 1, 1);
		/* Whatever the command left running holds the pipes: what
		 * it writes after its end is not read. */
		close_fd(&j->out);
		close_fd(&j->err);
		if (j->obuf.n > 0) {
			emit(r, 0, j->obuf.b, j->obuf.n);
			emit(r, 0, "\n", 1);
		}
		if (j->ebuf.n > 0) {
			emit(r, 1, j->ebuf.b, j->ebuf.n);
			emit(r, 1, "\n", 1);
		}
		t = r->v[r->done];
		r->v[r->done++] = j;
		r->v[i] = t;
	}
}

static void
timeouts(struct tmq_runner *r, double now)
{
	size_t i;

	for (i = r->done; i < r->n; i++) {
		struct tmq_job *j = r->v[i];

		if (j->kill_at > 0 && now >= j->kill_at) {
			kill(-j->pid, SIGKILL);
			j->kill_at = 0;
		} else if (j->deadline > 0 && now >= j->deadline &&
		    !j->timed_out) {
			j->timed_out = 1;
			kill(-j->pid, SIGTERM);
			j->kill_at = now + TMQ_RUN_GRACE;
		}
	}
}

int
tmq_run_poll(struct tmq_runner *r, int timeout_ms, int fd,
    struct tmq_error *e)
{
	struct pollfd *p;
	size_t i, np = 0, max = 2 + 3 * (r->n - r->done);
	double now = now_mono(), next = -1;
	int rc, ready = 0;
	char buf[64];

	/* Deadlines are in the monotonic clock. */
	for (i = r->done; i < r->n; i++) {
		struct tmq_job *j = r->v[i];
		double t = j->kill_at > 0 ? j->kill_at :
		    j->deadline > 0 && !j->timed_out ? j->deadline : -1;

		if (t >= 0 && (next < 0 || t < next))
			next = t;
	}
	if (next >= 0) {
		int ms = next <= now ? 0 : (int)((next - now) * 1000) + 1;

		if (timeout_ms < 0 || ms < timeout_ms)
			timeout_ms = ms;
	}
	if ((p = calloc(max, sizeof *p)) == NULL)
		return tmq_fail(e, "out of memory");
	p[np].fd = r->chld[0];
	p[np++].events = POLLIN;
	if (fd >= 0) {
		p[np].fd = fd;
		p[np++].events = POLLIN;
	}
	for (i = r->done; i < r->n; i++) {
		struct tmq_job *j = r->v[i];

		if (j->in >= 0) {
			p[np].fd = j->in;
			p[np++].events = POLLOUT;
		}
		if (j->out >= 0) {
			p[np].fd = j->out;
			p[np++].events = POLLIN;
		}
		if (j->err >= 0) {
			p[np].fd = j->err;
			p[np++].events = POLLIN;
		}
	}
	rc = poll(p, np, timeout_ms);
	if (rc < 0 && errno != EINTR) {
		free(p);
		return tmq_fail_errno(e, "poll");
	}
	if (fd >= 0 && rc > 0 && p[1].revents != 0)
		ready = 1;
	free(p);
	while (read(r->chld[0], buf, sizeof buf) > 0)
		;
	for (i = r->done; i < r->n; i++) {
		struct tmq_job *j = r->v[i];

		feed(j);
		if (j->out >= 0)
			drain(r, j, &j->out, &j->obuf, 0, 0);
		if (j->err >= 0)
			drain(r, j, &j->err, &j->ebuf, 1, 0);
	}
	fflush(r->out);
	timeouts(r, now_mono());
	reap(r);
	fflush(r->out);
	return ready;
}

struct tmq_job *
tmq_run_ended(struct tmq_runner *r)
{
	struct tmq_job *j;

	if (r->done == 0)
		return NULL;
	j = r->v[0];
	memmove(r->v, r->v + 1, (r->n - 1) * sizeof *r->v);
	r->n--;
	r->done--;
	return j;
}

void
tmq_job_signal(struct tmq_job *j, int sig)
{
	if (j->reaped)
		return;
	kill(-j->pid, sig);
	if (sig == SIGTERM && j->kill_at == 0)
		j->kill_at = now_mono() + TMQ_RUN_GRACE;
}

void
tmq_run_signal(struct tmq_runner *r, int sig)
{
	size_t i;

	for (i = r->done; i < r->n; i++)
		tmq_job_signal(r->v[i], sig);
}

size_t
tmq_run_count(const struct tmq_runner *r)
{
	return r->n - r->done;
}

void
tmq_run_status(const struct tmq_job *j, char *buf, size_t n)
{
	const char *why = j->timed_out ? " (timeout)" : "";

	if (WIFEXITED(j->status))
		snprintf(buf, n, "exit %d%s", WEXITSTATUS(j->status), why);
	else if (WIFSIGNALED(j->status)) {
		const char *s = sigabbrev_np(WTERMSIG(j->status));

		if (s != NULL)
			snprintf(buf, n, "signal %s%s", s, why);
		else
			snprintf(buf, n, "signal %d%s", WTERMSIG(j->status),
			    why);
	} else
		snprintf(buf, n, "status %d%s", j->status, why);
}

void
tmq_job_free(struct tmq_job *j)
{
	close_fd(&j->in);
	close_fd(&j->out);
	close_fd(&j->err);
	free(j->obuf.b);
	free(j->ebuf.b);
	j->obuf.b = j->ebuf.b = NULL;
}

void
tmq_run_free(struct tmq_runner *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		struct tmq_job *j = r->v[i];

		if (!j->reaped) {
			kill(-j->pid, SIGKILL);
			while (waitpid(j->pid, &j->status, 0) < 0 &&
			    errno == EINTR)
				;
		}
		tmq_job_free(j);
	}
	free(r->v);
	r->v = NULL;
	r->n = r->done = 0;
	signal(SIGCHLD, SIG_DFL);
	chld_w = -1;
	close_fd(&r->chld[0]);
	close_fd(&r->chld[1]);
}
