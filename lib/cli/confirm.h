/* confirm.h: asking before destroying data. */
#ifndef TMQ_CONFIRM_H
#define TMQ_CONFIRM_H

#include "util/error.h"

/* With yes set, 1 at once.  Otherwise ask the question on the terminal
 * (/dev/tty, as OpenBSD's readpassphrase does): 1 for y/yes, 0 for anything
 * else; -1 with a message when there is no terminal to ask on. */
int tmq_confirm(const char *question, int yes, struct tmq_error *e);

#endif
