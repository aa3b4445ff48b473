/* stop.c: the stop flag (see stop.h). */
#include <string.h>

#include "util/stop.h"

volatile sig_atomic_t tmq_stop;
int tmq_stop_caught;

static void
on_stop(int sig)
{
	(void)sig;
	tmq_stop = 1;
}

void
tmq_stop_catch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	tmq_stop_caught = 1;
}
