/*
 * study/deadline.h - a suggest's compute budget as a wall-clock deadline:
 * each choice of a model (sampler_next, mobo_next) may compute for
 * HPOD_SUGGEST_BUDGET_MS, after which its search yields and it answers the
 * best found (core/compute_budget.h says what yields; the trial's
 * explanation says "budget_cut"). The limit is set once per process
 * (server/serve.c, from the configuration); 0 means unbounded.
 */
#ifndef HPOD_STUDY_DEADLINE_H
#define HPOD_STUDY_DEADLINE_H

#include "core/compute_budget.h"

/* The default of HPOD_SUGGEST_BUDGET_MS. */
#define DEADLINE_SUGGEST_MS 2000

/* deadline_set_suggest_ms - the budget of every later choice (ms >= 0;
 * 0: unbounded). Thread-safe (an atomic store). */
void deadline_set_suggest_ms(long ms);

/* One choice's deadline (caller-owned; deadline_start fills it). */
struct deadline {
    long long end_ms; /* on hpod_now_ms's clock; 0: unbounded */
};

/*
 * deadline_start - starts a choice's budget now: *b (caller-owned, valid
 * while d is) expires once hpod_now_ms() reaches now + the process's
 * budget, or never when it is 0.
 */
void deadline_start(struct deadline *d, struct compute_budget *b);

#endif
