/* timespec.h: the one grammar for a time given on the command line
 * (tmq-get --from and --until, tmq-group reset --to, tmq-topic prune
 * --before), documented in tmq(7) TIMES. */
#ifndef TMQ_TIMESPEC_H
#define TMQ_TIMESPEC_H

#include "util/error.h"

/* The suffix of a message about a bad time: what the grammar takes. */
#define TMQ_TIMESPEC_WANT "ISO 8601, @SECONDS, s@MS, or a duration ago " \
	"such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h"
/* ... and about a bad duration. */
#define TMQ_DURATION_WANT "seconds, or numbers with units w, d, h, m and " \
	"s, longest first: 90s, 10m, 1.5h, 1h30m, 1d, 1w"

/* "now"; ISO 8601 ("2026-11-25", "2026-11-25T09:00:00.5Z", "...+01:00");
 * "@SECONDS" (Unix seconds, a fraction allowed); "s@MS" or "e@MS" (Unix
 * milliseconds, kcat's forms for a start and an end); a duration ago
 * (tmq_duration_parse's units: "90s", "1.5h", "1h30m", "1w"), with or
 * without a leading '-'.  A bare number is refused: it reads as an offset
 * in --from, so it means nothing as a time anywhere. */
int tmq_timespec_parse(const char *s, double now, double *t,
    struct tmq_error *e);
/* 1 when s has the shape of a duration ago ("1h", "-7d"). */
int tmq_timespec_is_duration(const char *s);
/* A length of time, the one grammar of every duration the tools read:
 * seconds ("30", "1.5"), or numbers (a fraction allowed) each with a unit
 * of w, d, h, m or s, longest first, each once ("90s", "1.5h", "1h30m",
 * "1w"); at most 100 years. */
int tmq_duration_parse(const char *s, double *secs, struct tmq_error *e);

#endif
