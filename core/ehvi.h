/*
 * core/ehvi.h - expected hypervolume improvement (EHVI) of a candidate
 * whose objectives have independent Gaussian predictions, against the
 * current front and a reference point (Emmerich, Deutz & Klinkenberg 2011,
 * "Hypervolume-based expected improvement: monotonicity properties and
 * exact computation", IEEE CEC).
 *
 * Conventions as in core/pareto.h: points are rows of m doubles, sense[j]
 * < 0 minimizes objective j, anything else maximizes it; ref is the
 * reference point (pareto_reference() gives the default one). mu[j] and
 * sd[j] (>= 0) are the predictive mean and standard deviation of objective
 * j, in the objective's own units (for a log-transformed metric, the
 * caller transforms front and ref the same way). The front may hold
 * dominated points, duplicates, and points not better than ref: they
 * change nothing. All arrays are borrowed for the call.
 *
 * Pure numerics: no I/O, no globals; randomness only through the caller's
 * struct rng. The acquisition layer (ehvi surrogate studies) scores
 * candidates with these.
 */
#ifndef HPOD_EHVI_H
#define HPOD_EHVI_H

#include <stddef.h>

#include "core/rng.h"

/*
 * ehvi_hvi - deterministic hypervolume improvement of adding the point y
 * (m entries) to the front of k points: HV(front ∪ {y}) − HV(front) with
 * respect to ref. 0 if y is dominated by the front or not better than ref.
 */
double ehvi_hvi(const double *front, size_t k, size_t m, const int *sense,
                const double *ref, const double *y);

/*
 * ehvi_2d - exact EHVI for two objectives, O(k log k). With u the
 * improvement over ref in each objective and the front's staircase
 * (a_i ascending, b_i descending, a_0 = 0, a_{k+1} = ∞, b_{k+1} = 0), the
 * non-dominated region splits into the strips [a_{i-1}, a_i) × [b_i, ∞),
 * and
 *   EHVI = Σ_i (G_1(a_{i-1}) − G_1(a_i)) · G_2(b_i),
 *   G_j(t) = E[(U_j − t)⁺] = σ_j φ(z) + (m_j − t) Φ(z), z = (m_j − t)/σ_j,
 * because EHVI = ∫ over the non-dominated region of P(U_1 ≥ z_1) P(U_2 ≥ z_2).
 * sd[j] == 0 gives the deterministic improvement of the mean (G_j(t) =
 * max(m_j − t, 0)), so ehvi_2d(..., sd = 0) == ehvi_hvi(..., mu).
 */
double ehvi_2d(const double *front, size_t k, const int *sense,
               const double *ref, const double *mu, const double *sd);

/*
 * ehvi_mc - Monte Carlo EHVI for any m: the mean of ehvi_hvi over samples
 * draws of y ~ N(mu, diag(sd²)) from r (advanced by m·samples normal
 * draws). *se (may be NULL) receives the standard error of the estimate
 * (sample standard deviation / sqrt(samples)). Returns 0 (and *se = 0)
 * when samples == 0.
 */
double ehvi_mc(const double *front, size_t k, size_t m, const int *sense,
               const double *ref, const double *mu, const double *sd,
               size_t samples, struct rng *r, double *se);

/*
 * Random hypervolume scalarizations (Golovin & Zhang, "Random Hypervolume
 * Scalarizations for Provable Multi-Objective Black Box Optimization",
 * ICML 2020). For a direction λ on the positive part of the unit sphere
 * and the gains u (improvement over ref, as in ehvi_hvi),
 *   s_λ(u) = min_c (max(u_c, 0) / λ_c)^m,
 * and for any finite set of points Y the hypervolume they dominate is
 *   HV(Y) = c_m · E_λ[max_{y∈Y} s_λ(y)],  c_m = π^{m/2} / (2^m Γ(m/2 + 1)),
 * λ uniform on that part of the sphere. Hence the improvement of adding y
 * is HVI(y) = c_m · E_λ[(s_λ(y) − max_{u∈front} s_λ(u))⁺], and EHVI is its
 * mean over y as well: one draw of λ per draw of y gives an unbiased
 * estimate at O(m) per draw once each direction's front maximum is known,
 * where ehvi_mc computes a hypervolume per draw (exponential in m).
 */

/* ehvi_hvs_direction - λ (m entries, m >= 1) uniform on the positive part
 * of the unit sphere: |N(0, 1)| per entry from r, normalized. */
void ehvi_hvs_direction(struct rng *r, size_t m, double *lambda);

/* ehvi_hvs - s_λ of the gains of y (m entries); an entry λ_c = 0 leaves
 * objective c out of the minimum. */
double ehvi_hvs(const double *y, size_t m, const int *sense, const double *ref,
                const double *lambda);

/* ehvi_hvs_front - max of ehvi_hvs over the k points of front (k×m); 0
 * when k == 0 (every s_λ is >= 0). */
double ehvi_hvs_front(const double *front, size_t k, size_t m, const int *sense,
                      const double *ref, const double *lambda);

/*
 * ehvi_hvs_mc - Monte Carlo EHVI through scalarizations: c_m times the
 * mean over s < samples of (s_λs(y_s) − best[s])⁺, with λ_s the s-th row
 * of lambda (samples×m, from ehvi_hvs_direction), best[s] the front's
 * ehvi_hvs_front under λ_s, and y_s ~ N(mu, diag(sd²)) from r (advanced
 * by m·samples normal draws, as ehvi_mc). 0 when samples == 0. With
 * sd = 0 it estimates ehvi_hvi of mu (over the directions alone).
 */
double ehvi_hvs_mc(size_t m, const int *sense, const double *ref,
                   const double *mu, const double *sd, const double *lambda,
                   const double *best, size_t samples, struct rng *r);

#endif
