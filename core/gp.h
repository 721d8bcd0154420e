/*
 * core/gp.h - Gaussian-process regression for the Bayesian sampler.
 *
 * Pure numeric module: no I/O, no JSON, no SQL, no globals. Inputs are
 * row-major double arrays (x: n×dim, already encoded by core/space, whose
 * categorical features the kernels compare by overlap: gp_set_kinds) and
 * raw objective values; the GP only regresses, so the caller negates y
 * when it minimizes. Follows Rasmussen & Williams (2006),
 * algorithm 2.1 (prediction) and §5.4.1 (log marginal likelihood and its
 * gradient). Kernels live in core/kernels.h, the acquisition functions in
 * core/acquisition.h.
 *
 * Model: y is standardized internally (mean 0, standard deviation 1), with
 * a zero prior mean and covariance k(x,x') + σ_n² δ(x,x'), k Matérn-5/2 or
 * RBF with per-dimension lengthscales ℓ_d and signal variance σ_f². The
 * hyperparameters θ = (log ℓ_1..log ℓ_dim, log σ_f², log σ_n²) are in the
 * STANDARDIZED units of y and are fitted by maximizing the log marginal
 * likelihood (multi-start, L-BFGS with analytic gradients, NLopt).
 *
 * Memory: gp_create sizes every workspace from (max_n, dim); gp_condition
 * and gp_predict never allocate. gp_fit allocates only a few small arrays
 * and the NLopt optimizer objects, once per call (not per evaluation).
 * The gp never keeps a pointer to a caller's array.
 *
 * Not thread-safe per object (one struct gp per thread); distinct objects
 * may be used concurrently.
 */
#ifndef HPOD_GP_H
#define HPOD_GP_H

#include <stddef.h>

#include "core/kernels.h"
#include "core/rng.h"
#include "common/status.h"

/* Number of hyperparameters in θ for inputs of dimension dim. */
#define GP_NPARAMS(dim) ((dim) + 2)

/* gp_predict works on query blocks of this many points (workspace bound). */
#define GP_PREDICT_BLOCK 256

struct gp; /* opaque */
struct compute_budget;

/*
 * Hyperparameters in standardized y units. lengthscale points to dim
 * doubles owned by the caller: gp_get_hyper writes them, gp_set_hyper
 * reads them; the gp keeps its own copy.
 */
struct gp_hyper {
    double *lengthscale; /* ℓ_d > 0, in encoded input units */
    double signal_var;   /* σ_f² > 0 */
    double noise_var;    /* σ_n² > 0 */
};

/*
 * Options of gp_fit. Bounds are on the hyperparameters themselves (the
 * optimizer works on their logarithms). Defaults (gp_fit_options_default):
 *   ℓ ∈ [0.01, 10]: inputs live in [0,1]; ℓ = 10 makes a dimension
 *     practically irrelevant (correlation ≥ 0.995 across the whole cube),
 *     ℓ = 0.01 is already far below the spacing of any table's grid.
 *   σ_f² ∈ [0.05, 20]: y is standardized, so its total variance is 1.
 *   σ_n² ∈ [1e-6, 2]: 1e-6 lets the GP interpolate deterministic lookup
 *     tables while keeping K + σ_n² I well conditioned (cond ≲ n σ_f²/σ_n²).
 *   n_starts = 0, n_local = 0, max_eval = 0: chosen from n so that a fit
 *     costs a bounded number of O(n³) evaluations (see gp.c, fit_budget).
 */
struct gp_fit_options {
    double ls_min, ls_max;
    double sf2_min, sf2_max;
    double sn2_min, sn2_max;
    size_t n_starts; /* random starts, scored by the LML alone; 0 = auto */
    size_t n_local;  /* L-BFGS runs, from the best starts; 0 = auto */
    size_t max_eval; /* LML+gradient evaluations per run; 0 = auto */
    /* A log-normal prior on every lengthscale (MAP instead of ML-II):
     * log ℓ_d ~ N(log ls_prior_median, ls_prior_sd²), its log density
     * (without the constant) added to the LML the fit maximizes, at the
     * starts and in L-BFGS. ls_prior_sd = 0 (the default): no prior. */
    double ls_prior_median, ls_prior_sd;
    /* The caller's work budget (core/compute_budget.h; NULL: unbounded,
     * the default). Once spent, gp_fit scores no more random starts and
     * ends its L-BFGS run, keeping the best hyperparameters evaluated:
     * the default start is always scored, so a fit is never skipped.
     * Borrowed: only gp_fit reads it, so it must live through the fits
     * made with these options (the samplers set it before each fit). */
    struct compute_budget *budget;
};

/* What the last gp_fit did (for benchmarks and logs). */
struct gp_fit_stats {
    size_t n_value_evals; /* LML evaluations without gradient (starts) */
    size_t n_grad_evals;  /* LML evaluations with gradient (L-BFGS) */
    int optimized;        /* 0 if the optimizer was skipped (n < 2, const y) */
    int used_fallback;    /* 1 if the default hyperparameters were used
                             because the optimum could not be factorized */
    double lml;           /* final LML, standardized units */
    int budget_cut;       /* 1 if the budget ended the fit early */
};

/* Fills o with the defaults documented at struct gp_fit_options. */
void gp_fit_options_default(struct gp_fit_options *o);

/*
 * gp_create - returns a new GP for up to max_n observations of dimension
 * dim, or NULL if max_n or dim is 0 (or kind is unknown). Workspaces take
 * about (3 max_n² + GP_PREDICT_BLOCK·max_n) doubles. Hyperparameters start
 * at the defaults (ℓ_d = 0.25·√dim clamped to the bounds, σ_f² = 1,
 * σ_n² = 0.01), which gp_fit also uses as a start and as its fallback.
 * Destroy with gp_free.
 */
struct gp *gp_create(size_t max_n, size_t dim, enum kernel_kind kind);

/* Frees gp; accepts NULL. */
void gp_free(struct gp *gp);

/*
 * gp_set_kinds - the inputs' feature kinds (dim entries, copied;
 * core/space.h: space.kinds, whose categorical features the kernels
 * compare by overlap); NULL: every feature real (gp_create's). A change
 * leaves the GP unconditioned. Returns HPOD_OK, or HPOD_EINVAL for a NULL
 * gp.
 */
enum hpod_status gp_set_kinds(struct gp *gp, const unsigned char *kinds);

/*
 * gp_set_fit_options - replaces the fitting options (copied).
 * Returns HPOD_EINVAL if a bound is not finite and positive or min > max.
 */
enum hpod_status gp_set_fit_options(struct gp *gp,
                                    const struct gp_fit_options *o);

/*
 * gp_fit - standardizes y, fits the hyperparameters by maximizing the log
 * marginal likelihood, and conditions the GP on (x, y).
 * x: n×dim (borrowed), y: n raw values (borrowed), rng: advanced by the
 * random starts; the result is a deterministic function of the inputs,
 * the rng state and the current hyperparameters.
 *
 * Starts: the current hyperparameters (the previous fit or gp_set_hyper,
 * clamped to the bounds: a warm start), the defaults, and n_starts random
 * points; each is scored by the LML alone, and L-BFGS runs from the best
 * n_local of them. The best point ever evaluated wins.
 * With n < 2 or constant y the LML has no informative optimum (it only
 * drives the variances to their bounds), so the current hyperparameters
 * are kept and the GP is just conditioned.
 * Standardization: mean and population standard deviation of y; a zero
 * (or non-finite) standard deviation is replaced by 1. gp_fit fixes this
 * standardization for later gp_condition calls.
 *
 * Returns HPOD_OK; HPOD_EINVAL if n == 0, n > max_n, a pointer is NULL or
 * a value is not finite; HPOD_ENUMERIC if neither the optimum nor the
 * default hyperparameters give a factorizable kernel matrix (the GP is
 * then unconditioned).
 */
enum hpod_status gp_fit(struct gp *gp, const double *x, const double *y,
                        size_t n, struct rng *rng);

/*
 * gp_condition - conditions on (x, y) with the CURRENT hyperparameters,
 * without refitting (the kriging believer: fit on the observed points,
 * predict the pending ones, condition on observed + pending at their
 * predicted means). It reuses the standardization of the last successful
 * gp_fit, so that the hyperparameters keep their meaning; before any fit
 * it standardizes with y's own mean and standard deviation.
 * Returns HPOD_OK, HPOD_EINVAL (as gp_fit), HPOD_ENUMERIC if the kernel
 * matrix cannot be factorized even with jitter.
 */
enum hpod_status gp_condition(struct gp *gp, const double *x, const double *y,
                              size_t n);

/*
 * gp_condition_std - gp_condition with the standardization given:
 * y_std = (y - mean) / scale (scale > 0), fixed for later gp_condition
 * calls as a fit fixes it. Both reuse the current factor: when the first
 * p rows of x equal the current conditioning's first p rows (and the
 * hyperparameters did not change since, and its factor needed no jitter),
 * the factor of those p rows is kept and the other n - p rows are
 * appended (linalg_chol_append, O(n²(n - p))); otherwise, or when the
 * appended block is not positive definite, K_y is refactorized (O(n³)).
 * The result equals a fresh factorization up to round-off. A changed y
 * with the same x costs O(n²) (two triangular solves).
 * Returns as gp_condition; HPOD_EINVAL also for a bad mean or scale.
 */
enum hpod_status gp_condition_std(struct gp *gp, const double *x,
                                  const double *y, size_t n, double mean,
                                  double scale);

/*
 * gp_standardization - the mean and population standard deviation of y
 * (n > 0), the scale replaced by 1 when it is zero or not finite: what
 * gp_fit standardizes with.
 */
void gp_standardization(const double *y, size_t n, double *mean, double *scale);

/*
 * gp_reset_hyper - back to the default hyperparameters (gp_create's), with
 * no warm start for the next gp_fit; the GP becomes unconditioned.
 */
void gp_reset_hyper(struct gp *gp);

/*
 * The refit schedule of a GP whose hyperparameters are kept between
 * suggestions (core/sampler_gp.c). Refitting costs O(n³) per LML evaluation
 * (tens of them); conditioning with kept hyperparameters O(n²) per new
 * point. gp_refit_due says whether a fit made at n_fit observations,
 * with log marginal likelihood per observation lml_fit, should be redone
 * now at n observations, where the kept hyperparameters give lml_now per
 * observation (NAN: not known yet). Due when:
 *   - there is no fit (n_fit == 0) or the history shrank (n < n_fit);
 *   - n grew and n <= GP_REFIT_ALWAYS_N (small fits are cheap and the
 *     optimum still moves fast);
 *   - n >= n_fit + ceil(GP_REFIT_GROWTH · n_fit): at most a fraction of
 *     the data is unseen by the fit, so a refit's cost C(n) is spread over
 *     GROWTH·n suggestions (amortized C(n)/(GROWTH·n));
 *   - lml_now < lml_fit - GP_REFIT_LML_DROP: the kept θ explains the data
 *     much worse per point than when it was fitted (a stale fit).
 */
#define GP_REFIT_ALWAYS_N 32
#define GP_REFIT_GROWTH 0.1
#define GP_REFIT_LML_DROP 0.1
int gp_refit_due(size_t n_fit, double lml_fit, size_t n, double lml_now);

/*
 * gp_predict - posterior mean and variance of the latent function (no
 * noise) at the m points xq (m×dim, borrowed), in ORIGINAL y units:
 *   mean = ȳ + s·k*ᵀα,   var = s²·max(0, k(x,x) - vᵀv),  v = L⁻¹k*
 * (R&W algorithm 2.1; ȳ, s the standardization). mean has m entries; var
 * has m entries or is NULL (mean only, cheaper). Never allocates.
 * Returns HPOD_OK, HPOD_EINVAL if the GP is not conditioned, a pointer is
 * NULL (m > 0) or xq holds a non-finite value.
 */
enum hpod_status gp_predict(struct gp *gp, const double *xq, size_t m,
                            double *mean, double *var);

/*
 * gp_predict_train - the posterior mean (original units) at the n points
 * of the current conditioning, into mean (n entries): since
 * K_y = K + σ_n² I, K α = y - σ_n² α, so μ = ȳ + s·(y_std - σ_n² α) in
 * O(n) instead of gp_predict's O(n² dim) kernel pass (equal up to
 * round-off; a factor that needed jitter takes gp_predict's way).
 * Returns HPOD_OK or HPOD_EINVAL if the GP is not conditioned.
 */
enum hpod_status gp_predict_train(struct gp *gp, double *mean);

/*
 * gp_set_queries - fixes a set of m query points (m×dim, copied; e.g. a
 * finite study's candidates) for gp_predict_queries. The GP keeps
 * V = L⁻¹K* (max_n × m doubles, allocated here) across conditionings:
 * rows of V whose factor rows gp_condition kept stay valid, so after
 * appending k points only k rows are computed (O(n k m), level-3 BLAS).
 * Setting the same points again keeps V. Returns HPOD_EINVAL on m == 0, a
 * NULL pointer or a non-finite value.
 */
enum hpod_status gp_set_queries(struct gp *gp, const double *xq, size_t m);

/*
 * gp_predict_queries - gp_predict at the gp_set_queries points (mean and
 * var, m entries each, both required): mean = ȳ + s·Vᵀβ with β = L⁻¹y,
 * var = s²·max(0, σ_f² - Σ_i V_ij²). Equal to gp_predict up to round-off.
 * Returns HPOD_EINVAL if the GP is not conditioned or has no queries.
 */
enum hpod_status gp_predict_queries(struct gp *gp, double *mean, double *var);

/*
 * gp_log_marginal_likelihood - log p(y | X, θ) of the current conditioning
 * in standardized units: -½ yᵀK_y⁻¹y - ½ log|K_y| - (n/2) log 2π, with
 * K_y = K + σ_n² I (+ jitter, if the Cholesky needed any).
 * Returns NAN if the GP is not conditioned.
 */
double gp_log_marginal_likelihood(const struct gp *gp);

/*
 * gp_get_hyper - copies the current hyperparameters into h (h->lengthscale
 * must point to dim doubles).
 */
void gp_get_hyper(const struct gp *gp, struct gp_hyper *h);

/*
 * gp_set_hyper - sets the hyperparameters (copied; any positive finite
 * values, the fit bounds do not apply). The GP becomes unconditioned: call
 * gp_condition (or gp_fit, which takes them as a warm start) before
 * predicting. Returns HPOD_OK or HPOD_EINVAL.
 */
enum hpod_status gp_set_hyper(struct gp *gp, const struct gp_hyper *h);

/*
 * gp_get_standardization - the mean and scale used to standardize y in the
 * current conditioning (y_std = (y - mean) / scale).
 */
void gp_get_standardization(const struct gp *gp, double *mean, double *scale);

/* Statistics of the last gp_fit (zeros before the first). */
void gp_get_fit_stats(const struct gp *gp, struct gp_fit_stats *s);

/* Number of observations of the current conditioning (0 if none). */
size_t gp_size(const struct gp *gp);

/* Number of doubles of work gp_lml needs for n points of dimension dim. */
size_t gp_lml_work_size(size_t n, size_t dim);

/*
 * gp_lml - log marginal likelihood and its gradient for given
 * hyperparameters, without a struct gp (used by gp_fit; exposed for tests).
 * x: n×dim, its feature kinds kinds (core/space.h; NULL: every feature
 * real); ystd: n values, used as given (standardize them first);
 * log_params: GP_NPARAMS(dim) entries θ = (log ℓ_1..log ℓ_dim, log σ_f²,
 * log σ_n²); *lml receives
 *   -½ yᵀK_y⁻¹y - ½ log|K_y| - (n/2) log 2π,  K_y = K + σ_n² I;
 * grad (GP_NPARAMS(dim) entries, or NULL to skip the O(n³) inverse)
 * receives ∂lml/∂θ_j = ½ tr((ααᵀ - K_y⁻¹) ∂K_y/∂θ_j), α = K_y⁻¹y
 * (R&W eq. 5.9); ∂K_y/∂log σ_n² = σ_n² I.
 * work: gp_lml_work_size(n, dim) doubles, caller-owned. On HPOD_OK its
 * first n² entries hold the Cholesky factor L of K_y (row-major, lower)
 * and entries [3n², 3n² + n) hold α.
 * x must be finite (gp_fit and gp_condition check it).
 * Returns HPOD_OK; HPOD_EINVAL if n == 0, a required pointer is NULL or
 * exp(θ_j) is not finite and positive; HPOD_ENUMERIC if K_y is not
 * positive definite even with jitter or the result is not finite.
 */
enum hpod_status gp_lml(const double *x, const double *ystd, size_t n,
                        size_t dim, const unsigned char *kinds,
                        enum kernel_kind kind, const double *log_params,
                        double *lml, double *grad, double *work);

#endif
