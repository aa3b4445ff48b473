/* notice.h: notices, one-line warnings that do not stop the work (a root
 * open to others).  lib/ hands them to the sink the tool set up
 * (tmq_start sets one that prints "TOOL: MESSAGE" on stderr); without a
 * sink they go nowhere. */
#ifndef TMQ_NOTICE_H
#define TMQ_NOTICE_H

void tmq_notice_sink(void (*fn)(void *arg, const char *msg), void *arg);
void tmq_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* -q: notices go nowhere from now on, the sink's and those that lib/'s
 * modules hand to a caller's own callback (each asks tmq_notice_quiet
 * first); a failure is never a notice, and is said all the same. */
void tmq_notice_set_quiet(int quiet);
int tmq_notice_quiet(void);

#endif
