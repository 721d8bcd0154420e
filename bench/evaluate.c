/*
 * bench/evaluate.c - a configuration's row of a table or curve set. See
 * bench/evaluate.h.
 */
#include "bench/evaluate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/import.h"
#include "common/err.h"
#include "common/mem.h"

/* See bench/evaluate.h. */
enum hpod_status
evaluate_match_row(const struct bench_ref *ref, json_t *params, size_t *row,
                   struct hpod_err *err)
{
    const struct bench_table *t = ref->table;
    size_t np = t->n_params;
    double *raw = xmalloc(np * sizeof *raw);
    enum hpod_status st = HPOD_OK;
    const char *key;
    json_t *v;
    char f[128];

    json_object_foreach(params, key, v)
    {
        size_t k;
        for (k = 0; k < np && strcmp(t->param_names[k], key); k++)
            ;
        if (k == np) {
            snprintf(f, sizeof f, "params.%.64s", key);
            st = hpod_fail(err, HPOD_EUNPROC, f,
                           "the table has no parameter \"%.64s\"", key);
            goto out;
        }
    }
    for (size_t k = 0; k < np; k++) {
        snprintf(f, sizeof f, "params.%s", t->param_names[k]);
        v = json_object_get(params, t->param_names[k]);
        json_t *ch = catalog_ref_choices(ref, k);
        if (!v || (ch ? !json_is_string(v) : !json_is_number(v))) {
            st = hpod_fail(err, HPOD_EUNPROC, f,
                           "%s is missing or has the wrong type", f);
            goto out;
        }
        raw[k] = import_raw_value(v, ch);
    }
    for (size_t i = 0; i < t->n; i++)
        if (catalog_same_row(t->raw + i * np, raw, np)) {
            *row = i;
            goto out;
        }
    st = hpod_fail(err, HPOD_EUNPROC, "params",
                   "no row of %s has these parameters", t->name);
out:
    free(raw);
    return st;
}

/* See bench/evaluate.h. */
enum hpod_status
evaluate_match_curve(const struct bench_lc_set *c, json_t *params, size_t *row,
                     struct hpod_err *err)
{
    double *h = xmalloc((c->n_hyper ? c->n_hyper : 1) * sizeof *h);
    enum hpod_status st = HPOD_OK;
    char f[160];
    for (size_t k = 0; k < c->n_hyper; k++) {
        json_t *v = json_object_get(params, c->hyper_names[k]);
        snprintf(f, sizeof f, "params.%s", c->hyper_names[k]);
        if (!json_is_number(v)) {
            st = hpod_fail(err, HPOD_EUNPROC, f,
                           "%s is missing or not a number", f);
            goto out;
        }
        h[k] = json_number_value(v);
    }
    if (json_object_size(params) != c->n_hyper) {
        st = hpod_fail(err, HPOD_EUNPROC, "params",
                       "params must give exactly the %zu hyperparameters of "
                       "%s",
                       c->n_hyper, c->name);
        goto out;
    }
    for (size_t i = 0; i < c->n; i++)
        if (catalog_same_row(c->curves[i].hyper, h, c->n_hyper)) {
            *row = i;
            goto out;
        }
    st = hpod_fail(err, HPOD_EUNPROC, "params",
                   "no configuration of %s has these hyperparameters", c->name);
out:
    free(h);
    return st;
}
