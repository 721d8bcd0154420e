/*
 * core/mobo_greedy.h - the model-free control for several objectives
 * (what mobo_next answers when in->surrogate is MOBO_SURROGATE_GREEDY).
 */
#ifndef HPOD_MOBO_GREEDY_H
#define HPOD_MOBO_GREEDY_H

#include <stddef.h>

#include "common/status.h"
#include "core/mobo_input.h"

/*
 * mobo_greedy - the model-free control for several objectives (what
 * mobo_next answers when in->surrogate is MOBO_SURROGATE_GREEDY): the free
 * candidate nearest, in scaled Euclidean distance (space_encode), to any
 * row of the incumbent front (mobo_front: the observed trials that
 * reported every objective, meet their constraints and that no other such
 * trial dominates); ties to the lowest candidate index, so it draws no
 * random number. With m = 1 it is core/sampler.c's greedy (nearest to the
 * best), except that tied best observations all count. Finite studies
 * only; ref is not read. Fills in->explain's pick (acquisition: minus the
 * squared distance) and runners-up the same way.
 * Returns HPOD_OK; HPOD_EINVAL on inconsistent input (as mobo_next, and
 * n_cand == 0); HPOD_ENOTFOUND when no candidate is free; HPOD_ENUMERIC
 * while the front is empty (the caller falls back to a random choice).
 * Cost: O(n_obs² m) for the front, O(n_cand · n_front · dim) to choose.
 */
enum hpod_status mobo_greedy(const struct mobo_input *in, double *raw,
                             size_t *cand);

#endif
