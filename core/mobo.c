/*
 * core/mobo.c - EHVI and constrained choices over GP or graph surrogates;
 * contracts and the method in core/mobo.h.
 *
 * Layout: the models (one surrogate per objective, one GP per constrained
 * metric, the incumbent front) are built once into a struct mobo_ctx; the
 * candidates are then scored from their predictive means and standard
 * deviations by one function shared by every surrogate and space
 * (score_points). The single-objective samplers live in core/sampler.c,
 * the EHVI integrals in core/ehvi.c. Pure: no I/O, no globals.
 */
#include "core/mobo.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/acqopt.h"
#include "core/acquisition.h"
#include "core/ehvi.h"
#include "core/gp.h"
#include "core/graph.h"
#include "core/kernels.h"
#include "common/mem.h"
#include "core/pareto.h"
#include "core/rng.h"
#include "core/sampler.h"

/* Fewest observations before cap_low_outliers caps anything. */
#define MOBO_CAP_MIN_N 8

/* Constraint GPs up to this size get a thorough ML-II fit (fit_con_gp). */
#define CON_FIT_MAX_N 100

/* log(MOBO_MIN_PFEAS). */
#define LOG_MIN_PFEAS (-6.907755278982137)
/* log ½: the feasibility threshold of the incumbent. */
#define LOG_HALF (-0.69314718055994531)

/*
 * Random streams, all derived from (seed, seq): tag 0 (the trial's own
 * stream, as in core/sampler.c) draws the continuous candidates; the
 * others feed the GP fits (constraint c: two streams, 2c and 2c + 1 past
 * TAG_CON) and the Monte Carlo draws, so that consuming more or fewer
 * numbers in one place never changes another.
 */
#define TAG_MC 1u
#define TAG_HVS 2u
#define TAG_OBJ 0x100u
#define TAG_CON 0x100000u

struct mobo_ctx {
    const struct mobo_input *in;
    size_t np, dim, m, n_con;
    struct gp **ogp;          /* m GPs (GP surrogate), else NULL */
    unsigned char *ogp_owned; /* 1: ogp[j] is ours (else the state's) */
    struct gp **cgp; /* n_con GPs; an entry is NULL if nobody reported */
    double *cbound;  /* n_con bounds, log-transformed under con_log */
    double *pend_mu; /* n_pend × m believed means of the pending trials */
    double *front;   /* n_front × m incumbent points */
    size_t n_front;
    double best; /* m = 1: the incumbent value, if has_best */
    int has_best;
    int *sense;          /* m entries of +1: everything is oriented */
    int *osign;          /* m signs of the objectives' values (obj_log) */
    double *ref;         /* m: in->ref in the surrogates' units (obj_log) */
    unsigned char *olog; /* m flags: objective j is modeled in logs */
    struct rng mc;
    /* m > MOBO_EHVI_EXACT_MAX: MOBO_MC_SAMPLES scalarization directions
     * (TAG_HVS), one per Monte Carlo draw, and the front's best
     * scalarized value under each (ehvi_hvs_mc). */
    double *lambda;
    double *hvs_best;
    /* 1 (mobo_next): P_c of a candidate is that of its observed value,
     * σ_c² plus the GP's noise variance (con_logpf). */
    int observed_pf;
};

static void
child_rng(const struct mobo_input *in, uint64_t tag, struct rng *r)
{
    rng_seed2(r, in->seed ^ (tag * 0x9E3779B97F4A7C15ULL), (uint64_t)in->seq);
}

/* Objective j in the surrogate's units (mobo_input.obj_log). */
static double
obj_value(const struct mobo_ctx *x, size_t j, double v)
{
    if (!x->olog[j])
        return v;
    return v > 0 ? log(v) : -log(-v);
}

/* The inverse of obj_value, sign from the objective's values (sgn). */
static double
obj_unvalue(const struct mobo_ctx *x, size_t j, double t)
{
    if (!x->olog[j])
        return t;
    return x->osign[j] > 0 ? exp(t) : -exp(-t);
}

/* ---- input checks ---- */

static enum hpod_status
check_constraints(const struct mobo_input *in)
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

static enum hpod_status
check_input(const struct mobo_input *in, const double *raw, const size_t *cand)
{
    enum hpod_status st = check_constraints(in);
    if (st != HPOD_OK)
        return st;
    if (!raw || !cand || in->m == 0)
        return HPOD_EINVAL;
    if (in->surrogate != MOBO_SURROGATE_GP &&
        in->surrogate != MOBO_SURROGATE_GRAPH)
        return HPOD_EINVAL;
    if (in->gp_blend < MOBO_BLEND_NONE || in->gp_blend > MOBO_BLEND_ALL)
        return HPOD_EINVAL;
    if (in->trust_shape != MOBO_TRUST_NEAREST &&
        in->trust_shape != MOBO_TRUST_STEPS)
        return HPOD_EINVAL;
    if (in->m >= 2) {
        if (!in->ref || !(in->front_ref >= 0) || !isfinite(in->front_ref))
            return HPOD_EINVAL;
        for (size_t j = 0; j < in->m; j++)
            if (!isfinite(in->ref[j]))
                return HPOD_EINVAL;
    }
    if (in->n_obs > 0 && (!in->obs_raw || !in->obs_y))
        return HPOD_EINVAL;
    if (in->n_pend > 0 && !in->pend_raw)
        return HPOD_EINVAL;
    if (in->n_cand == 0)
        return HPOD_OK;
    if (!in->cand_raw || !in->cand_used || (in->n_obs > 0 && !in->obs_cand) ||
        (in->n_pend > 0 && !in->pend_cand))
        return HPOD_EINVAL;
    for (size_t i = 0; i < in->n_obs; i++)
        if (in->obs_cand[i] >= in->n_cand)
            return HPOD_EINVAL;
    for (size_t i = 0; i < in->n_pend; i++)
        if (in->pend_cand[i] >= in->n_cand)
            return HPOD_EINVAL;
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
        struct gp *g = gp_create(n, dim, (enum kernel_kind)in->kernel);
        enum hpod_status sa;
        if (n <= CON_FIT_MAX_N) {
            struct gp_fit_options o;
            gp_fit_options_default(&o);
            o.n_starts = 16;
            o.n_local = 2;
            o.max_eval = 50;
            gp_set_fit_options(g, &o);
        }
        child_rng(in, TAG_CON + 2 * c + (uint64_t)a, &r);
        sa = gp_fit(g, x, y, n, &r);
        if (sa == HPOD_OK && (!gp || gp_log_marginal_likelihood(g) >
                                         gp_log_marginal_likelihood(gp))) {
            gp_destroy(gp);
            gp = g;
        } else {
            gp_destroy(g);
        }
        if (sa != HPOD_OK)
            st = sa;
    }
    if (gp)
        st = HPOD_OK;
    free(x);
    free(y);
    if (st != HPOD_OK) {
        gp_destroy(gp);
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
static enum hpod_status
con_logpf(const struct mobo_ctx *x, const double *u, size_t k, double *out)
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

/* The sign of objective j's reported values (+1 when none). */
static int
obs_sign(const struct mobo_input *in, size_t j)
{
    for (size_t i = 0; i < in->n_obs; i++) {
        double v = in->obs_y[i * in->m + j];
        if (isfinite(v))
            return v < 0 ? -1 : 1;
    }
    return 1;
}

/* Objective j's reports are all nonzero and of one sign. */
static int
log_ok(const struct mobo_input *in, size_t j)
{
    int pos = 0, neg = 0;
    for (size_t i = 0; i < in->n_obs; i++) {
        double v = in->obs_y[i * in->m + j];
        if (!isfinite(v))
            continue;
        if (v == 0)
            return 0;
        pos |= v > 0;
        neg |= v < 0;
    }
    return !(pos && neg);
}

/*
 * The reference of objective j in the surrogate's units: under obj_log, a
 * reference of the objective's sign maps as the values do; one of the
 * other sign or zero has no log and is taken one unit below the smallest
 * transformed value reported.
 */
static double
ref_value(const struct mobo_ctx *x, size_t j)
{
    const struct mobo_input *in = x->in;
    double r = in->ref[j], lo = INFINITY;
    if (!x->olog[j])
        return r;
    if (r != 0 && (r > 0) == (x->osign[j] > 0))
        return obj_value(x, j, r);
    for (size_t i = 0; i < in->n_obs; i++) {
        double v = in->obs_y[i * in->m + j];
        if (isfinite(v))
            lo = fmin(lo, obj_value(x, j, v));
    }
    return isfinite(lo) ? lo - 1 : 0;
}

static void
ctx_init(struct mobo_ctx *x, const struct mobo_input *in)
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
    x->osign = xmalloc((in->m ? in->m : 1) * sizeof *x->osign);
    x->ref = xcalloc(in->m ? in->m : 1, sizeof *x->ref);
    x->olog = xcalloc(in->m ? in->m : 1, 1);
    for (size_t j = 0; j < in->m; j++) {
        /* mobo_feasibility's callers pass no objectives (obs_y NULL). */
        int ys = in->m >= 2 && in->obs_y != NULL;
        x->sense[j] = 1;
        x->osign[j] = ys ? obs_sign(in, j) : 1;
        x->olog[j] = ys && in->log_objectives && log_ok(in, j);
    }
    if (in->m >= 2 && in->ref)
        for (size_t j = 0; j < in->m; j++)
            x->ref[j] = ref_value(x, j);
    child_rng(in, TAG_MC, &x->mc);
}

static void
ctx_cleanup(struct mobo_ctx *x)
{
    for (size_t c = 0; c < x->n_con; c++)
        gp_destroy(x->cgp[c]);
    for (size_t j = 0; j < x->m; j++)
        if (x->ogp_owned[j])
            gp_destroy(x->ogp[j]);
    free(x->cgp);
    free(x->cbound);
    free(x->ogp);
    free(x->ogp_owned);
    free(x->pend_mu);
    free(x->front);
    free(x->lambda);
    free(x->hvs_best);
    free(x->sense);
    free(x->osign);
    free(x->olog);
    free(x->ref);
}

static enum hpod_status
fit_constraints(struct mobo_ctx *x)
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
static enum hpod_status
feasible_complete(const struct mobo_ctx *x, size_t *idx, size_t *count)
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
static enum hpod_status
build_incumbent(struct mobo_ctx *x)
{
    const struct mobo_input *in = x->in;
    size_t m = x->m, n = 0, nf = 0;
    size_t tot = in->n_obs + in->n_pend;
    double *pts = xmalloc((tot ? tot : 1) * m * sizeof *pts);
    double *u = xmalloc(x->dim * sizeof *u);
    size_t *idx = xmalloc((tot ? tot : 1) * sizeof *idx);
    enum hpod_status st;

    if ((st = feasible_complete(x, idx, &nf)) != HPOD_OK)
        goto out;
    for (size_t i = 0; i < nf; i++, n++)
        memcpy(pts + n * m, in->obs_y + idx[i] * m, m * sizeof *pts);
    for (size_t p = 0; p < in->n_pend; p++) {
        double l;
        space_encode(in->space, in->pend_raw + p * x->np, u);
        if ((st = con_logpf(x, u, 1, &l)) != HPOD_OK)
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
    /* obj_log: the front in the surrogates' units (a monotone map keeps
     * dominance). */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            pts[i * m + j] = obj_value(x, j, pts[i * m + j]);
    if (in->front_ref > 0 && nf > 0)
        front_reference(x, pts, nf);
    x->n_front = pareto_front(pts, n, m, x->sense, idx);
    x->front = xmalloc((x->n_front ? x->n_front : 1) * m * sizeof *x->front);
    for (size_t i = 0; i < x->n_front; i++)
        memcpy(x->front + i * m, pts + idx[i] * m, m * sizeof *pts);
    if (m > MOBO_EHVI_EXACT_MAX) {
        struct rng r;
        child_rng(in, TAG_HVS, &r);
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

/* ---- scoring ---- */

/*
 * score[i] for k points from their objective means and standard
 * deviations (k × m) and log feasibility lpf (k); points with skip[i]
 * (skip may be NULL) get NaN. Larger is better.
 */
static void
score_points(const struct mobo_ctx *x, const double *mu, const double *sd,
             const double *lpf, size_t k, const unsigned char *skip,
             double *score)
{
    size_t m = x->m;

    for (size_t i = 0; i < k; i++) {
        const double *mi = mu + i * m, *si = sd + i * m;
        double e;
        if (skip && skip[i]) {
            score[i] = NAN;
            continue;
        }
        /* Where the model is confident that a constraint fails, the
         * product EI·P can still win in the far tails (log EI of -1e4
         * against log P of -2e3 once the incumbent is found), which would
         * spend evaluations on certain violations: such points are out. */
        if (lpf[i] < LOG_MIN_PFEAS) {
            score[i] = -INFINITY;
            continue;
        }
        if (m == 1) {
            /* EI·Π P_c (Gardner et al. 2014), in logs; before any
             * feasible incumbent, Π P_c alone (Gelbart et al. 2014). */
            score[i] = lpf[i] +
                       (x->has_best ? acq_log_ei(mi[0], si[0], x->best, 0) : 0);
            continue;
        }
        if (m == 2) {
            e = ehvi_2d(x->front, x->n_front, x->sense, x->ref, mi, si);
        } else if (m <= MOBO_EHVI_EXACT_MAX) {
            /* The same draws for every candidate (common random numbers):
             * the Monte Carlo error then mostly cancels in comparisons. */
            struct rng r = x->mc;
            e = ehvi_mc(x->front, x->n_front, m, x->sense, x->ref, mi, si,
                        MOBO_MC_SAMPLES, &r, NULL);
        } else {
            struct rng r = x->mc;
            e = ehvi_hvs_mc(m, x->sense, x->ref, mi, si, x->lambda, x->hvs_best,
                            MOBO_MC_SAMPLES, &r);
        }
        score[i] = (e > 0 ? log(e) : -INFINITY) + lpf[i];
    }
}

/*
 * The argmax of score over the eligible points; when every eligible score
 * is -Inf (nothing improves, or every point that would is believed
 * infeasible), the most probably feasible point if there are constraints,
 * else HPOD_ENUMERIC (the caller picks at random). HPOD_ENOTFOUND if no
 * point is eligible.
 */
static enum hpod_status
pick_best(const struct mobo_ctx *x, const double *score, const double *lpf,
          size_t k, const unsigned char *skip, size_t *pick)
{
    size_t p = acq_argmax(score, k, skip);
    if (p == k)
        return HPOD_ENOTFOUND;
    if (score[p] == -INFINITY) {
        if (x->n_con == 0)
            return HPOD_ENUMERIC;
        p = acq_argmax(lpf, k, skip);
    }
    *pick = p;
    return HPOD_OK;
}

/*
 * The explanation of a choice (e may be NULL): the runners-up by score
 * (finite: skip = the used candidates; continuous: skip NULL and the
 * runners-up dropped, as the points are not kept), and the pick, which
 * pick_best may have taken by feasibility instead.
 */
static void
explain_pick(struct sampler_explain *e, const double *score, size_t k,
             const unsigned char *skip, size_t pick)
{
    if (!e)
        return;
    if (!skip || sampler_explain_rank(e, score, NULL, NULL, k, skip) != pick) {
        e->n_runners = 0;
        e->pick.acq = score[pick];
    }
    e->pick.cand = skip ? pick : (size_t)-1;
}

/* ---- trust region ---- */

struct dist_idx {
    double d;
    size_t i;
};

static int
dist_idx_cmp(const void *pa, const void *pb)
{
    const struct dist_idx *a = pa, *b = pb;
    if (a->d != b->d)
        return a->d < b->d ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

size_t
mobo_trust_region(const double *u, size_t n, size_t dim,
                  const unsigned char *used, const size_t *centre, size_t nf,
                  size_t k, unsigned char *mask)
{
    struct dist_idx *di = xmalloc((n ? n : 1) * sizeof *di);
    size_t marked = 0;

    memset(mask, 0, n);
    for (size_t f = 0; f < nf; f++) {
        const double *c = u + centre[f] * dim;
        size_t nfree = 0;
        for (size_t i = 0; i < n; i++) {
            double d = 0;
            if (used[i])
                continue;
            for (size_t t = 0; t < dim; t++)
                d += (u[i * dim + t] - c[t]) * (u[i * dim + t] - c[t]);
            di[nfree].d = d;
            di[nfree++].i = i;
        }
        qsort(di, nfree, sizeof *di, dist_idx_cmp);
        for (size_t r = 0; r < k && r < nfree; r++) {
            marked += !mask[di[r].i];
            mask[di[r].i] = 1;
        }
    }
    free(di);
    return marked;
}

size_t
mobo_step_region(const struct space *sp, const double *raw, size_t n,
                 const unsigned char *used, const size_t *centre, size_t nf,
                 unsigned char *mask)
{
    size_t np = sp->n_params, marked = 0;

    memset(mask, 0, n);
    for (size_t f = 0; f < nf; f++) {
        const double *c = raw + centre[f] * np;
        for (size_t i = 0; i < n; i++) {
            size_t dif = 0;
            if (used[i] || mask[i])
                continue;
            for (size_t t = 0; t < np && dif < 2; t++)
                dif += raw[i * np + t] != c[t];
            if (dif == 1) {
                mask[i] = 1;
                marked++;
            }
        }
    }
    return marked;
}

/*
 * The choice under trust_k (finite studies): the best free candidate in
 * the trust region around the observed trials of the incumbent front, if
 * one has a finite score there; else pick_best over every free one. The
 * region is left for the step once it has stalled: the last trust_k · |F|
 * evaluations (F the front's observed trials) added none to F.
 */
static enum hpod_status
pick_trust(const struct mobo_ctx *x, const double *u, const double *score,
           const double *lpf, size_t k, const unsigned char *skip, size_t *pick)
{
    const struct mobo_input *in = x->in;
    size_t nf = 0, nc = 0, p, last = 0;
    size_t *idx, *centre;
    double *pts;
    unsigned char *mask, *sk2;
    enum hpod_status st;

    if (in->trust_k == 0 || in->n_cand == 0 || x->m < 2)
        return pick_best(x, score, lpf, k, skip, pick);
    idx = xmalloc((in->n_obs ? in->n_obs : 1) * sizeof *idx);
    centre = xmalloc((in->n_obs ? in->n_obs : 1) * sizeof *centre);
    pts = xmalloc((in->n_obs ? in->n_obs : 1) * x->m * sizeof *pts);
    mask = xmalloc(k);
    sk2 = xmalloc(k);
    if ((st = feasible_complete(x, idx, &nf)) != HPOD_OK)
        goto out;
    for (size_t i = 0; i < nf; i++)
        memcpy(pts + i * x->m, in->obs_y + idx[i] * x->m, x->m * sizeof *pts);
    nc = pareto_front(pts, nf, x->m, x->sense, centre);
    for (size_t i = 0; i < nc; i++) {
        last = idx[centre[i]] > last ? idx[centre[i]] : last;
        centre[i] = in->obs_cand[idx[centre[i]]];
    }
    /* Stalled: trust_k evaluations per front trial since the front last
     * gained one found nothing; this step looks everywhere. */
    if (nc == 0 || in->n_obs - 1 - last >= in->trust_k * nc) {
        st = pick_best(x, score, lpf, k, skip, pick);
        goto out;
    }
    if (in->trust_shape == MOBO_TRUST_STEPS)
        mobo_step_region(in->space, in->cand_raw, k, skip, centre, nc, mask);
    else
        mobo_trust_region(u, k, x->dim, skip, centre, nc, in->trust_k, mask);
    for (size_t i = 0; i < k; i++)
        sk2[i] = skip[i] || !mask[i];
    p = acq_argmax(score, k, sk2);
    if (p < k && score[p] > -INFINITY) {
        *pick = p;
        goto out;
    }
    st = pick_best(x, score, lpf, k, skip, pick);
out:
    free(idx);
    free(centre);
    free(pts);
    free(mask);
    free(sk2);
    return st;
}

/* ---- GP surrogate ---- */

static int
cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * Raises the n values of y to at least the lower Tukey fence, Q1 - 1.5
 * IQR, from MOBO_CAP_MIN_N values on. A training that failed (BLEU 2
 * among 17 to 20) belongs to another regime than the surface EI climbs;
 * a stationary GP fitted on it shrinks its lengthscales or inflates its
 * noise to bridge the cliff, and its predictions near the optimum turn to
 * noise. Capped, the failure still says "bad here", the order of every
 * value above the fence is kept and the incumbent (the largest) is not
 * touched.
 */
static void
cap_low_outliers(double *y, size_t n)
{
    if (n < MOBO_CAP_MIN_N)
        return;
    double *s = xmalloc(n * sizeof *s);
    memcpy(s, y, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_dbl);
    double q1 = s[n / 4], q3 = s[(3 * n) / 4];
    double fence = q1 - 1.5 * (q3 - q1);
    for (size_t i = 0; i < n; i++)
        if (y[i] < fence)
            y[i] = fence;
    free(s);
}

/*
 * The largest schedule point <= n (mobo.h): n itself up to
 * GP_REFIT_ALWAYS_N, then s_{k+1} = s_k + ceil(GP_REFIT_GROWTH · s_k).
 */
size_t
mobo_fit_point(size_t n)
{
    size_t s = GP_REFIT_ALWAYS_N;
    if (n <= GP_REFIT_ALWAYS_N)
        return n;
    for (;;) {
        size_t next = s + (size_t)ceil(MOBO_REFIT_GROWTH * (double)s);
        if (next > n)
            return s;
        s = next;
    }
}

/* One objective's kept GP: its fit on the first s_fit rows (key). */
struct obj_model {
    struct gp *gp;
    size_t cap, dim;
    int kernel;
    int valid; /* the hyperparameters are the fit identified by key */
    size_t s_fit;
    uint64_t key;
};

struct mobo_state {
    size_t m;
    struct obj_model *obj;
    /* Graph surrogate, finite studies: the graph over the candidates
     * (identified by their encoding and the kernel), whose cached G
     * graph_predict downdates from one call to the next (core/graph.h). */
    struct graph *graph;
    double *graph_u;
    size_t graph_n, graph_dim;
    int graph_kernel;
};

struct mobo_state *
mobo_state_create(void)
{
    return xcalloc(1, sizeof(struct mobo_state));
}

void
mobo_state_destroy(struct mobo_state *s)
{
    if (!s)
        return;
    for (size_t j = 0; j < s->m; j++)
        gp_destroy(s->obj[j].gp);
    free(s->obj);
    graph_destroy(s->graph);
    free(s->graph_u);
    free(s);
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t
fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001B3ULL;
    }
    return h;
}

/* Identifies the fit of objective j on the first s rows (u, y). */
static uint64_t
fit_key(const struct mobo_input *in, size_t j, const double *u, const double *y,
        size_t s, size_t dim)
{
    uint64_t h = 0xCBF29CE484222325ULL;
    int kern = in->kernel;
    h = fnv1a(h, &in->seed, sizeof in->seed);
    h = fnv1a(h, &j, sizeof j);
    h = fnv1a(h, &s, sizeof s);
    h = fnv1a(h, &kern, sizeof kern);
    h = fnv1a(h, u, s * dim * sizeof *u);
    return fnv1a(h, y, s * sizeof *y);
}

/*
 * The GP for objective j with room for need points: the state's (kept,
 * grown when short, its hyperparameters carried over), else a new one
 * (*owned = 1).
 */
static struct gp *
obj_gp(const struct mobo_ctx *x, size_t j, size_t need, int *owned)
{
    struct mobo_state *s = x->in->state;
    struct obj_model *o;
    int kern = x->in->kernel;

    *owned = !s;
    if (!s)
        return gp_create(need, x->dim, (enum kernel_kind)kern);
    if (s->m != x->m) {
        for (size_t i = 0; i < s->m; i++)
            gp_destroy(s->obj[i].gp);
        free(s->obj);
        s->m = x->m;
        s->obj = xcalloc(x->m, sizeof *s->obj);
    }
    o = &s->obj[j];
    if (o->gp && (o->dim != x->dim || o->kernel != kern)) {
        gp_destroy(o->gp);
        memset(o, 0, sizeof *o);
    }
    if (!o->gp || o->cap < need) {
        size_t cap = need + need / 4 + 8;
        struct gp *g = gp_create(cap, x->dim, (enum kernel_kind)kern);
        if (o->gp && o->valid) {
            double *ls = xmalloc(x->dim * sizeof *ls);
            struct gp_hyper h = {ls, 0.0, 0.0};
            gp_get_hyper(o->gp, &h);
            o->valid = gp_set_hyper(g, &h) == HPOD_OK;
            free(ls);
        }
        gp_destroy(o->gp);
        o->gp = g;
        o->cap = cap;
        o->dim = x->dim;
        o->kernel = kern;
    }
    return o->gp;
}

/*
 * The hyperparameters of objective j (mobo.h, the refit schedule): kept
 * from the state when it holds the fit on the same first s rows, else
 * fitted there from the defaults and the (seed, j, s) stream.
 */
static enum hpod_status
obj_hyper(const struct mobo_ctx *x, size_t j, struct gp *gp, const double *u,
          const double *y, size_t n)
{
    const struct mobo_input *in = x->in;
    size_t s = mobo_fit_point(n);
    uint64_t key = fit_key(in, j, u, y, s, x->dim);
    struct obj_model *o = in->state ? &in->state->obj[j] : NULL;
    struct rng r;
    enum hpod_status st;

    if (o && o->valid && o->s_fit == s && o->key == key)
        return HPOD_OK;
    if (o)
        o->valid = 0;
    gp_reset_hyper(gp);
    rng_seed2(&r, in->seed ^ ((TAG_OBJ + j) * 0x9E3779B97F4A7C15ULL),
              (uint64_t)s);
    if ((st = gp_fit(gp, u, y, s, &r)) != HPOD_OK)
        return st;
    if (o) {
        o->valid = 1;
        o->s_fit = s;
        o->key = key;
    }
    return HPOD_OK;
}

/*
 * GP of objective j on the trials that reported it (hyperparameters from
 * obj_hyper), conditioned on them plus the pending trials at their
 * predicted means (kriging believer), which are kept in pend_mu. The
 * standardization is that of all n reports.
 */
static enum hpod_status
fit_obj_gp(struct mobo_ctx *x, size_t j)
{
    const struct mobo_input *in = x->in;
    size_t n = 0, k = 0, dim = x->dim, m = x->m, npd = in->n_pend;
    double *u, *y, ym, ys;
    struct gp *gp;
    int owned;
    enum hpod_status st;

    for (size_t i = 0; i < in->n_obs; i++)
        n += isfinite(in->obs_y[i * m + j]) != 0;
    if (n == 0)
        return HPOD_ENUMERIC;
    u = xmalloc((n + npd) * dim * sizeof *u);
    y = xmalloc((n + npd) * sizeof *y);
    for (size_t i = 0; i < in->n_obs; i++) {
        if (!isfinite(in->obs_y[i * m + j]))
            continue;
        space_encode(in->space, in->obs_raw + i * x->np, u + k * dim);
        y[k++] = obj_value(x, j, in->obs_y[i * m + j]);
    }
    if (m == 1)
        cap_low_outliers(y, n);
    gp_standardization(y, n, &ym, &ys);
    gp = obj_gp(x, j, n + npd, &owned);
    if ((st = obj_hyper(x, j, gp, u, y, n)) == HPOD_OK)
        st = gp_condition_std(gp, u, y, n, ym, ys);
    if (st == HPOD_OK && npd > 0) {
        space_encode_rows(in->space, in->pend_raw, npd, u + n * dim);
        st = gp_predict(gp, u + n * dim, npd, y + n, NULL);
        if (st == HPOD_OK)
            st = gp_condition_std(gp, u, y, n + npd, ym, ys);
        for (size_t p = 0; p < npd; p++)
            x->pend_mu[p * m + j] = obj_unvalue(x, j, y[n + p]);
    }
    free(u);
    free(y);
    if (st != HPOD_OK) {
        if (owned)
            gp_destroy(gp);
        else
            in->state->obj[j].valid = 0;
        return st;
    }
    x->ogp[j] = gp;
    x->ogp_owned[j] = (unsigned char)owned;
    return HPOD_OK;
}

/* Objective means and standard deviations (k × m) at k encoded points. */
static enum hpod_status
gp_objectives(const struct mobo_ctx *x, const double *u, size_t k, double *mu,
              double *sd)
{
    size_t m = x->m;
    double *mean = xmalloc((k ? k : 1) * sizeof *mean);
    double *var = xmalloc((k ? k : 1) * sizeof *var);
    enum hpod_status st = HPOD_OK;

    for (size_t j = 0; j < m && st == HPOD_OK; j++) {
        if ((st = gp_predict(x->ogp[j], u, k, mean, var)) != HPOD_OK)
            break;
        for (size_t i = 0; i < k; i++) {
            mu[i * m + j] = mean[i];
            sd[i * m + j] = var[i] > 0 ? sqrt(var[i]) : 0;
        }
    }
    free(mean);
    free(var);
    return st;
}

/* Scores k encoded points with the GP surrogates; lpf (k) is written too. */
static enum hpod_status
gp_score(const struct mobo_ctx *x, const double *u, size_t k,
         const unsigned char *skip, double *score, double *lpf)
{
    double *mu = xmalloc((k ? k : 1) * x->m * sizeof *mu);
    double *sd = xmalloc((k ? k : 1) * x->m * sizeof *sd);
    enum hpod_status st;

    if ((st = gp_objectives(x, u, k, mu, sd)) == HPOD_OK &&
        (st = con_logpf(x, u, k, lpf)) == HPOD_OK)
        score_points(x, mu, sd, lpf, k, skip, score);
    free(mu);
    free(sd);
    return st;
}

/*
 * Finite study: the candidates are every GP's fixed query set
 * (gp_set_queries), so that a kept GP extends V = L⁻¹K* by the new rows
 * only (O(n·n_cand) per new point) instead of predicting from scratch.
 */
static enum hpod_status
gp_finite(struct mobo_ctx *x, size_t *cand)
{
    const struct mobo_input *in = x->in;
    size_t n = in->n_cand, m = x->m;
    double *u = xmalloc(n * x->dim * sizeof *u);
    double *score = xmalloc(n * sizeof *score);
    double *lpf = xmalloc(n * sizeof *lpf);
    double *mu = xmalloc(n * m * sizeof *mu), *sd = xmalloc(n * m * sizeof *sd);
    double *mean = xmalloc(n * sizeof *mean), *var = xmalloc(n * sizeof *var);
    enum hpod_status st = HPOD_OK;

    space_encode_rows(in->space, in->cand_raw, n, u);
    for (size_t j = 0; j < m && st == HPOD_OK; j++) {
        if ((st = gp_set_queries(x->ogp[j], u, n)) != HPOD_OK ||
            (st = gp_predict_queries(x->ogp[j], mean, var)) != HPOD_OK)
            break;
        for (size_t i = 0; i < n; i++) {
            mu[i * m + j] = mean[i];
            sd[i * m + j] = var[i] > 0 ? sqrt(var[i]) : 0;
        }
    }
    if (st == HPOD_OK && (st = con_logpf(x, u, n, lpf)) == HPOD_OK) {
        score_points(x, mu, sd, lpf, n, in->cand_used, score);
        st = pick_trust(x, u, score, lpf, n, in->cand_used, cand);
    }
    if (st == HPOD_OK)
        explain_pick(in->explain, score, n, in->cand_used, *cand);
    free(u);
    free(score);
    free(lpf);
    free(mu);
    free(sd);
    free(mean);
    free(var);
    return st;
}

/* The acquisition optimizer's view of the GP surrogate: lpf has
 * acqopt_capacity() entries, one per point of the workspace. */
struct gp_opt {
    const struct mobo_ctx *x;
    double *lpf;
};

static enum hpod_status
gp_opt_score(void *ctx, const double *u, size_t first, size_t k, double *score)
{
    struct gp_opt *o = ctx;
    return gp_score(o->x, u, k, NULL, score, o->lpf + first);
}

/*
 * Continuous space: core/acqopt.h's random points and local refinement,
 * from the trial's stream r; the choice is pick_best over every point
 * scored.
 */
static enum hpod_status
gp_continuous(struct mobo_ctx *x, struct rng *r, double *raw)
{
    const struct space *sp = x->in->space;
    struct acqopt_ws ws;
    struct gp_opt o = {x, xmalloc(acqopt_capacity() * sizeof *o.lpf)};
    size_t pick = 0;
    enum hpod_status st;

    acqopt_ws_init(&ws, sp);
    if ((st = acqopt_draw(&ws, sp, r)) == HPOD_OK &&
        (st = acqopt_run(&ws, sp, r, gp_opt_score, &o, &pick)) == HPOD_OK &&
        (st = pick_best(x, ws.score, o.lpf, ws.n, NULL, &pick)) == HPOD_OK) {
        space_decode(sp, ws.u + pick * x->dim, raw);
        explain_pick(x->in->explain, ws.score, ws.n, NULL, pick);
    }
    acqopt_ws_free(&ws);
    free(o.lpf);
    return st;
}

/* ---- graph surrogate ---- */

/*
 * Labels of objective j on the graph: the trials that reported j at their
 * nodes (several trials on one node are averaged; graph_predict wants
 * distinct nodes). lab/y have room for n_obs + n_pend; returns the count.
 */
static size_t
graph_labels(const struct mobo_ctx *x, size_t j, const size_t *onode,
             size_t *slot, size_t *lab, double *y, double *cnt)
{
    const struct mobo_input *in = x->in;
    size_t nl = 0, m = x->m;

    for (size_t i = 0; i < in->n_obs; i++) {
        double v = in->obs_y[i * m + j];
        size_t nd = onode[i];
        if (!isfinite(v))
            continue;
        v = obj_value(x, j, v);
        if (slot[nd] == SIZE_MAX) {
            slot[nd] = nl;
            lab[nl] = nd;
            y[nl] = 0;
            cnt[nl++] = 0;
        }
        y[slot[nd]] += v;
        cnt[slot[nd]] += 1;
    }
    for (size_t l = 0; l < nl; l++)
        y[l] /= cnt[l];
    return nl;
}

/*
 * Variance scale per node: d_i / d̄, d_i the weighted degree of node i and
 * d̄ their mean (1 for an isolated node). Why: graph_predict's variance is
 * s²·d̄·G_ii, and G_ii = 1/d_i already for a node whose neighbours are all
 * labeled, so the Gaussian-field variance mostly ranks nodes by how poorly
 * connected they are, and EHVI on it chases unusual configurations.
 * s²·d_i·G_ii keeps the growth with the distance from the labeled set
 * and drops the degree; it found the Pareto rows sooner on four NMT tables
 * (docs/tuning.md, "EHVI on the graph").
 */
static void
degree_scale(const struct graph *g, size_t nn, double *dscale)
{
    double dbar = graph_mean_wdegree(g);
    for (size_t i = 0; i < nn; i++) {
        double d = graph_wdegree(g, i);
        dscale[i] = d > 0 && dbar > 0 ? d / dbar : 1;
    }
}

/*
 * Harmonic means and degree-scaled Gaussian-field standard deviations
 * (degree_scale) of every objective at the nn nodes of g (mu, sd: nn × m).
 * Pending nodes are labeled with their first prediction (kriging
 * believer) and the graph re-solved; the second solve downdates the
 * cached factor (core/graph.h).
 */
static enum hpod_status
graph_objectives(struct mobo_ctx *x, struct graph *g, size_t nn,
                 const size_t *onode, const size_t *pnode, double *mu,
                 double *sd)
{
    const struct mobo_input *in = x->in;
    size_t m = x->m, cap = in->n_obs + in->n_pend;
    size_t *slot = xmalloc(nn * sizeof *slot);
    size_t *lab = xmalloc((cap ? cap : 1) * sizeof *lab);
    double *y = xmalloc((cap ? cap : 1) * sizeof *y);
    double *cnt = xmalloc((cap ? cap : 1) * sizeof *cnt);
    double *mean = xmalloc(nn * sizeof *mean), *var = xmalloc(nn * sizeof *var);
    double *dscale = xmalloc(nn * sizeof *dscale);
    enum hpod_status st = HPOD_OK;

    degree_scale(g, nn, dscale);
    for (size_t j = 0; j < m; j++) {
        size_t nl, nl0;
        for (size_t i = 0; i < nn; i++)
            slot[i] = SIZE_MAX;
        nl = nl0 = graph_labels(x, j, onode, slot, lab, y, cnt);
        if (nl == 0) {
            st = HPOD_ENUMERIC;
            break;
        }
        if ((st = graph_predict(g, lab, y, nl, mean, var)) != HPOD_OK)
            break;
        for (size_t p = 0; p < in->n_pend; p++) {
            size_t nd = pnode[p];
            x->pend_mu[p * m + j] = obj_unvalue(
                x, j, slot[nd] == SIZE_MAX ? mean[nd] : y[slot[nd]]);
            if (slot[nd] != SIZE_MAX)
                continue;
            slot[nd] = nl;
            lab[nl] = nd;
            y[nl++] = mean[nd];
        }
        if (nl > nl0 &&
            (st = graph_predict(g, lab, y, nl, mean, var)) != HPOD_OK)
            break;
        for (size_t i = 0; i < nn; i++) {
            mu[i * m + j] = mean[i];
            sd[i * m + j] = var[i] > 0 ? sqrt(var[i] * dscale[i]) : 0;
        }
    }
    free(slot);
    free(lab);
    free(y);
    free(cnt);
    free(mean);
    free(var);
    free(dscale);
    return st;
}

/*
 * The state's graph over the nn encoded candidates u (built when it has
 * none over the same points and kernel); *g stays the state's.
 */
static enum hpod_status
state_graph(struct mobo_state *s, const double *u, size_t nn, size_t dim,
            const struct graph_options *o, struct graph **g)
{
    enum hpod_status st;
    if (s->graph && s->graph_n == nn && s->graph_dim == dim &&
        s->graph_kernel == (int)o->kernel &&
        memcmp(s->graph_u, u, nn * dim * sizeof *u) == 0) {
        *g = s->graph;
        return HPOD_OK;
    }
    graph_destroy(s->graph);
    free(s->graph_u);
    s->graph = NULL;
    s->graph_u = NULL;
    if ((st = graph_create(u, nn, dim, o, &s->graph)) != HPOD_OK)
        return st;
    s->graph_u = xmalloc(nn * dim * sizeof *u);
    memcpy(s->graph_u, u, nn * dim * sizeof *u);
    s->graph_n = nn;
    s->graph_dim = dim;
    s->graph_kernel = (int)o->kernel;
    *g = s->graph;
    return HPOD_OK;
}

void
mobo_blend(const double *mu_a, const double *sd_a, const double *mu_b,
           const double *sd_b, size_t k, double *mu, double *sd)
{
    for (size_t i = 0; i < k; i++) {
        double va = sd_a[i] * sd_a[i], vb = sd_b[i] * sd_b[i];
        mu[i] = 0.5 * (mu_a[i] + mu_b[i]);
        sd[i] = sqrt(0.5 * (va + vb));
    }
}

/*
 * mobo_input.gp_blend: objective j's graph predictions (mu, sd: nn × m,
 * at the nodes u) blended with its GP's (fit_obj_gp; finite: the GP's
 * query set, so a kept GP extends its predictions), and the pending
 * trials' belief (pend_mu) the average of the graph's and the GP's.
 */
static enum hpod_status
blend_gp(struct mobo_ctx *x, size_t j, const double *u, size_t nn, int finite,
         double *mu, double *sd)
{
    size_t m = x->m, npd = x->in->n_pend;
    double *mean = xmalloc(nn * sizeof *mean), *var = xmalloc(nn * sizeof *var);
    double *gsd = xmalloc(nn * sizeof *gsd);
    double *gmu = xmalloc(nn * sizeof *gmu), *ggsd = xmalloc(nn * sizeof *ggsd);
    double *pg = xmalloc((npd ? npd : 1) * sizeof *pg);
    enum hpod_status st;

    for (size_t p = 0; p < npd; p++)
        pg[p] = x->pend_mu[p * m + j];
    if ((st = fit_obj_gp(x, j)) != HPOD_OK)
        goto out;
    if (!finite)
        st = gp_predict(x->ogp[j], u, nn, mean, var);
    else if ((st = gp_set_queries(x->ogp[j], u, nn)) == HPOD_OK)
        st = gp_predict_queries(x->ogp[j], mean, var);
    if (st != HPOD_OK)
        goto out;
    for (size_t i = 0; i < nn; i++) {
        gsd[i] = var[i] > 0 ? sqrt(var[i]) : 0;
        gmu[i] = mu[i * m + j];
        ggsd[i] = sd[i * m + j];
    }
    mobo_blend(gmu, ggsd, mean, gsd, nn, gmu, ggsd);
    for (size_t i = 0; i < nn; i++) {
        mu[i * m + j] = gmu[i];
        sd[i * m + j] = ggsd[i];
    }
    for (size_t p = 0; p < npd; p++)
        x->pend_mu[p * m + j] = 0.5 * (pg[p] + x->pend_mu[p * m + j]);
out:
    free(mean);
    free(var);
    free(gsd);
    free(gmu);
    free(ggsd);
    free(pg);
    return st;
}

/* The objectives mobo_input.gp_blend names, blended (blend_gp). */
static enum hpod_status
blend_gps(struct mobo_ctx *x, const double *u, size_t nn, int finite,
          double *mu, double *sd)
{
    size_t nb = x->in->gp_blend == MOBO_BLEND_ALL     ? x->m
                : x->in->gp_blend == MOBO_BLEND_FIRST ? 1
                                                      : 0;
    enum hpod_status st = HPOD_OK;
    for (size_t j = 0; j < nb && st == HPOD_OK; j++)
        st = blend_gp(x, j, u, nn, finite, mu, sd);
    return st;
}

/*
 * Graph surrogate. Finite: the nodes are the candidates. Continuous: the
 * observed and pending points, then ACQOPT_N_NODES random points from
 * r (acqopt_sample); only the random ones are eligible (core/sampler.c's
 * graph_continuous).
 */
static enum hpod_status
graph_choose(struct mobo_ctx *x, struct rng *r, double *raw, size_t *cand)
{
    const struct mobo_input *in = x->in;
    const struct space *sp = in->space;
    size_t dim = x->dim, m = x->m, no = in->n_obs, npd = in->n_pend;
    int finite = in->n_cand > 0;
    size_t nn = finite ? in->n_cand : no + npd + ACQOPT_N_NODES;
    double *u = xmalloc(nn * dim * sizeof *u);
    double *mu = xmalloc(nn * m * sizeof *mu),
           *sd = xmalloc(nn * m * sizeof *sd);
    double *lpf = xmalloc(nn * sizeof *lpf),
           *score = xmalloc(nn * sizeof *score);
    size_t *onode = xmalloc((no ? no : 1) * sizeof *onode);
    size_t *pnode = xmalloc((npd ? npd : 1) * sizeof *pnode);
    unsigned char *skip = xcalloc(nn, 1);
    struct graph *g = NULL;
    struct graph_options o;
    size_t pick = 0;
    enum hpod_status st;

    if (finite) {
        space_encode_rows(sp, in->cand_raw, nn, u);
        if (no > 0)
            memcpy(onode, in->obs_cand, no * sizeof *onode);
        if (npd > 0)
            memcpy(pnode, in->pend_cand, npd * sizeof *pnode);
        memcpy(skip, in->cand_used, nn);
    } else {
        double *rawbuf = xmalloc(x->np * sizeof *rawbuf);
        space_encode_rows(sp, in->obs_raw, no, u);
        space_encode_rows(sp, in->pend_raw, npd, u + no * dim);
        for (size_t i = 0; i < no; i++)
            onode[i] = i;
        for (size_t i = 0; i < npd; i++)
            pnode[i] = no + i;
        memset(skip, 1, no + npd);
        acqopt_sample(sp, r, nn - no - npd, u + (no + npd) * dim, rawbuf);
        free(rawbuf);
    }
    graph_options_default(&o);
    o.kernel = (enum kernel_kind)in->kernel;
    if ((st = finite && in->state
                  ? state_graph(in->state, u, nn, dim, &o, &g)
                  : graph_create(u, nn, dim, &o, &g)) != HPOD_OK ||
        (st = graph_objectives(x, g, nn, onode, pnode, mu, sd)) != HPOD_OK ||
        (m >= 2 && (st = blend_gps(x, u, nn, finite, mu, sd)) != HPOD_OK) ||
        (st = build_incumbent(x)) != HPOD_OK ||
        (st = con_logpf(x, u, nn, lpf)) != HPOD_OK)
        goto out;
    score_points(x, mu, sd, lpf, nn, skip, score);
    if ((st = finite ? pick_trust(x, u, score, lpf, nn, skip, &pick)
                     : pick_best(x, score, lpf, nn, skip, &pick)) != HPOD_OK)
        goto out;
    explain_pick(in->explain, score, nn, finite ? skip : NULL, pick);
    if (finite) {
        *cand = pick;
        memcpy(raw, in->cand_raw + pick * x->np, x->np * sizeof *raw);
    } else {
        space_decode(sp, u + pick * dim, raw);
    }
out:
    /* Continuous: every random node may be skipped only if nn == no+npd,
     * which ACQOPT_N_NODES > 0 rules out, so ENOTFOUND cannot leak. */
    if (!(finite && in->state))
        graph_destroy(g);
    else if (st != HPOD_OK && g)
        graph_forget(g);
    free(u);
    free(mu);
    free(sd);
    free(lpf);
    free(score);
    free(onode);
    free(pnode);
    free(skip);
    return st;
}

/* ---- public ---- */

enum hpod_status
mobo_feasibility(const struct mobo_input *in, const double *u, size_t k,
                 double *pfeas)
{
    struct mobo_ctx x;
    double *lpf;
    enum hpod_status st;

    if ((st = check_constraints(in)) != HPOD_OK)
        return st;
    if (k == 0)
        return HPOD_OK;
    if (!u || !pfeas)
        return HPOD_EINVAL;
    for (size_t i = 0; i < k * in->space->dim; i++)
        if (!isfinite(u[i]))
            return HPOD_EINVAL;
    if (in->n_con == 0) {
        for (size_t i = 0; i < k; i++)
            pfeas[i] = 1;
        return HPOD_OK;
    }
    ctx_init(&x, in);
    lpf = xmalloc(k * sizeof *lpf);
    if ((st = fit_constraints(&x)) == HPOD_OK &&
        (st = con_logpf(&x, u, k, lpf)) == HPOD_OK)
        for (size_t i = 0; i < k; i++)
            pfeas[i] = exp(lpf[i]);
    free(lpf);
    ctx_cleanup(&x);
    return st;
}

enum hpod_status
mobo_front(const struct mobo_input *in, size_t *idx, size_t *n_front)
{
    struct mobo_ctx x;
    size_t nf = 0, *sel;
    double *pts;
    enum hpod_status st;

    if ((st = check_constraints(in)) != HPOD_OK)
        return st;
    if (!idx || !n_front || in->m == 0 ||
        (in->n_obs > 0 && (!in->obs_raw || !in->obs_y)))
        return HPOD_EINVAL;
    *n_front = 0;
    if (in->n_obs == 0)
        return HPOD_OK;
    ctx_init(&x, in);
    sel = xmalloc(in->n_obs * sizeof *sel);
    pts = xmalloc(in->n_obs * in->m * sizeof *pts);
    if ((st = fit_constraints(&x)) != HPOD_OK ||
        (st = feasible_complete(&x, sel, &nf)) != HPOD_OK)
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
    ctx_cleanup(&x);
    return st;
}

enum hpod_status
mobo_next(const struct mobo_input *in, double *raw, size_t *cand)
{
    struct mobo_ctx x;
    struct rng r;
    size_t complete = 0;
    enum hpod_status st;

    if (in && in->surrogate == MOBO_SURROGATE_GREEDY)
        return mobo_greedy(in, raw, cand);
    if ((st = check_input(in, raw, cand)) != HPOD_OK)
        return st;
    sampler_explain_clear(in->explain);
    *cand = (size_t)-1;
    if (in->n_cand > 0) {
        size_t free_n = 0;
        for (size_t i = 0; i < in->n_cand; i++)
            free_n += !in->cand_used[i];
        if (free_n == 0)
            return HPOD_ENOTFOUND;
    }
    for (size_t i = 0; i < in->n_obs; i++) {
        size_t j = 0;
        while (j < in->m && isfinite(in->obs_y[i * in->m + j]))
            j++;
        complete += j == in->m;
    }
    if (complete < 2)
        return HPOD_ENUMERIC;

    rng_seed2(&r, in->seed, (uint64_t)in->seq);
    ctx_init(&x, in);
    x.observed_pf = 1;
    if ((st = fit_constraints(&x)) != HPOD_OK)
        goto out;
    if (in->surrogate == MOBO_SURROGATE_GRAPH) {
        st = graph_choose(&x, &r, raw, cand);
        goto out;
    }
    for (size_t j = 0; j < in->m; j++)
        if ((st = fit_obj_gp(&x, j)) != HPOD_OK)
            goto out;
    if ((st = build_incumbent(&x)) != HPOD_OK)
        goto out;
    if (in->n_cand > 0) {
        if ((st = gp_finite(&x, cand)) == HPOD_OK)
            memcpy(raw, in->cand_raw + *cand * x.np, x.np * sizeof *raw);
    } else {
        st = gp_continuous(&x, &r, raw);
    }
out:
    /* Only a finite study with no free candidate is "not found"; that was
     * answered above, so anything else here is a model failure. */
    if (st == HPOD_ENOTFOUND)
        st = HPOD_ENUMERIC;
    if (st != HPOD_OK && in->n_cand > 0)
        *cand = (size_t)-1;
    ctx_cleanup(&x);
    return st;
}

/* ---- the greedy control (mobo_greedy) ---- */

/* Minus the squared distance of each free candidate to the nearest of the
 * nf encoded front rows uf (NaN for a taken one): larger is nearer. */
static void
greedy_scores(const struct mobo_input *in, const double *uf, size_t nf,
              double *score)
{
    size_t dim = in->space->dim, np = in->space->n_params;
    double *u = xmalloc(dim * sizeof *u);
    for (size_t i = 0; i < in->n_cand; i++) {
        score[i] = NAN;
        if (in->cand_used[i])
            continue;
        space_encode(in->space, in->cand_raw + i * np, u);
        double best = INFINITY;
        for (size_t f = 0; f < nf; f++) {
            double d = 0;
            for (size_t k = 0; k < dim; k++)
                d += (u[k] - uf[f * dim + k]) * (u[k] - uf[f * dim + k]);
            if (d < best)
                best = d;
        }
        score[i] = -best;
    }
    free(u);
}

enum hpod_status
mobo_greedy(const struct mobo_input *in, double *raw, size_t *cand)
{
    size_t nf = 0, *idx = NULL, free_n = 0;
    double *uf = NULL, *score = NULL;
    enum hpod_status st;

    if ((st = check_constraints(in)) != HPOD_OK)
        return st;
    if (!raw || !cand || in->m == 0 || in->n_cand == 0 || !in->cand_raw ||
        !in->cand_used || (in->n_obs > 0 && (!in->obs_raw || !in->obs_y)))
        return HPOD_EINVAL;
    sampler_explain_clear(in->explain);
    *cand = (size_t)-1;
    for (size_t i = 0; i < in->n_cand; i++)
        free_n += !in->cand_used[i];
    if (free_n == 0)
        return HPOD_ENOTFOUND;
    size_t dim = in->space->dim, np = in->space->n_params;
    idx = xmalloc((in->n_obs + 1) * sizeof *idx);
    if ((st = mobo_front(in, idx, &nf)) != HPOD_OK)
        goto out;
    if (nf == 0) {
        st = HPOD_ENUMERIC;
        goto out;
    }
    uf = xmalloc(nf * dim * sizeof *uf);
    for (size_t f = 0; f < nf; f++)
        space_encode(in->space, in->obs_raw + idx[f] * np, uf + f * dim);
    score = xmalloc(in->n_cand * sizeof *score);
    greedy_scores(in, uf, nf, score);
    size_t pick = in->n_cand;
    for (size_t i = 0; i < in->n_cand; i++)
        if (!isnan(score[i]) && (pick == in->n_cand || score[i] > score[pick]))
            pick = i; /* strict >: ties to the lowest index */
    if (in->explain) {
        sampler_explain_rank(in->explain, score, NULL, NULL, in->n_cand,
                             in->cand_used);
        in->explain->chooser = SAMPLER_CHOSE_GREEDY;
    }
    *cand = pick;
    memcpy(raw, in->cand_raw + pick * np, np * sizeof *raw);
out:
    free(idx);
    free(uf);
    free(score);
    return st;
}
