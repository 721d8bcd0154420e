/*
 * tools/decoupled_run.h - a seeded replay, on a lookup table, of the
 * decoupled constraint policy of core/decoupled.h (probe the cheap
 * constraints first, or train): what `hpod-bench --decoupled` measures
 * against coupled constrained EI. Pure numerics, no I/O; it lives beside
 * hpod-bench because the server never runs it.
 */
#ifndef HPOD_TOOLS_DECOUPLED_RUN_H
#define HPOD_TOOLS_DECOUPLED_RUN_H

#include <stddef.h>

#include "common/status.h"
#include "core/simulate.h"

/*
 * The event kinds of a decoupled run: a probe measures the decoupled
 * constraints of a row only, a training measures every metric.
 */
enum decoupled_event { DECOUPLED_PROBE = 0, DECOUPLED_TRAIN = 1 };

/*
 * decoupled_run - one seeded run on p (m = 1 objective, n_con >= 1
 * constraints of which decoupled[c] are decoupled, with probe cost
 * cost[c]) under the policy above, until the next event would spend more
 * than budget: the first min(init, n) rows are trained (as
 * simulate_run_mo's), then each step trains a probed row that passed,
 * else asks mobo_next for the constrained-EI choice among rows neither
 * probed nor trained (the step's random choice while it cannot decide,
 * as the server does) and probes it or trains it by
 * decoupled_probe_first. rows/kinds (n entries each) receive the events
 * in order, *n_events their number; a row appears at most twice (probe,
 * then train). a->random: random search that always trains (the budget
 * spent as simulate_run_mo with length budget).
 * Returns HPOD_OK; HPOD_EINVAL on bad input (m != 1, no decoupled
 * constraint, a cost outside (0, 1]); mobo's errors otherwise.
 */
enum hpod_status decoupled_run(const struct simulate_mo_problem *p,
                               const struct simulate_mo_algo *a,
                               const unsigned char *decoupled,
                               const double *cost, unsigned long long seed,
                               size_t init, double budget, size_t *rows,
                               unsigned char *kinds, size_t *n_events);

#endif
