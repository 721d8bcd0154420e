/*
 * handlers/benchmarks.c - the HTTP mapping of /v1/benchmarks (lookup
 * tables and learning curves), /evaluate for fake trainers, /simulate and
 * /v1/simulations: parse the request, call bench/, render JSON, store
 * simulations (store/bench_store).
 *
 * What a name refers to is bench/catalog; import validation bench/import;
 * row matching bench/evaluate; the simulations bench/simulate (tables) and
 * bench/simcurves (learning curves). Benchmark-backed studies are expanded
 * by bench/expand, called from handlers/studies.c.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench/catalog.h"
#include "bench/evaluate.h"
#include "bench/import.h"
#include "bench/jobs.h"
#include "bench/simcurves.h"
#include "bench/simulate.h"
#include "bench/tables.h"
#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "core/metrics.h"
#include "core/mobo.h"
#include "core/simulate.h"
#include "handlers/benchmarks.h"
#include "handlers/handlers.h"
#include "store/bench_store.h"
#include "study/auto.h"
#include "study/def.h"

/* The benchmark rq names (rq->err on failure; 404 if none). */
static enum hpod_status
resolve(struct req *rq, const char *name, struct bench_ref *ref)
{
    return bench_catalog_resolve(rq->ctx->bench, rq->db, name, ref, &rq->err);
}

static json_t *
names_json(char *const *names, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(names[i]));
    return a;
}

static json_t *
summary_json(const char *name, const struct bench_ref *ref)
{
    if (ref->curves) {
        const struct bench_lc_set *c = ref->curves;
        return json_pack(
            "{s:s, s:s, s:s, s:I, s:o, s:[s]}", "name", name, "kind", "curves",
            "source", "files", "size", (json_int_t)c->n, "params",
            names_json(c->hyper_names, c->n_hyper), "metrics", "ppl");
    }
    const struct bench_table *t = ref->table;
    return json_pack("{s:s, s:s, s:s, s:I, s:o, s:o}", "name", name, "kind",
                     "table", "source", ref->imported ? "imported" : "files",
                     "size", (json_int_t)t->n, "params",
                     names_json(t->param_names, t->n_params), "metrics",
                     names_json(t->metric_names, t->n_metrics));
}

static json_t *
oracle_entry(const double *v, size_t n, size_t stride)
{
    size_t imax = 0, imin = 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i * stride] > v[imax * stride])
            imax = i;
        if (v[i * stride] < v[imin * stride])
            imin = i;
    }
    return json_pack("{s:f, s:I, s:f, s:I}", "max", v[imax * stride], "max_row",
                     (json_int_t)imax, "min", v[imin * stride], "min_row",
                     (json_int_t)imin);
}

static json_t *
detail_json(const char *name, const struct bench_ref *ref)
{
    json_t *o = summary_json(name, ref);
    json_t *params = json_array(), *oracle = json_object(),
           *pareto = json_array();
    if (ref->curves) {
        const struct bench_lc_set *c = ref->curves;
        size_t max_len = 0;
        double *v = xmalloc((c->n ? c->n : 1) * sizeof *v);
        for (size_t k = 0; k < c->n_hyper; k++) {
            for (size_t i = 0; i < c->n; i++)
                v[i] = c->curves[i].hyper[k];
            qsort(v, c->n, sizeof *v, bench_cmp_double);
            json_t *vals = json_array();
            for (size_t i = 0; i < c->n; i++)
                if (i == 0 || v[i] != v[i - 1])
                    json_array_append_new(vals, json_real(v[i]));
            json_array_append_new(params,
                                  json_pack("{s:s, s:o}", "name",
                                            c->hyper_names[k], "values", vals));
        }
        for (size_t i = 0; i < c->n; i++) {
            v[i] = c->curves[i].ppl_optimal;
            if (c->curves[i].len > max_len)
                max_len = c->curves[i].len;
        }
        if (c->n)
            json_object_set_new(oracle, "ppl", oracle_entry(v, c->n, 1));
        free(v);
        json_object_set_new(
            o, "max_step", json_integer(max_len ? (json_int_t)max_len - 1 : 0));
    } else {
        const struct bench_table *t = ref->table;
        for (size_t k = 0; k < t->n_params; k++) {
            json_t *p = bench_ref_param_json(ref, k);
            json_t *vals = json_object_get(p, "values");
            json_t *ch = json_object_get(p, "choices");
            json_array_append_new(params, json_pack("{s:s, s:O}", "name",
                                                    t->param_names[k], "values",
                                                    vals ? vals : ch));
            json_decref(p);
        }
        for (size_t m = 0; m < t->n_metrics && t->n > 0; m++)
            json_object_set_new(oracle, t->metric_names[m],
                                oracle_entry(t->metrics + m * t->n, t->n, 1));
        for (size_t i = 0; i < t->n; i++)
            if (t->pareto && t->pareto[i])
                json_array_append_new(pareto, json_integer((json_int_t)i));
    }
    json_object_set_new(o, "parameters", params);
    json_object_set_new(o, "oracle", oracle);
    json_object_set_new(o, "pareto", pareto);
    return o;
}

/* ---- GET /v1/benchmarks and /v1/benchmarks/{name} ---- */

static int
cmp_summary(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    return strcmp(json_string_value(json_object_get(x, "name")),
                  json_string_value(json_object_get(y, "name")));
}

enum hpod_status
handle_benchmark_list(struct req *rq)
{
    const struct bench_db *db = rq->ctx->bench;
    char **names = NULL;
    size_t n_names = 0, k = 0;
    enum hpod_status st;

    if ((st = bench_store_names(rq->db, &names, &n_names, &rq->err)) != HPOD_OK)
        return st;
    size_t total = db->n_tables + db->n_lc + n_names;
    json_t **items = xcalloc(total ? total : 1, sizeof *items);
    for (size_t i = 0; i < db->n_tables; i++) {
        struct bench_ref ref = {.table = &db->tables[i]};
        items[k++] = summary_json(db->tables[i].name, &ref);
    }
    for (size_t i = 0; i < db->n_lc; i++) {
        struct bench_ref ref = {.curves = &db->lc[i]};
        items[k++] = summary_json(db->lc[i].name, &ref);
    }
    for (size_t i = 0; i < n_names && st == HPOD_OK; i++) {
        struct bench_ref ref;
        if (!access_sees_table(&rq->who, names[i]))
            continue; /* another lab's */
        if ((st = resolve(rq, names[i], &ref)) == HPOD_OK)
            items[k++] = summary_json(names[i], &ref);
        bench_ref_cleanup(&ref);
    }
    json_t *arr = json_array();
    qsort(items, k, sizeof *items, cmp_summary);
    for (size_t i = 0; i < k; i++)
        json_array_append_new(arr, items[i]);
    free(items);
    for (size_t i = 0; i < n_names; i++)
        free(names[i]);
    free(names);
    if (st != HPOD_OK) {
        json_decref(arr);
        return st;
    }
    return reply_json(rq, 200, json_pack("{s:o}", "benchmarks", arr));
}

/* The Pareto-optimal rows of a table with their parameters and every
 * metric ("pareto_values"), for a front drawn beside a study's. */
static json_t *
pareto_values_json(const struct bench_ref *ref)
{
    const struct bench_table *t = ref->table;
    json_t *arr = json_array();
    for (size_t i = 0; t && i < t->n; i++) {
        if (!t->pareto || !t->pareto[i])
            continue;
        json_t *vals = json_object();
        for (size_t m = 0; m < t->n_metrics; m++)
            json_object_set_new(vals, t->metric_names[m],
                                json_real(t->metrics[m * t->n + i]));
        json_array_append_new(
            arr, json_pack("{s:I, s:o, s:o}", "row", (json_int_t)i, "params",
                           bench_ref_row_params(ref, i), "values", vals));
    }
    return arr;
}

/* GET /v1/benchmarks/{name}[?pareto_values=true] */
enum hpod_status
handle_benchmark_get(struct req *rq)
{
    struct bench_ref ref;
    int with_values = 0;
    enum hpod_status st = query_bool(rq->query(rq, "pareto_values"),
                                     "pareto_values", &with_values, &rq->err);
    if (st != HPOD_OK)
        return st;
    st = resolve(rq, rq->name, &ref);
    if (st == HPOD_OK) {
        json_t *o = detail_json(rq->name, &ref);
        if (with_values)
            json_object_set_new(o, "pareto_values", pareto_values_json(&ref));
        st = reply_json(rq, 200, o);
    }
    bench_ref_cleanup(&ref);
    return st;
}

/* ---- POST /v1/benchmarks ---- */

enum hpod_status
handle_benchmark_import(struct req *rq)
{
    const char *name = NULL;
    json_t *def = NULL;
    char *def_text = NULL, *rows_text = NULL;
    struct bench_ref ref;
    enum hpod_status st;

    if ((st = bench_import_validate(rq->body, &name, &def, &rq->err)) !=
        HPOD_OK)
        return st;
    if (!access_sees_table(&rq->who, name)) {
        json_decref(def);
        return hpod_fail(&rq->err, HPOD_EDENIED, "name",
                         "a token of lab \"%s\" imports tables under "
                         "\"%s/\" only",
                         rq->who.lab, rq->who.lab);
    }
    def_text = hj_dump(def, 0);
    rows_text = hj_dump(json_object_get(rq->body, "rows"), 0);
    st = bench_store_insert(rq->db, name, def_text, rows_text, &rq->err);
    if (st == HPOD_OK && (st = resolve(rq, name, &ref)) == HPOD_OK) {
        st = reply_json(rq, 201, detail_json(name, &ref));
        bench_ref_cleanup(&ref);
    }
    free(def_text);
    free(rows_text);
    json_decref(def);
    return st;
}

/* ---- POST /v1/benchmarks/{name}/evaluate ---- */

enum hpod_status
handle_benchmark_evaluate(struct req *rq)
{
    static const char *const keys[] = {"params", "step", NULL};
    struct bench_ref ref;
    json_t *params, *step;
    size_t row = 0;
    enum hpod_status st;

    /* A table that does not exist is a 404 before anything else. */
    if ((st = resolve(rq, rq->name, &ref)) != HPOD_OK)
        return st;
    if ((st = hj_check_keys(rq->body, keys, "", &rq->err)) != HPOD_OK)
        goto out;
    params = json_object_get(rq->body, "params");
    step = json_object_get(rq->body, "step");
    if (!params || !json_is_object(params)) {
        st = hpod_fail(&rq->err, HPOD_EINVAL, "params",
                       params ? "params must be an object"
                              : "params is required");
        goto out;
    }
    if (step && !json_is_null(step) && !json_is_integer(step)) {
        st =
            hpod_fail(&rq->err, HPOD_EINVAL, "step", "step must be an integer");
        goto out;
    }
    if (ref.curves) {
        double ppl;
        if (!step || json_is_null(step)) {
            st = hpod_fail(&rq->err, HPOD_EUNPROC, "step",
                           "a learning-curve benchmark needs a step");
        } else if (json_integer_value(step) < 0) {
            st = hpod_fail(&rq->err, HPOD_EUNPROC, "step", "step must be >= 0");
        } else if ((st = bench_match_curve(ref.curves, params, &row,
                                           &rq->err)) == HPOD_OK) {
            json_int_t s = json_integer_value(step);
            if (bench_curve_ppl(&ref.curves->curves[row], (size_t)s + 1,
                                &ppl) != HPOD_OK)
                st = hpod_fail(&rq->err, HPOD_EUNPROC, "step",
                               "configuration %zu has %zu checkpoints "
                               "(steps 0 to %zu)",
                               row, ref.curves->curves[row].len,
                               ref.curves->curves[row].len - 1);
            else
                st = reply_json(rq, 200,
                                json_pack("{s:{s:f}, s:I, s:I}", "values",
                                          "ppl", ppl, "row", (json_int_t)row,
                                          "step", s));
        }
    } else if (step && !json_is_null(step)) {
        st = hpod_fail(&rq->err, HPOD_EUNPROC, "step",
                       "%s is a lookup table: it has no steps", rq->name);
    } else if ((st = bench_match_row(&ref, params, &row, &rq->err)) ==
               HPOD_OK) {
        const struct bench_table *t = ref.table;
        json_t *vals = json_object();
        for (size_t m = 0; m < t->n_metrics; m++)
            json_object_set_new(vals, t->metric_names[m],
                                json_real(t->metrics[m * t->n + row]));
        st = reply_json(
            rq, 200,
            json_pack("{s:o, s:I}", "values", vals, "row", (json_int_t)row));
    }
out:
    bench_ref_cleanup(&ref);
    return st;
}

/* ---- POST /v1/benchmarks/{name}/simulate and /v1/simulations ---- */

/*
 * sim_auto - "algorithm": {"name": "auto"} on table t: the choice a study
 * whose candidates are t's rows would get (study/auto.h), with the
 * request's objectives, constraints, budget (none unless given) and init.
 * Only an explicit auto: an omitted algorithm keeps its old meaning here.
 */
static enum hpod_status
sim_auto(json_t *body, json_t *a, const struct bench_table *t, long long init,
         struct algo_def *algo, json_t **norm, struct hpod_err *err)
{
    json_t *objs = json_object_get(body, "objectives");
    json_t *cons = json_object_get(body, "constraints");
    json_t *budget = json_object_get(body, "budget");
    struct autoalgo_features f = {
        .n_params = t->n_params,
        .n_candidates = t->n,
        .n_objectives = json_is_array(objs) && json_array_size(objs) > 0
                            ? json_array_size(objs)
                            : 1,
        .n_constraints = json_is_array(cons) ? json_array_size(cons) : 0,
        .budget = json_is_integer(budget) ? json_integer_value(budget) : -1,
        .init = (int)init,
    };
    /* A table's parameters are value lists of numbers (bench/expand.c),
     * never categorical; simulate has no decoupled constraint or source. */
    return algo_auto(a, &f, algo, norm, err);
}

/* See benchmarks.h. */
enum hpod_status
sim_table_parse(struct req *rq, const struct bench_table *table,
                struct sim_table_req *out)
{
    static const char *const keys[] = {
        "algorithm",  "repeats",     "init",    "seed",
        "objective",  "tolerance",   "budget",  "pareto_budget",
        "objectives", "constraints", "metrics", NULL};
    struct algo_def algo;
    json_t *norm_algo = NULL, *v, *objs, *ms;
    long long repeats, init, seed, budget;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    if ((st = hj_check_keys(rq->body, keys, "", &rq->err)) != HPOD_OK)
        goto out;
    objs = json_object_get(rq->body, "objectives");
    if (objs && json_object_get(rq->body, "objective")) {
        st = hpod_fail(&rq->err, HPOD_EINVAL, "objective",
                       "give objectives or its alias objective, not both");
        goto out;
    }
    v = json_object_get(rq->body, "algorithm");
    /* The study validator does not know sh (a simulation-only method). */
    if (json_is_object(v) && json_is_string(json_object_get(v, "name")) &&
        strcmp(json_string_value(json_object_get(v, "name")), "sh") == 0) {
        st = hpod_fail(&rq->err, HPOD_EUNPROC, "algorithm.name",
                       "sh needs learning curves: simulate it on an "
                       "nmtlc set");
        goto out;
    }
    /* init first: auto's rule reads it. */
    if ((st = bench_sim_int(rq->body, &rq->err, "init", 1, 50, 3, &init)) !=
        HPOD_OK)
        goto out;
    if (v && !json_is_null(v) && algo_is_auto(v))
        st = sim_auto(rq->body, v, table, init, &algo, &norm_algo, &rq->err);
    else
        st = algo_from_json(json_is_null(v) ? NULL : v, &algo, &norm_algo,
                            &rq->err);
    if (st != HPOD_OK)
        goto out;
    if ((st = bench_sim_int(rq->body, &rq->err, "repeats", 1,
                            BENCH_SIM_MAX_REPEATS, 100, &repeats)) != HPOD_OK ||
        (st = bench_sim_int(rq->body, &rq->err, "seed", 0, (1LL << 53) - 1, 0,
                            &seed)) != HPOD_OK ||
        (st = bench_sim_int(rq->body, &rq->err, "budget", 1, 1000000, 20,
                            &budget)) != HPOD_OK)
        goto out;
    if (algo.name == ALGO_ASHA) {
        st = hpod_fail(&rq->err, HPOD_EUNPROC, "algorithm.name",
                       "simulate runs random, gp, graph, greedy and ehvi "
                       "on a lookup table; asha needs learning curves: "
                       "simulate it on an nmtlc set");
        goto out;
    }
    ms = json_object_get(rq->body, "metrics");
    if (ms && !json_is_null(ms) &&
        (st = bench_sim_metrics_parse(&rq->err, ms, &out->metrics)) != HPOD_OK)
        goto out;
    /* Runs are seeded seed, seed+1, ...: the algorithm's own seed plays no
     * part, so the stored algorithm says so rather than show a fresh one. */
    json_object_set_new(norm_algo, "seed", json_integer(seed));
    if (json_is_object(json_object_get(norm_algo, "chosen")))
        json_object_set_new(json_object_get(norm_algo, "chosen"), "seed",
                            json_integer(seed));
    out->algo = algo;
    out->norm_algo = norm_algo;
    norm_algo = NULL;
    out->repeats = repeats;
    out->init = init;
    out->seed = seed;
    out->budget = budget;
out:
    json_decref(norm_algo);
    return st;
}

/* The run bench/simulate makes of a parsed table request (norm_algo
 * borrowed). */
static void
sim_table_run(const struct sim_table_req *tr, struct bench_sim_table *run)
{
    const struct algo_def *a = &tr->algo;

    memset(run, 0, sizeof *run);
    run->single = (struct simulate_algo){
        .kind = (enum sampler_kind)a->name,
        .kernel = a->kernel,
        .acquisition = a->acquisition,
        .ls_min = a->ls_min,
        .trust_div = a->name == ALGO_GP ? (int)a->gp_trust : 0,
        .ls_prior = a->name == ALGO_GP ? a->ls_prior : 0.0,
        .variant = a->name == ALGO_GP && a->gp_hedge ? SAMPLER_V_HEDGE : 0u};
    run->mo = (struct simulate_mo_algo){
        a->name == ALGO_RANDOM,
        a->name == ALGO_EHVI     ? a->surrogate
        : a->name == ALGO_GRAPH  ? MOBO_SURROGATE_GRAPH
        : a->name == ALGO_GREEDY ? MOBO_SURROGATE_GREEDY
                                 : MOBO_SURROGATE_GP,
        a->kernel,
        a->name == ALGO_EHVI ? (size_t)a->ehvi_trust : 0,
        a->name == ALGO_EHVI ? a->ehvi_front_ref : 0.0,
        a->name == ALGO_EHVI ? a->ehvi_gp_blend : 0,
        a->name == ALGO_EHVI ? a->ehvi_trust_shape : 0};
    run->mo_able = a->name != ALGO_GREEDY;
    run->force_mo = a->name == ALGO_EHVI;
    run->norm_algo = tr->norm_algo;
    run->repeats = tr->repeats;
    run->init = tr->init;
    run->seed = tr->seed;
    run->budget = tr->budget;
    run->metrics = tr->metrics;
}

_Static_assert(BENCH_SIM_MAX_OBJECTIVES == MODEL_MAX_OBJECTIVES &&
                   BENCH_SIM_MAX_CONSTRAINTS == MODEL_MAX_CONSTRAINTS,
               "a simulation takes the objectives a study takes");

/* A synchronous simulate waits this long for its job, then answers 503
 * (the job stays queued; GET /v1/simulations/{id} shows it). */
#define SIM_WAIT_MS (10L * 60 * 1000)

/* Whether the Prefer header (RFC 7240) asks for respond-async. */
static int
prefers_async(struct req *rq)
{
    const char *p = rq->header ? rq->header(rq, "Prefer") : NULL;
    static const char tok[] = "respond-async";
    for (; p && *p; p++) {
        if (strncasecmp(p, tok, sizeof tok - 1) == 0 &&
            (p[sizeof tok - 1] == '\0' || p[sizeof tok - 1] == ',' ||
             p[sizeof tok - 1] == ';' ||
             isspace((unsigned char)p[sizeof tok - 1])))
            return 1;
        p = strchr(p, ',');
        if (!p)
            break;
        while (p[1] == ' ' || p[1] == '\t')
            p++;
    }
    return 0;
}

/*
 * sim_validate - everything a simulate request can be told before it
 * runs: *repeats gets its runs. The same parse runs again in the job
 * (simulation_job_run).
 */
static enum hpod_status
sim_validate(struct req *rq, const struct bench_ref *ref, long long *repeats)
{
    struct sim_table_req tr = {0};
    struct sim_curves_req cr;
    struct bench_sim_table run;
    struct bench_sim_result res = {0};
    enum hpod_status st;

    if (ref->curves) {
        st = bench_sim_curves_parse(rq->body, rq->name, ref->curves, &cr,
                                    &rq->err);
        *repeats = cr.repeats;
        json_decref(cr.norm);
        return st;
    }
    if ((st = sim_table_parse(rq, ref->table, &tr)) != HPOD_OK)
        return st;
    sim_table_run(&tr, &run);
    run.validate_only = 1;
    st = bench_simulate_table(rq->body, rq->name, ref->table, &run, &res,
                              &rq->err);
    *repeats = tr.repeats;
    bench_sim_result_free(&res);
    json_decref(tr.norm_algo);
    return st;
}

/* See benchmarks.h. */
enum hpod_status
simulation_job_run(void *arg, const struct bench_job *job,
                   struct bench_sim_result *res, struct hpod_err *err)
{
    struct req rq;
    struct sim_table_req tr = {0};
    struct bench_sim_table run;
    enum hpod_status st;

    (void)arg;
    memset(res, 0, sizeof *res);
    if (job->ref->curves)
        return bench_simulate_curves(job->request, job->benchmark,
                                     job->ref->curves, res, err);
    memset(&rq, 0, sizeof rq);
    rq.body = job->request;
    if ((st = sim_table_parse(&rq, job->ref->table, &tr)) == HPOD_OK) {
        sim_table_run(&tr, &run);
        run.progress = job->progress;
        run.progress_arg = job->progress_arg;
        run.cancel = job->cancel;
        st = bench_simulate_table(job->request, job->benchmark, job->ref->table,
                                  &run, res, &rq.err);
    }
    *err = rq.err;
    json_decref(tr.norm_algo);
    return st;
}

static json_t *sim_json(const struct sim_row *r);

/*
 * sim_wait_reply - the synchronous simulate: waits for job id without a
 * pooled connection, then answers 201 with the stored result (as GET
 * /v1/simulations/{id}), the job's error, or 503 when it is not done in
 * SIM_WAIT_MS.
 */
static enum hpod_status
sim_wait_reply(struct req *rq, long long id)
{
    struct sim_row row = {0};
    char state[12] = "";
    enum hpod_status st;

    db_pool_release(rq->ctx->pool, rq->db);
    rq->db = NULL;
    st = bench_jobs_wait(rq->ctx->jobs, id, SIM_WAIT_MS, state, &rq->err);
    if (st != HPOD_OK)
        return st;
    if (strcmp(state, "done") && strcmp(state, "failed"))
        return hpod_fail(&rq->err, HPOD_EDB, "",
                         "simulation %lld is still %s after %ld s: GET "
                         "/v1/simulations/%lld",
                         id, state[0] ? state : "missing", SIM_WAIT_MS / 1000,
                         id);
    if ((st = db_pool_acquire(rq->ctx->pool, &rq->db, &rq->err)) != HPOD_OK ||
        (st = sim_store_get(rq->db, id, &row, &rq->err)) != HPOD_OK)
        return st;
    if (strcmp(row.state, "failed") == 0)
        st = hpod_fail(&rq->err, HPOD_EUNPROC,
                       row.error_field ? row.error_field : "", "%s",
                       row.error ? row.error : "the simulation failed");
    else
        st = reply_json(rq, 201, sim_json(&row));
    sim_row_cleanup(&row);
    return st;
}

enum hpod_status
handle_benchmark_simulate(struct req *rq)
{
    struct bench_ref ref;
    struct sim_row row = {0};
    long long repeats = 0, id = 0;
    char *request = NULL;
    enum hpod_status st;

    /* A table that does not exist is a 404 before anything else. */
    if ((st = resolve(rq, rq->name, &ref)) != HPOD_OK)
        return st;
    /* Every check before the job row is written: bad input writes
     * nothing. */
    if ((st = sim_validate(rq, &ref, &repeats)) != HPOD_OK)
        goto out;
    request = hj_dump(rq->body, 0);
    if ((st = sim_store_enqueue(rq->db, rq->name,
                                rq->who.lab[0] ? rq->who.lab : NULL, request,
                                repeats, &id, &rq->err)) != HPOD_OK)
        goto out;
    if (!prefers_async(rq)) {
        bench_jobs_notify(rq->ctx->jobs);
        st = sim_wait_reply(rq, id);
        goto out;
    }
    /* The row as enqueued (queued), read before a worker is woken: with
     * fast statements a worker claimed it before this read (a 202 that
     * said running). A failed read leaves the job to the workers' poll. */
    st = sim_store_get(rq->db, id, &row, &rq->err);
    bench_jobs_notify(rq->ctx->jobs);
    if (st != HPOD_OK)
        goto out;
    snprintf(rq->location, sizeof rq->location, "/v1/simulations/%lld", id);
    st = reply_json(rq, 202, sim_json(&row));
out:
    sim_row_cleanup(&row);
    free(request);
    bench_ref_cleanup(&ref);
    return st;
}

static json_t *
sim_json(const struct sim_row *r)
{
    json_t *o = r->summary ? hj_parse(r->summary) : NULL;
    if (!o)
        o = json_object();
    json_object_set_new(o, "id", json_integer(r->id));
    json_object_set_new(o, "benchmark", json_string(r->benchmark));
    if (r->summary)
        json_object_set_new(o, "seconds", json_real(r->seconds));
    json_object_set_new(o, "created_at", json_string(r->created_at));
    json_object_set_new(o, "state", json_string(r->state));
    json_object_set_new(o, "progress",
                        json_pack("{s:I, s:I}", "done",
                                  (json_int_t)r->runs_done, "total",
                                  (json_int_t)r->runs_total));
    if (r->error)
        json_object_set_new(o, "error",
                            json_pack("{s:s, s:s}", "message", r->error,
                                      "field",
                                      r->error_field ? r->error_field : ""));
    if (r->sequences) {
        json_t *s = hj_parse(r->sequences);
        json_object_set_new(o, "sequences", s ? s : json_array());
    }
    return o;
}

enum hpod_status
handle_simulation_list(struct req *rq)
{
    struct sim_row *rows = NULL;
    size_t n = 0;
    long long limit, offset, total = 0;
    enum hpod_status st;

    if ((st = query_int(rq->query(rq, "limit"), "limit", 1, 1000, 50, &limit,
                        &rq->err)) != HPOD_OK ||
        (st = query_int(rq->query(rq, "offset"), "offset", 0, 1LL << 40, 0,
                        &offset, &rq->err)) != HPOD_OK)
        return st;
    if ((st = sim_store_list(rq->db, rq->query(rq, "benchmark"),
                             rq->who.lab[0] ? rq->who.lab : NULL, limit, offset,
                             &rows, &n, &total, &rq->err)) != HPOD_OK)
        return st;
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        /* Like the sequences, a learning-curve simulation's per-run
         * results stay out of the list (GET /v1/simulations/{id}). */
        json_t *o = sim_json(&rows[i]);
        json_object_del(o, "runs");
        json_array_append_new(arr, o);
        sim_row_cleanup(&rows[i]);
    }
    free(rows);
    return reply_json(rq, 200,
                      json_pack("{s:o, s:I}", "simulations", arr, "total",
                                (json_int_t)total));
}

enum hpod_status
handle_simulation_get(struct req *rq)
{
    struct sim_row row = {0};
    const char *format = rq->query(rq, "format");
    enum hpod_status st;

    if (format && strcmp(format, "json") && strcmp(format, "ss"))
        return hpod_fail(&rq->err, HPOD_EINVAL, "format",
                         "format must be json or ss");
    if ((st = sim_store_get(rq->db, rq->id, &row, &rq->err)) != HPOD_OK)
        return st;
    if (format && strcmp(format, "ss") == 0 && !row.sequences) {
        st = hpod_fail(&rq->err, HPOD_ECONFLICT, "format",
                       "simulation %lld is %s: it has no sequences yet", row.id,
                       row.state);
    } else if (format && strcmp(format, "ss") == 0) {
        /* The public .ss format: one run per line, ids space-separated. */
        json_t *seqs = hj_parse(row.sequences);
        size_t cap = 1024, len = 0;
        char *out = xmalloc(cap);
        out[0] = '\0';
        for (size_t r = 0; r < json_array_size(seqs); r++) {
            json_t *s = json_array_get(seqs, r);
            for (size_t i = 0; i < json_array_size(s); i++) {
                if (len + 32 > cap) {
                    cap *= 2;
                    out = xrealloc(out, cap);
                }
                len += (size_t)snprintf(
                    out + len, cap - len, "%s%lld", i ? " " : "",
                    (long long)json_integer_value(json_array_get(s, i)));
            }
            if (len + 2 > cap) {
                cap *= 2;
                out = xrealloc(out, cap);
            }
            out[len++] = '\n';
            out[len] = '\0';
        }
        json_decref(seqs);
        rq->status = 200;
        rq->reply_text = out;
        rq->content_type = "text/plain; charset=utf-8";
    } else {
        st = reply_json(rq, 200, sim_json(&row));
    }
    sim_row_cleanup(&row);
    return st;
}
