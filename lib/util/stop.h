/* stop.h: the one flag that SIGINT and SIGTERM set in a tool that catches
 * them to finish cleanly.  Every library loop that can run long (skipping
 * an overlong line, counting a huge file) looks at it, so that no file a
 * co-user plants can make a tool deaf to them. */
#ifndef TMQ_STOP_H
#define TMQ_STOP_H

#include <signal.h>

extern volatile sig_atomic_t tmq_stop;
/* Whether tmq_stop_catch has been called: where it has not, SIGINT and
 * SIGTERM end the process, and a wait need not guard the flag. */
extern int tmq_stop_caught;

/* SIGINT and SIGTERM set tmq_stop from now on (no SA_RESTART: a call
 * that waits returns, and its loop sees the flag). */
void tmq_stop_catch(void);

#endif
