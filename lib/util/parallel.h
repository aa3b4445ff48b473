/* parallel.h: splitting a batch between this thread and one helper thread,
 * for the codec work that dominates tmq-put and tmq-get on two cores. */
#ifndef TMQ_PARALLEL_H
#define TMQ_PARALLEL_H

#include <pthread.h>

struct tmq_par {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started, usable, job, quit;
	void (*fn)(void *);
	void *arg;
};

/* Set up; the thread itself starts on first use, and never on a machine
 * with one core. */
void tmq_par_init(struct tmq_par *p);
/* Run fn(mine) here and fn(theirs) on the helper, and wait for both.
 * Without a helper, runs both here. */
void tmq_par_run(struct tmq_par *p, void (*fn)(void *), void *mine,
    void *theirs);
void tmq_par_free(struct tmq_par *p);

#endif
