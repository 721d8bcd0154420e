/*
 * core/sampler.c - random, greedy, GP-BO and graph-based choices; see
 * sampler.h.
 *
 * GP (Rasmussen & Williams, ch. 2 and 5): fit on the normal scores of the
 * completed trials' ranks, put the pending ones in at their predicted mean
 * (kriging believer, so two workers polling at once get different
 * suggestions), score with log EI / log PI (incumbent: the largest
 * posterior mean at an observation) / UCB, argmax with ties to the lowest
 * index; see gp_model for why. Finite spaces score every free candidate;
 * continuous ones run core/acqopt.h's optimizer (seeded random points, then
 * shrinking Gaussian steps in the encoded cube around the best few).
 * Graph (Zhang & Duh 2020): nodes are the candidates (or, for continuous
 * spaces, random points plus the evaluated ones); labels are the completed
 * values; pending nodes are labeled with their harmonic prediction; score
 * by EI on the Gaussian field or by expected influence (EIF).
 */
#include "core/sampler.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/acqopt.h"
#include "core/acquisition.h"
#include "core/gp.h"
#include "core/graph.h"
#include "common/mem.h"
#include "core/rng.h"
#include "core/transfer.h"

#define SAMPLER_UCB_BETA 4.0
/* The state's GP keeps V = L⁻¹K* over a finite study's candidates when it
 * has at most this many cells (8 bytes each: 32 MB). */
#define SAMPLER_GP_QUERY_CELLS ((size_t)4 << 20)
/* EIF's graph lengthscale as a fraction of the median edge length (see
 * graph_build) and its share of labels scaled to 1 (see eif_labels). */
#define SAMPLER_EIF_ELL_FRAC 0.5
#define SAMPLER_EIF_TOP_FRAC 0.075
/* Graph EI's lengthscale: a median-length edge weighs this (see
 * graph_build). */
#define SAMPLER_EI_EDGE_WEIGHT 0.004
/* "nei" (SAMPLER_V_FLOOR): the noise variance EI adds to the latent one is
 * at least this, in the GP's standardized units (a twentieth of the
 * normal scores' variance). 0.01, 0.05, 0.1 and 0.2 were measured on the
 * NMT tables (docs/sampler-nei.md); 0.05 was best on four of six. */
#define SAMPLER_NEI_FLOOR 0.05

struct sampler_state {
    /* Graph over a finite candidate set, identified by its encoding. */
    struct graph *graph;
    double *graph_x;
    size_t graph_n, graph_dim;
    int graph_kernel;
    int graph_acq; /* graph EI and EIF use different lengthscales */
    /* The GP of the last choice with a kept model, conditioned on that
     * choice's points: gp_condition_std reuses its factor for the rows the
     * next conditioning shares (it compares the rows and refactorizes
     * when the hyperparameters differ), so it never changes an answer. */
    struct gp *gp;
    size_t gp_cap, gp_dim;
    int gp_kernel;
    /* SAMPLER_V_HEDGE: the arms' nominees (2 per prefix length t, for
     * t = 0..h_np) and the obs prefix they came from, and the replay's
     * own kept GP model; h_valid 0: nothing cached. */
    int h_valid;
    size_t h_np, h_cap;
    unsigned long long h_seed;
    size_t *h_obs, *h_nom;
    double *h_y;
    struct sampler_gp_model h_model;
};

void
sampler_gp_model_clear(struct sampler_gp_model *m)
{
    if (!m)
        return;
    free(m->hyper);
    memset(m, 0, sizeof *m);
}

enum hpod_status
sampler_gp_model_set(struct sampler_gp_model *m, int kernel, size_t n_fit,
                     double lml_fit, const double *hyper, size_t n_hyper)
{
    if (!m || !hyper || n_hyper < 3 || !isfinite(lml_fit))
        return HPOD_EINVAL;
    for (size_t i = 0; i < n_hyper; i++)
        if (!(hyper[i] > 0.0) || !isfinite(hyper[i]))
            return HPOD_EINVAL;
    free(m->hyper);
    m->hyper = xmalloc(n_hyper * sizeof *m->hyper);
    memcpy(m->hyper, hyper, n_hyper * sizeof *m->hyper);
    m->n_hyper = n_hyper;
    m->valid = 1;
    m->kernel = kernel;
    m->n_fit = n_fit;
    m->lml_fit = lml_fit;
    return HPOD_OK;
}

struct sampler_state *
sampler_state_create(void)
{
    return xcalloc(1, sizeof(struct sampler_state));
}

void
sampler_state_destroy(struct sampler_state *s)
{
    if (!s)
        return;
    graph_destroy(s->graph);
    free(s->graph_x);
    gp_destroy(s->gp);
    free(s->h_obs);
    free(s->h_nom);
    free(s->h_y);
    sampler_gp_model_clear(&s->h_model);
    free(s);
}

/* ---- explanations ---- */

static void
explain_point_reset(struct sampler_explain_point *p)
{
    p->cand = (size_t)-1;
    p->mean = p->sd = p->acq = NAN;
}

/* Forgets what a model wrote (a fallback after a failed fit). */
static void
explain_reset(struct sampler_explain *e, int chooser)
{
    free(e->runner_raw);
    e->runner_raw = NULL;
    e->chooser = chooser;
    e->arm = 0;
    e->incumbent = NAN;
    e->n_runners = 0;
    explain_point_reset(&e->pick);
    for (size_t k = 0; k < SAMPLER_EXPLAIN_RUNNERS; k++)
        explain_point_reset(&e->runner[k]);
}

void
sampler_explain_clear(struct sampler_explain *e)
{
    if (!e)
        return;
    explain_reset(e, SAMPLER_CHOSE_RANDOM);
    e->n_obs = e->n_pend = 0;
}

/* Row i of u equals one of the k rows at sel. */
static int
explain_dup(const double *u, size_t dim, size_t i, const size_t *sel, size_t k)
{
    for (size_t j = 0; u && j < k; j++)
        if (memcmp(u + i * dim, u + sel[j] * dim, dim * sizeof *u) == 0)
            return 1;
    return 0;
}

static size_t
explain_rank_u(struct sampler_explain *e, const double *score,
               const double *mean, const double *var, size_t n,
               const unsigned char *skip, const double *u, size_t dim)
{
    size_t sel[SAMPLER_EXPLAIN_RUNNERS + 1], k;

    for (k = 0; k <= SAMPLER_EXPLAIN_RUNNERS; k++) {
        size_t best = n;
        for (size_t i = 0; i < n; i++) {
            int taken = 0;
            if ((skip && skip[i]) || isnan(score[i]))
                continue;
            for (size_t j = 0; j < k && !taken; j++)
                taken = sel[j] == i;
            if (taken || explain_dup(u, dim, i, sel, k))
                continue;
            if (best == n || score[i] > score[best])
                best = i;
        }
        if (best == n)
            break;
        sel[k] = best;
        struct sampler_explain_point *p = k == 0 ? &e->pick : &e->runner[k - 1];
        p->cand = best;
        p->acq = score[best];
        p->mean = mean ? mean[best] : NAN;
        p->sd = !var || isnan(var[best])
                    ? NAN
                    : sqrt(var[best] > 0.0 ? var[best] : 0.0);
    }
    e->n_runners = k > 0 ? k - 1 : 0;
    return k > 0 ? sel[0] : n;
}

size_t
sampler_explain_rank(struct sampler_explain *e, const double *score,
                     const double *mean, const double *var, size_t n,
                     const unsigned char *skip)
{
    return explain_rank_u(e, score, mean, var, n, skip, NULL, 0);
}

/* Uniform choice among the free candidates, by the trial's own stream. */
static enum hpod_status
random_candidate(const struct sampler_input *in, struct rng *r, size_t *cand)
{
    size_t free_n = 0, k;
    for (size_t i = 0; i < in->n_cand; i++)
        free_n += !in->cand_used[i];
    if (free_n == 0)
        return HPOD_ENOTFOUND;
    k = (size_t)rng_below(r, free_n);
    for (size_t i = 0; i < in->n_cand; i++) {
        if (in->cand_used[i])
            continue;
        if (k-- == 0) {
            *cand = i;
            return HPOD_OK;
        }
    }
    return HPOD_EINTERNAL;
}

static size_t
best_obs(const struct sampler_input *in)
{
    size_t best = 0;
    for (size_t i = 1; i < in->n_obs; i++)
        if (in->obs_y[i] > in->obs_y[best])
            best = i;
    return best;
}

/*
 * Greedy control (the baseline of the benchmarks): the free candidate nearest,
 * in scaled Euclidean distance, to the best observation so far; ties by index.
 */
static enum hpod_status
greedy_candidate(const struct sampler_input *in, size_t *cand)
{
    const struct space *sp = in->space;
    size_t np = sp->n_params, dim = sp->dim;
    double *ub = xmalloc(dim * sizeof *ub), *u = xmalloc(dim * sizeof *u);
    double bd = INFINITY;
    size_t pick = in->n_cand;

    space_encode(sp, in->obs_raw + best_obs(in) * np, ub);
    for (size_t i = 0; i < in->n_cand; i++) {
        if (in->cand_used[i])
            continue;
        space_encode(sp, in->cand_raw + i * np, u);
        double d = 0;
        for (size_t k = 0; k < dim; k++)
            d += (u[k] - ub[k]) * (u[k] - ub[k]);
        if (d < bd) {
            bd = d;
            pick = i;
        }
    }
    free(ub);
    free(u);
    if (pick == in->n_cand)
        return HPOD_ENOTFOUND;
    *cand = pick;
    return HPOD_OK;
}

/* ---- Gaussian process ---- */

/*
 * Fits the GP on the observations and conditions it on observations plus
 * pending points at their predicted means. *gp_out: new GP, in the units
 * of the normal scores; *best: EI's (and PI's) incumbent in those units.
 *
 * Two departures from a GP on the raw values with the best observation as
 * the incumbent, both because BO_EI lost to the greedy control on three
 * NMT tables without them (figures: docs/tuning.md, "GP sampler"):
 * 1. The GP models sampler_normal_scores of the values (a Gaussian copula,
 *    Salinas et al., ICML 2020): a failed run is an outlier for a
 *    stationary GP, which then explains it with tiny lengthscales and
 *    ranks by variance; on ranks it weighs like any other bad row.
 * 2. The incumbent is the largest posterior mean at the observations (the
 *    "plug-in" incumbent, Picheny et al., Struct. Multidisc. Optim. 2013):
 *    on ranks the best observation's score, Φ⁻¹(1 - 1/2n), grows with n
 *    above what a GP with noise reproduces, and EI then prefers poor rows
 *    of large variance to the neighbours of the best.
 */
/*
 * The variant flags in effect: the caller's, and the noise floor for the
 * "nei" acquisition (3), which studies choose in their algorithm JSON.
 */
static unsigned
sampler_variant(const struct sampler_input *in)
{
    return in->variant | (in->acquisition == 3 ? SAMPLER_V_FLOOR : 0u);
}

/*
 * The GP to condition: the state's (kept for its factor) when the study
 * keeps a model, else a new one (*owned). Capacity grows by a quarter so
 * that a growing history does not rebuild it every choice.
 */
static struct gp *
model_gp_state(const struct sampler_input *in, size_t need, int *owned)
{
    struct sampler_state *s = in->state;
    size_t dim = in->space->dim;

    *owned = !s || !in->gp_model;
    if (*owned)
        return gp_create(need, dim, (enum kernel_kind)in->kernel);
    if (!s->gp || s->gp_cap < need || s->gp_dim != dim ||
        s->gp_kernel != in->kernel) {
        gp_destroy(s->gp);
        s->gp_cap = need + need / 4 + 8;
        s->gp_dim = dim;
        s->gp_kernel = in->kernel;
        s->gp = gp_create(s->gp_cap, dim, (enum kernel_kind)in->kernel);
    }
    return s->gp;
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
    if ((sampler_variant(in) & SAMPLER_V_LSPRIOR) || in->ls_prior > 0.0) {
        o.ls_prior_median =
            in->ls_prior > 0.0 ? in->ls_prior : SAMPLER_LSP_MEDIAN;
        o.ls_prior_sd = SAMPLER_LSP_SD;
    }
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
    if (in->gp_model)
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
 * 1. The GP models sampler_normal_scores of the values (a Gaussian copula,
 *    Salinas et al., ICML 2020): a failed run is an outlier for a
 *    stationary GP, which then explains it with tiny lengthscales and
 *    ranks by variance; on ranks it weighs like any other bad row.
 * 2. The incumbent is the largest posterior mean at the observations (the
 *    "plug-in" incumbent, Picheny et al., Struct. Multidisc. Optim. 2013):
 *    on ranks the best observation's score, Φ⁻¹(1 - 1/2n), grows with n
 *    above what a GP with noise reproduces, and EI then prefers poor rows
 *    of large variance to the neighbours of the best.
 */
static enum hpod_status
gp_model(const struct sampler_input *in, struct rng *r, struct gp **gp_out,
         int *owned, double *best, double w, double *noise)
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
    sampler_normal_scores(in->obs_y, n, y);
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
        if ((sampler_variant(in) & SAMPLER_V_FLOOR) && nv < SAMPLER_NEI_FLOOR)
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
            gp_destroy(gp);
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
    sampler_normal_scores(in->obs_y, n, z);
    for (size_t i = 0; i < n; i++)
        z[n + i] = in->prior_cand[in->obs_cand[i]];
    double w;
    if (in->prior_rule == TRANSFER_RANKLOSS) {
        size_t dim = in->space->dim;
        double *u = xmalloc(n * dim * sizeof *u);
        space_encode_rows(in->space, in->obs_raw, n, u);
        w = transfer_weight_rankloss(z + n, z, u, n, dim, in->seed);
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

/*
 * SAMPLER_V_TR (sampler.h): sets the scores (n) of the candidates outside
 * the trust region to NaN (not eligible: acq_argmax and the explanation
 * skip them, and no infinity reaches the stored decision); leaves them all
 * when the region covers every candidate or holds no free one with a
 * score. O(n·(dim + k)).
 */
static void
trust_region(const struct sampler_input *in, const double *u, double *score)
{
    size_t n = in->n_cand, dim = in->space->dim;
    size_t k = n / (size_t)(in->trust_div > 0 ? in->trust_div : SAMPLER_TR_DIV);
    size_t bo = best_obs(in), b = in->obs_cand[bo], nfree = 0;
    size_t fails = in->n_obs - 1 - bo;

    if (fails / SAMPLER_TR_TAU >= 16 || (k << (fails / SAMPLER_TR_TAU)) >= n)
        return;
    k <<= fails / SAMPLER_TR_TAU;
    double *d = xmalloc(n * sizeof *d);
    unsigned char *keep = xcalloc(n, 1);

    for (size_t i = 0; i < n; i++) {
        d[i] = 0.0;
        for (size_t j = 0; j < dim; j++) {
            double t = u[i * dim + j] - u[b * dim + j];
            d[i] += t * t;
        }
    }
    for (size_t c = 0; c < k && c < n; c++) {
        size_t m = n;
        for (size_t i = 0; i < n; i++)
            if (!keep[i] && (m == n || d[i] < d[m]))
                m = i;
        keep[m] = 1;
        nfree += !in->cand_used[m] && !isnan(score[m]);
    }
    for (size_t i = 0; nfree > 0 && i < n; i++)
        if (!keep[i])
            score[i] = NAN;
    free(d);
    free(keep);
}

static enum hpod_status graph_mix(const struct sampler_input *in,
                                  const double *u, double *score);

static enum hpod_status
gp_finite(const struct sampler_input *in, struct rng *r, size_t *cand)
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
    if ((st = gp_model(in, r, &gp, &owned, &best, w,
                       sampler_variant(in) & (SAMPLER_V_NOISY | SAMPLER_V_FLOOR)
                           ? &noise
                           : NULL)) == HPOD_OK &&
        (st = owned || n > SAMPLER_GP_QUERY_CELLS / in->state->gp_cap
                  ? gp_score(gp, in, best, noise, u, n, buf, buf + n,
                             buf + 2 * n)
                  : gp_score_kept(gp, in, best, noise, u, n, buf)) == HPOD_OK) {
        /* The prior's rescore keeps nei's noise: it is in buf + n. */
        if (w != 0.0)
            prior_rescore(in, w, best, n, buf);
        if (sampler_variant(in) & SAMPLER_V_MIX)
            st = graph_mix(in, u, buf + 2 * n);
        if ((sampler_variant(in) & SAMPLER_V_TR) || in->trust_div > 0)
            trust_region(in, u, buf + 2 * n);
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
        gp_destroy(gp);
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
    size_t dim = sp->dim, np = sp->n_params, k = 0;
    size_t idx[SAMPLER_EXPLAIN_RUNNERS + 1];
    double *u;
    double mean[SAMPLER_EXPLAIN_RUNNERS + 1], var[SAMPLER_EXPLAIN_RUNNERS + 1];
    enum hpod_status st = HPOD_OK;

    e->incumbent = gp ? best : NAN;
    if (explain_rank_u(e, ws->score, NULL, NULL, ws->n, NULL, ws->u, dim) ==
        ws->n)
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
    e->runner_raw = xmalloc((e->n_runners + 1) * np * sizeof *e->runner_raw);
    for (size_t j = 0; j < e->n_runners; j++)
        space_decode(sp, ws->u + e->runner[j].cand * dim,
                     e->runner_raw + j * np);
    e->pick.cand = (size_t)-1;
    for (size_t j = 0; j < e->n_runners; j++)
        e->runner[j].cand = (size_t)-1;
    return HPOD_OK;
}

/* Continuous space: core/acqopt.h's random points and local refinement,
 * from the trial's stream r; the model is fitted from the same stream
 * between the draw and the refinement. */
static enum hpod_status
gp_continuous(const struct sampler_input *in, struct rng *r, double *raw)
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
        (st = gp_model(in, r, &o.gp, &owned, &o.best, 0.0,
                       sampler_variant(in) & (SAMPLER_V_NOISY | SAMPLER_V_FLOOR)
                           ? &o.noise
                           : NULL)) != HPOD_OK ||
        (st = acqopt_run(&ws, sp, r, gp_opt_score, &o, &pick)) != HPOD_OK)
        goto out;
    space_decode(sp, ws.u + pick * sp->dim, raw);
    if (in->explain)
        st = explain_continuous(in, o.gp, o.best, &ws);
out:
    if (owned)
        gp_destroy(o.gp);
    acqopt_ws_free(&ws);
    free(o.mean);
    free(o.var);
    return st;
}

/* ---- graph ---- */

/*
 * Builds the graph the sampler uses over x (n×dim): the paper's kNN graph
 * (average degree n/7, graph.h defaults) with RBF or Matérn weights and a
 * lengthscale shorter than graph.h's median edge length, so that a node's
 * nearest neighbours outweigh its far ones (with near-uniform weights the
 * harmonic mean is nearly flat and EI ranks by variance alone):
 *   - EIF (acq == 1): SAMPLER_EIF_ELL_FRAC times the median edge length (a
 *     typical edge weighs kernel_corr(4), 0.14 for RBF, instead of 0.61);
 *   - EI (acq == 0): the ℓ at which a median-length edge weighs
 *     SAMPLER_EI_EDGE_WEIGHT (ℓ = 0.30·median for RBF, 0.24·median for
 *     Matérn-5/2, whose heavier tail needs the shorter ℓ).
 * Both fractions were chosen on the NMT tables, not derived (figures per
 * ℓ and the commands: docs/tuning.md, "Graph lengthscales"). The auto ℓ
 * is only known once the graph is built, hence the second build
 * (O(n²·dim), once per candidate set and process).
 */
static enum hpod_status
graph_build(const double *x, size_t n, size_t dim, int kernel, int acq,
            struct graph **out)
{
    struct graph_options o;
    struct graph *g = NULL;
    enum hpod_status st;
    double frac;

    *out = NULL;
    graph_options_default(&o);
    o.kernel = (enum kernel_kind)kernel;
    if ((st = graph_create(x, n, dim, &o, &g)) != HPOD_OK)
        return st;
    if (acq == 1) {
        frac = SAMPLER_EIF_ELL_FRAC;
    } else {
        /* kernel_corr is decreasing in r²: bisect kernel_corr(r²) = w. */
        double lo = 0.0, hi = 1e4;
        for (int it = 0; it < 200; it++) {
            double mid = 0.5 * (lo + hi);
            if (kernel_corr(o.kernel, mid) > SAMPLER_EI_EDGE_WEIGHT)
                lo = mid;
            else
                hi = mid;
        }
        frac = 1.0 / sqrt(0.5 * (lo + hi));
    }
    o.lengthscale = frac * graph_lengthscale(g);
    graph_destroy(g);
    return graph_create(x, n, dim, &o, out);
}

/* The state's graph over x (n×dim), rebuilt if x, the kernel or the
 * acquisition changed. */
static enum hpod_status
state_graph(struct sampler_state *s, const double *x, size_t n, size_t dim,
            int kernel, int acq, struct graph **out)
{
    enum hpod_status st;

    if (s->graph && s->graph_n == n && s->graph_dim == dim &&
        s->graph_kernel == kernel && s->graph_acq == acq &&
        memcmp(s->graph_x, x, n * dim * sizeof *x) == 0) {
        *out = s->graph;
        return HPOD_OK;
    }
    graph_destroy(s->graph);
    free(s->graph_x);
    s->graph = NULL;
    s->graph_x = NULL;
    if ((st = graph_build(x, n, dim, kernel, acq, &s->graph)) != HPOD_OK)
        return st;
    s->graph_x = xmalloc(n * dim * sizeof *x);
    memcpy(s->graph_x, x, n * dim * sizeof *x);
    s->graph_n = n;
    s->graph_dim = dim;
    s->graph_kernel = kernel;
    s->graph_acq = acq;
    *out = s->graph;
    return HPOD_OK;
}

/*
 * EIF's {0,1} labels (writes fl, nl entries): 1 for the labels of which
 * fewer than max(1, ⌈SAMPLER_EIF_TOP_FRAC·nl⌉) are strictly larger (the
 * top 7.5%, ties included), 0 for the rest. With fewer than 14 labels
 * that is the best alone, i.e. graph.h's GRAPH_EIF_REFERENCE labels.
 *
 * Not the paper's rule (best -> 1, others 1 only if a random walk from the
 * best is absorbed there with probability > 0.5, which almost never
 * happens) nor the reference code's (best alone): with a single 1 among
 * many 0s, f·t1 searches the neighbourhood of one local optimum row by row
 * and stays there. Labeling the top few 1 keeps several good regions
 * alive; 7.5% was the share that beat greedy on all six NMT tables
 * (docs/tuning.md, "EIF").
 */
static void
eif_labels(const double *y, size_t nl, double *fl)
{
    size_t need = (size_t)ceil(SAMPLER_EIF_TOP_FRAC * (double)nl);

    if (need < 1)
        need = 1;
    for (size_t i = 0; i < nl; i++) {
        size_t above = 0;
        for (size_t j = 0; j < nl && above < need; j++)
            above += y[j] > y[i];
        fl[i] = above < need ? 1.0 : 0.0;
    }
}

/*
 * Expected influence, the half that works (score, n entries; labeled nodes
 * get 0 and are skipped by the caller): f_k·t1_k, t1_k = Σ_{i∈U\k}
 * f⁺⁽ᵏ'¹⁾_i, the chance that k is good times the goodness it spreads when
 * it is, with f the harmonic propagation of eif_labels. The paper's full
 * (1-f_k)·Σ(1-f⁺⁽ᵏ'⁰⁾) + f_k·Σf⁺⁽ᵏ'¹⁾ is dominated by its first term,
 * ≈ u·(1-f_k), which picks the nodes least like the best (core/graph.h,
 * graph_eif). The public reference code gets the same effect by mapping
 * its predictions inversely.
 *
 * graph_eif_terms scales the labels itself (best alone -> 1), so t1 is
 * rebuilt from the label-free part of its terms, graph_eif_spread's
 * t0_k + t1_k - (u-1) = q_k = Σ_{i∈U\k} G_ik/G_kk, whence with any f in
 * [0,1]
 *   t1_k = (F - f_k) + (1 - f_k)·q_k,   F = Σ_{i∈U} f_i
 * (rank-one look-ahead, graph.h), and f itself is graph_predict of the
 * {0,1} labels (equal to the uncentered propagation wherever a component
 * holds a label). Both calls share the cached G (same labeled set), so
 * the cost stays O(u²) per suggestion after the first.
 *
 * Other combinations of the terms (t1 or f alone, f^½·t1, scaled real
 * labels) did worse on at least one table: docs/tuning.md, "EIF".
 */
static enum hpod_status
eif_scores(struct graph *g, size_t n, const size_t *lab, const double *y,
           size_t nl, double *score, double *f_out)
{
    double *f = xmalloc(n * sizeof *f), *t0 = xmalloc(n * sizeof *t0);
    double *var = xmalloc(n * sizeof *var);
    double *fl = xmalloc(nl * sizeof *fl);
    unsigned char *is_lab = xcalloc(n, 1);
    double sum_f = 0.0;
    enum hpod_status st;

    eif_labels(y, nl, fl);
    /* q alone (t0 holds it): one G·1, not the terms' labels and f. */
    if ((st = graph_eif_spread(g, lab, y, nl, t0)) != HPOD_OK)
        goto out;
    if ((st = graph_predict(g, lab, fl, nl, f, var)) != HPOD_OK)
        goto out;
    for (size_t j = 0; j < nl; j++)
        is_lab[lab[j]] = 1;
    for (size_t i = 0; i < n; i++)
        if (!is_lab[i])
            sum_f += f[i];
    for (size_t i = 0; i < n; i++)
        score[i] =
            is_lab[i] ? 0.0 : f[i] * ((sum_f - f[i]) + (1.0 - f[i]) * t0[i]);
    if (f_out)
        memcpy(f_out, f, n * sizeof *f);
out:
    free(f);
    free(t0);
    free(var);
    free(fl);
    free(is_lab);
    return st;
}

struct ranked {
    double y;
    size_t i;
};

static int
cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->y != y->y)
        return x->y < y->y ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

void
sampler_normal_scores(const double *y, size_t n, double *z)
{
    struct ranked *r = xmalloc(n * sizeof *r);

    /* Mid-ranks from one sort, O(n log n): a run of equal values shares
     * lt = its start and eq = its length (exact: small integers). */
    for (size_t i = 0; i < n; i++) {
        r[i].y = y[i];
        r[i].i = i;
    }
    qsort(r, n, sizeof *r, cmp_ranked);
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && r[b].y == r[a].y;)
            b++;
        double p = ((double)a + 0.5 * (double)(b - a)) / (double)n;
        double lo = -40.0, hi = 40.0;
        /* Φ⁻¹(p) by bisection on Φ(x) = erfc(-x/√2)/2: up to 100 halvings
         * of [-40, 40] reach round-off; once mid rounds to an end, further
         * halvings leave the answer 0.5·(lo + hi) as it is. */
        for (int it = 0; it < 100; it++) {
            double mid = 0.5 * (lo + hi);
            if (mid == lo || mid == hi)
                break;
            if (0.5 * erfc(-mid / sqrt(2.0)) < p)
                lo = mid;
            else
                hi = mid;
        }
        for (size_t k = a; k < b; k++)
            z[r[k].i] = 0.5 * (lo + hi);
    }
    free(r);
}

/*
 * Graph EI's scores (score, n entries) from the labels at lab (nl, the
 * observed ones first: no of them, then the pending ones). Two changes to
 * EI on graph_predict as it stands, both because graph EI lost to the
 * greedy control, picking the nodes with the fewest neighbours, without
 * them (figures: docs/tuning.md, "Graph EI"):
 * 1. The variance is s²·d_i·G_ii instead of s²·d̄·G_ii (graph.h): G_ii ≈
 *    1/d_i near the labels, so the plain variance ranks nodes by how
 *    poorly they are connected (the same finding as core/mobo.c's
 *    degree_scale for EHVI).
 * 2. The labels are normal scores of their ranks (sampler_normal_scores),
 *    EI's incumbent the largest of them: failed runs are outliers that the
 *    harmonic mean, a weighted average, spreads over every neighbour of the
 *    best rows, and they inflate s²; on ranks they weigh like any other bad
 *    row. The map is increasing, so the incumbent is still the best
 *    observation.
 * Pending nodes get the mean of the observed scores (≈ 0): graph_scores'
 * constant lie, in the scores' units.
 */
static enum hpod_status
ei_scores(struct graph *g, size_t n, const size_t *lab, const double *obs_y,
          size_t no, size_t nl, int floor, double *score, double *mv)
{
    double *y = xmalloc(nl * sizeof *y);
    double *mean = xmalloc(n * sizeof *mean), *var = xmalloc(n * sizeof *var);
    double lie = 0.0, best = -INFINITY, dbar = graph_mean_wdegree(g);
    double ss = 0.0;
    enum hpod_status st;

    sampler_normal_scores(obs_y, no, y);
    for (size_t i = 0; i < no; i++) {
        lie += y[i] / (double)no;
        best = y[i] > best ? y[i] : best;
    }
    for (size_t i = 0; floor && i < no; i++)
        ss += (y[i] - lie) * (y[i] - lie) / (double)no;
    for (size_t j = no; j < nl; j++)
        y[j] = lie;
    if ((st = graph_predict(g, lab, y, nl, mean, var)) == HPOD_OK) {
        /* An isolated node (all its weights underflowed) keeps its
         * ε-regularized variance, as in core/mobo.c. */
        for (size_t i = 0; i < n; i++)
            if (graph_wdegree(g, i) > 0.0)
                var[i] *= graph_wdegree(g, i) / dbar;
        /* Graph "nei": EI on the predicted observation, with a noise
         * variance of SAMPLER_NEI_FLOOR times the labels' (normal scores')
         * variance, so a node predicted equal to the incumbent keeps EI
         * above zero. */
        for (size_t i = 0; floor && i < n; i++)
            var[i] += SAMPLER_NEI_FLOOR * ss;
        acq_score(ACQ_EI, mean, var, n, best, 0.0, score);
        if (mv) {
            memcpy(mv, mean, n * sizeof *mean);
            memcpy(mv + n, var, n * sizeof *var);
            mv[2 * n] = best;
        }
    }
    free(y);
    free(mean);
    free(var);
    return st;
}

/*
 * Scores the n nodes of g with labels at lab_obs (observations) and
 * lab_pend (pending). Pending nodes get a constant lie, the mean of the
 * observed values (the "constant liar" of Ginsbourger et al. 2010, a
 * sibling of the kriging believer the GP uses): it steers concurrent workers
 * apart like the believer does, and it keeps the labeled set growing from call
 * to call (pending nodes stay labeled when their report arrives), so the cached
 * factor is downdated in O(u²) instead of refactorized, which an extra
 * observations-only solve for the believer would force.
 */
/* mv (may be NULL): receives the mean (n), the variance (n) and the
 * incumbent (1) for the explanation; EIF has no variance or incumbent
 * (NAN) and its mean is the propagated {0,1} label. */
static enum hpod_status
graph_scores(struct graph *g, size_t n, const struct sampler_input *in,
             const size_t *lab_obs, const size_t *lab_pend, double *score,
             double *mv)
{
    size_t no = in->n_obs, np = in->n_pend, nl = no + np;
    size_t *lab = xmalloc(nl * sizeof *lab);
    double *y = xmalloc(nl * sizeof *y);
    double lie = 0.0;
    enum hpod_status st = HPOD_OK;

    memcpy(lab, lab_obs, no * sizeof *lab);
    memcpy(y, in->obs_y, no * sizeof *y);
    for (size_t i = 0; i < no; i++)
        lie += in->obs_y[i] / (double)no;
    for (size_t j = 0; j < np; j++) {
        lab[no + j] = lab_pend[j];
        y[no + j] = lie;
    }
    if (in->acquisition == 1) {
        st = eif_scores(g, n, lab, y, nl, score, mv);
        for (size_t i = 0; mv && i <= n; i++)
            mv[n + i] = NAN;
    } else {
        st = ei_scores(g, n, lab, in->obs_y, no, nl,
                       in->acquisition == 2 || (in->variant & SAMPLER_V_FLOOR),
                       score, mv);
    }
    free(lab);
    free(y);
    return st;
}

static enum hpod_status
graph_finite(const struct sampler_input *in, size_t *cand)
{
    size_t n = in->n_cand, dim = in->space->dim;
    double *u = xmalloc(n * dim * sizeof *u);
    double *score = xmalloc(n * sizeof *score);
    double *mv = in->explain ? xmalloc((2 * n + 1) * sizeof *mv) : NULL;
    unsigned char *skip = xcalloc(n, 1);
    struct sampler_state *own = NULL, *s = in->state;
    struct graph *g = NULL;
    enum hpod_status st;

    if (!s)
        s = own = sampler_state_create();
    space_encode_rows(in->space, in->cand_raw, n, u);
    if (in->graph_ls)
        sampler_ard_scale(u, n, dim, in->graph_ls);
    for (size_t i = 0; i < in->n_obs; i++)
        if (in->obs_cand[i] >= n) {
            st = HPOD_EINVAL;
            goto out;
        }
    for (size_t i = 0; i < in->n_pend; i++)
        if (in->pend_cand[i] >= n) {
            st = HPOD_EINVAL;
            goto out;
        }
    if ((st = state_graph(s, u, n, dim, in->kernel, in->acquisition, &g)) !=
            HPOD_OK ||
        (st = graph_scores(g, n, in, in->obs_cand, in->pend_cand, score, mv)) !=
            HPOD_OK)
        goto out;
    if ((in->variant & SAMPLER_V_TR) || in->trust_div > 0)
        trust_region(in, u, score);
    for (size_t i = 0; i < n; i++)
        skip[i] = in->cand_used[i];
    *cand = acq_argmax(score, n, skip);
    if (*cand == n)
        st = HPOD_ENOTFOUND;
    else if (mv) {
        in->explain->incumbent = mv[2 * n];
        sampler_explain_rank(in->explain, score, mv, mv + n, n, skip);
    }
out:
    free(mv);
    sampler_state_destroy(own);
    free(u);
    free(score);
    free(skip);
    return st;
}

/* The explanation of a graph choice over random nodes u (n × dim): the
 * pick and the next best distinct free nodes with their raw values. */
static void
explain_nodes(const struct sampler_input *in, const double *score,
              const double *mv, size_t n, const unsigned char *skip,
              const double *u)
{
    struct sampler_explain *e = in->explain;
    size_t dim = in->space->dim, np = in->space->n_params;

    e->incumbent = mv[2 * n];
    if (explain_rank_u(e, score, mv, mv + n, n, skip, u, dim) == n)
        return;
    e->runner_raw = xmalloc((e->n_runners + 1) * np * sizeof *e->runner_raw);
    for (size_t j = 0; j < e->n_runners; j++) {
        space_decode(in->space, u + e->runner[j].cand * dim,
                     e->runner_raw + j * np);
        e->runner[j].cand = (size_t)-1;
    }
    e->pick.cand = (size_t)-1;
}

static enum hpod_status
graph_continuous(const struct sampler_input *in, struct rng *r, double *raw)
{
    const struct space *sp = in->space;
    size_t dim = sp->dim, npar = sp->n_params;
    size_t no = in->n_obs, npd = in->n_pend, nr = ACQOPT_N_NODES;
    size_t n = no + npd + nr;
    double *u = xmalloc(n * dim * sizeof *u);
    double *rawbuf = xmalloc(npar * sizeof *rawbuf);
    double *score = xmalloc(n * sizeof *score);
    double *mv = in->explain ? xmalloc((2 * n + 1) * sizeof *mv) : NULL;
    size_t *lo = xmalloc((no + 1) * sizeof *lo);
    size_t *lp = xmalloc((npd + 1) * sizeof *lp);
    unsigned char *skip = xcalloc(n, 1);
    struct graph *g = NULL;
    enum hpod_status st;

    space_encode_rows(sp, in->obs_raw, no, u);
    space_encode_rows(sp, in->pend_raw, npd, u + no * dim);
    for (size_t i = 0; i < no; i++)
        lo[i] = i;
    for (size_t i = 0; i < npd; i++)
        lp[i] = no + i;
    for (size_t i = 0; i < no + npd; i++)
        skip[i] = 1;
    acqopt_sample(sp, r, nr, u + (no + npd) * dim, rawbuf);
    if ((st = graph_build(u, n, dim, in->kernel, in->acquisition, &g)) !=
            HPOD_OK ||
        (st = graph_scores(g, n, in, lo, lp, score, mv)) != HPOD_OK)
        goto out;
    size_t pick = acq_argmax(score, n, skip);
    if (pick == n) {
        st = HPOD_ENUMERIC;
        goto out;
    }
    space_decode(sp, u + pick * dim, raw);
    if (mv)
        explain_nodes(in, score, mv, n, skip, u);
out:
    free(mv);
    graph_destroy(g);
    free(u);
    free(rawbuf);
    free(score);
    free(lo);
    free(lp);
    free(skip);
    return st;
}

/* Ranks (0 = best) of the free candidates' scores; used ones get n. */
static void
free_ranks(const double *score, size_t n, const unsigned char *used,
           double *rank)
{
    size_t *idx = xmalloc(n * sizeof *idx), m = 0;
    for (size_t i = 0; i < n; i++)
        if (!used[i])
            idx[m++] = i;
    /* insertion sort by decreasing score, ties to the lower index */
    for (size_t a = 1; a < m; a++) {
        size_t v = idx[a], b = a;
        while (b > 0 && (score[idx[b - 1]] < score[v] ||
                         (isnan(score[idx[b - 1]]) && !isnan(score[v])))) {
            idx[b] = idx[b - 1];
            b--;
        }
        idx[b] = v;
    }
    for (size_t i = 0; i < n; i++)
        rank[i] = (double)n;
    for (size_t a = 0; a < m; a++)
        rank[idx[a]] = (double)a;
    free(idx);
}

/*
 * SAMPLER_V_MIX: replaces the GP's scores (n) by minus the sum of their
 * rank and graph EI's rank among the free candidates.
 */
static enum hpod_status
graph_mix(const struct sampler_input *in, const double *u, double *score)
{
    size_t n = in->n_cand, dim = in->space->dim;
    double *gs = xmalloc(n * sizeof *gs), *ra = xmalloc(2 * n * sizeof *ra);
    struct sampler_state *own = NULL, *s = in->state;
    struct sampler_input gin = *in;
    struct graph *g = NULL;
    enum hpod_status st;

    gin.acquisition = 0;
    gin.variant = 0;
    gin.explain = NULL;
    if (!s)
        s = own = sampler_state_create();
    if ((st = state_graph(s, u, n, dim, in->kernel, 0, &g)) != HPOD_OK ||
        (st = graph_scores(g, n, &gin, in->obs_cand, in->pend_cand, gs,
                           NULL)) != HPOD_OK)
        goto out;
    free_ranks(score, n, in->cand_used, ra);
    free_ranks(gs, n, in->cand_used, ra + n);
    for (size_t i = 0; i < n; i++)
        score[i] = -(ra[i] + ra[n + i]);
out:
    sampler_state_destroy(own);
    free(gs);
    free(ra);
    return st;
}

/* ---- GP-Hedge over the GP and graph EI ---- */

#define HEDGE_FLAGS                                                            \
    (SAMPLER_V_HEDGE | SAMPLER_V_HEDGEMAX | SAMPLER_V_HEDGEARD |               \
     SAMPLER_V_ARDONLY | SAMPLER_V_HEDGEOBS)

void
sampler_ard_scale(double *u, size_t n, size_t dim, const double *ls)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < dim; k++)
            u[i * dim + k] /= ls[k];
}

/* The hedge's graph arm: graph EI (Matérn kernel as given) on a's input.
 * It labels the observations only (pending candidates are still taken):
 * the labeled set is then the replay's, whose factor the graph downdates
 * instead of refactorizing (O(n³)) per suggest. */
static void
hedge_graph_arm(struct sampler_input *a)
{
    /* SAMPLER_V_HEDGEARD: the GP arm's metric, read before the GP's
     * fields are dropped (the model is the one the GP arm just used). */
    a->graph_ls = (a->variant & SAMPLER_V_HEDGEARD) && model_usable(a)
                      ? a->gp_model->hyper
                      : NULL;
    a->kind = SAMPLER_GRAPH;
    a->acquisition = 0;
    a->variant = 0;
    a->trust_div = 0;
    a->gp_model = NULL;
    a->prior_cand = NULL;
    a->n_pend = 0;
}

/* The two arms' nominees for the first t observations of in (used: those
 * t marked) without its pending trials, or (t == n_obs, pending) for in
 * as it is; the GP with the replay's kept model. */
static enum hpod_status
hedge_nominate(const struct sampler_input *in, size_t t,
               const unsigned char *used, int pending, size_t *nom)
{
    struct sampler_input a = *in;
    struct rng r;
    enum hpod_status st;

    a.n_obs = t;
    a.n_pend = pending ? in->n_pend : 0;
    a.seq = pending ? in->seq : (int)t;
    a.explain = NULL;
    a.cand_used = used;
    a.gp_model = &in->state->h_model;
    a.variant = in->variant & ~HEDGE_FLAGS;
    rng_seed2(&r, in->seed, (uint64_t)a.seq);
    if ((st = gp_finite(&a, &r, &nom[0])) != HPOD_OK)
        return st;
    a.variant = in->variant;
    hedge_graph_arm(&a);
    return graph_finite(&a, &nom[1]);
}

/* The explanation of the hedge's pick: the chosen arm run again on in as
 * it is (pending trials included) with the explanation on; it must pick
 * the same candidate (the GP arm's kept model is not due for a refit). */
static enum hpod_status
hedge_explain(const struct sampler_input *in, int arm, size_t cand)
{
    struct sampler_input a = *in;
    struct rng r;
    size_t got = (size_t)-1;
    enum hpod_status st;

    a.gp_model = &in->state->h_model;
    rng_seed2(&r, in->seed, (uint64_t)in->seq);
    if (arm == 1) {
        hedge_graph_arm(&a);
        st = graph_finite(&a, &got);
    } else {
        a.variant = in->variant & ~HEDGE_FLAGS;
        st = gp_finite(&a, &r, &got);
    }
    return st == HPOD_OK && got != cand ? HPOD_EINTERNAL : st;
}

/* in->cand_used marks exactly the observations' candidates. */
static int
hedge_used_is_obs(const struct sampler_input *in)
{
    size_t held = 0;
    for (size_t i = 0; i < in->n_obs; i++)
        if (!in->cand_used[in->obs_cand[i]])
            return 0;
    for (size_t i = 0; i < in->n_cand; i++)
        held += in->cand_used[i] != 0;
    return held == in->n_obs;
}

/* Brings the state's nominee history up to the n observations of in:
 * keeps the cached prefix that still matches, replays the rest. */
static enum hpod_status
hedge_history(const struct sampler_input *in, size_t init)
{
    struct sampler_state *s = in->state;
    size_t n = in->n_obs, t0;
    unsigned char *used = xcalloc(in->n_cand, 1);
    enum hpod_status st = HPOD_OK;

    if (!s->h_valid || s->h_seed != in->seed || s->h_np > n ||
        memcmp(s->h_obs, in->obs_cand, s->h_np * sizeof *s->h_obs) != 0 ||
        memcmp(s->h_y, in->obs_y, s->h_np * sizeof *s->h_y) != 0) {
        s->h_valid = 0;
        s->h_np = 0;
        sampler_gp_model_clear(&s->h_model);
    }
    if (s->h_cap < n + 1) {
        s->h_cap = 2 * (n + 1);
        s->h_obs = xrealloc(s->h_obs, s->h_cap * sizeof *s->h_obs);
        s->h_nom = xrealloc(s->h_nom, 2 * s->h_cap * sizeof *s->h_nom);
        s->h_y = xrealloc(s->h_y, s->h_cap * sizeof *s->h_y);
    }
    t0 = s->h_valid ? s->h_np + 1 : 0;
    for (size_t i = 0; i < n; i++)
        used[in->obs_cand[i]] = i < t0;
    for (size_t t = t0; t <= n && st == HPOD_OK; t++) {
        if (t >= init)
            st = hedge_nominate(in, t, used, 0, s->h_nom + 2 * t);
        else
            s->h_nom[2 * t] = s->h_nom[2 * t + 1] = (size_t)-1;
        if (t < n)
            used[in->obs_cand[t]] = 1;
    }
    if (st == HPOD_OK) {
        memcpy(s->h_obs, in->obs_cand, n * sizeof *s->h_obs);
        memcpy(s->h_y, in->obs_y, n * sizeof *s->h_y);
        s->h_np = n;
        s->h_seed = in->seed;
        s->h_valid = 1;
    } else {
        s->h_valid = 0;
    }
    free(used);
    return st;
}

/*
 * SAMPLER_V_HEDGE: GP-Hedge (Hoffman, Brochu & de Freitas, UAI 2011) over
 * arm 0, the GP as configured, and arm 1, graph EI (Matérn). At every
 * model step t < n both arms' nominees are replayed from the first t
 * observations (cached in the state; a cold process replays them all);
 * an arm's gain is the sum, over its past nominees, of the current GP's
 * posterior mean there (normal-score units), discounted by
 * SAMPLER_HEDGE_DISCOUNT per step of age (SAMPLER_V_HEDGEOBS: nominees
 * that were not observed at their step count SAMPLER_HEDGE_DISPLACED,
 * discount SAMPLER_HEDGE_DISCOUNT_OBS). The arm is drawn with
 * probability ∝ exp(η·gain) (SAMPLER_V_HEDGEMAX: the larger gain, ties to
 * the GP) from a stream of its own.
 */
static enum hpod_status
hedge_finite(const struct sampler_input *in, struct rng *r, size_t *cand)
{
    struct sampler_state *own = NULL;
    struct sampler_input a = *in;
    size_t n = in->n_obs, init = (size_t)(in->init > 0 ? in->init : 1);
    size_t dim = in->space->dim, np = in->space->n_params, nom[2];
    struct gp *gp = NULL;
    int owned = 1;
    double best, gain[2] = {0.0, 0.0};
    double *u = NULL, *mu = NULL;
    enum hpod_status st;

    (void)r;
    for (size_t i = 0; i < n + in->n_pend; i++)
        if ((i < n ? in->obs_cand[i] : in->pend_cand[i - n]) >= in->n_cand)
            return HPOD_EINVAL;
    if (!a.state)
        a.state = own = sampler_state_create();
    if ((st = hedge_history(&a, init)) != HPOD_OK)
        goto out;
    memcpy(nom, a.state->h_nom + 2 * n, sizeof nom);
    /* The replayed nominees at n saw only the observations as used; with
     * pending trials, or other candidates held (failed trials), the
     * arms choose again from in as it is (not cached). */
    if (in->n_pend > 0 || !hedge_used_is_obs(in)) {
        if ((st = hedge_nominate(&a, n, in->cand_used, 1, nom)) != HPOD_OK)
            goto out;
    }
    if (n > init) {
        size_t m = 2 * (n - init);
        struct sampler_input g = a;
        struct rng gr;
        g.n_pend = 0;
        g.gp_model = &a.state->h_model;
        rng_seed2(&gr, in->seed, (uint64_t)n);
        u = xmalloc(m * dim * sizeof *u);
        mu = xmalloc(m * sizeof *mu);
        double *rawp = xmalloc(np * sizeof *rawp);
        for (size_t k = 0; k < m; k++) {
            memcpy(rawp, in->cand_raw + a.state->h_nom[2 * init + k] * np,
                   np * sizeof *rawp);
            space_encode(in->space, rawp, u + k * dim);
        }
        free(rawp);
        if ((st = gp_model(&g, &gr, &gp, &owned, &best, 0.0, NULL)) !=
                HPOD_OK ||
            (st = gp_predict(gp, u, m, mu, NULL)) != HPOD_OK)
            goto out;
        int obs_judge = (in->variant & SAMPLER_V_HEDGEOBS) != 0;
        double disc =
            obs_judge ? SAMPLER_HEDGE_DISCOUNT_OBS : SAMPLER_HEDGE_DISCOUNT;
        for (size_t k = 0; k < m; k++) { /* nominee k is from t = init + k/2 */
            size_t t = init + k / 2;
            double w = pow(disc, (double)(n - 1 - t));
            if (obs_judge && a.state->h_nom[2 * t + k % 2] != in->obs_cand[t])
                w *= SAMPLER_HEDGE_DISPLACED;
            gain[k % 2] += w * mu[k];
        }
    }
    int arm;
    if (in->variant & SAMPLER_V_ARDONLY) {
        arm = 1;
    } else if (in->variant & SAMPLER_V_HEDGEMAX) {
        arm = gain[1] > gain[0];
    } else {
        struct rng hr;
        rng_seed2(&hr, in->seed ^ SAMPLER_HEDGE_STREAM, (uint64_t)in->seq);
        double p1 = 1.0 / (1.0 + exp(SAMPLER_HEDGE_ETA * (gain[0] - gain[1])));
        arm = rng_uniform(&hr) < p1;
    }
    *cand = nom[arm];
    if (in->cand_used[*cand])
        st = HPOD_EINTERNAL;
    else if (in->explain) {
        st = hedge_explain(&a, arm, *cand);
        in->explain->arm = arm;
    }
out:
    if (owned)
        gp_destroy(gp);
    free(u);
    free(mu);
    sampler_state_destroy(own);
    return st;
}

enum hpod_status
sampler_next(const struct sampler_input *in, double *raw, size_t *cand)
{
    struct rng r;
    enum hpod_status st;
    size_t np = in->space->n_params;
    int use_model = in->kind != SAMPLER_RANDOM && in->n_obs > 0 &&
                    in->n_obs >= (size_t)(in->init > 0 ? in->init : 1);

    rng_seed2(&r, in->seed, (uint64_t)in->seq);
    *cand = (size_t)-1;
    if (in->explain) {
        explain_reset(in->explain,
                      !use_model
                          ? (in->kind == SAMPLER_RANDOM ? SAMPLER_CHOSE_RANDOM
                                                        : SAMPLER_CHOSE_INIT)
                      : in->kind == SAMPLER_GREEDY ? SAMPLER_CHOSE_GREEDY
                                                   : SAMPLER_CHOSE_MODEL);
        in->explain->n_obs = in->n_obs;
        in->explain->n_pend = in->n_pend;
    }
    if (in->n_cand == 0) {
        if (in->kind == SAMPLER_GREEDY)
            return HPOD_EINVAL;
        if (use_model) {
            struct rng mr = r;
            st = in->kind == SAMPLER_GP ? gp_continuous(in, &mr, raw)
                                        : graph_continuous(in, &mr, raw);
            if (st == HPOD_OK)
                return HPOD_OK;
            /* A model that cannot be fitted: fall back to random. */
            if (in->explain)
                explain_reset(in->explain, SAMPLER_CHOSE_FALLBACK);
        }
        space_sample(in->space, &r, raw);
        return HPOD_OK;
    }
    st = HPOD_ENUMERIC;
    if (!use_model && in->prior_cand && in->kind == SAMPLER_GP) {
        /* Transfer: the initial design is the source's best free
         * candidates, in the order of its prior. */
        *cand = acq_argmax(in->prior_cand, in->n_cand, in->cand_used);
        if (*cand == in->n_cand)
            return HPOD_ENOTFOUND;
        if (in->explain) {
            explain_reset(in->explain, SAMPLER_CHOSE_MODEL);
            in->explain->n_obs = in->n_obs;
            in->explain->n_pend = in->n_pend;
            sampler_explain_rank(in->explain, in->prior_cand, in->prior_cand,
                                 NULL, in->n_cand, in->cand_used);
        }
        st = HPOD_OK;
    }
    if (use_model) {
        struct rng mr = r;
        if (in->kind == SAMPLER_GREEDY)
            st = greedy_candidate(in, cand);
        else if (in->kind == SAMPLER_GP &&
                 (in->variant &
                  (SAMPLER_V_HEDGE | SAMPLER_V_HEDGEMAX | SAMPLER_V_ARDONLY)))
            st = hedge_finite(in, &mr, cand);
        else if (in->kind == SAMPLER_GP)
            st = gp_finite(in, &mr, cand);
        else
            st = graph_finite(in, cand);
        if (st == HPOD_ENOTFOUND || st == HPOD_EINVAL)
            return st;
        if (st != HPOD_OK && in->explain)
            explain_reset(in->explain, SAMPLER_CHOSE_FALLBACK);
    }
    if (st != HPOD_OK)
        st = random_candidate(in, &r, cand);
    if (st == HPOD_OK && in->explain && in->explain->pick.cand == (size_t)-1)
        in->explain->pick.cand = *cand; /* random or greedy */
    if (st == HPOD_OK)
        memcpy(raw, in->cand_raw + *cand * np, np * sizeof *raw);
    return st;
}
