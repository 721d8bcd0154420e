/*
 * core/mobo_ctx.c - the models of one multi-objective choice: the
 * objectives' units, the constraint GPs and the incumbent; see
 * mobo_ctx.h. Pure: no I/O, no globals.
 */
#include "core/mobo_ctx.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/acquisition.h"
#include "core/ehvi.h"
#include "core/gp.h"
#include "core/kernels.h"
#include "core/pareto.h"

/* Constraint GPs up to this size get a thorough ML-II fit (fit_con_gp). */
#define CON_FIT_MAX_N 100

/* log ½: the feasibility threshold of the incumbent. */
#define LOG_HALF (-0.69314718055994531)

static void
child_rng(const struct mobo_input *in, uint64_t tag, struct rng *r)
{
    rng_seed2(r, in->seed ^ (tag * 0x9E3779B97F4A7C15ULL), (uint64_t)in->seq);
}

/* ---- input checks ---- */

enum hpod_status
mobo_ctx_check(const struct mobo_input *in)
{
    if (!in || !in->space || in->space->dim == 0)
        return HPOD_EINVAL;
    if (in->kernel != KERNEL_MATERN52 && in->kernel != KERNEL_RBF)
        return HPOD_EINVAL;
    if (in->n_con == 0)
        return HPOD_OK;
    if (!in->con_max || (in->n_obs > 0 && (!in->obs_c || !in->obs_raw)))
        return HPOD_EINVAL;
    for (size_t c = 0; c < in->n_con; c++) {
        if (!isfinite(in->con_max[c]))
            return HPOD_EINVAL;
        if (!in->con_log || !in->con_log[c])
            continue;
        for (size_t i = 0; i < in->n_obs; i++) {
            double v = in->obs_c[i * in->n_con + c];
            if (isfinite(v) && v <= 0)
                return HPOD_EINVAL;
        }
    }
    return HPOD_OK;
}

/* ---- constraint models ---- */

static double
con_bound(const struct mobo_input *in, size_t c)
{
    double b = in->con_max[c];
    if (!in->con_log || !in->con_log[c])
        return b;
    /* No positive value is <= a bound <= 0: P = 0 everywhere. */
    return b > 0 ? log(b) : -INFINITY;
}

/*
 * GP of constrained metric c on the trials that reported it; *out = NULL
 * when none did. With one report gp_fit keeps the default
 * hyperparameters (it has nothing to fit them on) and just conditions.
 */
static enum hpod_status
fit_con_gp(const struct mobo_input *in, size_t c, struct gp **out)
{
    const struct space *sp = in->space;
    size_t n = 0, k = 0, dim = sp->dim;
    int lg = in->con_log && in->con_log[c];
    double *x, *y;
    struct gp *gp = NULL;
    struct rng r;
    enum hpod_status st = HPOD_ENUMERIC;

    *out = NULL;
    for (size_t i = 0; i < in->n_obs; i++)
        n += isfinite(in->obs_c[i * in->n_con + c]) != 0;
    if (n == 0)
        return HPOD_OK;
    x = xmalloc(n * dim * sizeof *x);
    y = xmalloc(n * sizeof *y);
    for (size_t i = 0; i < in->n_obs; i++) {
        double v = in->obs_c[i * in->n_con + c];
        if (!isfinite(v))
            continue;
        space_encode(sp, in->obs_raw + i * sp->n_params, x + k * dim);
        /* Multiplicative noise becomes additive in log space (Beck et al.
         * 2016, §3.2). */
        y[k++] = lg ? log(v) : v;
    }
    /*
     * P(feasible) gates recommendations at the study's confidence (0.99
     * say), so a constraint GP must not settle in a poor optimum of the
     * LML, which gp_fit's default budget sometimes does (a plateau at a
     * tiny lengthscale, P reverting to the base rate deep in the
     * infeasible region). Constraint GPs therefore get the better of two
     * thorough fits (up to CON_FIT_MAX_N points; beyond, two fits on the
     * default budget): docs/tuning.md, "Constraint GPs".
     */
    for (int a = 0; a < 2; a++) {
        /* The second fit only while the budget lasts. */
        if (a == 1 && gp && compute_budget_spent(in->budget))
            break;
        struct gp *g = gp_create(n, dim, (enum kernel_kind)in->kernel);
        struct gp_fit_options o;
        enum hpod_status sa;
        gp_fit_options_default(&o);
        if (n <= CON_FIT_MAX_N) {
            o.n_starts = 16;
            o.n_local = 2;
            o.max_eval = 50;
        }
        o.budget = in->budget;
        gp_set_fit_options(g, &o);
        (void)gp_set_kinds(g, in->space->kinds);
        child_rng(in, MOBO_TAG_CON + 2 * c + (uint64_t)a, &r);
        sa = gp_fit(g, x, y, n, &r);
        if (sa == HPOD_OK && (!gp || gp_log_marginal_likelihood(g) >
                                         gp_log_marginal_likelihood(gp))) {
            gp_free(gp);
            gp = g;
        } else {
            gp_free(g);
        }
        if (sa != HPOD_OK)
            st = sa;
    }
    if (gp)
        st = HPOD_OK;
    free(x);
    free(y);
    if (st != HPOD_OK) {
        gp_free(gp);
        return st;
    }
    *out = gp;
    return HPOD_OK;
}

/* log P(c <= b) for c ~ N(mu, var): log Φ((b - μ)/σ), a step if σ = 0. */
static double
log_pfeas(double mu, double var, double b)
{
    double sd = var > 0 ? sqrt(var) : 0;
    if (b == -INFINITY)
        return -INFINITY;
    if (!(sd > 0))
        return mu <= b ? 0 : -INFINITY;
    return acq_log_norm_cdf((b - mu) / sd);
}

/*
 * The noise variance of a constraint GP in the units of its values (or
 * log values): σ_n² · scale² (gp_hyper is in standardized units).
 */
static double
con_noise_var(const struct gp *g, size_t dim)
{
    double mean, scale;
    struct gp_hyper h = {.lengthscale =
                             xmalloc((dim ? dim : 1) * sizeof *h.lengthscale)};
    gp_get_hyper(g, &h);
    gp_get_standardization(g, &mean, &scale);
    free(h.lengthscale);
    return h.noise_var * scale * scale;
}

/*
 * out[i] = Σ_c log P_c(u_i) for k encoded points: the latent P_c, or
 * under x->observed_pf that of the value a trial there would report.
 */
enum hpod_status
mobo_ctx_con_logpf(const struct mobo_ctx *x, const double *u, size_t k,
                   double *out)
{
    double *mean, *var;
    enum hpod_status st = HPOD_OK;

    for (size_t i = 0; i < k; i++)
        out[i] = 0;
    if (k == 0 || x->n_con == 0)
        return HPOD_OK;
    mean = xmalloc(k * sizeof *mean);
    var = xmalloc(k * sizeof *var);
    for (size_t c = 0; c < x->n_con && st == HPOD_OK; c++) {
        if (!x->cgp[c])
            continue;
        double nv = 0;
        if ((st = gp_predict(x->cgp[c], u, k, mean, var)) != HPOD_OK)
            break;
        if (x->observed_pf)
            nv = con_noise_var(x->cgp[c], x->dim);
        for (size_t i = 0; i < k; i++)
            out[i] += log_pfeas(mean[i], var[i] + nv, x->cbound[c]);
    }
    free(mean);
    free(var);
    return st;
}

/* ---- context ---- */

void
mobo_ctx_init(struct mobo_ctx *x, const struct mobo_input *in)
{
    memset(x, 0, sizeof *x);
    x->in = in;
    x->np = in->space->n_params;
    x->dim = in->space->dim;
    x->m = in->m;
    x->n_con = in->n_con;
    x->cgp = xcalloc(in->n_con ? in->n_con : 1, sizeof *x->cgp);
    x->cbound = xcalloc(in->n_con ? in->n_con : 1, sizeof *x->cbound);
    x->ogp = xcalloc(in->m ? in->m : 1, sizeof *x->ogp);
    x->ogp_owned = xcalloc(in->m ? in->m : 1, 1);
    x->pend_mu = xcalloc((in->n_pend ? in->n_pend : 1) * (in->m ? in->m : 1),
                         sizeof *x->pend_mu);
    x->sense = xmalloc((in->m ? in->m : 1) * sizeof *x->sense);
    x->ref = xcalloc(in->m ? in->m : 1, sizeof *x->ref);
    for (size_t j = 0; j < in->m; j++)
        x->sense[j] = 1;
    if (in->m >= 2 && in->ref)
        memcpy(x->ref, in->ref, in->m * sizeof *x->ref);
    child_rng(in, MOBO_TAG_MC, &x->mc);
}

void
mobo_ctx_clear(struct mobo_ctx *x)
{
    for (size_t c = 0; c < x->n_con; c++)
        gp_free(x->cgp[c]);
    for (size_t j = 0; j < x->m; j++)
        if (x->ogp_owned[j])
            gp_free(x->ogp[j]);
    free(x->cgp);
    free(x->cbound);
    free(x->ogp);
    free(x->ogp_owned);
    free(x->pend_mu);
    free(x->front);
    free(x->lambda);
    free(x->hvs_best);
    free(x->sense);
    free(x->ref);
}

enum hpod_status
mobo_ctx_fit_constraints(struct mobo_ctx *x)
{
    enum hpod_status st;
    for (size_t c = 0; c < x->n_con; c++) {
        x->cbound[c] = con_bound(x->in, c);
        if ((st = fit_con_gp(x->in, c, &x->cgp[c])) != HPOD_OK)
            return st;
    }
    return HPOD_OK;
}

/*
 * Whether observed trial i counts as feasible for the incumbent: every
 * constraint reported and met, or not reported and believed to hold
 * (log P_c >= log ½ at the trial, lp_c; with no report of c at all, P_c
 * is 1). The believed part matters for decoupled reports, where a cheap
 * metric may be measured on a few trials only.
 */
static int
obs_feasible(const struct mobo_ctx *x, size_t i, const double *lp)
{
    const struct mobo_input *in = x->in;
    for (size_t c = 0; c < x->n_con; c++) {
        double v = in->obs_c[i * x->n_con + c];
        if (isfinite(v) ? !(v <= in->con_max[c]) : lp[c] < LOG_HALF)
            return 0;
    }
    return 1;
}

/*
 * Indices (into the observations) of the trials that reported every
 * objective and count as feasible (obs_feasible); idx has n_obs room.
 */
enum hpod_status
mobo_ctx_feasible_complete(const struct mobo_ctx *x, size_t *idx, size_t *count)
{
    const struct mobo_input *in = x->in;
    size_t m = x->m, nc = x->n_con, n = 0;
    double *u = xmalloc(x->dim * sizeof *u);
    double *lp = xmalloc((nc ? nc : 1) * sizeof *lp);
    double mean, var;
    enum hpod_status st = HPOD_OK;

    for (size_t i = 0; i < in->n_obs; i++) {
        size_t j = 0;
        while (j < m && isfinite(in->obs_y[i * m + j]))
            j++;
        if (j < m)
            continue;
        space_encode(in->space, in->obs_raw + i * x->np, u);
        for (size_t c = 0; c < nc; c++) {
            lp[c] = 0;
            if (isfinite(in->obs_c[i * nc + c]) || !x->cgp[c])
                continue;
            if ((st = gp_predict(x->cgp[c], u, 1, &mean, &var)) != HPOD_OK)
                goto out;
            lp[c] = log_pfeas(mean, var, x->cbound[c]);
        }
        if (obs_feasible(x, i, lp))
            idx[n++] = i;
    }
out:
    *count = n;
    free(u);
    free(lp);
    return st;
}

/*
 * mobo_input.front_ref > 0: x->ref from the nf observed points pts (nf ×
 * m, the feasible complete observations in the surrogates' units): per
 * objective, the worst value w on their front moved out by front_ref × d,
 * d the range of the nf values (|w| if that is 0, 1 if both are).
 */
static void
front_reference(struct mobo_ctx *x, const double *pts, size_t nf)
{
    size_t m = x->m, *fi = xmalloc(nf * sizeof *fi);
    size_t k = pareto_front(pts, nf, m, x->sense, fi);
    for (size_t j = 0; j < m; j++) {
        double lo = INFINITY, hi = -INFINITY, w = INFINITY, d;
        for (size_t i = 0; i < nf; i++) {
            lo = fmin(lo, pts[i * m + j]);
            hi = fmax(hi, pts[i * m + j]);
        }
        for (size_t f = 0; f < k; f++)
            w = fmin(w, pts[fi[f] * m + j]);
        d = hi > lo ? hi - lo : fabs(w) > 0 ? fabs(w) : 1;
        x->ref[j] = w - x->in->front_ref * d;
    }
    free(fi);
}

/*
 * The incumbent: the feasible complete observations, plus pending trials
 * at their believed means when feasible with probability >= ½ (the
 * kriging believer applied to the front too, so that a second worker is
 * not sent after the same improvement). m >= 2: the non-dominated ones
 * form the front; m = 1: the best value.
 */
enum hpod_status
mobo_ctx_incumbent(struct mobo_ctx *x)
{
    const struct mobo_input *in = x->in;
    size_t m = x->m, n = 0, nf = 0;
    size_t tot = in->n_obs + in->n_pend;
    double *pts = xmalloc((tot ? tot : 1) * m * sizeof *pts);
    double *u = xmalloc(x->dim * sizeof *u);
    size_t *idx = xmalloc((tot ? tot : 1) * sizeof *idx);
    enum hpod_status st;

    if ((st = mobo_ctx_feasible_complete(x, idx, &nf)) != HPOD_OK)
        goto out;
    for (size_t i = 0; i < nf; i++, n++)
        memcpy(pts + n * m, in->obs_y + idx[i] * m, m * sizeof *pts);
    for (size_t p = 0; p < in->n_pend; p++) {
        double l;
        space_encode(in->space, in->pend_raw + p * x->np, u);
        if ((st = mobo_ctx_con_logpf(x, u, 1, &l)) != HPOD_OK)
            goto out;
        if (l < LOG_HALF)
            continue;
        memcpy(pts + n * m, x->pend_mu + p * m, m * sizeof *pts);
        n++;
    }
    if (m == 1) {
        x->has_best = n > 0;
        x->best = -INFINITY;
        for (size_t i = 0; i < n; i++)
            x->best = fmax(x->best, pts[i]);
        goto out;
    }
    if (in->front_ref > 0 && nf > 0)
        front_reference(x, pts, nf);
    x->n_front = pareto_front(pts, n, m, x->sense, idx);
    x->front = xmalloc((x->n_front ? x->n_front : 1) * m * sizeof *x->front);
    for (size_t i = 0; i < x->n_front; i++)
        memcpy(x->front + i * m, pts + idx[i] * m, m * sizeof *pts);
    if (m > MOBO_EHVI_EXACT_MAX) {
        struct rng r;
        child_rng(in, MOBO_TAG_HVS, &r);
        x->lambda = xmalloc(MOBO_MC_SAMPLES * m * sizeof *x->lambda);
        x->hvs_best = xmalloc(MOBO_MC_SAMPLES * sizeof *x->hvs_best);
        for (size_t d = 0; d < MOBO_MC_SAMPLES; d++) {
            ehvi_hvs_direction(&r, m, x->lambda + d * m);
            x->hvs_best[d] = ehvi_hvs_front(x->front, x->n_front, m, x->sense,
                                            x->ref, x->lambda + d * m);
        }
    }
out:
    free(pts);
    free(u);
    free(idx);
    return st;
}

enum hpod_status
mobo_ctx_front(const struct mobo_input *in, size_t *idx, size_t *n_front)
{
    struct mobo_ctx x;
    size_t nf = 0, *sel;
    double *pts;
    enum hpod_status st;

    if ((st = mobo_ctx_check(in)) != HPOD_OK)
        return st;
    if (!idx || !n_front || in->m == 0 ||
        (in->n_obs > 0 && (!in->obs_raw || !in->obs_y)))
        return HPOD_EINVAL;
    *n_front = 0;
    if (in->n_obs == 0)
        return HPOD_OK;
    mobo_ctx_init(&x, in);
    sel = xmalloc(in->n_obs * sizeof *sel);
    pts = xmalloc(in->n_obs * in->m * sizeof *pts);
    if ((st = mobo_ctx_fit_constraints(&x)) != HPOD_OK ||
        (st = mobo_ctx_feasible_complete(&x, sel, &nf)) != HPOD_OK)
        goto out;
    for (size_t i = 0; i < nf; i++)
        memcpy(pts + i * in->m, in->obs_y + sel[i] * in->m,
               in->m * sizeof *pts);
    /* m = 1 too: the rank-0 points of one objective are its maxima. */
    *n_front = pareto_front(pts, nf, in->m, x.sense, idx);
    for (size_t i = 0; i < *n_front; i++)
        idx[i] = sel[idx[i]];
out:
    free(sel);
    free(pts);
    mobo_ctx_clear(&x);
    return st;
}
