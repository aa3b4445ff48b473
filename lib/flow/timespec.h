/* timespec.h: the one grammar for a time given on the command line
 * (tmq-get --from and --until, tmq-group reset --to, tmq-topic prune
 * --before), documented in tmq(7) TIMES. */
#ifndef TMQ_TIMESPEC_H
#define TMQ_TIMESPEC_H

#include "error.h"

/* The suffix of a message about a bad time: what the grammar takes. */
#define TMQ_TIMESPEC_WANT "ISO 8601, @SECONDS, or a duration ago such as " \
	"90s, 15m, 1h, 7d or -1h"

/* "now"; ISO 8601 ("2026-11-25", "2026-11-25T09:00:00.5Z", "...+01:00");
 * "@SECONDS" (Unix seconds, a fraction allowed); "Ns", "Nm", "Nh", "Nd"
 * (N seconds, minutes, hours, days before now), with or without a leading
 * '-'.  A bare number is refused: it reads as an offset in --from, so it
 * means nothing as a time anywhere. */
int tmq_timespec_parse(const char *s, double now, double *t,
    struct tmq_error *e);
/* 1 when s has the shape of a duration ago ("1h", "-7d"). */
int tmq_timespec_is_duration(const char *s);
/* A length of time, as timeout(1) takes it: seconds ("30", "1.5") or
 * "Ns", "Nm", "Nh", "Nd"; at most 100 years. */
int tmq_duration_parse(const char *s, double *secs, struct tmq_error *e);

#endif
