/* fdlimit.h: file descriptors.  A reader of 10,000 partitions holds one
 * open file for each, and a producer one for each partition it writes:
 * the usual soft limit of 1,024 is raised to the hard limit at start, and
 * when descriptors run out all the same the messages say so. */
#ifndef TMQ_FDLIMIT_H
#define TMQ_FDLIMIT_H

/* Raise the soft RLIMIT_NOFILE to the hard one (once; quietly, as a
 * failure only leaves the limit as it was). */
void tmq_fdlimit_raise(void);
/* err is EMFILE or ENFILE: no descriptor is left. */
int tmq_fd_exhausted(int err);
/* For a message when err is tmq_fd_exhausted: what ran out and the limit,
 * as " (this process may open N files at once; raise the limit with
 * ulimit -n)"; "" for any other err. */
const char *tmq_fd_hint(int err);
struct tmq_error;
/* Append tmq_fd_hint(err) to e's message (errno is kept). */
void tmq_fd_hint_append(struct tmq_error *e, int err);

#endif
