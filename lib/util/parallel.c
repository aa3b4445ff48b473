/* parallel.c: one helper thread and a two-way split (see parallel.h).
 * A batch holds hundreds of records, so one handshake per batch costs
 * nothing next to the work it shares. */
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "util/parallel.h"

void
tmq_par_init(struct tmq_par *p)
{
	cpu_set_t set;

	memset(p, 0, sizeof *p);
	/* The CPUs we may run on (taskset, cgroups), not those installed. */
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		p->usable = CPU_COUNT(&set) > 1;
	else
		p->usable = sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

static void *
helper(void *arg)
{
	struct tmq_par *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->job && !p->quit)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->quit)
			break;
		pthread_mutex_unlock(&p->mu);
		p->fn(p->arg);
		pthread_mutex_lock(&p->mu);
		p->job = 0;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

void
tmq_par_run(struct tmq_par *p, void (*fn)(void *), void *mine, void *theirs)
{
	if (p->usable && !p->started) {
		sigset_t all, old;

		pthread_mutex_init(&p->mu, NULL);
		pthread_cond_init(&p->cv, NULL);
		/* Signals are for the main thread: one that a tool catches
		 * (SIGINT, SIGTERM) must end the system call it waits in. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		if (pthread_create(&p->th, NULL, helper, p) == 0)
			p->started = 1;
		else
			p->usable = 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (!p->started) {
		fn(theirs);
		fn(mine);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->arg = theirs;
	p->job = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	fn(mine);
	pthread_mutex_lock(&p->mu);
	while (p->job)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void
tmq_par_free(struct tmq_par *p)
{
	if (p->started) {
		pthread_mutex_lock(&p->mu);
		p->quit = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->th, NULL);
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
	}
	p->started = 0;
}
