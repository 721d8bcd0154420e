/*
 * core/transfer.h - warm starting a study from a related one (docs/transfer.md,
 * TACL 2020 §3.5: the NMT tables' rankings correlate across language
 * pairs). The source's values, as normal scores of their ranks
 * (normal_scores), become a prior mean over the target's points;
 * the target's GP then models the residual, and the prior's weight follows
 * how well it ranks the target's own observations (transfer_weight).
 *
 * Points are encoded over the parameters the two share (the caller builds
 * that encoding: the target space restricted to the shared parameters,
 * source rows mapped by parameter name). Pure: no I/O, no globals.
 */
#ifndef HPOD_TRANSFER_H
#define HPOD_TRANSFER_H

#include <stddef.h>

#include "common/status.h"

/* The source GP is fitted on at most this many source rows (an evenly
 * spaced subset in rank order, so that the fit stays O(256³)). */
#define TRANSFER_GP_MAX 256

/*
 * transfer_prior - the source's prior at nq query points. The source has
 * ns rows: src_raw (ns × np) the raw values of the shared parameters and
 * src_u (ns × d) their encoding (feature kinds kinds, core/space.h, or
 * NULL); q_raw (nq × np) and q_u (nq × d) the queries, in the same order
 * and encoding; src_z (ns) the source's
 * values as normal scores (normal_scores of the values, larger is
 * better). mu[i] (nq): for a query whose raw values equal a source row's
 * (within 1e-9 relative), the mean of src_z over the rows it equals;
 * otherwise the posterior mean of a GP (kernel, enum kernel_kind) fitted
 * (seeded by seed) on the encoded rows' scores
 * (at most TRANSFER_GP_MAX rows, evenly spaced in rank order). exact (nq
 * flags, may be NULL): 1 where a row matched; *n_exact (may be NULL): how
 * many. Returns HPOD_EINVAL on NULL arrays, ns == 0, np == 0 or d == 0;
 * the GP's status when it is needed and fails.
 */
enum hpod_status transfer_prior(const double *src_raw, const double *src_u,
                                const double *src_z, size_t ns, size_t np,
                                size_t d, const unsigned char *kinds,
                                const double *q_raw, const double *q_u,
                                size_t nq, int kernel, unsigned long long seed,
                                double *mu, unsigned char *exact,
                                size_t *n_exact);

/*
 * How the prior's weight follows the target's observations (p: the prior
 * at the n observations, y: their values, larger is better):
 * - TRANSFER_FIXED: 1 always (the prior is never dropped);
 * - TRANSFER_SPEARMAN: ρ⁺ = max(0, Spearman ρ(p, y)), 1 while n < 3. Both
 *   sides are normal scores (unit variance), so ρ is the slope of the
 *   target's score on the prior's: the weight is the least-squares
 *   coefficient, 0 when the source ranks the target no better than chance.
 * - TRANSFER_KENDALL: the source kept (1) unless Kendall's τ(p, y) is
 *   below its null by more than TRANSFER_KENDALL_Z standard errors
 *   (√(2(2n+5)/(9n(n-1))), no ties), then dropped (0): a one-sided test
 *   that the source ranks the target worse than chance.
 * - TRANSFER_INIT: 0 (the GP ignores the prior; the sampler still takes
 *   its initial design from it).
 * - TRANSFER_SHRUNK: max(0, (c + n·ρ)/(c + n)), c = TRANSFER_SHRINK_N, 1
 *   while n < 3: Spearman's ρ shrunk towards full trust, as if c earlier
 *   observations had agreed with the source (a noisy early ρ drops less).
 */
enum transfer_rule {
    TRANSFER_FIXED = 0,
    TRANSFER_SPEARMAN = 1,
    TRANSFER_KENDALL = 2,
    TRANSFER_INIT = 3, /* 0 always: the prior only picks the initial design */
    TRANSFER_SHRUNK = 4,
    TRANSFER_RANKLOSS = 5 /* transfer_weight_rankloss */
};

/* TRANSFER_SHRUNK's pseudo-observations of full agreement. */
#define TRANSFER_SHRINK_N 5.0

#define TRANSFER_KENDALL_Z 1.0

/* transfer_kendall_tau - Kendall's τ_a of (p, y): (concordant - discordant)
 * pairs / (n(n-1)/2), tied pairs count 0. 0 when n < 2. O(n²). */
double transfer_kendall_tau(const double *p, const double *y, size_t n);

/* transfer_weight - the weight of rule in [0, 1] (see enum transfer_rule).
 * NaN inputs are not allowed. */
double transfer_weight(int rule, const double *p, const double *y, size_t n);

/* Bootstrap resamples of transfer_weight_rankloss. */
#define TRANSFER_BOOTSTRAP 64

/*
 * transfer_rank_loss - misranked pairs of f against y over the index
 * multiset idx (m entries): Σ_{a<b} [y differ and sign(f) ≠ sign(y)],
 * a tie of f on a pair whose y differ counting 1/2.
 */
double transfer_rank_loss(const double *f, const double *y, const size_t *idx,
                          size_t m);

/*
 * transfer_loo_nn - the target's own leave-one-out model: t[i] = the mean
 * of y over the observations nearest (space_d2 in u, n × dim, kinds) to
 * observation i among the others. n >= 2. O(n² dim).
 */
void transfer_loo_nn(const double *u, const double *y, size_t n, size_t dim,
                     const unsigned char *kinds, double *t);

/*
 * transfer_weight_rankloss - the RGPE weight (Feurer et al. 2018) of the
 * prior against the target's own data: over TRANSFER_BOOTSTRAP resamples
 * (with replacement, seeded by seed) of the n observations, the fraction
 * in which the prior p ranks them with fewer misranked pairs than the
 * target's leave-one-out model (transfer_loo_nn on u, dim), ties 1/2.
 * 1 while n < 3. Both models are judged on points neither saw, so the
 * selection of the observations (near the source's optimum, where any
 * ranking correlates less) weighs on both.
 */
double transfer_weight_rankloss(const double *p, const double *y,
                                const double *u, size_t n, size_t dim,
                                const unsigned char *kinds,
                                unsigned long long seed);

#endif
