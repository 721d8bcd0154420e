/*
 * handlers/analysis.c - what the data say about the hyperparameters:
 *   GET /v1/studies/{id}/importance?objective=  (study/importance)
 *   GET /v1/benchmarks/{name}/importance?metric= (bench/analysis)
 *   GET /v1/benchmarks/{name}/compare?with=&metric=&goal= (bench/analysis)
 * The importance answer is shaped for plotting: parameters strongest
 * first, each with its bars' value and its shape function as points
 * {value, contribution, count} in value order (categoricals by name).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/analysis.h"
#include "bench/catalog.h"
#include "common/err.h"
#include "core/ebm.h"
#include "handlers/handlers.h"
#include "study/importance.h"

/* A bin's value as the client wrote it: a choice name, an integer when
 * integral, else a real; null for the bin of the trials where the
 * parameter is inactive (a condition, define-by-run). */
static json_t *
bin_value_json(json_t *choices, double v)
{
    if (isnan(v))
        return json_null();
    if (choices) {
        json_t *c = json_array_get(choices, (size_t)v);
        return c ? json_incref(c) : json_null();
    }
    if (v == floor(v) && fabs(v) <= 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(v);
}

/* The parameters, strongest first (ties in column order). */
static json_t *
parameters_json(const struct ebm *m, const char *const *names,
                json_t *const *choices)
{
    size_t p = ebm_n_features(m), order[64], n = 0;
    json_t *arr = json_array();
    for (size_t j = 0; j < p && n < 64; j++) {
        size_t i = n++;
        while (i > 0 &&
               ebm_importance(m, order[i - 1]) < ebm_importance(m, j)) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = j;
    }
    for (size_t r = 0; r < n; r++) {
        size_t j = order[r];
        json_t *shape = json_array();
        for (size_t b = 0; b < ebm_n_bins(m, j); b++)
            json_array_append_new(
                shape,
                json_pack("{s:o, s:f, s:I}", "value",
                          bin_value_json(choices[j], ebm_bin_value(m, j, b)),
                          "contribution", ebm_contribution(m, j, b), "count",
                          (json_int_t)ebm_bin_count(m, j, b)));
        json_array_append_new(
            arr, json_pack("{s:s, s:f, s:o}", "name", names[j], "importance",
                           ebm_importance(m, j), "shape", shape));
    }
    return arr;
}

static json_t *
importance_json(const struct ebm *m, const char *metric,
                const char *const *names, json_t *const *choices)
{
    json_t *pairs = json_array();
    for (size_t k = 0; k < ebm_n_pairs(m); k++) {
        size_t a, b;
        double imp;
        ebm_pair(m, k, &a, &b, &imp);
        json_array_append_new(pairs,
                              json_pack("{s:[s, s], s:f}", "parameters",
                                        names[a], names[b], "importance", imp));
    }
    return json_pack("{s:s, s:I, s:f, s:f, s:o, s:o}", "metric", metric, "n",
                     (json_int_t)ebm_n_rows(m), "intercept", ebm_intercept(m),
                     "r2", ebm_r2(m), "parameters",
                     parameters_json(m, names, choices), "pairs", pairs);
}

/* A query parameter that must be a name when given. */
static enum hpod_status
query_name(struct req *rq, const char *name, const char **out)
{
    *out = rq->query(rq, name);
    if (*out && (!**out || strlen(*out) > 128))
        return hpod_fail(&rq->err, HPOD_EINVAL, name,
                         "%s must be 1 to 128 characters", name);
    return HPOD_OK;
}

/*
 * GET /v1/studies/{id}/importance: the fit of the study's current version
 * with its ETag (304 when If-None-Match names it), the last version's
 * marked "stale" while a big study's is fitted in the background, or 202
 * with Retry-After before the first one is ready (study/importance.h).
 */
enum hpod_status
handle_study_importance(struct req *rq)
{
    struct importance_where w = {.pool = rq->ctx->pool,
                                 .units = rq->ctx->suggest_conns,
                                 .lab = rq->who.lab};
    struct importance_compute a = {0};
    const char *objective;
    json_t *o;
    enum hpod_status st;

    if ((st = query_name(rq, "objective", &objective)) != HPOD_OK)
        return st;
    st = importance_compute(&w, rq->id, objective,
                            rq->header ? rq->header(rq, "If-None-Match") : NULL,
                            &a, &rq->err);
    if (st != HPOD_OK)
        goto out;
    if (a.etag[0]) {
        snprintf(rq->etag_buf, sizeof rq->etag_buf, "%s", a.etag);
        rq->etag = rq->etag_buf;
        rq->cache_control = "no-cache";
    }
    if (a.status == 304) {
        rq->status = 304;
        goto out;
    }
    if (a.status == 202) {
        rq->err.retry_after = a.retry_after;
        st = reply_json(rq, 202,
                        json_pack("{s:I, s:s, s:I}", "study",
                                  (json_int_t)rq->id, "status", "computing",
                                  "retry_after", (json_int_t)a.retry_after));
        goto out;
    }
    o = importance_json(a.model, a.metric, a.names, a.choices);
    json_object_set_new(o, "study", json_integer(rq->id));
    if (a.stale) {
        json_object_set_new(o, "stale", json_true());
        json_object_set_new(o, "retry_after", json_integer(a.retry_after));
    }
    st = reply_json(rq, 200, o);
out:
    importance_clear(&a);
    return st;
}

enum hpod_status
handle_benchmark_importance(struct req *rq)
{
    struct bench_ref ref;
    struct ebm *m = NULL;
    const char *metric, *name;
    enum hpod_status st;

    if ((st = query_name(rq, "metric", &metric)) != HPOD_OK)
        return st;
    if ((st = catalog_resolve(rq->ctx->bench, rq->db, rq->name, &ref,
                              &rq->err)) != HPOD_OK)
        return st;
    if ((st = analysis_importance(&ref, metric, &m, &rq->err)) == HPOD_OK &&
        (st = analysis_metric_name(&ref, metric, "metric", &name, &rq->err)) ==
            HPOD_OK) {
        const struct bench_table *t = ref.table;
        json_t *choices[64] = {0};
        for (size_t k = 0; k < t->n_params && k < 64; k++)
            choices[k] = catalog_ref_choices(&ref, k);
        json_t *o = importance_json(
            m, name, (const char *const *)t->param_names, choices);
        json_object_set_new(o, "benchmark", json_string(rq->name));
        st = reply_json(rq, 200, o);
    }
    ebm_free(m);
    catalog_ref_clear(&ref);
    return st;
}

static json_t *
real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

enum hpod_status
handle_benchmark_compare(struct req *rq)
{
    struct bench_ref a, b;
    struct analysis_compare c;
    const char *with, *metric, *goal, *name;
    int maximize = 1;
    enum hpod_status st;

    if ((st = query_name(rq, "with", &with)) != HPOD_OK ||
        (st = query_name(rq, "metric", &metric)) != HPOD_OK)
        return st;
    if (!with)
        return hpod_fail(&rq->err, HPOD_EINVAL, "with",
                         "with (the table to compare with) is required");
    goal = rq->query(rq, "goal");
    if (goal && strcmp(goal, "maximize") != 0) {
        if (strcmp(goal, "minimize") != 0)
            return hpod_fail(&rq->err, HPOD_EINVAL, "goal",
                             "goal must be maximize or minimize");
        maximize = 0;
    }
    if ((st = catalog_resolve(rq->ctx->bench, rq->db, rq->name, &a,
                              &rq->err)) != HPOD_OK)
        return st;
    if (!access_sees_table(&rq->who, with) ||
        (st = catalog_resolve(rq->ctx->bench, rq->db, with, &b, &rq->err)) !=
            HPOD_OK) {
        catalog_ref_clear(&a);
        if (st != HPOD_OK && st != HPOD_ENOTFOUND)
            return st;
        return hpod_fail(&rq->err, HPOD_EUNPROC, "with",
                         "benchmark \"%s\" does not exist", with);
    }
    if ((st = analysis_compare(&a, &b, metric, maximize, &c, &rq->err)) ==
            HPOD_OK &&
        (st = analysis_metric_name(&a, metric, "metric", &name, &rq->err)) ==
            HPOD_OK)
        st = reply_json(
            rq, 200,
            json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:f, s:I, s:I, s:I, "
                      "s:I, s:f}",
                      "benchmark", rq->name, "with", with, "metric", name,
                      "goal", maximize ? "maximize" : "minimize", "n_shared",
                      (json_int_t)c.n_shared, "spearman",
                      real_or_null(c.spearman), "top_fraction",
                      BENCH_TOP_FRACTION, "top_k", (json_int_t)c.top_k, "top_a",
                      (json_int_t)c.top_a, "top_b", (json_int_t)c.top_b,
                      "top_both", (json_int_t)c.top_both, "top_overlap",
                      c.top_overlap));
    catalog_ref_clear(&a);
    catalog_ref_clear(&b);
    return st;
}
