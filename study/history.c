/*
 * study/history.c - a study's history as the samplers take it; contracts
 * in study/history.h.
 */
#include "study/history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "store/study_store.h"
#include "store/trial_store.h"
#include "study/constraints.h"

int
history_uses_mobo(const struct study_def *d)
{
    return d->algo.name == ALGO_EHVI ||
           (d->algo.name == ALGO_GREEDY && d->n_objectives > 1) ||
           (d->n_constraints > 0 &&
            (d->algo.name == ALGO_GP || d->algo.name == ALGO_GRAPH));
}

void
history_impute(const struct space *sp, double *raw)
{
    for (size_t i = 0; i < sp->n_params; i++) {
        const struct param *p = &sp->params[i];
        if (!isnan(raw[i]))
            continue;
        raw[i] = p->type == PARAM_CATEGORICAL ? 0.0
                 : p->n_values                ? p->values[0]
                                              : p->low;
    }
}

void
history_clear(struct history *h)
{
    free(h->cand_used);
    free(h->obs_raw);
    free(h->obs_y);
    free(h->obs_cand);
    free(h->pend_raw);
    free(h->pend_cand);
    free(h->mo_raw);
    free(h->mo_y);
    free(h->mo_c);
    free(h->mo_cand);
    memset(h, 0, sizeof *h);
}

void
history_add_pending(struct history *h, size_t np, const double *raw,
                    size_t cand)
{
    if (h->n_pend == h->cap_pend) {
        h->cap_pend = h->cap_pend ? 2 * h->cap_pend : 16;
        h->pend_raw = xrealloc(h->pend_raw, h->cap_pend * np * sizeof(double));
        h->pend_cand = xrealloc(h->pend_cand, h->cap_pend * sizeof(size_t));
    }
    memcpy(h->pend_raw + h->n_pend * np, raw, np * sizeof(double));
    h->pend_cand[h->n_pend++] = cand;
}

/* Adds one trial's reported metrics (NaN where missing) to h->mo_*. */
static void
add_mo_observation(struct history *h, const struct study_def *d,
                   const struct metric_set *vals, const double *raw,
                   size_t cand)
{
    size_t np = d->space.n_params, m = d->n_objectives;
    size_t nc = d->n_constraints, k = h->n_mo;
    int any = 0, complete = 1;
    for (size_t j = 0; j < m; j++) {
        const double *v = metric_set_find(vals, d->obj_names[j]);
        h->mo_y[k * m + j] = v ? *v * d->obj_sense[j] : NAN;
        any |= v != NULL;
        complete &= v != NULL;
    }
    for (size_t c = 0; c < nc; c++) {
        double x = constraints_value(d, c, vals);
        h->mo_c[k * (nc ? nc : 1) + c] = x;
        any |= !isnan(x);
    }
    if (!any)
        return;
    memcpy(h->mo_raw + k * np, raw, np * sizeof(double));
    h->mo_cand[k] = cand;
    h->n_mo++;
    h->n_mo_complete += complete;
}

enum hpod_status
history_candidates(struct db *db, long long study_id, const struct study_def *d,
                   double **out, size_t *n_out, struct hpod_err *err)
{
    size_t np = d->space.n_params, n = 0;
    char **text = NULL;
    enum hpod_status st;

    *out = NULL;
    *n_out = 0;
    if ((st = study_store_candidates(db, study_id, &text, &n, err)) != HPOD_OK)
        return st;
    double *raw = xmalloc((n ? n : 1) * np * sizeof(double));
    for (size_t i = 0; i < n && st == HPOD_OK; i++) {
        json_t *o = hj_parse(text[i]);
        if (params_from_json(d, o, raw + i * np, "candidate", err) != HPOD_OK)
            st = hpod_fail(err, HPOD_EINTERNAL, "",
                           "stored candidate %zu is invalid", i);
        else
            history_impute(&d->space, raw + i * np);
        json_decref(o);
    }
    for (size_t i = 0; i < n; i++)
        free(text[i]);
    free(text);
    if (st != HPOD_OK) {
        free(raw);
        return st;
    }
    *out = raw;
    *n_out = n;
    return HPOD_OK;
}

/* Allocates h's arrays for up to n_rows trials. */
static void
history_alloc(struct history *h, const struct study_def *d, size_t n_rows)
{
    size_t np = d->space.n_params, m = d->n_objectives;
    size_t nc = d->n_constraints;

    h->obs_raw = xmalloc((n_rows + 1) * np * sizeof(double));
    h->obs_y = xmalloc((n_rows + 1) * sizeof(double));
    h->obs_cand = xmalloc((n_rows + 1) * sizeof(size_t));
    if (history_uses_mobo(d)) {
        h->mo_raw = xmalloc((n_rows + 1) * np * sizeof(double));
        h->mo_y = xmalloc((n_rows + 1) * m * sizeof(double));
        h->mo_c = xmalloc((n_rows + 1) * (nc ? nc : 1) * sizeof(double));
        h->mo_cand = xmalloc((n_rows + 1) * sizeof(size_t));
    }
}

int
history_parse_params(const struct study_def *d, const char *params, double *raw)
{
    struct hpod_err scratch;
    json_t *p = params ? hj_parse(params) : NULL;
    enum hpod_status st = params_from_json(d, p, raw, "params", &scratch);
    json_decref(p);
    return st == HPOD_OK;
}

void
history_build(const struct study_def *d, const struct trial *rows,
              size_t n_rows, const double *cand_raw, size_t n_cand, int finite,
              const struct mf_work *w, struct history *h)
{
    history_build_parsed(d, rows, NULL, NULL, n_rows, cand_raw, n_cand, finite,
                         w, h);
}

void
history_build_parsed(const struct study_def *d, const struct trial *rows,
                     const double *rows_raw, const unsigned char *rows_ok,
                     size_t n_rows, const double *cand_raw, size_t n_cand,
                     int finite, const struct mf_work *w, struct history *h)
{
    size_t np = d->space.n_params;
    int model = d->algo.name != ALGO_RANDOM;
    int mo = history_uses_mobo(d);
    double *raw;

    if (finite) {
        h->cand_raw = cand_raw;
        h->n_cand = n_cand;
        h->cand_used = xcalloc(n_cand ? n_cand : 1, 1);
    }
    history_alloc(h, d, n_rows);
    raw = xmalloc((np ? np : 1) * sizeof(double));
    for (size_t i = 0; i < n_rows; i++) {
        const struct trial *t = &rows[i];
        /* A waiting trial will run soon: pending evidence, like a live
         * one, so that new choices keep away from it. */
        int live = t->state == TRIAL_PENDING || t->state == TRIAL_RUNNING ||
                   t->state == TRIAL_WAITING;
        size_t cand = (size_t)-1;
        if (finite && t->candidate >= 0 && (size_t)t->candidate < n_cand) {
            cand = (size_t)t->candidate;
            h->cand_used[cand] = 1;
        }
        /* Excluded by a user: out of the model (its candidate stays taken:
         * the configuration ran). */
        if (t->excluded)
            continue;
        /* Multistage: the evidence is each trial's value at the current
         * stage's fidelity; the stage's members still training to it are
         * pending. */
        double y_stage = NAN;
        if (w->multistage) {
            int pend = 0;
            if (multifidelity_observation(w, t, &y_stage, &pend))
                live = 0;
            else if (pend)
                live = 1;
            else
                continue;
        }
        if (!model || (t->state != TRIAL_COMPLETED && !live && !w->multistage))
            continue;
        if (cand != (size_t)-1) {
            memcpy(raw, cand_raw + cand * np, np * sizeof(double));
        } else if (rows_raw) {
            if (!rows_ok[i])
                continue; /* not a point of this space: not evidence */
            memcpy(raw, rows_raw + i * np, np * sizeof(double));
        } else if (!history_parse_params(d, t->params, raw)) {
            continue; /* not a point of this space: not evidence */
        }
        history_impute(&d->space, raw);
        if (mo)
            add_mo_observation(h, d, &t->values, raw, cand);
        if (live) {
            history_add_pending(h, np, raw, cand);
            continue;
        }
        const double *v = metric_set_find(&t->values, d->obj_names[0]);
        if (w->multistage ? !isnan(y_stage) : v != NULL) {
            double y = w->multistage ? y_stage : *v;
            memcpy(h->obs_raw + h->n_obs * np, raw, np * sizeof(double));
            h->obs_y[h->n_obs] = y * d->obj_sense[0];
            h->obs_cand[h->n_obs] = cand;
            h->n_obs++;
        }
    }
    free(raw);
}

void
history_taken_rows(const struct trial *rows, size_t n_rows,
                   const double *cand_raw, size_t n_cand, struct history *h)
{
    h->cand_raw = cand_raw;
    h->n_cand = n_cand;
    h->cand_used = xcalloc(n_cand ? n_cand : 1, 1);
    for (size_t i = 0; i < n_rows; i++)
        if (rows[i].candidate >= 0 && (size_t)rows[i].candidate < n_cand)
            h->cand_used[rows[i].candidate] = 1;
}

/*
 * Random search on a finite space: which candidates are taken is all it
 * reads (history_build with a model-free sampler fills nothing else), so
 * one index-only scan replaces the trials and their values: under the
 * study lock, this was most of a suggest's time (docs/ARCHITECTURE.md).
 */
static enum hpod_status
history_taken(struct db *db, long long study_id, const double *cand_raw,
              size_t n_cand, struct history *h, struct hpod_err *err)
{
    long long *taken = NULL;
    size_t n = 0;
    enum hpod_status st;

    h->cand_raw = cand_raw;
    h->n_cand = n_cand;
    h->cand_used = xcalloc(n_cand ? n_cand : 1, 1);
    if ((st = trial_store_taken(db, study_id, &taken, &n, err)) != HPOD_OK)
        return st;
    for (size_t i = 0; i < n; i++)
        if (taken[i] >= 0 && (size_t)taken[i] < n_cand)
            h->cand_used[taken[i]] = 1;
    free(taken);
    return HPOD_OK;
}

enum hpod_status
history_load(struct db *db, long long study_id, const struct study_def *d,
             const double *cand_raw, size_t n_cand, int finite,
             const struct mf_work *w, struct history *h, struct hpod_err *err)
{
    struct trial *rows = NULL;
    size_t n_rows = 0;
    enum hpod_status st;

    if (!finite && d->algo.name == ALGO_RANDOM)
        return HPOD_OK; /* random search on a continuous space */
    if (d->algo.name == ALGO_RANDOM && !w->multistage)
        return history_taken(db, study_id, cand_raw, n_cand, h, err);
    if ((st = trial_store_history(db, study_id, &rows, &n_rows, err)) !=
        HPOD_OK)
        return st;
    history_build(d, rows, n_rows, cand_raw, n_cand, finite, w, h);
    trials_free(rows, n_rows);
    return HPOD_OK;
}
