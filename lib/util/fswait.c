/* fswait.c: a reader's calls into the file system, watched (see
 * fswait.h). */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/fswait.h"
#include "util/notice.h"

/* seq: the marks so far, odd while the reader is inside one (written by
 * the reader alone).  said: the seq the watch spoke of, until it is taken
 * back by whoever says it was answered; since: when the reader went into
 * the mark (ms of the coarse monotonic clock, a few ns to read). */
static atomic_int on;
static atomic_ullong seq;
static atomic_ullong said;
static atomic_llong since;
static char root[512];

static long long
coarse_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void
answered(unsigned long long s)
{
	if (atomic_exchange(&said, 0) == s)
		tmq_notice("%s: the file system answered after %lld s", root,
		    (coarse_ms() - atomic_load(&since)) / 1000);
}

static void *
watch(void *arg)
{
	struct timespec tick = { 1, 0 };
	unsigned long long s;
	long long at;

	(void)arg;
	for (;;) {
		nanosleep(&tick, NULL);
		s = atomic_load(&seq);
		at = atomic_load(&since);
		/* (since is the mark's when seq has not moved past it) */
		if (!(s & 1) || atomic_load(&said) == s ||
		    coarse_ms() - at < TMQ_FSWAIT_SAY * 1000LL ||
		    atomic_load(&seq) != s)
			continue;
		tmq_notice("%s: waiting on the file system: no answer for "
		    "%lld s", root, (coarse_ms() - at) / 1000);
		atomic_store(&said, s);
		/* It came out as we spoke, and tmq_fswait_end did not see it
		 * said: the answer is ours to say (whichever of the two takes
		 * said back says it, once). */
		if (atomic_load(&seq) != s)
			answered(s);
	}
	return NULL;
}

void
tmq_fswait_watch(int rootfd)
{
	char path[64];
	sigset_t all, old;
	pthread_attr_t a;
	pthread_t t;
	ssize_t n;

	if (atomic_load(&on))
		return;
	snprintf(path, sizeof path, "/proc/self/fd/%d", rootfd);
	if ((n = readlink(path, root, sizeof root - 1)) < 0)
		n = 0;
	root[n] = '\0';
	/* Signals stay the reader's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_attr_init(&a) == 0) {
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&a, 64 * 1024);
		if (pthread_create(&t, &a, watch, NULL) == 0)
			atomic_store(&on, 1);
		pthread_attr_destroy(&a);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void
tmq_fswait_begin(void)
{
	unsigned long long s;

	if (!atomic_load_explicit(&on, memory_order_relaxed))
		return;
	s = atomic_load_explicit(&seq, memory_order_relaxed);
	if (s & 1)
		return;
	atomic_store_explicit(&since, coarse_ms(), memory_order_relaxed);
	atomic_store_explicit(&seq, s + 1, memory_order_release);
}

void
tmq_fswait_end(void)
{
	unsigned long long s;

	if (!atomic_load_explicit(&on, memory_order_relaxed))
		return;
	s = atomic_load_explicit(&seq, memory_order_relaxed);
	if (!(s & 1))
		return;
	/* A full barrier between the two (the watch stores said, then loads
	 * seq): one of us sees the other's store. */
	atomic_store(&seq, s + 1);
	if (atomic_load(&said) == s)
		answered(s);
}
