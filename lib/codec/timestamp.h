/* timestamp.h: message timestamps (Unix seconds as a big-endian IEEE-754
 * double, base85 on the line) and the time syntax the tools accept. */
#ifndef TMQ_TIMESTAMP_H
#define TMQ_TIMESTAMP_H

#include <stddef.h>

#include "util/error.h"

#define TMQ_TS_CHARS 10

/* The wall clock as Unix seconds. */
double tmq_now(void);
/* Encode into exactly 10 characters (no NUL). */
void tmq_ts_encode(double t, char out[TMQ_TS_CHARS]);
/* Decode 10 characters; -1 when they are not base85. */
int tmq_ts_decode(const char in[TMQ_TS_CHARS], double *t);
/* ISO 8601 UTC with milliseconds: 2026-11-25T09:00:00.080Z.  Returns the
 * length written into buf (at least 32 bytes, NUL-terminated). */
size_t tmq_ts_iso(double t, char *buf, size_t bufsz);
/* t in whole milliseconds since the epoch (kcat's %T), rounded as
 * tmq_ts_iso rounds; "invalid" where tmq_ts_iso says so. */
size_t tmq_ts_millis(double t, char *buf, size_t bufsz);
/* Shortest decimal that reads back as the same double (Python's repr, so
 * 1795867200.0 and 1795597320.08).  buf of at least 32 bytes. */
size_t tmq_ts_repr(double t, char *buf, size_t bufsz);
/* Unix seconds ("1764400000", "1764400000.5") or ISO 8601 ("2026-11-25",
 * "2026-11-25T09:00", "2026-11-25T09:00:00.5Z", "...+01:00"; no zone means
 * UTC). */
int tmq_time_parse(const char *s, double *t, struct tmq_error *e);
/* The UTC day of t as YYYYMMDD. */
unsigned tmq_utc_day(double t);

#endif
