/*
 * study/warmstart.c - a new study's source and its prior; see
 * warmstart.h. The source's rows are mapped onto the study's parameters
 * by name (categoricals by choice, numbers as they are; a row whose value
 * the study cannot hold is skipped) and, over the shared parameters,
 * core/transfer gives each candidate the source's normal score there, or
 * a GP's prediction of it.
 */
#include "study/warmstart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tables.h"
#include "common/err.h"
#include "common/mem.h"
#include "core/normal_scores.h"
#include "core/transfer.h"
#include "store/access_store.h"
#include "study/related.h"
#include "study/studies.h"
#include "study/trials.h"

/* The source rows over the shared parameters. */
struct warm_rows {
    const struct study_def *d;
    size_t shared[64]; /* the study's parameter indices the source has */
    size_t k;
    double *raw, *y; /* n × k, n */
    size_t n, cap;
};

/* Marks the study's parameters named in names (n) as shared. */
static void
rows_share(struct warm_rows *w, const char *const *names, size_t n)
{
    w->k = 0;
    for (size_t i = 0; i < w->d->space.n_params && w->k < 64; i++)
        for (size_t j = 0; j < n; j++)
            if (names[j] && strcmp(names[j], w->d->names[i]) == 0) {
                w->shared[w->k++] = i;
                break;
            }
}

/* Appends a source row (params: {name: value}) of value y, if the study
 * can hold its values. */
static void
rows_add(struct warm_rows *w, json_t *params, double y)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->raw = xrealloc(w->raw, w->cap * w->k * sizeof *w->raw);
        w->y = xrealloc(w->y, w->cap * sizeof *w->y);
    }
    for (size_t j = 0; j < w->k; j++) {
        size_t i = w->shared[j];
        json_t *v = json_object_get(params, w->d->names[i]);
        double x = -1;
        if (w->d->choices[i]) {
            if ((x = (double)params_choice_index(w->d, i, v)) < 0)
                return;
        } else if (json_is_number(v)) {
            x = json_number_value(v);
        } else {
            return;
        }
        w->raw[w->n * w->k + j] = x;
    }
    w->y[w->n++] = y;
}

static enum hpod_status
rows_from_benchmark(struct warm_rows *w, struct db *db,
                    const struct bench_db *bench, const struct principal *who,
                    struct hpod_err *err)
{
    const struct study_def *d = w->d;
    struct bench_ref ref = {0};
    enum hpod_status st;

    if (!access_sees_table(who, d->warm_benchmark) ||
        (st = catalog_resolve(bench, db, d->warm_benchmark, &ref, err)) ==
            HPOD_ENOTFOUND)
        return hpod_fail(err, HPOD_EUNPROC, "warm_start.benchmark",
                         "unknown benchmark \"%.100s\"", d->warm_benchmark);
    if (st != HPOD_OK)
        return st;
    const struct bench_table *t = ref.table;
    const double *y = t ? tables_table_metric(t, d->obj_names[0]) : NULL;
    if (!y) {
        st = hpod_fail(err, HPOD_EUNPROC, "warm_start.benchmark",
                       "the benchmark has no metric \"%.100s\" (the objective)",
                       d->obj_names[0]);
        goto out;
    }
    rows_share(w, (const char *const *)t->param_names, t->n_params);
    for (size_t i = 0; w->k > 0 && i < t->n; i++) {
        json_t *p = catalog_ref_row_params(&ref, i);
        rows_add(w, p, d->obj_sense[0] * y[i]);
        json_decref(p);
    }
out:
    catalog_ref_clear(&ref);
    return st;
}

static enum hpod_status
rows_from_study(struct warm_rows *w, struct db *db, const struct principal *who,
                struct hpod_err *err)
{
    const struct study_def *d = w->d;
    struct study s = {0};
    struct study_def sd = {0};
    struct trial *rows = NULL;
    size_t n = 0, o;
    long long total = 0;
    enum hpod_status st;

    if ((st = access_check_owner(db, who, ACCESS_STUDY, d->warm_study, err)) !=
            HPOD_OK ||
        (st = studies_get(db, d->warm_study, &s, err)) != HPOD_OK ||
        (st = def_from_text(s.definition, &sd, err)) != HPOD_OK)
        goto out;
    for (o = 0; o < sd.n_objectives; o++)
        if (strcmp(sd.obj_names[o], d->obj_names[0]) == 0)
            break;
    if (o == sd.n_objectives) {
        st = hpod_fail(err, HPOD_EUNPROC, "warm_start.study",
                       "the source study has no objective \"%.100s\"",
                       d->obj_names[0]);
        goto out;
    }
    rows_share(w, sd.names, sd.space.n_params);
    if (w->k > 0 &&
        (st = trials_list(db, d->warm_study, TRIAL_COMPLETED, 1000000, 0, &rows,
                          &n, &total, err)) != HPOD_OK)
        goto out;
    trials_drop_excluded(rows, &n); /* out of the source's model too */
    for (size_t i = 0; i < n; i++) {
        const double *v = metric_set_find(&rows[i].values, d->obj_names[0]);
        json_t *p = json_loads(rows[i].params, 0, NULL);
        if (v && p)
            rows_add(w, p, sd.obj_sense[o] * *v);
        json_decref(p);
    }
out:
    trials_free(rows, n);
    def_clear(&sd);
    study_clear(&s);
    return st;
}

/* The prior over the candidates from the rows (w->n > 0, w->k > 0). */
static enum hpod_status
rows_prior(struct warm_rows *w, double **prior, size_t *n_out,
           struct hpod_err *err)
{
    const struct study_def *d = w->d;
    size_t nc = json_array_size(d->candidates), np = d->space.n_params;
    struct space sub;
    double *full = xmalloc(np * sizeof *full);
    double *q = xmalloc(nc * w->k * sizeof *q);
    double *su = NULL, *qu = NULL, *mu = xmalloc(nc * sizeof *mu);
    double *z = xmalloc(w->n * sizeof *z);
    enum hpod_status st = HPOD_OK;

    /* The study's space restricted to the shared parameters. */
    space_init_subset(&sub, &d->space, w->shared, w->k);
    for (size_t c = 0; c < nc && st == HPOD_OK; c++) {
        st = params_from_json(d, json_array_get(d->candidates, c), full,
                              "candidates", err);
        for (size_t j = 0; j < w->k; j++)
            q[c * w->k + j] = full[w->shared[j]];
    }
    if (st != HPOD_OK)
        goto out;
    su = xmalloc(w->n * sub.dim * sizeof *su);
    qu = xmalloc(nc * sub.dim * sizeof *qu);
    space_encode_rows(&sub, w->raw, w->n, su);
    space_encode_rows(&sub, q, nc, qu);
    normal_scores(w->y, w->n, z);
    if (transfer_prior(w->raw, su, z, w->n, w->k, sub.dim, sub.kinds, q, qu, nc,
                       d->algo.kernel, d->algo.seed, mu, NULL,
                       NULL) != HPOD_OK) {
        st = hpod_fail(err, HPOD_EUNPROC, "warm_start",
                       "no model could be fitted to the source's values");
        goto out;
    }
    *prior = mu;
    *n_out = nc;
    mu = NULL;
out:
    space_clear(&sub);
    free(full);
    free(q);
    free(su);
    free(qu);
    free(mu);
    free(z);
    return st;
}

/* The rules that need no source. */
static enum hpod_status
check_target(const struct study_def *d, struct hpod_err *err)
{
    if (d->algo.name != ALGO_GP)
        return hpod_fail(err, HPOD_EUNPROC, "warm_start",
                         "warm_start needs algorithm gp (the prior is a GP "
                         "prior mean)");
    if (d->n_objectives != 1 || d->n_constraints != 0)
        return hpod_fail(err, HPOD_EUNPROC, "warm_start",
                         "warm_start needs one objective and no constraints");
    if (!d->candidates)
        return hpod_fail(err, HPOD_EUNPROC, "warm_start",
                         "warm_start needs a finite space: give candidates "
                         "or a benchmark");
    return HPOD_OK;
}

enum hpod_status
warmstart_prior(struct db *db, const struct bench_db *bench,
                const struct principal *who, const struct study_def *d,
                double **prior, size_t *n, struct hpod_err *err)
{
    struct warm_rows w;
    enum hpod_status st;

    *prior = NULL;
    *n = 0;
    if (!d->warm_study && !d->warm_benchmark)
        return HPOD_OK;
    if ((st = check_target(d, err)) != HPOD_OK)
        return st;
    memset(&w, 0, sizeof w);
    w.d = d;
    st = d->warm_study ? rows_from_study(&w, db, who, err)
                       : rows_from_benchmark(&w, db, bench, who, err);
    if (st == HPOD_OK && w.k == 0)
        st = hpod_fail(err, HPOD_EUNPROC, "warm_start",
                       "the source shares no parameter (by name) with the "
                       "study");
    else if (st == HPOD_OK && w.n == 0)
        st = hpod_fail(err, HPOD_EUNPROC, "warm_start",
                       "the source has no completed row with the objective "
                       "and values the study can hold");
    if (st == HPOD_OK)
        st = rows_prior(&w, prior, n, err);
    free(w.raw);
    free(w.y);
    return st;
}

/* 1 when study id is a source d can start from (rows it can hold). */
static int
usable(struct db *db, const struct principal *who, struct study_def *d,
       long long id)
{
    struct warm_rows w = {.d = d};
    struct hpod_err scratch;
    long long was = d->warm_study;
    d->warm_study = id;
    int ok =
        rows_from_study(&w, db, who, &scratch) == HPOD_OK && w.k > 0 && w.n > 0;
    d->warm_study = was;
    free(w.raw);
    free(w.y);
    return ok;
}

enum hpod_status
warmstart_auto(struct db *db, const struct principal *who, const char *lab,
               struct study_def *d, struct hpod_err *err)
{
    json_t *ws = json_object_get(d->def, "warm_start");
    struct related_list l = {0};
    char reason[512];
    size_t i;
    enum hpod_status st;

    if (!d->warm_auto || json_object_get(ws, "study") ||
        json_object_get(ws, "reason"))
        return HPOD_OK; /* resolved already (a definition read back) */
    if ((st = check_target(d, err)) != HPOD_OK ||
        (st = study_related_list(db, lab, d, 0, &l, err)) != HPOD_OK)
        return st;
    for (i = 0; i < l.n; i++)
        if (strcmp(l.v[i].objective, d->obj_names[0]) == 0 &&
            usable(db, who, d, l.v[i].id))
            break;
    if (i < l.n) {
        snprintf(reason, sizeof reason,
                 "study %lld (%.200s), the first of %zu related studies of "
                 "lab %.64s: %zu of %zu parameters shared, objective %.64s",
                 l.v[i].id, l.v[i].name, l.n, lab, l.v[i].n_shared,
                 d->space.n_params, d->obj_names[0]);
        d->warm_study = l.v[i].id;
        json_object_set_new(ws, "study", json_integer(l.v[i].id));
    } else {
        snprintf(reason, sizeof reason,
                 "no study of lab %.64s has half of the parameters, the "
                 "objective %.64s and a completed trial: the study starts "
                 "cold",
                 lab, d->obj_names[0]);
    }
    json_object_set_new(ws, "reason", json_string(reason));
    study_related_list_clear(&l);
    return HPOD_OK;
}
