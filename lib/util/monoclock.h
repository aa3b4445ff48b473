/* monoclock.h: the monotonic clock, for every wait, backoff and bound
 * that must not move when someone sets the time (CLOCK_MONOTONIC; the
 * wall clock, for what goes into a message, is timestamp.h's tmq_now). */
#ifndef TMQ_MONOCLOCK_H
#define TMQ_MONOCLOCK_H

/* Seconds since an arbitrary start, to the nanosecond. */
double tmq_mono(void);
/* The same in whole milliseconds. */
long long tmq_mono_ms(void);

#endif
