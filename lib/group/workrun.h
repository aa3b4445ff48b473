/* workrun.h: the commands a member runs for its messages (tmq-get
 * --exec), as child processes: each started with posix_spawn (no shell
 * unless the caller's argv is one), in a process group of its own, its
 * payload written to its standard input through a pipe as it takes it
 * (one that stops reading early is no error: its exit status says), its
 * message in its environment.  Its standard output is passed on a whole
 * line at a time, so that two commands' lines never mix; its standard
 * error too, and its last TMQ_RUN_TAIL bytes are kept (for the dead
 * letter).  A command past its timeout is sent SIGTERM, then SIGKILL
 * TMQ_RUN_GRACE seconds later.  The end of a command is seen through
 * SIGCHLD on a self-pipe, so that one poll waits for the commands, their
 * pipes and one more descriptor of the caller's (the topic's inotify). */
#ifndef TMQ_WORKRUN_H
#define TMQ_WORKRUN_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/error.h"

#define TMQ_RUN_TAIL 2048
#define TMQ_RUN_GRACE 5.0
/* A line longer than this is passed on in pieces. */
#define TMQ_RUN_LINE_MAX 65536

struct tmq_rbuf {			/* a partial line */
	char *b;
	size_t n, cap;
};

struct tmq_job {
	pid_t pid;
	int in, out, err;		/* -1 once closed */
	const unsigned char *data;	/* for stdin: the caller's */
	size_t len, off;
	struct tmq_rbuf obuf, ebuf;
	char tail[TMQ_RUN_TAIL];	/* the last bytes of its stderr */
	size_t tlen;
	double deadline;		/* the timeout, or 0 */
	double kill_at;			/* TERM sent: KILL then, or 0 */
	int timed_out;
	int reaped, status;		/* waitpid's */
	void *arg;			/* the caller's */
};

struct tmq_runner {
	char *const *argv;
	double timeout;			/* 0: none */
	FILE *out;			/* where stdout lines go */
	int errfd;			/* where stderr lines go */
	struct tmq_job **v;
	size_t n, cap;
	int chld[2];			/* SIGCHLD's self-pipe */
	size_t done;			/* reaped jobs at v[0..done) */
};

/* Catch SIGCHLD into the self-pipe. */
int tmq_run_init(struct tmq_runner *r, char *const *argv, double timeout,
    FILE *out, int errfd, struct tmq_error *e);
/* Start a command for j (zeroed but for arg): env, NAME=VALUE strings
 * (nenv) set over the environment; data its standard input. */
int tmq_run_start(struct tmq_runner *r, struct tmq_job *j,
    char *const *env, size_t nenv, const unsigned char *data, size_t len,
    struct tmq_error *e);
/* Wait up to timeout_ms (-1: no bound; a command's timeout shortens it)
 * for the commands and for fd (-1: none), moving their input and output
 * and reaping what ended.  1 when fd is readable, else 0; -1 on error. */
int tmq_run_poll(struct tmq_runner *r, int timeout_ms, int fd,
    struct tmq_error *e);
/* A command that ended (its output passed on), taken out; or NULL. */
struct tmq_job *tmq_run_ended(struct tmq_runner *r);
/* Send sig to every command running (its process group); with
 * SIGTERM, SIGKILL follows TMQ_RUN_GRACE seconds later. */
void tmq_run_signal(struct tmq_runner *r, int sig);
/* The same for one command, not yet reaped. */
void tmq_job_signal(struct tmq_job *j, int sig);
size_t tmq_run_count(const struct tmq_runner *r);
/* What ended it, in words: "exit 3", "signal KILL (timeout)". */
void tmq_run_status(const struct tmq_job *j, char *buf, size_t n);
/* Free a job taken out. */
void tmq_job_free(struct tmq_job *j);
/* Kill (SIGKILL) and reap every command left, and let SIGCHLD be. */
void tmq_run_free(struct tmq_runner *r);

#endif
