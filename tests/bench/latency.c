/* latency.c: for make bench, how long a record takes from tmq-put to a
 * following tmq-get.  Reads message timestamps (tmq-get -F '%u\n'), one a
 * line, and prints the median and the 99th percentile of now minus each.
 * A line "KEY:STAMP" (trickle.c's own, as tail -f prints it) counts its
 * STAMP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(void)
{
	static double d[100000];
	struct timespec ts;
	size_t n = 0;
	double t;

	char line[256], *s;

	while (n < sizeof d / sizeof d[0] &&
	    fgets(line, sizeof line, stdin) != NULL) {
		clock_gettime(CLOCK_REALTIME, &ts);
		s = strrchr(line, ':');
		t = strtod(s != NULL ? s + 1 : line, NULL);
		d[n++] = (double)ts.tv_sec + ts.tv_nsec / 1e9 - t;
	}
	if (n == 0)
		return 1;
	qsort(d, n, sizeof d[0], cmp);
	printf("follow latency: median %.3f ms, p99 %.3f ms (%zu records)\n",
	    d[n / 2] * 1e3, d[n * 99 / 100] * 1e3, n);
	return 0;
}
