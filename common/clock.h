/*
 * common/clock.h - the monotonic clock, for durations and deadlines (never
 * for timestamps: those come from PostgreSQL).
 */
#ifndef HPOD_CLOCK_H
#define HPOD_CLOCK_H

/* Seconds since an arbitrary start (CLOCK_MONOTONIC). */
double hpod_now_s(void);
/* The same in whole milliseconds. */
long long hpod_now_ms(void);

#endif
