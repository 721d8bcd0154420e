/*
 * study/importance.c - a study's parameter importance; contracts in
 * study/importance.h.
 */
#include "study/importance.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "store/study_store.h"
#include "store/trial_store.h"

void
study_importance_data(const struct study_def *d, const struct trial *rows,
                      size_t n_rows, const char *metric, double **x, double **y,
                      size_t *n)
{
    size_t np = d->space.n_params;
    *x = xmalloc((n_rows ? n_rows : 1) * (np ? np : 1) * sizeof **x);
    *y = xmalloc((n_rows ? n_rows : 1) * sizeof **y);
    *n = 0;
    for (size_t i = 0; i < n_rows; i++) {
        const double *v = metric_set_find(&rows[i].values, metric);
        json_t *params = v ? hj_parse(rows[i].params) : NULL;
        struct hpod_err e;
        if (params && params_from_json(d, params, *x + *n * np, "params", &e) ==
                          HPOD_OK) {
            (*y)[*n] = *v;
            (*n)++;
        }
        json_decref(params);
    }
}

/* The metric asked for, as a name borrowed from d (NULL if not d's). */
static const char *
find_metric(const struct study_def *d, const char *metric)
{
    for (size_t j = 0; j < d->n_objectives; j++)
        if (!metric || strcmp(d->obj_names[j], metric) == 0)
            return d->obj_names[j];
    for (size_t j = 0; metric && j < d->n_constraints; j++)
        if (strcmp(d->con_metric[j], metric) == 0)
            return d->con_metric[j];
    return NULL;
}

enum hpod_status
study_importance(struct db *db, long long study_id, const char *metric,
                 struct study_importance *out, struct hpod_err *err)
{
    struct study s = {0};
    struct trial *rows = NULL;
    size_t n_rows = 0, np;
    double *x = NULL, *y = NULL;
    unsigned char *cat = NULL;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    if ((st = study_store_get(db, study_id, &s, err)) != HPOD_OK ||
        (st = study_def_from_text(s.definition, &out->def, err)) != HPOD_OK)
        goto out;
    if (!(out->metric = find_metric(&out->def, metric))) {
        st = hpod_fail(err, HPOD_EUNPROC, "objective",
                       "\"%s\" is neither an objective nor a constrained "
                       "metric of this study",
                       metric ? metric : "");
        goto out;
    }
    if ((st = trial_store_list(db, study_id, TRIAL_COMPLETED, -1, 0, &rows,
                               &n_rows, NULL, err)) != HPOD_OK)
        goto out;
    trials_drop_excluded(rows, &n_rows);
    study_importance_data(&out->def, rows, n_rows, out->metric, &x, &y,
                          &out->n);
    if (out->n < STUDY_IMPORTANCE_MIN_TRIALS) {
        st = hpod_fail(err, HPOD_ECONFLICT, "",
                       "importance needs at least %d completed trials that "
                       "report \"%s\" (this study has %zu): with fewer, each "
                       "bin of a shape function rests on one or two trials",
                       STUDY_IMPORTANCE_MIN_TRIALS, out->metric, out->n);
        goto out;
    }
    np = out->def.space.n_params;
    cat = xcalloc(np ? np : 1, 1);
    for (size_t j = 0; j < np; j++)
        cat[j] = out->def.space.params[j].type == PARAM_CATEGORICAL;
    if (ebm_fit(x, out->n, np, cat, y, NULL, &out->model) != HPOD_OK)
        st = hpod_fail(err, HPOD_EINTERNAL, "", "the importance model failed");
out:
    free(x);
    free(y);
    free(cat);
    trials_free(rows, n_rows);
    study_cleanup(&s);
    return st;
}

void
study_importance_cleanup(struct study_importance *a)
{
    if (!a)
        return;
    study_def_cleanup(&a->def);
    ebm_free(a->model);
    memset(a, 0, sizeof *a);
}
