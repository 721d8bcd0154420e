/*
 * core/normal_scores.h - the normal scores of a sample (a Gaussian copula
 * of its ranks): what the GP and graph EI samplers model instead of the
 * raw objective values (core/sampler_gp.c, core/sampler_graph.c; why in
 * docs/tuning.md, "GP sampler"), and what transfer carries from a source.
 */
#ifndef HPOD_NORMAL_SCORES_H
#define HPOD_NORMAL_SCORES_H

#include <stddef.h>

/*
 * normal_scores - the normal scores of y (n values, borrowed):
 * z[i] = Φ⁻¹(r_i / n), r_i = #{j: y_j < y_i} + #{j: y_j = y_i}/2 the
 * mid-rank (ties share a score; n = 1 gives 0). Monotone in y and
 * symmetric about 0. z (n, caller's) may not alias y. O(n log n) (one
 * sort).
 */
void normal_scores(const double *y, size_t n, double *z);

#endif
