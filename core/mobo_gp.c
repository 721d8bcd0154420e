/*
 * core/mobo_gp.c - the GP surrogates of mobo_next: one GP per objective
 * on its refit schedule; see mobo_gp.h.
 */
#include "core/mobo_gp.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/acqopt.h"
#include "core/gp.h"
#include "core/mobo_acq.h"

/* Fewest observations before cap_low_outliers caps anything. */
#define MOBO_CAP_MIN_N 8

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
mobo_gp_fit_point(size_t n)
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
struct mobo_obj_model {
    struct gp *gp;
    size_t cap, dim;
    int kernel;
    int valid; /* the hyperparameters are the fit identified by key */
    size_t s_fit;
    uint64_t key;
};

void
mobo_gp_state_clear(struct mobo_state *s)
{
    for (size_t j = 0; j < s->m; j++)
        gp_free(s->obj[j].gp);
    free(s->obj);
    s->obj = NULL;
    s->m = 0;
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
    struct mobo_obj_model *o;
    int kern = x->in->kernel;

    *owned = !s;
    if (!s) {
        struct gp *g = gp_create(need, x->dim, (enum kernel_kind)kern);
        if (g)
            (void)gp_set_kinds(g, x->in->space->kinds);
        return g;
    }
    if (s->m != x->m) {
        for (size_t i = 0; i < s->m; i++)
            gp_free(s->obj[i].gp);
        free(s->obj);
        s->m = x->m;
        s->obj = xcalloc(x->m, sizeof *s->obj);
    }
    o = &s->obj[j];
    if (o->gp && (o->dim != x->dim || o->kernel != kern)) {
        gp_free(o->gp);
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
        gp_free(o->gp);
        o->gp = g;
        o->cap = cap;
        o->dim = x->dim;
        o->kernel = kern;
    }
    if (o->gp)
        (void)gp_set_kinds(o->gp, x->in->space->kinds); /* no-op when equal */
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
    size_t s = mobo_gp_fit_point(n);
    uint64_t key = fit_key(in, j, u, y, s, x->dim);
    struct mobo_obj_model *o = in->state ? &in->state->obj[j] : NULL;
    struct gp_fit_options fo;
    struct gp_fit_stats fs;
    struct rng r;
    enum hpod_status st;

    if (o && o->valid && o->s_fit == s && o->key == key)
        return HPOD_OK;
    if (o)
        o->valid = 0;
    gp_reset_hyper(gp);
    gp_fit_options_default(&fo);
    fo.budget = in->budget;
    (void)gp_set_fit_options(gp, &fo); /* valid by construction */
    rng_seed2(&r, in->seed ^ ((MOBO_TAG_OBJ + j) * 0x9E3779B97F4A7C15ULL),
              (uint64_t)s);
    if ((st = gp_fit(gp, u, y, s, &r)) != HPOD_OK)
        return st;
    /* A fit the budget cut serves this choice only: not kept. */
    gp_get_fit_stats(gp, &fs);
    if (o && !fs.budget_cut) {
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
enum hpod_status
mobo_gp_fit_objective(struct mobo_ctx *x, size_t j)
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
        y[k++] = in->obs_y[i * m + j];
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
            x->pend_mu[p * m + j] = y[n + p];
    }
    free(u);
    free(y);
    if (st != HPOD_OK) {
        if (owned)
            gp_free(gp);
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
        (st = mobo_ctx_con_logpf(x, u, k, lpf)) == HPOD_OK)
        mobo_acq_score(x, mu, sd, lpf, k, skip, NULL, score);
    free(mu);
    free(sd);
    return st;
}

/*
 * Finite study: the candidates are every GP's fixed query set
 * (gp_set_queries), so that a kept GP extends V = L⁻¹K* by the new rows
 * only (O(n·n_cand) per new point) instead of predicting from scratch.
 */
enum hpod_status
mobo_gp_finite(struct mobo_ctx *x, size_t *cand)
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
    if (st == HPOD_OK && (st = mobo_ctx_con_logpf(x, u, n, lpf)) == HPOD_OK) {
        mobo_acq_score(x, mu, sd, lpf, n, in->cand_used, in->budget, score);
        st = mobo_acq_pick_trust(x, u, score, lpf, n, in->cand_used, cand);
    }
    if (st == HPOD_OK)
        mobo_acq_explain(in->explain, score, n, in->cand_used, *cand);
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
enum hpod_status
mobo_gp_continuous(struct mobo_ctx *x, struct rng *r, double *raw)
{
    const struct space *sp = x->in->space;
    struct acqopt_ws ws;
    struct gp_opt o = {x, xmalloc(acqopt_capacity() * sizeof *o.lpf)};
    size_t pick = 0;
    enum hpod_status st;

    acqopt_ws_init(&ws, sp);
    if ((st = acqopt_draw(&ws, sp, r)) == HPOD_OK &&
        (st = acqopt_run(&ws, sp, r, gp_opt_score, &o, x->in->budget, &pick)) ==
            HPOD_OK &&
        (st = mobo_acq_pick(x, ws.score, o.lpf, ws.n, NULL, &pick)) ==
            HPOD_OK) {
        space_decode(sp, ws.u + pick * x->dim, raw);
        mobo_acq_explain(x->in->explain, ws.score, ws.n, NULL, pick);
    }
    acqopt_ws_clear(&ws);
    free(o.lpf);
    return st;
}
