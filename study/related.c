/*
 * study/related.c - a lab's related studies; see related.h.
 */
#include "study/related.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "core/related.h"
#include "study/studies.h"
#include "study/trials.h"

/* Completed trials of a study: their params (parsed) and the metrics. */
struct rows {
    struct trial *t;
    json_t **params; /* n, NULL where unreadable */
    size_t n;
};

static void
rows_clear(struct rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        json_decref(r->params[i]);
    free(r->params);
    trials_free(r->t, r->n);
    memset(r, 0, sizeof *r);
}

static enum hpod_status
rows_load(struct db *db, long long id, struct rows *r, struct hpod_err *err)
{
    long long total = 0;
    enum hpod_status st =
        trials_list(db, id, TRIAL_COMPLETED, RELATED_MAX_TRIALS, 0, &r->t,
                    &r->n, &total, err);
    if (st != HPOD_OK)
        return st;
    trials_drop_excluded(r->t, &r->n);
    r->params = xcalloc(r->n ? r->n : 1, sizeof *r->params);
    for (size_t i = 0; i < r->n; i++)
        r->params[i] = hj_parse(r->t[i].params);
    return HPOD_OK;
}

/*
 * r's rows over d's parameters cols (k), in d's raw values (a categorical
 * as d's choice index; a value d cannot hold, or a missing one, is NaN and
 * matches nothing), with metric: *x (m × k) and *y (m), new allocations;
 * a row without the metric is left out.
 */
static size_t
rows_map(const struct rows *r, const struct study_def *d, const size_t *cols,
         size_t k, const char *metric, double **x, double **y)
{
    size_t m = 0;
    *x = xmalloc((r->n ? r->n : 1) * (k ? k : 1) * sizeof **x);
    *y = xmalloc((r->n ? r->n : 1) * sizeof **y);
    for (size_t i = 0; i < r->n; i++) {
        const double *v = metric_set_find(&r->t[i].values, metric);
        if (!v || !r->params[i])
            continue;
        for (size_t j = 0; j < k; j++) {
            json_t *p = json_object_get(r->params[i], d->names[cols[j]]);
            double u = NAN;
            if (d->choices[cols[j]]) {
                long c = params_choice_index(d, cols[j], p);
                u = c >= 0 ? (double)c : NAN;
            } else if (json_is_number(p)) {
                u = json_number_value(p);
            }
            (*x)[m * k + j] = u;
        }
        (*y)[m++] = *v;
    }
    return m;
}

/* The objective of d that o has (borrowed from d), or NULL. */
static const char *
shared_objective(const struct study_def *d, const struct study_def *o)
{
    for (size_t i = 0; i < d->n_objectives; i++)
        for (size_t j = 0; j < o->n_objectives; j++)
            if (strcmp(d->obj_names[i], o->obj_names[j]) == 0)
                return d->obj_names[i];
    return NULL;
}

/*
 * Study s against d (self's rows: mine): *out filled when related (1
 * returned), else 0.
 */
static int
compare(struct db *db, const struct study_def *d, const struct rows *mine,
        const struct study *s, struct related_study *out)
{
    struct study_def o = {0};
    struct hpod_err scratch;
    size_t cols[64], k = 0;
    const char *obj;

    if (def_from_text(s->definition, &o, &scratch) != HPOD_OK)
        return 0;
    for (size_t i = 0; i < d->space.n_params && k < 64; i++)
        for (size_t j = 0; j < o.space.n_params; j++)
            if (strcmp(d->names[i], o.names[j]) == 0) {
                cols[k++] = i;
                break;
            }
    obj = shared_objective(d, &o);
    def_clear(&o);
    if (!obj || k == 0 || 2 * k < d->space.n_params)
        return 0;
    memset(out, 0, sizeof *out);
    out->id = s->id;
    out->name = xstrdup(s->name);
    out->objective = xstrdup(obj);
    out->n_shared = k;
    out->shared = xmalloc(k * sizeof *out->shared);
    for (size_t j = 0; j < k; j++)
        out->shared[j] = xstrdup(d->names[cols[j]]);
    out->overlap = (double)k / (double)d->space.n_params;
    out->rho = NAN;
    struct rows theirs = {0};
    if (mine->n == 0 || rows_load(db, s->id, &theirs, &scratch) != HPOD_OK) {
        rows_clear(&theirs);
        return 1;
    }
    double *xa, *ya, *xb, *yb;
    size_t na = rows_map(mine, d, cols, k, obj, &xa, &ya);
    size_t nb = rows_map(&theirs, d, cols, k, obj, &xb, &yb);
    out->rho = related_spearman(xa, ya, na, xb, yb, nb, k, &out->n_configs);
    free(xa);
    free(ya);
    free(xb);
    free(yb);
    rows_clear(&theirs);
    return 1;
}

static void
related_study_clear(struct related_study *r)
{
    for (size_t j = 0; j < r->n_shared; j++)
        free(r->shared[j]);
    free(r->shared);
    free(r->name);
    free(r->objective);
}

/* out->v ranked by core/related. */
static void
rank(struct related_list *out)
{
    struct related_score *sc = xmalloc((out->n ? out->n : 1) * sizeof *sc);
    size_t *order = xmalloc((out->n ? out->n : 1) * sizeof *order);
    struct related_study *v = xmalloc((out->n ? out->n : 1) * sizeof *v);
    for (size_t i = 0; i < out->n; i++)
        sc[i] = (struct related_score){out->v[i].rho, out->v[i].overlap,
                                       out->v[i].id};
    related_rank(sc, out->n, order);
    for (size_t i = 0; i < out->n; i++)
        v[i] = out->v[order[i]];
    free(out->v);
    out->v = v;
    free(sc);
    free(order);
}

enum hpod_status
study_related_list(struct db *db, const char *lab, const struct study_def *d,
                   long long self, struct related_list *out,
                   struct hpod_err *err)
{
    struct study_filter f = {.lab = lab};
    struct rows mine = {0};
    struct study *page = NULL;
    size_t n = 0;
    long long total = 0, offset = 0;
    enum hpod_status st = HPOD_OK;

    memset(out, 0, sizeof *out);
    if (self && (st = rows_load(db, self, &mine, err)) != HPOD_OK)
        return st;
    out->v = xmalloc(RELATED_MAX_STUDIES * sizeof *out->v);
    while (st == HPOD_OK && offset < RELATED_MAX_STUDIES) {
        st = studies_list(db, &f, 100, offset, &page, &n, &total, err);
        for (size_t i = 0; i < n; i++) {
            if (st == HPOD_OK && page[i].id != self &&
                compare(db, d, &mine, &page[i], &out->v[out->n]))
                out->n++;
            study_clear(&page[i]);
        }
        free(page);
        page = NULL;
        offset += 100;
        if (n < 100)
            break;
    }
    rows_clear(&mine);
    if (st != HPOD_OK) {
        study_related_list_clear(out);
        return st;
    }
    rank(out);
    return HPOD_OK;
}

void
study_related_list_clear(struct related_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        related_study_clear(&l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}
