/*
 * core/acquisition.h - acquisition functions for Bayesian optimization:
 * expected improvement (and its logarithm), probability of improvement,
 * upper confidence bound, candidate scoring and argmax.
 *
 * Everything is for MAXIMIZATION of the modelled quantity: a caller that
 * minimizes negates its objective (and the incumbent) first. Inputs are a
 * Gaussian predictive distribution N(μ, σ²) per candidate, e.g. from
 * gp_predict (core/gp.h) or graph_predict (core/graph.h). Pure functions:
 * no allocation, no state, no I/O.
 *
 * References: Jones, Schonlau & Welch (1998) for EI; Ament et al. (2023),
 * "Unexpected improvements to expected improvement", for computing log EI
 * without underflow; Srinivas et al. (2010) for UCB.
 */
#ifndef HPOD_ACQUISITION_H
#define HPOD_ACQUISITION_H

#include <stddef.h>

enum acq_kind { ACQ_EI = 0, ACQ_PI = 1, ACQ_UCB = 2 };

/* Standard normal density φ(z) and distribution function Φ(z). */
double acq_norm_pdf(double z);
double acq_norm_cdf(double z);

/*
 * acq_log_norm_cdf - log Φ(z), accurate in both tails: finite down to any
 * finite z (≈ -z²/2 - log(-z) - ½ log 2π far left) and ≈ -Φ(-z) far right.
 */
double acq_log_norm_cdf(double z);

/*
 * acq_ei - expected improvement over best:
 *   EI = σ (z Φ(z) + φ(z)),  z = (μ - best - ξ) / σ   (Jones et al. eq. 15)
 * σ = 0 (or negative) gives max(μ - best - ξ, 0). Underflows to 0 for
 * z below about -38; use acq_log_ei to rank such candidates.
 */
double acq_ei(double mu, double sigma, double best, double xi);

/*
 * acq_log_ei - log EI, finite and increasing in μ for z down to about
 * -1e150, where z² overflows (it behaves like log σ - z²/2 - 2 log(-z)
 * - ½ log 2π as z → -∞). Returns -INFINITY only when σ <= 0 and
 * μ - best - ξ <= 0 (or beyond that overflow); NaN if an input is NaN.
 */
double acq_log_ei(double mu, double sigma, double best, double xi);

/*
 * acq_pi - probability of improvement Φ((μ - best - ξ) / σ); for σ <= 0,
 * 1 if μ - best - ξ > 0 else 0. acq_log_pi is its logarithm, accurate in
 * the far left tail (-INFINITY only in the σ <= 0 case).
 */
double acq_pi(double mu, double sigma, double best, double xi);
double acq_log_pi(double mu, double sigma, double best, double xi);

/*
 * acq_ucb - upper confidence bound μ + √β σ (β >= 0; a negative β counts
 * as 0).
 */
double acq_ucb(double mu, double sigma, double beta);

/*
 * acq_score - scores n candidates from their predictive mean and variance
 * (var < 0 from round-off counts as 0; σ = √var):
 *   ACQ_EI   out = log EI(μ, σ, best, ξ = param)
 *   ACQ_PI   out = log PI(μ, σ, best, ξ = param)
 *   ACQ_UCB  out = μ + √β σ,  β = param
 * Logs, so that candidates far in the tail are still ranked rather than
 * tied at 0. ξ = 0 is the recommended default: the GP is refitted at
 * every suggestion and EI already balances exploration; a positive ξ
 * (in y units) forces more exploration. mean, var and out have n entries
 * (borrowed; out written). NaN inputs, or an unknown kind, give NaN.
 */
void acq_score(enum acq_kind kind, const double *mean, const double *var,
               size_t n, double best, double param, double *out);

/*
 * acq_argmax - index of the largest score (ties: lowest index), skipping
 * entries with skip[i] != 0 (skip may be NULL) and NaN scores; -INFINITY
 * is eligible. Returns n if no entry is eligible.
 */
size_t acq_argmax(const double *score, size_t n, const unsigned char *skip);

#endif
