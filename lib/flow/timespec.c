/* timespec.c: parsing a time in the tools' one grammar (see timespec.h). */
#include <stdlib.h>
#include <string.h>

#include "flow/timespec.h"
#include "codec/timestamp.h"

/* A hundred years of 365.25 days, 36,525 days, as tmq(7) says: more is
 * a typo, and keeps N * unit exact.  (It was 100 years of 366 days, so
 * that 36600d passed.) */
#define MAX_DAYS 36525
#define MAX_AGO ((double)MAX_DAYS * 86400)

/* The units of a duration, longest first: each piece of one is a number
 * and a unit, the units in this order, each once ("1h30m", "1.5h", "1w"). */
static const struct { char c; double secs; } units[] = {
	{ 'w', 7 * 86400 }, { 'd', 86400 }, { 'h', 3600 }, { 'm', 60 },
	{ 's', 1 },
};
#define NUNITS (sizeof units / sizeof units[0])

/* Parse s (no sign) as pieces of NUMBER[.FRACTION]UNIT: 0 with *secs, or
 * -1 when it is not of that shape.  Exact for whole numbers; a piece
 * past 100 years is held at just past it (the caller says too long). */
static int
pieces(const char *s, double *secs)
{
	size_t next = 0, u;
	double total = 0;

	if (*s == '\0')
		return -1;
	while (*s != '\0') {
		double v = 0, scale = 1;
		size_t dig = strspn(s, "0123456789"), frac = 0;

		if (dig == 0)
			return -1;
		if (s[dig] == '.') {
			frac = strspn(s + dig + 1, "0123456789");
			if (frac == 0)
				return -1;
		}
		for (; *s >= '0' && *s <= '9'; s++)
			if ((v = v * 10 + (*s - '0')) > 2 * MAX_AGO)
				v = 2 * MAX_AGO;
		if (*s == '.')
			for (s++; *s >= '0' && *s <= '9'; s++)
				v += (*s - '0') * (scale /= 10);
		for (u = next; u < NUNITS && units[u].c != *s; u++)
			;
		if (u == NUNITS)
			return -1;	/* no unit, or one out of order */
		total += v * units[u].secs;
		if (total > 2 * MAX_AGO)
			total = 2 * MAX_AGO;
		next = u + 1;
		s++;
	}
	*secs = total;
	return 0;
}

int
tmq_timespec_is_duration(const char *s)
{
	double secs;

	return pieces(*s == '-' ? s + 1 : s, &secs) == 0;
}

static int
duration(const char *s, double *secs, const char *toolong,
    struct tmq_error *e)
{
	if (pieces(*s == '-' ? s + 1 : s, secs) < 0)
		return tmq_fail(e, "'%s': bad duration", s);
	if (*secs > MAX_AGO)
		return tmq_fail(e, "'%s': %s (at most 100 years: "
		    "%dd)", s, toolong, MAX_DAYS);
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
	/* kcat's -o s@MS and e@MS: Unix milliseconds. */
	if ((s[0] == 's' || s[0] == 'e') && s[1] == '@') {
		size_t dig = strspn(s + 2, "0123456789");

		if (dig > 0 && s[2 + dig] == '\0' && dig <= 16) {
			*t = strtod(s + 2, NULL) / 1000;
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
	return tmq_fail(e, "'%s': bad duration (want %s)", s,
	    TMQ_DURATION_WANT);
}
