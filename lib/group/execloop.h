/* execloop.h: a member that runs a command per message (tmq-get -g G
 * --exec CMD): the reading loop (readloop.h) feeds the work set
 * (workset.h: order, retries, commit frontier), whose messages run as
 * commands (workrun.h); what fails past its retries goes to the dead
 * letter topic, or stops the member uncommitted.  A partition's commit
 * moves to its first message not finished, as --commit batches.  On
 * SIGTERM or SIGINT (tmq_stop) nothing new starts; what runs is given
 * drain seconds, then SIGTERM, then SIGKILL; then what finished is
 * committed and the group left. */
#ifndef TMQ_EXECLOOP_H
#define TMQ_EXECLOOP_H

#include "flow/output.h"
#include "group/readloop.h"
#include "group/workset.h"

struct tmq_execspec {
	const char *command;		/* --exec */
	int shell;			/* --shell: sh -c COMMAND */
	unsigned jobs;			/* --jobs */
	enum tmq_order order;		/* --order */
	unsigned retries;		/* --retries */
	double backoff, backoff_max;	/* --backoff */
	double timeout;			/* --timeout, or 0 */
	double drain;			/* --drain-timeout */
	const char *dead_letter;	/* --dead-letter, or NULL */
};

/* Run the member to its end (-f: until stopped).  0 when every message
 * read finished (done or dead-lettered) and what finished was committed;
 * else -1 and e (a message past its retries without a dead letter, a
 * dead letter that could not be put, the group's log, the command not
 * found...), what finished before committed all the same. */
int tmq_exec_run(const struct tmq_readspec *rs, const struct tmq_execspec *xs,
    struct tmq_output *out, struct tmq_error *e);

#endif
