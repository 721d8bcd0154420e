/*
 * common/clock.h - the monotonic clock, for durations and deadlines (never
 * for timestamps: those come from PostgreSQL), and the one deadline a
 * condition variable takes.
 */
#ifndef HPOD_CLOCK_H
#define HPOD_CLOCK_H

#include <time.h>

/* Seconds since an arbitrary start (CLOCK_MONOTONIC). */
double hpod_now_s(void);
/* The same in whole milliseconds. */
long long hpod_now_ms(void);

/* The CLOCK_REALTIME time ms milliseconds from now: the absolute
 * deadline pthread_cond_timedwait takes. */
struct timespec hpod_deadline_in(long ms);

#endif
