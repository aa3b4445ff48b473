/* cputime.c: for make bench, the CPU time of one command to the
 * microsecond: runs COMMAND, waits for it with wait4, and appends
 * "USER SYS WALL" in seconds (six decimals) to FILE, one line a run.
 * /usr/bin/time prints hundredths, which is a percent and more of the
 * second or so that the per-CPU-second figures are made of.
 * Usage: cputime FILE COMMAND [ARG ...]; exits as the command did. */
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
secs(struct timeval tv)
{
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

int
main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	FILE *f;
	pid_t pid;
	int st;

	if (argc < 3) {
		fprintf(stderr, "usage: cputime FILE COMMAND [ARG ...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((pid = fork()) < 0) {
		fprintf(stderr, "cputime: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "cputime: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "cputime: wait4: %s\n", strerror(errno));
			return 2;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if ((f = fopen(argv[1], "a")) == NULL) {
		fprintf(stderr, "cputime: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	fprintf(f, "%.6f %.6f %.6f\n", secs(ru.ru_utime), secs(ru.ru_stime),
	    (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (fclose(f) != 0) {
		fprintf(stderr, "cputime: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
