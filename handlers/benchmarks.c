/*
 * handlers/benchmarks.c - the HTTP mapping of /v1/benchmarks (lookup
 * tables and learning curves), /evaluate for fake trainers, /simulate and
 * /v1/simulations: parse the request, call bench/, render JSON, store
 * simulations (store/bench_store).
 *
 * What a name refers to is bench/catalog; import validation bench/import;
 * row matching bench/evaluate; a simulate request is parsed by
 * bench/simreq (with study/simalgo for its algorithm) and run as a job by
 * bench/jobs. Benchmark-backed studies are expanded by bench/expand,
 * called from handlers/studies.c.
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
#include "bench/simreq.h"
#include "bench/tables.h"
#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "handlers/handlers.h"
#include "store/bench_store.h"
#include "study/simalgo.h"

/* The benchmark rq names (rq->err on failure; 404 if none). */
static enum hpod_status
resolve(struct req *rq, const char *name, struct bench_ref *ref)
{
    return catalog_resolve(rq->ctx->bench, rq->db, name, ref, &rq->err);
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
            qsort(v, c->n, sizeof *v, catalog_cmp_double);
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
            json_t *p = catalog_ref_param_json(ref, k);
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
        catalog_ref_clear(&ref);
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
                           catalog_ref_row_params(ref, i), "values", vals));
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
    catalog_ref_clear(&ref);
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

    if ((st = import_validate(rq->body, &name, &def, &rq->err)) != HPOD_OK)
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
    st = catalog_import(rq->db, name, def_text, rows_text,
                        json_array_size(json_object_get(rq->body, "rows")),
                        rq->who.token_id, &rq->err);
    if (st == HPOD_OK && (st = resolve(rq, name, &ref)) == HPOD_OK) {
        st = reply_json(rq, 201, detail_json(name, &ref));
        catalog_ref_clear(&ref);
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
        } else if ((st = evaluate_match_curve(ref.curves, params, &row,
                                              &rq->err)) == HPOD_OK) {
            json_int_t s = json_integer_value(step);
            if (tables_curve_ppl(&ref.curves->curves[row], (size_t)s + 1,
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
    } else if ((st = evaluate_match_row(&ref, params, &row, &rq->err)) ==
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
    catalog_ref_clear(&ref);
    return st;
}

/* ---- POST /v1/benchmarks/{name}/simulate and /v1/simulations ---- */

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

static json_t *sim_json(const struct sim_row *r);

/* 202 with job id as it is now and its Location. */
static enum hpod_status
sim_accepted(struct req *rq, long long id)
{
    struct sim_row row = {0};
    enum hpod_status st = sim_store_get(rq->db, id, &row, &rq->err);
    if (st == HPOD_OK) {
        snprintf(rq->location, sizeof rq->location, "/v1/simulations/%lld", id);
        st = reply_json(rq, 202, sim_json(&row));
    }
    sim_row_clear(&row);
    return st;
}

/*
 * sim_wait_reply - the synchronous simulate: waits for job id without a
 * pooled connection up to HPOD_SIM_SYNC_WAIT_MS, then answers 201 with
 * the stored result (as GET /v1/simulations/{id}), the job's error (422),
 * 409 if it was cancelled meanwhile, or 202 as the asynchronous form
 * would when it is not done yet.
 */
static enum hpod_status
sim_wait_reply(struct req *rq, long long id)
{
    struct sim_row row = {0};
    char state[12] = "";
    enum hpod_status st;

    db_pool_release(rq->ctx->pool, rq->db);
    rq->db = NULL;
    st = jobs_wait(rq->ctx->jobs, id, jobs_sync_wait_ms(rq->ctx->jobs), state,
                   &rq->err);
    if (st != HPOD_OK ||
        (st = db_pool_acquire(rq->ctx->pool, &rq->db, &rq->err)) != HPOD_OK)
        return st;
    if (strcmp(state, "done") && strcmp(state, "failed") &&
        strcmp(state, "cancelled"))
        return sim_accepted(rq, id);
    if ((st = sim_store_get(rq->db, id, &row, &rq->err)) != HPOD_OK)
        return st;
    if (strcmp(row.state, "failed") == 0)
        st = hpod_fail(&rq->err, HPOD_EUNPROC,
                       row.error_field ? row.error_field : "", "%s",
                       row.error ? row.error : "the simulation failed");
    else if (strcmp(row.state, "cancelled") == 0)
        st = hpod_fail(&rq->err, HPOD_ECONFLICT, "",
                       "simulation %lld was cancelled", id);
    else
        st = reply_json(rq, 201, sim_json(&row));
    sim_row_clear(&row);
    return st;
}

enum hpod_status
handle_benchmark_simulate(struct req *rq)
{
    struct bench_ref ref;
    struct simreq sim = {0};
    long long id = 0;
    char *request = NULL;
    enum hpod_status st;

    /* A table that does not exist is a 404 before anything else. */
    if ((st = resolve(rq, rq->name, &ref)) != HPOD_OK)
        return st;
    /* Every check before the job row is written: bad input writes
     * nothing. The worker parses the stored body the same way. */
    if ((st = simreq_parse(rq->body, rq->name, &ref, simalgo_parse, &sim,
                           &rq->err)) != HPOD_OK)
        goto out;
    request = hj_dump(rq->body, 0);
    if ((st = jobs_enqueue(rq->ctx->jobs, rq->db, rq->name,
                           rq->who.lab[0] ? rq->who.lab : NULL, request,
                           sim.repeats, rq->who.token_id, &id, &rq->err)) !=
        HPOD_OK)
        goto out;
    if (!prefers_async(rq)) {
        jobs_notify(rq->ctx->jobs);
        st = sim_wait_reply(rq, id);
        goto out;
    }
    /* The row as enqueued (queued), read before a worker is woken: with
     * fast statements a worker claimed it before this read (a 202 that
     * said running). A failed read leaves the job to the workers' poll. */
    st = sim_accepted(rq, id);
    jobs_notify(rq->ctx->jobs);
out:
    simreq_clear(&sim);
    free(request);
    catalog_ref_clear(&ref);
    return st;
}

/* DELETE /v1/simulations/{id}: a queued or running job cancelled (the
 * same answer again); one that ended is a 409. */
enum hpod_status
handle_simulation_cancel(struct req *rq)
{
    struct sim_row row = {0};
    int changed = 0;
    enum hpod_status st;

    if ((st = jobs_cancel(rq->ctx->jobs, rq->db, rq->id, rq->who.token_id,
                          &changed, &rq->err)) != HPOD_OK ||
        (st = sim_store_get(rq->db, rq->id, &row, &rq->err)) != HPOD_OK)
        return st;
    if (strcmp(row.state, "cancelled") == 0)
        st = reply_json(rq, 200, sim_json(&row));
    else
        st = hpod_fail(&rq->err, HPOD_ECONFLICT, "",
                       "simulation %lld is %s: only a queued or running one "
                       "can be cancelled",
                       rq->id, row.state);
    sim_row_clear(&row);
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
        sim_row_clear(&rows[i]);
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
    sim_row_clear(&row);
    return st;
}
