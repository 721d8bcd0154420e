/*
 * core/gp.c - Gaussian-process regression: standardization, ML-II
 * hyperparameter fitting with NLopt's L-BFGS, conditioning and prediction
 * (see gp.h for the contract).
 *
 * All linear algebra goes through core/linalg.h; kernels and their
 * derivatives come from core/kernels.h. No I/O and no static state.
 */
#include "core/gp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <nlopt.h>

#include "core/compute_budget.h"
#include "core/linalg.h"
#include "common/mem.h"

struct gp {
    size_t max_n, dim;
    enum kernel_kind kind;
    unsigned char *kinds; /* dim feature kinds (core/space.h), or NULL */
    struct gp_fit_options opt;

    /* Hyperparameters, standardized units. */
    double *ls; /* dim */
    double sf2, sn2;
    double *theta; /* GP_NPARAMS(dim) scratch for gp_condition */
    int warm;      /* set by gp_set_hyper or a fit: a start for gp_fit */

    /* Current conditioning. */
    size_t n;  /* 0: not conditioned */
    double *x; /* max_n × dim */
    double *y; /* max_n, standardized */
    double ymean, yscale;
    int fitted; /* standardization fixed by gp_fit */
    double lml;
    double *l, *alpha; /* point into work, valid while n > 0 */
    int clean;         /* the factor needed no jitter: it may be extended */

    /* A fixed query set (gp_set_queries): V = L⁻¹K* (max_n × nq), of
     * which the first vq_rows rows match the current factor. */
    double *xq, *vq, *beta;
    size_t nq, vq_rows;

    /* Workspaces: gp_lml's (3 max_n² + max_n + dim) and predict's. */
    double *work;
    double *kq; /* max_n × GP_PREDICT_BLOCK */

    struct gp_fit_stats stats;
};

/* Context of the NLopt objective: the best point ever evaluated wins. */
struct fit_ctx {
    struct gp *gp;
    size_t n, p;
    nlopt_opt opt;
    double best_lml;
    double *best_theta;
};

static void default_theta(const struct gp *gp, double *theta);
static void current_theta(const struct gp *gp, double *theta);
static void set_theta(struct gp *gp, const double *theta);
static void clamp_theta(const struct gp *gp, double *theta);
static void theta_bounds(const struct gp *gp, double *lo, double *hi);
static void random_theta(const struct gp *gp, struct rng *rng, double *theta);
static void fit_budget(const struct gp *gp, size_t n, size_t *starts,
                       size_t *local, size_t *maxeval);
static int check_inputs(const struct gp *gp, const double *x, const double *y,
                        size_t n);
static enum hpod_status condition_std(struct gp *gp);
static double objective(unsigned p, const double *theta, double *grad,
                        void *data);
static void local_search(struct fit_ctx *c, const double *start,
                         const double *lo, const double *hi, size_t maxeval);

static double
clampd(double v, double lo, double hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

void
gp_fit_options_default(struct gp_fit_options *o)
{
    o->ls_min = 1e-2;
    o->ls_max = 1e1;
    o->sf2_min = 0.05;
    o->sf2_max = 20.0;
    o->sn2_min = 1e-6;
    o->sn2_max = 2.0;
    o->n_starts = 0;
    o->n_local = 0;
    o->max_eval = 0;
    o->ls_prior_median = 0.0;
    o->ls_prior_sd = 0.0;
    o->budget = NULL;
}

struct gp *
gp_create(size_t max_n, size_t dim, enum kernel_kind kind)
{
    struct gp *gp;

    if (max_n == 0 || dim == 0 ||
        (kind != KERNEL_MATERN52 && kind != KERNEL_RBF))
        return NULL;
    gp = xcalloc(1, sizeof *gp);
    gp->max_n = max_n;
    gp->dim = dim;
    gp->kind = kind;
    gp_fit_options_default(&gp->opt);
    gp->ls = xcalloc(dim, sizeof(double));
    gp->theta = xcalloc(GP_NPARAMS(dim), sizeof(double));
    gp->x = xcalloc(max_n * dim, sizeof(double));
    gp->y = xcalloc(max_n, sizeof(double));
    gp->work = xcalloc(gp_lml_work_size(max_n, dim), sizeof(double));
    gp->kq = xcalloc(max_n * GP_PREDICT_BLOCK, sizeof(double));
    gp->beta = xcalloc(max_n, sizeof(double));
    gp->ymean = 0.0;
    gp->yscale = 1.0;
    gp->lml = NAN;
    gp->stats.lml = NAN;
    default_theta(gp, gp->theta);
    set_theta(gp, gp->theta);
    return gp;
}

void
gp_free(struct gp *gp)
{
    if (!gp)
        return;
    free(gp->ls);
    free(gp->theta);
    free(gp->x);
    free(gp->y);
    free(gp->work);
    free(gp->kq);
    free(gp->beta);
    free(gp->xq);
    free(gp->vq);
    free(gp->kinds);
    free(gp);
}

enum hpod_status
gp_set_kinds(struct gp *gp, const unsigned char *kinds)
{
    if (!gp)
        return HPOD_EINVAL;
    if (kinds ? gp->kinds && memcmp(kinds, gp->kinds, gp->dim) == 0
              : !gp->kinds)
        return HPOD_OK;
    free(gp->kinds);
    gp->kinds = NULL;
    if (kinds) {
        gp->kinds = xmalloc(gp->dim);
        memcpy(gp->kinds, kinds, gp->dim);
    }
    /* Another kernel: the conditioning and the queries' V are gone. */
    gp->n = 0;
    gp->vq_rows = 0;
    gp->lml = NAN;
    return HPOD_OK;
}

enum hpod_status
gp_set_fit_options(struct gp *gp, const struct gp_fit_options *o)
{
    if (!gp || !o)
        return HPOD_EINVAL;
    const double b[6] = {o->ls_min,  o->ls_max,  o->sf2_min,
                         o->sf2_max, o->sn2_min, o->sn2_max};
    for (int i = 0; i < 6; i++)
        if (!(b[i] > 0.0) || !isfinite(b[i]))
            return HPOD_EINVAL;
    if (o->ls_min > o->ls_max || o->sf2_min > o->sf2_max ||
        o->sn2_min > o->sn2_max)
        return HPOD_EINVAL;
    if (!(o->ls_prior_sd >= 0.0) || !isfinite(o->ls_prior_sd) ||
        (o->ls_prior_sd > 0.0 &&
         (!(o->ls_prior_median > 0.0) || !isfinite(o->ls_prior_median))))
        return HPOD_EINVAL;
    gp->opt = *o;
    return HPOD_OK;
}

size_t
gp_lml_work_size(size_t n, size_t dim)
{
    return 3 * n * n + n + dim;
}

enum hpod_status
gp_lml(const double *x, const double *ystd, size_t n, size_t dim,
       const unsigned char *kinds, enum kernel_kind kind,
       const double *log_params, double *lml, double *grad, double *work)
{
    enum hpod_status st;
    double *l, *s, *kf, *alpha, *ls;
    double sf2, sn2, quad, val;

    if (n == 0 || dim == 0 || !x || !ystd || !log_params || !lml || !work)
        return HPOD_EINVAL;
    l = work;
    s = work + n * n;
    kf = s + n * n;
    alpha = kf + n * n;
    ls = alpha + n;
    /* LAPACKE rejects NaN input as a bad argument: refuse it here. */
    for (size_t j = 0; j < dim + 2; j++) {
        double v = exp(log_params[j]);
        if (!(v > 0.0) || !isfinite(v))
            return HPOD_EINVAL;
        if (j < dim)
            ls[j] = v;
    }
    sf2 = exp(log_params[dim]);
    sn2 = exp(log_params[dim + 1]);

    /* K_y = K + σ_n² I, then L Lᵀ = K_y (R&W algorithm 2.1, line 2). */
    kernel_matrix(kind, x, n, dim, kinds, ls, sf2, l);
    /* The gradient reuses K's entries (no second pass of exps). */
    if (grad)
        memcpy(kf, l, n * n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        l[i * n + i] += sn2;
    if ((st = linalg_cholesky(l, n, s, NULL)) != HPOD_OK)
        return st;
    memcpy(alpha, ystd, n * sizeof(double));
    linalg_chol_solve(l, n, alpha);

    /* log p(y|X) = -½ yᵀα - Σ log L_ii - (n/2) log 2π (R&W eq. 2.30). */
    quad = linalg_dot(n, ystd, alpha);
    val = -0.5 * quad - 0.5 * linalg_chol_logdet(l, n) -
          0.5 * (double)n * log(2.0 * M_PI);
    if (!isfinite(val))
        return HPOD_ENUMERIC;
    *lml = val;
    if (!grad)
        return HPOD_OK;

    /*
     * ∂lml/∂θ_j = ½ tr(W ∂K_y/∂θ_j) with W = ααᵀ - K_y⁻¹ (R&W eq. 5.9).
     * K_y⁻¹ comes from the factor (dpotri); only W's lower triangle and
     * diagonal are used by kernel_grad_contract.
     */
    memcpy(s, l, n * n * sizeof(double));
    if ((st = linalg_chol_inverse(s, n)) != HPOD_OK)
        return st;
    double trw = 0.0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j <= i; j++)
            s[i * n + j] = alpha[i] * alpha[j] - s[i * n + j];
        trw += s[i * n + i];
    }
    kernel_grad_contract(kind, x, n, dim, kinds, ls, sf2, kf, s, grad);
    for (size_t j = 0; j <= dim; j++)
        grad[j] *= 0.5;
    grad[dim + 1] = 0.5 * sn2 * trw;
    for (size_t j = 0; j < dim + 2; j++)
        if (!isfinite(grad[j]))
            return HPOD_ENUMERIC;
    return HPOD_OK;
}

/*
 * The defaults (a start of every fit, and its fallback): ℓ = 0.25·√dim,
 * about 0.6 times the typical distance √(dim/6) between two random points
 * of the unit cube, so the prior is smooth but not flat; σ_f² = 1, the
 * variance of standardized y; σ_n² = 0.01, which keeps K_y far from
 * singular (its eigenvalues are >= σ_n²).
 */
static void
default_theta(const struct gp *gp, double *theta)
{
    double ls0 =
        clampd(0.25 * sqrt((double)gp->dim), gp->opt.ls_min, gp->opt.ls_max);
    for (size_t d = 0; d < gp->dim; d++)
        theta[d] = log(ls0);
    theta[gp->dim] = log(1.0);
    theta[gp->dim + 1] = log(1e-2);
}

static void
current_theta(const struct gp *gp, double *theta)
{
    for (size_t d = 0; d < gp->dim; d++)
        theta[d] = log(gp->ls[d]);
    theta[gp->dim] = log(gp->sf2);
    theta[gp->dim + 1] = log(gp->sn2);
}

static void
set_theta(struct gp *gp, const double *theta)
{
    for (size_t d = 0; d < gp->dim; d++)
        gp->ls[d] = exp(theta[d]);
    gp->sf2 = exp(theta[gp->dim]);
    gp->sn2 = exp(theta[gp->dim + 1]);
}

static void
theta_bounds(const struct gp *gp, double *lo, double *hi)
{
    for (size_t d = 0; d < gp->dim; d++) {
        lo[d] = log(gp->opt.ls_min);
        hi[d] = log(gp->opt.ls_max);
    }
    lo[gp->dim] = log(gp->opt.sf2_min);
    hi[gp->dim] = log(gp->opt.sf2_max);
    lo[gp->dim + 1] = log(gp->opt.sn2_min);
    hi[gp->dim + 1] = log(gp->opt.sn2_max);
}

static void
clamp_theta(const struct gp *gp, double *theta)
{
    size_t p = GP_NPARAMS(gp->dim);
    double lo[3], hi[3];
    /* Bounds are per group (lengthscales, σ_f², σ_n²); see theta_bounds. */
    lo[0] = log(gp->opt.ls_min), hi[0] = log(gp->opt.ls_max);
    lo[1] = log(gp->opt.sf2_min), hi[1] = log(gp->opt.sf2_max);
    lo[2] = log(gp->opt.sn2_min), hi[2] = log(gp->opt.sn2_max);
    for (size_t j = 0; j < p; j++) {
        int g = j < gp->dim ? 0 : (j == gp->dim ? 1 : 2);
        theta[j] = clampd(theta[j], lo[g], hi[g]);
    }
}

/*
 * Random starts are drawn log-uniformly from the plausible middle of the
 * box (ℓ in [0.05, 2], σ_f² in [0.3, 3], σ_n² in [1e-5, 0.1]) intersected
 * with the bounds: the corners of the box are rarely where the optimum
 * lies, and L-BFGS reaches them anyway when it is.
 */
static void
random_theta(const struct gp *gp, struct rng *rng, double *theta)
{
    const double a[3] = {0.05, 0.3, 1e-5}, b[3] = {2.0, 3.0, 0.1};
    const double blo[3] = {gp->opt.ls_min, gp->opt.sf2_min, gp->opt.sn2_min};
    const double bhi[3] = {gp->opt.ls_max, gp->opt.sf2_max, gp->opt.sn2_max};
    size_t p = GP_NPARAMS(gp->dim);

    for (size_t j = 0; j < p; j++) {
        int g = j < gp->dim ? 0 : (j == gp->dim ? 1 : 2);
        double lo = a[g] > blo[g] ? a[g] : blo[g];
        double hi = b[g] < bhi[g] ? b[g] : bhi[g];
        if (lo > hi) {
            lo = blo[g];
            hi = bhi[g];
        }
        theta[j] = log(lo) + rng_uniform(rng) * (log(hi) - log(lo));
    }
}

/*
 * Evaluation budget. One LML+gradient evaluation costs one Cholesky (n³/3
 * flops), one inverse (2n³/3) and O(n² dim) kernel passes; a value-only
 * evaluation about 40% of that. The speed goal is ≤ 50 ms per suggestion
 * at n = 200 and ≤ 300 ms at n = 500, so beyond n = 100 the number of
 * starts shrinks like n^-1.5, a single L-BFGS run is made, and its
 * evaluation cap shrinks towards a floor of 16, which L-BFGS from the best
 * start needs on smooth data (timings and LML losses measured with
 * tests/bench/bench_gp.c: docs/tuning.md, "GP fit budget").
 */
static void
fit_budget(const struct gp *gp, size_t n, size_t *starts, size_t *local,
           size_t *maxeval)
{
    double nn = (double)n;
    double scale = nn <= 100.0 ? 1.0 : 1e6 / (nn * nn * nn);
    /*
     * 8 scored starts and one L-BFGS run of at most 20 evaluations: as good
     * on the NMT benchmarks as 16 starts and two runs of 50, in about half
     * the time (docs/tuning.md, "GP fit budget"); past 100 points each
     * evaluation is O(n³), so the run shrinks.
     */
    size_t s = 8, loc = 1, me = 20;

    if (scale < 1.0)
        me = (size_t)fmax(16.0, 20.0 * pow(scale, 0.6));
    *starts = gp->opt.n_starts ? gp->opt.n_starts : s;
    *local = gp->opt.n_local ? gp->opt.n_local : loc;
    *maxeval = gp->opt.max_eval ? gp->opt.max_eval : me;
}

/*
 * The lengthscales' log-normal prior (gp_fit_options): adds its log
 * density, -Σ_d (θ_d - log m)² / 2s², to *v and its derivative to grad
 * (may be NULL). No prior (s = 0): nothing.
 */
static void
add_ls_prior(const struct gp *gp, const double *theta, double *v, double *grad)
{
    double s = gp->opt.ls_prior_sd;
    if (!(s > 0.0))
        return;
    double m = log(gp->opt.ls_prior_median);
    for (size_t d = 0; d < gp->dim; d++) {
        double t = theta[d] - m;
        *v -= 0.5 * t * t / (s * s);
        if (grad)
            grad[d] -= t / (s * s);
    }
}

static double
objective(unsigned p, const double *theta, double *grad, void *data)
{
    struct fit_ctx *c = data;
    struct gp *gp = c->gp;
    double lml;

    gp->stats.n_grad_evals++;
    if (gp_lml(gp->x, gp->y, c->n, gp->dim, gp->kinds, gp->kind, theta, &lml,
               grad, gp->work) != HPOD_OK) {
        /* Not factorizable here: end this run, keep the best so far. */
        if (grad)
            memset(grad, 0, p * sizeof(double));
        nlopt_force_stop(c->opt);
        return -HUGE_VAL;
    }
    add_ls_prior(gp, theta, &lml, grad);
    if (lml > c->best_lml) {
        c->best_lml = lml;
        memcpy(c->best_theta, theta, p * sizeof(double));
    }
    /* The budget spent: end the run; the best point evaluated stands. */
    if (compute_budget_spent(gp->opt.budget)) {
        gp->stats.budget_cut = 1;
        nlopt_force_stop(c->opt);
    }
    return lml;
}

/*
 * Scores the ns starts by the LML alone into vals (-HUGE_VAL where not
 * factorizable), recording the best in c. With a budget that is spent
 * after a start, the rest are not scored: returns how many were (>= 1).
 */
static size_t
score_starts(struct gp *gp, struct fit_ctx *c, const double *starts, size_t ns,
             double *vals)
{
    size_t p = c->p;
    for (size_t k = 0; k < ns; k++) {
        double v;
        gp->stats.n_value_evals++;
        if (gp_lml(gp->x, gp->y, c->n, gp->dim, gp->kinds, gp->kind,
                   starts + k * p, &v, NULL, gp->work) != HPOD_OK)
            v = -HUGE_VAL;
        else
            add_ls_prior(gp, starts + k * p, &v, NULL);
        vals[k] = v;
        if (v > c->best_lml) {
            c->best_lml = v;
            memcpy(c->best_theta, starts + k * p, p * sizeof(double));
        }
        if (k + 1 < ns && compute_budget_spent(gp->opt.budget)) {
            gp->stats.budget_cut = 1;
            return k + 1;
        }
    }
    return ns;
}

static void
local_search(struct fit_ctx *c, const double *start, const double *lo,
             const double *hi, size_t maxeval)
{
    double *t = xmalloc(c->p * sizeof(double));
    double f;

    c->opt = nlopt_create(NLOPT_LD_LBFGS, (unsigned)c->p);
    if (!c->opt)
        goto out;
    memcpy(t, start, c->p * sizeof(double));
    nlopt_set_lower_bounds(c->opt, lo);
    nlopt_set_upper_bounds(c->opt, hi);
    nlopt_set_max_objective(c->opt, objective, c);
    nlopt_set_maxeval(c->opt, (int)maxeval);
    /*
     * LML differences below ~1e-6 relative are irrelevant for prediction;
     * the evaluation cap usually ends the run first for large n.
     */
    nlopt_set_ftol_rel(c->opt, 1e-7);
    nlopt_set_xtol_rel(c->opt, 1e-5);
    /* Result ignored: the objective records the best point evaluated. */
    (void)nlopt_optimize(c->opt, t, &f);
    nlopt_destroy(c->opt);
    c->opt = NULL;
out:
    free(t);
}

static int
check_inputs(const struct gp *gp, const double *x, const double *y, size_t n)
{
    if (!gp || !x || !y || n == 0 || n > gp->max_n)
        return 0;
    for (size_t i = 0; i < n * gp->dim; i++)
        if (!isfinite(x[i]))
            return 0;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(y[i]))
            return 0;
    return 1;
}

void
gp_standardization(const double *y, size_t n, double *mean, double *scale)
{
    double m = 0.0, v = 0.0;
    for (size_t i = 0; i < n; i++)
        m += y[i];
    m /= (double)n;
    /* Two-pass variance: no cancellation for BLEU-sized offsets. */
    for (size_t i = 0; i < n; i++)
        v += (y[i] - m) * (y[i] - m);
    v /= (double)n;
    *mean = m;
    *scale = (v > 0.0 && isfinite(v)) ? sqrt(v) : 1.0;
}

/* α = K_y⁻¹y and the LML from the factor in gp->work (stride gp->n). */
static enum hpod_status
finish_factor(struct gp *gp)
{
    size_t n = gp->n;
    double *l = gp->work, *alpha = gp->work + 3 * n * n;

    memcpy(alpha, gp->y, n * sizeof(double));
    linalg_chol_solve(l, n, alpha);
    gp->lml = -0.5 * linalg_dot(n, gp->y, alpha) -
              0.5 * linalg_chol_logdet(l, n) -
              0.5 * (double)n * log(2.0 * M_PI);
    if (!isfinite(gp->lml)) {
        gp->n = 0;
        gp->lml = NAN;
        return HPOD_ENUMERIC;
    }
    gp->l = l;
    gp->alpha = alpha;
    return HPOD_OK;
}

/* Factorizes with the current hyperparameters on gp->x, gp->y (n set). */
static enum hpod_status
condition_std(struct gp *gp)
{
    enum hpod_status st;
    size_t n = gp->n;
    double *l = gp->work, jit = 0.0;

    kernel_matrix(gp->kind, gp->x, n, gp->dim, gp->kinds, gp->ls, gp->sf2, l);
    for (size_t i = 0; i < n; i++)
        l[i * n + i] += gp->sn2;
    if ((st = linalg_cholesky(l, n, gp->work + n * n, &jit)) != HPOD_OK) {
        gp->n = 0;
        gp->lml = NAN;
        return st;
    }
    gp->clean = jit == 0.0;
    gp->vq_rows = 0;
    return finish_factor(gp);
}

/*
 * Rows 0..p-1 of the current factor (stride old_n) are the factor of the
 * first p points, which x shares: move them to stride n, put the kernel
 * rows of the n - p new points below and append them (linalg_chol_append,
 * O(n²(n - p)) instead of O(n³)). Returns HPOD_ENUMERIC when the new
 * block is not positive definite without jitter (the caller refactorizes).
 */
static enum hpod_status
extend_factor(struct gp *gp, size_t p, size_t old_n, size_t n)
{
    double *l = gp->work;
    size_t k = n - p;
    enum hpod_status st;

    if (n > old_n) {
        for (size_t i = p; i-- > 0;)
            memmove(l + i * n, l + i * old_n, p * sizeof(double));
    } else {
        for (size_t i = 0; i < p; i++)
            memmove(l + i * n, l + i * old_n, p * sizeof(double));
    }
    for (size_t i = 0; i < p; i++)
        memset(l + i * n + p, 0, k * sizeof(double));
    gp->n = n;
    if (k > 0) {
        kernel_cross(gp->kind, gp->x + p * gp->dim, k, gp->x, n, gp->dim,
                     gp->kinds, gp->ls, gp->sf2, l + p * n);
        for (size_t i = p; i < n; i++)
            l[i * n + i] += gp->sn2;
        if ((st = linalg_chol_append(l, p, k, n)) != HPOD_OK)
            return st;
    }
    return finish_factor(gp);
}

/* Conditions on (x, y) standardized by (mean, scale), reusing the factor
 * of the longest prefix of rows the current conditioning shares. */
static enum hpod_status
condition_with(struct gp *gp, const double *x, const double *y, size_t n,
               double mean, double scale)
{
    size_t p = 0, old_n, dim;

    dim = gp->dim;
    old_n = gp->n;
    /* The longest prefix of rows the current (jitter-free) factor shares. */
    if (old_n > 0 && gp->clean)
        while (p < old_n && p < n &&
               memcmp(gp->x + p * dim, x + p * dim, dim * sizeof(double)) == 0)
            p++;
    memcpy(gp->x + p * dim, x + p * dim, (n - p) * dim * sizeof(double));
    gp->ymean = mean;
    gp->yscale = scale;
    for (size_t i = 0; i < n; i++)
        gp->y[i] = (y[i] - mean) / scale;
    if (gp->vq_rows > p)
        gp->vq_rows = p; /* V's rows past the shared prefix are stale */
    if (p > 0 && extend_factor(gp, p, old_n, n) == HPOD_OK)
        return HPOD_OK;
    gp->n = n;
    return condition_std(gp);
}

enum hpod_status
gp_condition_std(struct gp *gp, const double *x, const double *y, size_t n,
                 double mean, double scale)
{
    enum hpod_status st;

    if (!check_inputs(gp, x, y, n) || !isfinite(mean) || !(scale > 0.0) ||
        !isfinite(scale))
        return HPOD_EINVAL;
    st = condition_with(gp, x, y, n, mean, scale);
    gp->fitted = 1;
    return st;
}

enum hpod_status
gp_condition(struct gp *gp, const double *x, const double *y, size_t n)
{
    double mean, scale;

    if (!check_inputs(gp, x, y, n))
        return HPOD_EINVAL;
    if (gp->fitted) {
        mean = gp->ymean;
        scale = gp->yscale;
    } else {
        gp_standardization(y, n, &mean, &scale);
    }
    return condition_with(gp, x, y, n, mean, scale);
}

enum hpod_status
gp_fit(struct gp *gp, const double *x, const double *y, size_t n,
       struct rng *rng)
{
    enum hpod_status st = HPOD_OK;
    size_t p, nstarts, nlocal, maxeval, ns = 0;
    double *starts = NULL, *vals = NULL, *lo = NULL, *hi = NULL;
    double *best = NULL;
    unsigned char *used = NULL;
    struct fit_ctx c = {0};

    if (!check_inputs(gp, x, y, n) || !rng)
        return HPOD_EINVAL;
    memset(&gp->stats, 0, sizeof gp->stats);
    gp->stats.lml = NAN;
    memcpy(gp->x, x, n * gp->dim * sizeof(double));
    gp_standardization(y, n, &gp->ymean, &gp->yscale);
    gp->fitted = 1;
    int constant = 1;
    for (size_t i = 0; i < n; i++) {
        gp->y[i] = (y[i] - gp->ymean) / gp->yscale;
        if (y[i] != y[0])
            constant = 0;
    }
    gp->n = 0;

    p = GP_NPARAMS(gp->dim);
    fit_budget(gp, n, &nstarts, &nlocal, &maxeval);
    lo = xmalloc(p * sizeof(double));
    hi = xmalloc(p * sizeof(double));
    best = xmalloc(p * sizeof(double));
    theta_bounds(gp, lo, hi);

    if (n >= 2 && !constant) {
        /* Starts: default, warm (current, if any), then random. */
        size_t cap = nstarts + 2;
        starts = xmalloc(cap * p * sizeof(double));
        vals = xmalloc(cap * sizeof(double));
        used = xcalloc(cap, 1);
        default_theta(gp, starts);
        clamp_theta(gp, starts);
        ns = 1;
        if (gp->warm) {
            current_theta(gp, starts + p);
            clamp_theta(gp, starts + p);
            ns++;
        }
        for (size_t k = 0; k < nstarts; k++)
            random_theta(gp, rng, starts + (ns++) * p);

        c.gp = gp;
        c.n = n;
        c.p = p;
        c.best_lml = -HUGE_VAL;
        c.best_theta = best;
        ns = score_starts(gp, &c, starts, ns, vals);
        /* L-BFGS from the best nlocal starts (ties: lowest index), while
         * the budget lasts. */
        for (size_t r = 0; r < nlocal && !gp->stats.budget_cut; r++) {
            size_t pick = ns;
            for (size_t k = 0; k < ns; k++)
                if (!used[k] && vals[k] > -HUGE_VAL &&
                    (pick == ns || vals[k] > vals[pick]))
                    pick = k;
            if (pick == ns)
                break;
            used[pick] = 1;
            local_search(&c, starts + pick * p, lo, hi, maxeval);
        }
        if (c.best_lml > -HUGE_VAL) {
            set_theta(gp, best);
            gp->stats.optimized = 1;
            gp->warm = 1;
        }
    }

    gp->n = n;
    if ((st = condition_std(gp)) != HPOD_OK) {
        /* Fallback: the defaults have σ_n² = 0.01, far from singular. */
        default_theta(gp, best);
        set_theta(gp, best);
        gp->warm = 0;
        gp->stats.used_fallback = 1;
        gp->n = n;
        st = condition_std(gp);
    }
    gp->stats.lml = gp->lml;

    free(starts);
    free(vals);
    free(used);
    free(lo);
    free(hi);
    free(best);
    return st;
}

void
gp_reset_hyper(struct gp *gp)
{
    double *t;

    if (!gp)
        return;
    t = xmalloc(GP_NPARAMS(gp->dim) * sizeof(double));
    default_theta(gp, t);
    set_theta(gp, t);
    free(t);
    gp->warm = 0;
    gp->n = 0;
    gp->vq_rows = 0;
    gp->lml = NAN;
}

enum hpod_status
gp_predict_train(struct gp *gp, double *mean)
{
    if (!gp || gp->n == 0 || !mean)
        return HPOD_EINVAL;
    if (!gp->clean)
        return gp_predict(gp, gp->x, gp->n, mean, NULL);
    for (size_t i = 0; i < gp->n; i++)
        mean[i] = gp->ymean + gp->yscale * (gp->y[i] - gp->sn2 * gp->alpha[i]);
    return HPOD_OK;
}

enum hpod_status
gp_set_queries(struct gp *gp, const double *xq, size_t m)
{
    size_t dim;

    if (!gp || !xq || m == 0)
        return HPOD_EINVAL;
    dim = gp->dim;
    for (size_t i = 0; i < m * dim; i++)
        if (!isfinite(xq[i]))
            return HPOD_EINVAL;
    if (m == gp->nq && memcmp(gp->xq, xq, m * dim * sizeof(double)) == 0)
        return HPOD_OK;
    if (m != gp->nq) {
        free(gp->xq);
        free(gp->vq);
        gp->xq = xmalloc(m * dim * sizeof(double));
        gp->vq = xmalloc(gp->max_n * m * sizeof(double));
        gp->nq = m;
    }
    memcpy(gp->xq, xq, m * dim * sizeof(double));
    gp->vq_rows = 0;
    return HPOD_OK;
}

/*
 * var[j] = σ² (k(x,x) - Σ_i V_ij²) in y's units for the m columns of V =
 * L⁻¹K* (n × m, row-major): R&W algorithm 2.1, line 6. Round-off can
 * make it slightly negative near data; it is clamped at 0.
 */
static void
var_from_v(const struct gp *gp, const double *v, size_t n, size_t m,
           double *var)
{
    double s2 = gp->yscale * gp->yscale;
    for (size_t j = 0; j < m; j++)
        var[j] = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double *row = v + i * m;
        for (size_t j = 0; j < m; j++)
            var[j] += row[j] * row[j];
    }
    for (size_t j = 0; j < m; j++) {
        double t = gp->sf2 - var[j];
        var[j] = t > 0.0 ? s2 * t : 0.0;
    }
}

enum hpod_status
gp_predict_queries(struct gp *gp, double *mean, double *var)
{
    size_t n, m, p;
    double *v, *beta;

    if (!gp || gp->n == 0 || gp->nq == 0 || !mean || !var)
        return HPOD_EINVAL;
    n = gp->n;
    m = gp->nq;
    p = gp->vq_rows;
    v = gp->vq;
    beta = gp->beta;
    if (p < n) {
        /* K*'s new rows, then V's: one dgemm and one dtrsm for the block
         * of all m queries (R&W algorithm 2.1, line 5, by rows). */
        kernel_cross(gp->kind, gp->x + p * gp->dim, n - p, gp->xq, m, gp->dim,
                     gp->kinds, gp->ls, gp->sf2, v + p * m);
        linalg_trsm_lower_tail(gp->l, n, p, v, m);
        gp->vq_rows = n;
    }
    /* k*ᵀα = (L⁻¹k*)ᵀ(L⁻¹y) = Vᵀβ; var = k(x,x) - Σ_i V_ij². */
    memcpy(beta, gp->y, n * sizeof(double));
    linalg_trsv_lower(gp->l, n, beta, 0);
    linalg_gemv(1, n, m, 1.0, v, beta, 0.0, mean);
    for (size_t j = 0; j < m; j++)
        mean[j] = gp->ymean + gp->yscale * mean[j];
    var_from_v(gp, v, n, m, var);
    return HPOD_OK;
}

int
gp_refit_due(size_t n_fit, double lml_fit, size_t n, double lml_now)
{
    if (n_fit == 0 || n < n_fit)
        return 1;
    if (n == n_fit)
        return 0;
    if (n <= GP_REFIT_ALWAYS_N)
        return 1;
    if ((double)n >= (double)n_fit + ceil(GP_REFIT_GROWTH * (double)n_fit))
        return 1;
    return isfinite(lml_now) && isfinite(lml_fit) &&
           lml_now < lml_fit - GP_REFIT_LML_DROP;
}

enum hpod_status
gp_predict(struct gp *gp, const double *xq, size_t m, double *mean, double *var)
{
    size_t n, dim;

    if (!gp || gp->n == 0)
        return HPOD_EINVAL;
    if (m == 0)
        return HPOD_OK;
    if (!xq || !mean)
        return HPOD_EINVAL;
    n = gp->n;
    dim = gp->dim;
    for (size_t i = 0; i < m * dim; i++)
        if (!isfinite(xq[i]))
            return HPOD_EINVAL;

    for (size_t b = 0; b < m; b += GP_PREDICT_BLOCK) {
        size_t mb = m - b < GP_PREDICT_BLOCK ? m - b : GP_PREDICT_BLOCK;
        double *kq = gp->kq; /* n × mb: column j is k* of query b + j */

        kernel_cross(gp->kind, gp->x, n, xq + b * dim, mb, dim, gp->kinds,
                     gp->ls, gp->sf2, kq);
        /* Mean k*ᵀα (R&W algorithm 2.1, line 4), for the whole block. */
        linalg_gemv(1, n, mb, 1.0, kq, gp->alpha, 0.0, mean + b);
        for (size_t j = 0; j < mb; j++)
            mean[b + j] = gp->ymean + gp->yscale * mean[b + j];
        if (!var)
            continue;
        /* V = L⁻¹K*, var = k(x,x) - Σ_i V_ij² (algorithm 2.1, lines 5-6). */
        linalg_trsm_lower(gp->l, n, kq, mb, 0);
        var_from_v(gp, kq, n, mb, var + b);
    }
    return HPOD_OK;
}

double
gp_log_marginal_likelihood(const struct gp *gp)
{
    if (!gp || gp->n == 0)
        return NAN;
    return gp->lml;
}

void
gp_get_hyper(const struct gp *gp, struct gp_hyper *h)
{
    if (!gp || !h)
        return;
    if (h->lengthscale)
        memcpy(h->lengthscale, gp->ls, gp->dim * sizeof(double));
    h->signal_var = gp->sf2;
    h->noise_var = gp->sn2;
}

enum hpod_status
gp_set_hyper(struct gp *gp, const struct gp_hyper *h)
{
    if (!gp || !h || !h->lengthscale)
        return HPOD_EINVAL;
    for (size_t d = 0; d < gp->dim; d++)
        if (!(h->lengthscale[d] > 0.0) || !isfinite(h->lengthscale[d]))
            return HPOD_EINVAL;
    if (!(h->signal_var > 0.0) || !isfinite(h->signal_var) ||
        !(h->noise_var > 0.0) || !isfinite(h->noise_var))
        return HPOD_EINVAL;
    memcpy(gp->ls, h->lengthscale, gp->dim * sizeof(double));
    gp->sf2 = h->signal_var;
    gp->sn2 = h->noise_var;
    gp->warm = 1;
    gp->n = 0;
    gp->vq_rows = 0;
    gp->lml = NAN;
    return HPOD_OK;
}

void
gp_get_standardization(const struct gp *gp, double *mean, double *scale)
{
    if (!gp)
        return;
    if (mean)
        *mean = gp->ymean;
    if (scale)
        *scale = gp->yscale;
}

void
gp_get_fit_stats(const struct gp *gp, struct gp_fit_stats *s)
{
    if (gp && s)
        *s = gp->stats;
}

size_t
gp_size(const struct gp *gp)
{
    return gp ? gp->n : 0;
}
