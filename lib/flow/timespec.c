/* timespec.c: parsing a time in the tools' one grammar (see timespec.h). */
#include <stdlib.h>
#include <string.h>

#include "timespec.h"
#include "timestamp.h"

/* A hundred years of 365.25 days, 36,525 days, as tmq(7) says: more is
 * a typo, and keeps N * unit exact.  (It was 100 years of 366 days, so
 * that 36600d passed.) */
#define MAX_DAYS 36525
#define MAX_AGO ((double)MAX_DAYS * 86400)

int
tmq_timespec_is_duration(const char *s)
{
	size_t n;

	if (*s == '-')
		s++;
	n = strlen(s);
	return n > 1 && strchr("smhd", s[n - 1]) != NULL &&
	    strspn(s, "0123456789") == n - 1;
}

static int
duration(const char *s, double *secs, const char *toolong,
    struct tmq_error *e)
{
	const char *d = *s == '-' ? s + 1 : s;
	size_t n = strlen(d);
	double v = 0, unit;
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		v = v * 10 + (d[i] - '0');
		if (v > MAX_AGO)
			return tmq_fail(e, "'%s': %s (at most 100 years: "
			    "%dd)", s, toolong, MAX_DAYS);
	}
	switch (d[n - 1]) {
	case 's': unit = 1; break;
	case 'm': unit = 60; break;
	case 'h': unit = 3600; break;
	default: unit = 86400; break;
	}
	if (v * unit > MAX_AGO)
		return tmq_fail(e, "'%s': %s (at most 100 years: "
		    "%dd)", s, toolong, MAX_DAYS);
	*secs = v * unit;
	return 0;
}

/* Digits and one optional fraction: strtod alone would take " 5", "+5",
 * "1e9", "inf" and hex. */
static int
seconds(const char *s)
{
	size_t dig = strspn(s, "0123456789");

	return dig > 0 && (s[dig] == '\0' || (s[dig] == '.' &&
	    s[dig + 1] != '\0' && strspn(s + dig + 1, "0123456789") ==
	    strlen(s + dig + 1)));
}

int
tmq_timespec_parse(const char *s, double now, double *t, struct tmq_error *e)
{
	char *end;

	if (*s == '\0')
		return tmq_fail(e, "empty time");
	if (strcmp(s, "now") == 0) {
		*t = now;
		return 0;
	}
	if (tmq_timespec_is_duration(s)) {
		double ago;

		if (duration(s, &ago, "too long ago", e) < 0)
			return -1;
		*t = now - ago;
		return 0;
	}
	if (s[0] == '@') {
		if (seconds(s + 1)) {
			*t = strtod(s + 1, &end);
			return 0;
		}
		return tmq_fail(e, "'%s': bad time (want %s)", s,
		    TMQ_TIMESPEC_WANT);
	}
	if (seconds(s))
		return tmq_fail(e, "'%s': a bare number is not a time (write "
		    "@%s for Unix seconds)", s, s);
	if (tmq_time_parse(s, t, NULL) < 0)
		return tmq_fail(e, "'%s': bad time (want %s)", s,
		    TMQ_TIMESPEC_WANT);
	return 0;
}

int
tmq_duration_parse(const char *s, double *secs, struct tmq_error *e)
{
	if (*s != '-' && tmq_timespec_is_duration(s))
		return duration(s, secs, "too long", e);
	if (seconds(s)) {
		*secs = strtod(s, NULL);
		if (*secs > MAX_AGO)
			return tmq_fail(e, "'%s': too long (at most 100 years: "
			    "%dd)", s, MAX_DAYS);
		return 0;
	}
	return tmq_fail(e, "'%s': bad duration (want seconds, or a number "
	    "and s, m, h or d: 90s, 10m, 2h, 1d)", s);
}
