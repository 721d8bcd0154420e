/*
 * bench/expand.c - studies backed by a benchmark. See bench/expand.h.
 */
#include "bench/expand.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/catalog.h"
#include "common/err.h"
#include "common/mem.h"

/*
 * A study backed by a learning-curve set (multi-fidelity studies driven by
 * fake trainers that read the curves through /evaluate with a step): one
 * value list per hyperparameter, the set's distinct configurations as
 * candidates (the first of each, in file order: the one /evaluate
 * answers with), and the one metric, ppl, minimized unless given.
 */
static enum hpod_status
expand_curve_study(const struct bench_lc_set *c, json_t *copy,
                   struct hpod_err *err)
{
    json_t *space = json_array(), *cands = json_array(), *objs;
    double *v = xmalloc((c->n ? c->n : 1) * sizeof *v);

    for (size_t k = 0; k < c->n_hyper; k++) {
        int is_int = 1;
        for (size_t i = 0; i < c->n; i++) {
            v[i] = c->curves[i].hyper[k];
            is_int &= v[i] == floor(v[i]) && fabs(v[i]) < 9e15;
        }
        qsort(v, c->n, sizeof *v, catalog_cmp_double);
        json_t *vals = json_array();
        for (size_t i = 0; i < c->n; i++)
            if (i == 0 || v[i] != v[i - 1])
                json_array_append_new(vals, is_int
                                                ? json_integer((json_int_t)v[i])
                                                : json_real(v[i]));
        json_array_append_new(
            space, json_pack("{s:s, s:s, s:o}", "name", c->hyper_names[k],
                             "type", is_int ? "int" : "float", "values", vals));
    }
    free(v);
    for (size_t i = 0; i < c->n; i++) {
        size_t j;
        for (j = 0; j < i && !catalog_same_row(c->curves[j].hyper,
                                               c->curves[i].hyper, c->n_hyper);
             j++)
            ;
        if (j < i)
            continue; /* a second curve of the same configuration */
        json_t *o = json_object();
        for (size_t k = 0; k < c->n_hyper; k++) {
            json_t *p = json_array_get(
                json_object_get(json_array_get(space, k), "values"), 0);
            double x = c->curves[i].hyper[k];
            json_object_set_new(o, c->hyper_names[k],
                                json_is_integer(p) ? json_integer((json_int_t)x)
                                                   : json_real(x));
        }
        json_array_append_new(cands, o);
    }
    json_object_set_new(copy, "space", space);
    json_object_set_new(copy, "candidates", cands);
    objs = json_object_get(copy, "objectives");
    if (!objs) {
        json_object_set_new(
            copy, "objectives",
            json_pack("[{s:s, s:s}]", "name", "ppl", "goal", "minimize"));
        return HPOD_OK;
    }
    for (size_t i = 0; json_is_array(objs) && i < json_array_size(objs); i++) {
        json_t *nm = json_object_get(json_array_get(objs, i), "name");
        if (json_is_string(nm) && strcmp(json_string_value(nm), "ppl") != 0) {
            char f[64];
            snprintf(f, sizeof f, "objectives[%zu].name", i);
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "%s has one metric, ppl, not \"%.64s\"", c->name,
                             json_string_value(nm));
        }
    }
    return HPOD_OK;
}

/* See bench/expand.h. */
enum hpod_status
expand_study(const struct bench_db *db, struct db *pg, json_t *body,
             json_t **out, struct hpod_err *err)
{
    json_t *b = json_object_get(body, "benchmark"), *copy = NULL;
    struct bench_ref ref;
    enum hpod_status st = HPOD_OK;

    *out = NULL;
    if (!b || json_is_null(b))
        return HPOD_OK;
    if (!json_is_string(b))
        return hpod_fail(err, HPOD_EINVAL, "benchmark",
                         "benchmark must be a string");
    if (json_object_get(body, "space"))
        return hpod_fail(err, HPOD_EUNPROC, "space",
                         "a benchmark-backed study takes its space from the "
                         "table");
    if (json_object_get(body, "candidates"))
        return hpod_fail(err, HPOD_EUNPROC, "candidates",
                         "a benchmark-backed study takes its candidates from "
                         "the table");
    st = catalog_resolve(db, pg, json_string_value(b), &ref, err);
    if (st == HPOD_ENOTFOUND)
        return hpod_fail(err, HPOD_EUNPROC, "benchmark",
                         "unknown benchmark \"%.100s\"", json_string_value(b));
    if (st != HPOD_OK)
        return st;
    copy = json_deep_copy(body);
    if (ref.curves) {
        st = expand_curve_study(ref.curves, copy, err);
        if (st == HPOD_OK) {
            *out = copy;
            copy = NULL;
        }
        goto out;
    }
    const struct bench_table *t = ref.table;
    json_t *space = json_array(), *cands = json_array();
    for (size_t k = 0; k < t->n_params; k++)
        json_array_append_new(space, catalog_ref_param_json(&ref, k));
    for (size_t i = 0; i < t->n; i++)
        json_array_append_new(cands, catalog_ref_row_params(&ref, i));
    json_object_set_new(copy, "space", space);
    json_object_set_new(copy, "candidates", cands);
    json_t *objs = json_object_get(copy, "objectives");
    if (!objs) {
        /* Only the NMT tables have an obvious objective (BLEU); a user's
         * own table must say what to optimize. */
        if (ref.imported || !tables_table_metric(t, "bleu")) {
            st = hpod_fail(err, HPOD_EINVAL, "objectives",
                           "objectives is required for %s", t->name);
            goto out;
        }
        json_object_set_new(
            copy, "objectives",
            json_pack("[{s:s, s:s}]", "name", "bleu", "goal", "maximize"));
    } else if (json_is_array(objs)) {
        for (size_t i = 0; i < json_array_size(objs); i++) {
            json_t *nm = json_object_get(json_array_get(objs, i), "name");
            if (json_is_string(nm) &&
                !tables_table_metric(t, json_string_value(nm))) {
                char f[64];
                snprintf(f, sizeof f, "objectives[%zu].name", i);
                st = hpod_fail(err, HPOD_EUNPROC, f,
                               "%s has no metric \"%.64s\"", t->name,
                               json_string_value(nm));
                goto out;
            }
        }
    }
    *out = copy;
    copy = NULL;
out:
    json_decref(copy);
    catalog_ref_clear(&ref);
    return st;
}
