/* trickle.c: for make bench, records that come alone: writes N lines
 * "KEY:STAMP" to standard output at RATE lines a second, each with its own
 * write(2) at its own time (an absolute clock, so that the rate holds),
 * STAMP the realtime clock in seconds as the line is written: what a
 * latency reader (latency.c) subtracts from its own clock.
 * Usage: trickle N RATE */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec next, now;
	long n, rate, i, step;
	char line[64];
	int len;

	if (argc != 3 || (n = atol(argv[1])) <= 0 ||
	    (rate = atol(argv[2])) <= 0 || rate > 1000000000L) {
		fprintf(stderr, "usage: trickle N RATE\n");
		return 2;
	}
	step = 1000000000L / rate;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < n; i++) {
		next.tv_nsec += step;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
		    NULL) == EINTR)
			;
		clock_gettime(CLOCK_REALTIME, &now);
		len = snprintf(line, sizeof line, "%ld:%lld.%09ld\n", i % 1000,
		    (long long)now.tv_sec, now.tv_nsec);
		if (write(1, line, (size_t)len) != len)
			return 1;
	}
	return 0;
}
