/*
 * core/trust_region.h - trust regions on a finite candidate list: which
 * candidates a sampler may choose among, near the configurations that did
 * best so far (TuRBO, Eriksson et al., NeurIPS 2019, for one objective
 * around the best observation; MORBO, Daulton et al., 2022, for several
 * around each trial of the front). The one implementation behind
 * core/sampler_gp.c and core/sampler_graph.c (sampler_input.trust_div)
 * and core/mobo (mobo_input.trust_k and
 * trust_shape). Pure: no I/O.
 */
#ifndef HPOD_TRUST_REGION_H
#define HPOD_TRUST_REGION_H

#include <stddef.h>

#include "core/space.h"

/*
 * trust_region_nearest - sets mask[i] = 1 for the k nearest candidates i
 * with !skip[i] (skip NULL: every candidate counts; space_d2 in the
 * encoded space u, n × dim, feature kinds kinds or NULL; ties to the lower
 * index) of each of the nf centres (rows of u, indices centre[0..nf)), 0
 * elsewhere. Returns the number of candidates marked. O(nf · n log n).
 */
size_t trust_region_nearest(const double *u, size_t n, size_t dim,
                            const unsigned char *kinds,
                            const unsigned char *skip, const size_t *centre,
                            size_t nf, size_t k, unsigned char *mask);

/*
 * trust_region_steps - sets mask[i] = 1 for the candidates i with
 * !used[i] that are ONE STEP from one of the nf centres (candidate indices
 * centre[0..nf)), 0 elsewhere: the two configurations (raw, n ×
 * sp->n_params) differ in exactly one parameter, by any value. Every
 * hyperparameter counts alike, however many values it has and however far
 * apart they are encoded (the k nearest in the encoded space take every
 * learning-rate step before any change of a two-valued parameter; why in
 * docs/mo_tuning.md). Returns the number of candidates marked.
 */
size_t trust_region_steps(const struct space *sp, const double *raw, size_t n,
                          const unsigned char *used, const size_t *centre,
                          size_t nf, unsigned char *mask);

/*
 * trust_region_best - the single-objective region: the k candidates
 * nearest (trust_region_nearest; used ones count) the candidate of the
 * best observation (obs_cand[b], b the first of the largest obs_y), with
 * k = n / div doubled for every tau observations after b (trials that did
 * not improve on it). Sets the scores (n) of the candidates outside it to
 * NaN (not eligible: acq_argmax and the explanation skip them, and no
 * infinity reaches a stored decision); leaves them all when the region
 * covers every candidate or holds no free one with a score. n_obs >= 1.
 * O(n·dim + n log n).
 */
void trust_region_best(const double *u, size_t n, size_t dim,
                       const unsigned char *kinds, const unsigned char *used,
                       const size_t *obs_cand, const double *obs_y,
                       size_t n_obs, size_t div, size_t tau, double *score);

#endif
