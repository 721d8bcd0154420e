/*
 * core/sampler_gp.c - the GP sampler (Rasmussen & Williams, ch. 2 and 5);
 * see sampler_gp.h.
 *
 * Fit on the normal scores of the completed trials' ranks, put the pending
 * ones in at their predicted mean (kriging believer, so two workers
 * polling at once get different suggestions), score with log EI / log PI
 * (incumbent: the largest posterior mean at an observation) / UCB, argmax
 * with ties to the lowest index; see sampler_gp_fit for why. Finite
 * spaces score every free candidate; continuous ones run core/acqopt.h's
 * optimizer (seeded random points, then shrinking Gaussian steps in the
 * encoded cube around the best few).
 */
#include "core/sampler_gp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/acqopt.h"
#include "core/acquisition.h"
#include "core/gp.h"
#include "core/normal_scores.h"
#include "core/transfer.h"
#include "core/trust_region.h"

#define SAMPLER_UCB_BETA 4.0
/* The state's GP keeps V = L⁻¹K* over a finite study's candidates when it
 * has at most this many cells (8 bytes each: 32 MB). */
#define SAMPLER_GP_QUERY_CELLS ((size_t)4 << 20)

/* The GP of the last choice with a kept model, conditioned on that
 * choice's points: gp_condition_std reuses its factor for the rows the
 * next conditioning shares (it compares the rows and refactorizes when
 * the hyperparameters differ), so it never changes an answer. */
struct sampler_gp_cache {
    struct gp *gp;
    size_t cap, dim;
    int kernel;
};

void
sampler_gp_cache_free(struct sampler_gp_cache *c)
{
    if (!c)
        return;
    gp_free(c->gp);
    free(c);
}

/*
 * The GP to condition: the state's (kept for its factor) when the study
 * keeps a model, else a new one (*owned). Capacity grows by a quarter so
 * that a growing history does not rebuild it every choice.
 */
static struct gp *
model_gp_state(const struct sampler_input *in, size_t need, int *owned)
{
    struct sampler_gp_cache *c;
    size_t dim = in->space->dim;

    *owned = !in->state || !in->gp_model;
    if (*owned) {
        struct gp *gp = gp_create(need, dim, (enum kernel_kind)in->kernel);
        if (gp)
            (void)gp_set_kinds(gp, in->space->kinds);
        return gp;
    }
    if (!in->state->gp)
        in->state->gp = xcalloc(1, sizeof *in->state->gp);
    c = in->state->gp;
    if (!c->gp || c->cap < need || c->dim != dim || c->kernel != in->kernel) {
        gp_free(c->gp);
        c->cap = need + need / 4 + 8;
        c->dim = dim;
        c->kernel = in->kernel;
        c->gp = gp_create(c->cap, dim, (enum kernel_kind)in->kernel);
    }
    if (c->gp)
        (void)gp_set_kinds(c->gp, in->space->kinds); /* no-op when equal */
    return c->gp;
}

/*
 * The GP to condition (model_gp_state), with the study's lengthscale floor
 * set (in->ls_min; 0: gp.h's default): set on every choice, since the
 * state's GP may have served another setting.
 */
static struct gp *
model_gp(const struct sampler_input *in, size_t need, int *owned)
{
    struct gp *gp = model_gp_state(in, need, owned);
    struct gp_fit_options o;

    gp_fit_options_default(&o);
    if (in->ls_min > 0.0 && in->ls_min <= o.ls_max)
        o.ls_min = in->ls_min;
    if (in->ls_prior > 0.0) {
        o.ls_prior_median = in->ls_prior;
        o.ls_prior_sd = SAMPLER_LSP_SD;
    }
    o.budget = in->budget;
    if (gp)
        (void)gp_set_fit_options(gp, &o); /* valid by construction */
    return gp;
}

/* The kept model applies: same kernel and dimension. */
static int
model_usable(const struct sampler_input *in)
{
    const struct sampler_gp_model *m = in->gp_model;
    return m && m->valid && m->kernel == in->kernel &&
           m->n_hyper == GP_NPARAMS(in->space->dim) && m->hyper;
}

/* Sets the kept hyperparameters, unless the GP has exactly them already
 * (setting them drops the factor). */
static enum hpod_status
use_model_hyper(struct gp *gp, const struct sampler_gp_model *m, size_t dim)
{
    double *ls = xmalloc(dim * sizeof *ls);
    struct gp_hyper h = {ls, 0.0, 0.0};
    enum hpod_status st = HPOD_OK;

    gp_get_hyper(gp, &h);
    if (memcmp(ls, m->hyper, dim * sizeof *ls) != 0 ||
        h.signal_var != m->hyper[dim] || h.noise_var != m->hyper[dim + 1]) {
        memcpy(ls, m->hyper, dim * sizeof *ls);
        h.signal_var = m->hyper[dim];
        h.noise_var = m->hyper[dim + 1];
        st = gp_set_hyper(gp, &h);
    }
    free(ls);
    return st;
}

/* Records a fit of n observations in the study's model. */
static void
model_record(const struct sampler_input *in, struct gp *gp, size_t n)
{
    size_t dim = in->space->dim;
    double *hy = xmalloc(GP_NPARAMS(dim) * sizeof *hy);
    struct gp_hyper h = {hy, 0.0, 0.0};

    gp_get_hyper(gp, &h);
    hy[dim] = h.signal_var;
    hy[dim + 1] = h.noise_var;
    if (sampler_gp_model_set(in->gp_model, in->kernel, n,
                             gp_log_marginal_likelihood(gp) / (double)n, hy,
                             GP_NPARAMS(dim)) == HPOD_OK)
        in->gp_model->changed = 1;
    free(hy);
}

/*
 * The hyperparameters: the kept ones, conditioned on the observations,
 * unless gp_refit_due (before, or from the LML they give now) asks for a
 * refit (gp_fit from the defaults and the trial's random starts), which
 * is then recorded in the study's model. Conditions
 * the GP on (x, y), n observations standardized by (ym, ys).
 */
static enum hpod_status
fit_or_condition(const struct sampler_input *in, struct rng *r, struct gp *gp,
                 const double *x, const double *y, double ym, double ys)
{
    const struct sampler_gp_model *m = in->gp_model;
    size_t n = in->n_obs, dim = in->space->dim;
    enum hpod_status st;

    if (model_usable(in) && !gp_refit_due(m->n_fit, m->lml_fit, n, NAN) &&
        use_model_hyper(gp, m, dim) == HPOD_OK &&
        gp_condition_std(gp, x, y, n, ym, ys) == HPOD_OK &&
        !gp_refit_due(m->n_fit, m->lml_fit, n,
                      gp_log_marginal_likelihood(gp) / (double)n))
        return HPOD_OK;
    /*
     * A refit starts from the defaults and the random starts, as every
     * choice did before hyperparameters were kept, never from the kept
     * ones: with them as an extra start (the best LML wins) evaluations
     * to the best rose on every NMT table (so-en BO_EI_R 39.1 -> 57.4,
     * 100 seeds): an early fit's basin holds later fits. It also keeps
     * the state's GP from carrying a start of its own.
     */
    gp_reset_hyper(gp);
    if ((st = gp_fit(gp, x, y, n, r)) != HPOD_OK)
        return st;
    /* A fit the budget cut is used for this choice only: the study keeps
     * its model, and the next choice fits again. */
    struct gp_fit_stats fs;
    gp_get_fit_stats(gp, &fs);
    if (in->gp_model && !fs.budget_cut)
        model_record(in, gp, n);
    return HPOD_OK;
}

/*
 * Fits the GP on the observations and conditions it on observations plus
 * pending points at their predicted means. *gp_out: the GP (*owned: the
 * caller destroys it; else it is the state's), in the units of the normal
 * scores; *best: EI's (and PI's) incumbent in those units.
 *
 * Two departures from a GP on the raw values with the best observation as
 * the incumbent, both because BO_EI lost to the greedy control on three
 * NMT tables without them (figures: docs/tuning.md, "GP sampler"):
 * 1. The GP models normal_scores of the values (a Gaussian copula,
 *    Salinas et al., ICML 2020): a failed run is an outlier for a
 *    stationary GP, which then explains it with tiny lengthscales and
 *    ranks by variance; on ranks it weighs like any other bad row.
 * 2. The incumbent is the largest posterior mean at the observations (the
 *    "plug-in" incumbent, Picheny et al., Struct. Multidisc. Optim. 2013):
 *    on ranks the best observation's score, Φ⁻¹(1 - 1/2n), grows with n
 *    above what a GP with noise reproduces, and EI then prefers poor rows
 *    of large variance to the neighbours of the best.
 */
enum hpod_status
sampler_gp_fit(const struct sampler_input *in, struct rng *r,
               struct gp **gp_out, int *owned, double *best, double w,
               double *noise)
{
    const struct space *sp = in->space;
    size_t dim = sp->dim, n = in->n_obs, m = in->n_pend;
    double *x = xmalloc((n + m) * dim * sizeof *x);
    double *y = xmalloc((n + m) * sizeof *y);
    struct gp *gp = model_gp(in, n + m, owned);
    double ym, ys;
    enum hpod_status st;

    *gp_out = NULL;
    space_encode_rows(sp, in->obs_raw, n, x);
    normal_scores(in->obs_y, n, y);
    /* Transfer: the GP models what the source's prior leaves. */
    for (size_t i = 0; w != 0.0 && i < n; i++)
        y[i] -= w * in->prior_cand[in->obs_cand[i]];
    gp_standardization(y, n, &ym, &ys);
    st = fit_or_condition(in, r, gp, x, y, ym, ys);
    if (st == HPOD_OK && noise) {
        double *ls = xmalloc((dim + 1) * sizeof *ls);
        struct gp_hyper h = {ls, 0.0, 0.0};
        gp_get_hyper(gp, &h);
        double nv = h.noise_var;
        if (nv < SAMPLER_NEI_FLOOR)
            nv = SAMPLER_NEI_FLOOR;
        *noise = nv * ys * ys;
        free(ls);
    }
    if (st == HPOD_OK) {
        /* The plug-in incumbent, before the pending points come in. */
        double *mu = xmalloc(n * sizeof *mu);
        st = gp_predict_train(gp, mu);
        *best = -INFINITY;
        for (size_t i = 0; st == HPOD_OK && i < n; i++) {
            double v = mu[i];
            if (w != 0.0)
                v += w * in->prior_cand[in->obs_cand[i]];
            *best = v > *best ? v : *best;
        }
        free(mu);
    }
    if (st == HPOD_OK && m > 0) {
        space_encode_rows(sp, in->pend_raw, m, x + n * dim);
        st = gp_predict(gp, x + n * dim, m, y + n, NULL);
        if (st == HPOD_OK)
            st = gp_condition_std(gp, x, y, n + m, ym, ys);
    }
    free(x);
    free(y);
    if (st != HPOD_OK) {
        if (*owned)
            gp_free(gp);
        return st;
    }
    *gp_out = gp;
    return HPOD_OK;
}

/* Scores m encoded points: larger is better. */
static enum hpod_status
gp_score(struct gp *gp, const struct sampler_input *in, double best,
         double noise, const double *u, size_t m, double *mean, double *var,
         double *score)
{
    enum hpod_status st = gp_predict(gp, u, m, mean, var);
    if (st != HPOD_OK)
        return st;
    for (size_t i = 0; noise > 0.0 && i < m; i++)
        var[i] += noise;
    enum acq_kind kind = in->acquisition == 1   ? ACQ_PI
                         : in->acquisition == 2 ? ACQ_UCB
                                                : ACQ_EI;
    acq_score(kind, mean, var, m, best, kind == ACQ_UCB ? SAMPLER_UCB_BETA : 0,
              score);
    return HPOD_OK;
}

/*
 * gp_score with the candidates kept in the state's GP (gp_set_queries):
 * only the rows of V = L⁻¹K* for points the GP did not have last time are
 * computed. buf: 3n doubles (mean, var, score).
 */
static enum hpod_status
gp_score_kept(struct gp *gp, const struct sampler_input *in, double best,
              double noise, const double *u, size_t n, double *buf)
{
    enum hpod_status st;

    if ((st = gp_set_queries(gp, u, n)) != HPOD_OK ||
        (st = gp_predict_queries(gp, buf, buf + n)) != HPOD_OK)
        return st;
    for (size_t i = 0; noise > 0.0 && i < n; i++)
        buf[n + i] += noise;
    enum acq_kind kind = in->acquisition == 1   ? ACQ_PI
                         : in->acquisition == 2 ? ACQ_UCB
                                                : ACQ_EI;
    acq_score(kind, buf, buf + n, n, best,
              kind == ACQ_UCB ? SAMPLER_UCB_BETA : 0, buf + 2 * n);
    return HPOD_OK;
}

/*
 * Transfer: the prior's weight (transfer_weight on the normal scores of
 * the observations against the prior at them); 0 without a prior.
 */
static double
prior_weight(const struct sampler_input *in)
{
    size_t n = in->n_obs;
    if (!in->prior_cand || n == 0)
        return 0.0;
    double *z = xmalloc(2 * n * sizeof *z);
    normal_scores(in->obs_y, n, z);
    for (size_t i = 0; i < n; i++)
        z[n + i] = in->prior_cand[in->obs_cand[i]];
    double w;
    if (in->prior_rule == TRANSFER_RANKLOSS) {
        size_t dim = in->space->dim;
        double *u = xmalloc(n * dim * sizeof *u);
        space_encode_rows(in->space, in->obs_raw, n, u);
        w = transfer_weight_rankloss(z + n, z, u, n, dim, in->space->kinds,
                                     in->seed);
        free(u);
    } else {
        w = transfer_weight(in->prior_rule, z + n, z, n);
    }
    free(z);
    return w;
}

/* Transfer: adds w·prior to the n candidates' means (buf: mean, var,
 * score) and scores them again against best. */
static void
prior_rescore(const struct sampler_input *in, double w, double best, size_t n,
              double *buf)
{
    for (size_t i = 0; i < n; i++)
        buf[i] += w * in->prior_cand[i];
    enum acq_kind kind = in->acquisition == 1   ? ACQ_PI
                         : in->acquisition == 2 ? ACQ_UCB
                                                : ACQ_EI;
    acq_score(kind, buf, buf + n, n, best,
              kind == ACQ_UCB ? SAMPLER_UCB_BETA : 0, buf + 2 * n);
}

enum hpod_status
sampler_gp_finite(const struct sampler_input *in, struct rng *r, size_t *cand)
{
    size_t n = in->n_cand, dim = in->space->dim;
    double *u = xmalloc(n * dim * sizeof *u);
    double *buf = xmalloc(3 * n * sizeof *buf);
    struct gp *gp = NULL;
    double best, noise = 0.0;
    int owned = 1;
    enum hpod_status st;

    double w = prior_weight(in);

    space_encode_rows(in->space, in->cand_raw, n, u);
    if ((st = sampler_gp_fit(in, r, &gp, &owned, &best, w,
                             in->acquisition == 3 ? &noise : NULL)) ==
            HPOD_OK &&
        (st = owned || n > SAMPLER_GP_QUERY_CELLS / in->state->gp->cap
                  ? gp_score(gp, in, best, noise, u, n, buf, buf + n,
                             buf + 2 * n)
                  : gp_score_kept(gp, in, best, noise, u, n, buf)) == HPOD_OK) {
        /* The prior's rescore keeps nei's noise: it is in buf + n. */
        if (w != 0.0)
            prior_rescore(in, w, best, n, buf);
        if (in->trust_div > 0)
            trust_region_best(u, n, in->space->dim, in->space->kinds,
                              in->cand_used, in->obs_cand, in->obs_y, in->n_obs,
                              (size_t)in->trust_div, SAMPLER_TR_TAU,
                              buf + 2 * n);
    }
    if (st == HPOD_OK) {
        *cand = acq_argmax(buf + 2 * n, n, in->cand_used);
        if (*cand == n)
            st = HPOD_ENOTFOUND;
        else if (in->explain) {
            in->explain->incumbent = best;
            sampler_explain_rank(in->explain, buf + 2 * n, buf, buf + n, n,
                                 in->cand_used);
        }
    }
    if (owned)
        gp_free(gp);
    free(u);
    free(buf);
    return st;
}

/* The acquisition optimizer's view of the GP: mean and var are scratch of
 * acqopt_capacity() entries. */
struct gp_opt {
    struct gp *gp;
    const struct sampler_input *in;
    double best, noise;
    double *mean, *var;
};

static enum hpod_status
gp_opt_score(void *ctx, const double *u, size_t first, size_t k, double *score)
{
    struct gp_opt *o = ctx;
    (void)first;
    return gp_score(o->gp, o->in, o->best, o->noise, u, k, o->mean, o->var,
                    score);
}

/*
 * The explanation of a continuous choice from the optimizer's scored
 * points (ws): the pick and the next best distinct points, their raw
 * configurations, and (gp non-NULL) the GP's mean and sd at them.
 */
static enum hpod_status
explain_continuous(const struct sampler_input *in, struct gp *gp, double best,
                   const struct acqopt_ws *ws)
{
    struct sampler_explain *e = in->explain;
    const struct space *sp = in->space;
    size_t dim = sp->dim, k = 0;
    size_t idx[SAMPLER_EXPLAIN_RUNNERS + 1];
    double *u;
    double mean[SAMPLER_EXPLAIN_RUNNERS + 1], var[SAMPLER_EXPLAIN_RUNNERS + 1];
    enum hpod_status st = HPOD_OK;

    e->incumbent = gp ? best : NAN;
    if (sampler_explain_rank_points(e, ws->score, NULL, NULL, ws->n, NULL,
                                    ws->u, dim) == ws->n)
        return HPOD_OK;
    idx[k++] = e->pick.cand;
    for (size_t j = 0; j < e->n_runners; j++)
        idx[k++] = e->runner[j].cand;
    if (gp) {
        u = xmalloc(k * dim * sizeof *u);
        for (size_t j = 0; j < k; j++)
            memcpy(u + j * dim, ws->u + idx[j] * dim, dim * sizeof *u);
        st = gp_predict(gp, u, k, mean, var);
        free(u);
        if (st != HPOD_OK)
            return st;
        for (size_t j = 0; j < k; j++) {
            struct sampler_explain_point *p =
                j == 0 ? &e->pick : &e->runner[j - 1];
            p->mean = mean[j];
            p->sd = sqrt(var[j] > 0.0 ? var[j] : 0.0);
        }
    }
    sampler_explain_decode(e, sp, ws->u);
    return HPOD_OK;
}

/* Continuous space: core/acqopt.h's random points and local refinement,
 * from the trial's stream r; the model is fitted from the same stream
 * between the draw and the refinement. */
enum hpod_status
sampler_gp_continuous(const struct sampler_input *in, struct rng *r,
                      double *raw)
{
    const struct space *sp = in->space;
    size_t cap = acqopt_capacity(), pick;
    struct acqopt_ws ws;
    int owned = 1;
    struct gp_opt o = {NULL,
                       in,
                       0.0,
                       0.0,
                       xmalloc(cap * sizeof *o.mean),
                       xmalloc(cap * sizeof *o.var)};
    enum hpod_status st;

    acqopt_ws_init(&ws, sp);
    if ((st = acqopt_draw(&ws, sp, r)) != HPOD_OK ||
        (st = sampler_gp_fit(in, r, &o.gp, &owned, &o.best, 0.0,
                             in->acquisition == 3 ? &o.noise : NULL)) !=
            HPOD_OK ||
        (st = acqopt_run(&ws, sp, r, gp_opt_score, &o, in->budget, &pick)) !=
            HPOD_OK)
        goto out;
    space_decode(sp, ws.u + pick * sp->dim, raw);
    if (in->explain)
        st = explain_continuous(in, o.gp, o.best, &ws);
out:
    if (owned)
        gp_free(o.gp);
    acqopt_ws_clear(&ws);
    free(o.mean);
    free(o.var);
    return st;
}
