/*
 * handlers/benchmarks.c - /v1/benchmarks (lookup tables and learning
 * curves), /evaluate for fake trainers, /simulate, /v1/simulations, and
 * the expansion of benchmark-backed studies.
 *
 * Tables come from two places: files loaded at start-up (HPOD_BENCHMARKS,
 * bench/tables) and tables users import, which live in PostgreSQL
 * (store/bench_store) so that every hpod process serves them. Imported
 * tables never change after creation, so each process keeps a parsed copy
 * by name. Simulations run in-process through core/simulate on both cores
 * (bench/simrun) and are stored; on learning curves they replay
 * successive halving (core/sh) or ASHA (core/asha_sim) instead.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/mem.h"
#include "common/name.h"
#include "core/asha_sim.h"
#include "core/metrics.h"
#include "core/mobo.h"
#include "core/pareto.h"
#include "core/rng.h"
#include "core/sh.h"
#include "core/simulate.h"
#include "bench/import.h"
#include "bench/lcrun.h"
#include "bench/tables.h"
#include "handlers/benchmarks.h"
#include "handlers/handlers.h"
#include "study/def.h"
#include "bench/simrun.h"
#include "store/bench_store.h"
#include "common/err.h"

#define SIM_MAX_REPEATS 1000
#define SIM_THREADS 2
#define IMPORTED_CACHE 32

/* A resolved benchmark: exactly one of table and curves is set. */
struct bench_ref {
    const struct bench_table *table;
    const struct bench_lc_set *curves;
    json_t *choices; /* imported: array per param of choices or null */
    json_t *types;   /* imported: array per param of type names */
    int imported;
};

/* ---- imported tables: parsed once per process ---- */

struct imported {
    char name[160];
    struct bench_table table;
    json_t *choices, *types;
};

static pthread_mutex_t imp_mu = PTHREAD_MUTEX_INITIALIZER;
static struct imported *imp_cache[IMPORTED_CACHE];
static size_t imp_next;

void
benchmark_cache_clear(void)
{
    pthread_mutex_lock(&imp_mu);
    for (size_t i = 0; i < IMPORTED_CACHE; i++) {
        if (!imp_cache[i])
            continue;
        bench_table_free(&imp_cache[i]->table);
        json_decref(imp_cache[i]->choices);
        json_decref(imp_cache[i]->types);
        free(imp_cache[i]);
        imp_cache[i] = NULL;
    }
    pthread_mutex_unlock(&imp_mu);
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Pareto flags for max bleu / min gpu_time, when both metrics exist. */
static void
table_pareto(struct bench_table *t)
{
    const double *b = bench_table_metric(t, "bleu");
    const double *g = bench_table_metric(t, "gpu_time");
    t->pareto = xcalloc(t->n ? t->n : 1, 1);
    if (!b || !g)
        return;
    double *y = xmalloc(2 * t->n * sizeof *y);
    size_t *idx = xmalloc(t->n * sizeof *idx);
    int sense[2] = {1, -1};
    for (size_t i = 0; i < t->n; i++) {
        y[2 * i] = b[i];
        y[2 * i + 1] = g[i];
    }
    size_t k = pareto_front(y, t->n, 2, sense, idx);
    for (size_t j = 0; j < k; j++)
        t->pareto[idx[j]] = 1;
    free(y);
    free(idx);
}

/* Builds a bench_table from a stored definition and rows (validated). */
static struct imported *
build_imported(const char *name, json_t *def, json_t *rows)
{
    struct imported *im = xcalloc(1, sizeof *im);
    struct bench_table *t = &im->table;
    json_t *params = json_object_get(def, "params");
    json_t *metrics = json_object_get(def, "metrics");
    size_t np = json_array_size(params), nm = json_array_size(metrics);
    size_t n = json_array_size(rows);

    snprintf(im->name, sizeof im->name, "%s", name);
    snprintf(t->name, sizeof t->name, "%s", name);
    im->choices = json_array();
    im->types = json_array();
    t->n = n;
    t->n_params = np;
    t->n_metrics = nm;
    t->param_names = xcalloc(np, sizeof *t->param_names);
    t->metric_names = xcalloc(nm ? nm : 1, sizeof *t->metric_names);
    t->raw = xmalloc((n ? n : 1) * np * sizeof *t->raw);
    t->metrics = xmalloc((n ? n : 1) * (nm ? nm : 1) * sizeof *t->metrics);
    space_init(&t->space);
    for (size_t k = 0; k < np; k++) {
        json_t *p = json_array_get(params, k);
        const char *pn = json_string_value(json_object_get(p, "name"));
        const char *ty = json_string_value(json_object_get(p, "type"));
        json_t *ch = json_object_get(p, "choices");
        t->param_names[k] = xstrdup(pn);
        json_array_append_new(im->types, json_string(ty));
        json_array_append(im->choices, ch ? ch : json_null());
        for (size_t i = 0; i < n; i++)
            t->raw[i * np + k] = bench_raw_value(
                json_object_get(json_array_get(rows, i), pn), ch);
        if (ch) {
            space_add_categorical(&t->space, json_array_size(ch));
            continue;
        }
        double *v = xmalloc((n ? n : 1) * sizeof *v);
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            v[m++] = t->raw[i * np + k];
        qsort(v, m, sizeof *v, cmp_double);
        size_t u = 0;
        for (size_t i = 0; i < m; i++)
            if (u == 0 || v[i] != v[u - 1])
                v[u++] = v[i];
        space_add_values(&t->space, strcmp(ty, "int") ? PARAM_FLOAT : PARAM_INT,
                         v, u, json_is_true(json_object_get(p, "log")));
        free(v);
    }
    for (size_t m = 0; m < nm; m++) {
        const char *mn = json_string_value(json_array_get(metrics, m));
        t->metric_names[m] = xstrdup(mn);
        for (size_t i = 0; i < n; i++)
            t->metrics[m * n + i] =
                json_number_value(json_object_get(json_array_get(rows, i), mn));
    }
    table_pareto(t);
    return im;
}

/* Resolves name to a table or a curve set; HPOD_ENOTFOUND if none. */
static enum hpod_status
resolve(struct req *rq, const char *name, struct bench_ref *ref)
{
    const struct bench_db *db = rq->ctx->bench;
    char *def_text = NULL, *rows_text = NULL;
    enum hpod_status st;

    memset(ref, 0, sizeof *ref);
    if ((ref->table = bench_db_table(db, name)) != NULL)
        return HPOD_OK;
    if ((ref->curves = bench_lc_find(db->lc, db->n_lc, name)) != NULL)
        return HPOD_OK;
    pthread_mutex_lock(&imp_mu);
    for (size_t i = 0; i < IMPORTED_CACHE; i++)
        if (imp_cache[i] && strcmp(imp_cache[i]->name, name) == 0) {
            ref->table = &imp_cache[i]->table;
            ref->choices = imp_cache[i]->choices;
            ref->types = imp_cache[i]->types;
            ref->imported = 1;
        }
    pthread_mutex_unlock(&imp_mu);
    if (ref->table)
        return HPOD_OK;
    if ((st = bench_store_get(rq->db, name, &def_text, &rows_text, &rq->err)) !=
        HPOD_OK)
        return st;
    json_t *def = hj_parse(def_text), *rows = hj_parse(rows_text);
    free(def_text);
    free(rows_text);
    if (!def || !rows) {
        json_decref(def);
        json_decref(rows);
        return hpod_fail(&rq->err, HPOD_EINTERNAL, "",
                         "stored benchmark \"%s\" is not valid JSON", name);
    }
    struct imported *im = build_imported(name, def, rows);
    json_decref(def);
    json_decref(rows);
    /* Entries are never evicted while a request may use them: the cache
     * only grows to IMPORTED_CACHE, then further tables are parsed per
     * request and owned by it (see ref_cleanup). */
    pthread_mutex_lock(&imp_mu);
    if (imp_next < IMPORTED_CACHE) {
        imp_cache[imp_next++] = im;
        im = NULL;
    }
    pthread_mutex_unlock(&imp_mu);
    if (im) {
        ref->table = xmalloc(sizeof *ref->table);
        memcpy((struct bench_table *)ref->table, &im->table, sizeof im->table);
        ref->choices = im->choices;
        ref->types = im->types;
        ref->imported = 2; /* owned by ref */
        free(im);
        return HPOD_OK;
    }
    return resolve(rq, name, ref);
}

static void
ref_cleanup(struct bench_ref *ref)
{
    if (ref->imported == 2) {
        bench_table_free((struct bench_table *)ref->table);
        free((struct bench_table *)ref->table);
        json_decref(ref->choices);
        json_decref(ref->types);
    }
    memset(ref, 0, sizeof *ref);
}

/* ---- JSON views of tables ---- */

static int
param_is_int(const struct bench_ref *ref, size_t k)
{
    const struct param *p = &ref->table->space.params[k];
    if (ref->types)
        return strcmp(json_string_value(json_array_get(ref->types, k)),
                      "int") == 0;
    for (size_t i = 0; i < p->n_values; i++)
        if (p->values[i] != floor(p->values[i]) || fabs(p->values[i]) > 1e15)
            return 0;
    return 1;
}

static json_t *
choices_of(const struct bench_ref *ref, size_t k)
{
    json_t *c = ref->choices ? json_array_get(ref->choices, k) : NULL;
    return json_is_array(c) ? c : NULL;
}

static json_t *
value_json(const struct bench_ref *ref, size_t k, double v)
{
    json_t *ch = choices_of(ref, k);
    if (ch)
        return json_incref(json_array_get(ch, (size_t)v));
    if (param_is_int(ref, k))
        return json_integer((json_int_t)llround(v));
    return json_real(v);
}

/* The study parameter of column k: a value list or a categorical. */
static json_t *
param_json(const struct bench_ref *ref, size_t k)
{
    const struct param *p = &ref->table->space.params[k];
    const char *name = ref->table->param_names[k];
    json_t *ch = choices_of(ref, k);
    if (ch)
        return json_pack("{s:s, s:s, s:O}", "name", name, "type", "categorical",
                         "choices", ch);
    json_t *vals = json_array();
    for (size_t i = 0; i < p->n_values; i++)
        json_array_append_new(vals, value_json(ref, k, p->values[i]));
    return json_pack("{s:s, s:s, s:o, s:b}", "name", name, "type",
                     param_is_int(ref, k) ? "int" : "float", "values", vals,
                     "log", p->log);
}

static json_t *
row_params(const struct bench_ref *ref, size_t i)
{
    const struct bench_table *t = ref->table;
    json_t *o = json_object();
    for (size_t k = 0; k < t->n_params; k++)
        json_object_set_new(o, t->param_names[k],
                            value_json(ref, k, t->raw[i * t->n_params + k]));
    return o;
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

static int
cmp_json_num(const void *a, const void *b)
{
    return cmp_double(a, b);
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
            qsort(v, c->n, sizeof *v, cmp_json_num);
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
            json_t *p = param_json(ref, k);
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
        if ((st = resolve(rq, names[i], &ref)) == HPOD_OK)
            items[k++] = summary_json(names[i], &ref);
        ref_cleanup(&ref);
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

enum hpod_status
handle_benchmark_get(struct req *rq)
{
    struct bench_ref ref;
    enum hpod_status st = resolve(rq, rq->name, &ref);
    if (st == HPOD_OK)
        st = reply_json(rq, 200, detail_json(rq->name, &ref));
    ref_cleanup(&ref);
    return st;
}

/* ---- POST /v1/benchmarks ---- */

static int
same_row(const double *x, const double *y, size_t w)
{
    return memcmp(x, y, w * sizeof *x) == 0;
}

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
    def_text = hj_dump(def, 0);
    rows_text = hj_dump(json_object_get(rq->body, "rows"), 0);
    st = bench_store_insert(rq->db, name, def_text, rows_text, &rq->err);
    if (st == HPOD_OK && (st = resolve(rq, name, &ref)) == HPOD_OK) {
        st = reply_json(rq, 201, detail_json(name, &ref));
        ref_cleanup(&ref);
    }
    free(def_text);
    free(rows_text);
    json_decref(def);
    return st;
}

/* ---- POST /v1/benchmarks/{name}/evaluate ---- */

/* Raw configuration of params against the table's columns, or 422. */
static enum hpod_status
match_row(struct req *rq, const struct bench_ref *ref, json_t *params,
          size_t *row)
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
            st = hpod_fail(&rq->err, HPOD_EUNPROC, f,
                           "the table has no parameter \"%.64s\"", key);
            goto out;
        }
    }
    for (size_t k = 0; k < np; k++) {
        snprintf(f, sizeof f, "params.%s", t->param_names[k]);
        v = json_object_get(params, t->param_names[k]);
        json_t *ch = choices_of(ref, k);
        if (!v || (ch ? !json_is_string(v) : !json_is_number(v))) {
            st = hpod_fail(&rq->err, HPOD_EUNPROC, f,
                           "%s is missing or has the wrong type", f);
            goto out;
        }
        raw[k] = bench_raw_value(v, ch);
    }
    for (size_t i = 0; i < t->n; i++)
        if (same_row(t->raw + i * np, raw, np)) {
            *row = i;
            goto out;
        }
    st = hpod_fail(&rq->err, HPOD_EUNPROC, "params",
                   "no row of %s has these parameters", t->name);
out:
    free(raw);
    return st;
}

static enum hpod_status
match_curve(struct req *rq, const struct bench_lc_set *c, json_t *params,
            size_t *row)
{
    double *h = xmalloc((c->n_hyper ? c->n_hyper : 1) * sizeof *h);
    enum hpod_status st = HPOD_OK;
    char f[160];
    for (size_t k = 0; k < c->n_hyper; k++) {
        json_t *v = json_object_get(params, c->hyper_names[k]);
        snprintf(f, sizeof f, "params.%s", c->hyper_names[k]);
        if (!json_is_number(v)) {
            st = hpod_fail(&rq->err, HPOD_EUNPROC, f,
                           "%s is missing or not a number", f);
            goto out;
        }
        h[k] = json_number_value(v);
    }
    if (json_object_size(params) != c->n_hyper) {
        st = hpod_fail(&rq->err, HPOD_EUNPROC, "params",
                       "params must give exactly the %zu hyperparameters of "
                       "%s",
                       c->n_hyper, c->name);
        goto out;
    }
    for (size_t i = 0; i < c->n; i++)
        if (same_row(c->curves[i].hyper, h, c->n_hyper)) {
            *row = i;
            goto out;
        }
    st = hpod_fail(&rq->err, HPOD_EUNPROC, "params",
                   "no configuration of %s has these hyperparameters", c->name);
out:
    free(h);
    return st;
}

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
        } else if ((st = match_curve(rq, ref.curves, params, &row)) ==
                   HPOD_OK) {
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
    } else if ((st = match_row(rq, &ref, params, &row)) == HPOD_OK) {
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
    ref_cleanup(&ref);
    return st;
}

/* ---- POST /v1/benchmarks/{name}/simulate and /v1/simulations ---- */

static json_t *
stat_json(const struct simulate_stat *s)
{
    if (!isfinite(s->mean))
        return json_pack("{s:n, s:n, s:I}", "mean", "std", "missed",
                         (json_int_t)s->missed);
    return json_pack("{s:f, s:f, s:I}", "mean", s->mean, "std",
                     isfinite(s->std) ? s->std : 0.0, "missed",
                     (json_int_t)s->missed);
}

/* The stat of metric id in sum. */
static const struct simulate_stat *
sum_stat(const struct simulate_summary *sum, enum metric_id id)
{
    switch (id) {
    case METRIC_FTB:
        return &sum->ftb;
    case METRIC_FTC:
        return &sum->ftc;
    case METRIC_FB:
        return &sum->fb;
    case METRIC_FTO:
        return &sum->fto;
    case METRIC_FTA:
        return &sum->fta;
    default:
        return &sum->fbp;
    }
}

/*
 * The metrics spec measures, as the answer's "metrics" object (*metrics)
 * and "computed_metrics" list (*names), in enum metric_id order.
 */
static void
metrics_json(const struct metric_spec *spec, const struct simulate_summary *sum,
             json_t **metrics, json_t **names)
{
    *metrics = json_object();
    *names = json_array();
    for (int m = 0; m < METRIC_COUNT; m++) {
        if (!metric_spec_measures(spec, (enum metric_id)m))
            continue;
        json_object_set_new(*metrics, metric_name((enum metric_id)m),
                            stat_json(sum_stat(sum, (enum metric_id)m)));
        json_array_append_new(*names,
                              json_string(metric_name((enum metric_id)m)));
    }
}

/*
 * Checks the request's "metrics" (asked, from sim_table_parse) against what
 * this kind of run can compute (allowed): the first name outside it is a
 * 422 on metrics[i], why saying what does apply.
 */
static enum hpod_status
metrics_check(struct req *rq, unsigned asked, unsigned allowed, const char *why)
{
    json_t *ms = json_object_get(rq->body, "metrics");
    char f[32];
    if ((asked & ~allowed) == 0)
        return HPOD_OK;
    for (size_t i = 0; i < json_array_size(ms); i++) {
        const char *nm = json_string_value(json_array_get(ms, i));
        enum metric_id id = metric_from_name(nm);
        unsigned bit = id != METRIC_COUNT ? METRIC_BIT(id) : SIM_METRIC_GAP;
        if (bit & allowed)
            continue;
        snprintf(f, sizeof f, "metrics[%zu]", i);
        return hpod_fail(&rq->err, HPOD_EUNPROC, f,
                         "metric %s does not apply to this simulation: %s", nm,
                         why);
    }
    return hpod_fail(&rq->err, HPOD_EUNPROC, "metrics",
                     "metrics do not apply to this simulation: %s", why);
}

/*
 * The ftc tolerance: "tolerance", or the paper's 0.5 BLEU (1.0 on
 * nmthpo/en-ja).
 */
static enum hpod_status
sim_tolerance(struct req *rq, const struct bench_table *t, double *tol)
{
    json_t *v = json_object_get(rq->body, "tolerance");
    *tol = strcmp(t->name, "nmthpo/en-ja") == 0 ? 1.0 : 0.5;
    if (!v || json_is_null(v))
        return HPOD_OK;
    if (!json_is_number(v))
        return hpod_fail(&rq->err, HPOD_EINVAL, "tolerance",
                         "tolerance must be a number");
    enum hpod_status st = hj_number_field(v, "tolerance", tol, &rq->err);
    if (st != HPOD_OK)
        return st;
    if (!(*tol > 0))
        return hpod_fail(&rq->err, HPOD_EUNPROC, "tolerance",
                         "tolerance must be > 0");
    return HPOD_OK;
}

static double
now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static enum hpod_status
opt_int(struct req *rq, const char *key, long long lo, long long hi,
        long long dflt, long long *out)
{
    json_t *v = json_object_get(rq->body, key);
    *out = dflt;
    if (!v || json_is_null(v))
        return HPOD_OK;
    if (!json_is_integer(v))
        return hpod_fail(&rq->err, HPOD_EINVAL, key, "%s must be an integer",
                         key);
    *out = json_integer_value(v);
    if (*out < lo || *out > hi)
        return hpod_fail(&rq->err, HPOD_EUNPROC, key,
                         "%s must be between %lld and %lld", key, lo, hi);
    return HPOD_OK;
}

/*
 * reply_simulation - stores a finished simulation and answers 201 with it:
 * summary (borrowed) plus id, created_at and the sequences (row r: the
 * first min(lens[r], cap) ids of seqs + r·stride).
 */
static enum hpod_status
reply_simulation(struct req *rq, json_t *summary, const size_t *seqs,
                 const size_t *lens, size_t stride, size_t runs, size_t cap,
                 double seconds)
{
    json_t *seqs_json = json_array();
    char *sum_text = NULL, *seq_text = NULL;
    struct sim_row row = {0};
    long long id = 0;
    enum hpod_status st;

    for (size_t r = 0; r < runs; r++) {
        json_t *sq = json_array();
        size_t len = lens[r] < cap ? lens[r] : cap;
        for (size_t i = 0; i < len; i++)
            json_array_append_new(
                sq, json_integer((json_int_t)seqs[r * stride + i]));
        json_array_append_new(seqs_json, sq);
    }
    sum_text = hj_dump(summary, 0);
    seq_text = hj_dump(seqs_json, 0);
    if ((st = sim_store_insert(rq->db, rq->name, sum_text, seq_text, seconds,
                               &id, &rq->err)) == HPOD_OK &&
        (st = sim_store_get(rq->db, id, &row, &rq->err)) == HPOD_OK) {
        json_t *out = json_deep_copy(summary);
        json_object_set_new(out, "id", json_integer(id));
        json_object_set_new(out, "created_at", json_string(row.created_at));
        json_object_set(out, "sequences", seqs_json);
        st = reply_json(rq, 201, out);
    }
    sim_row_cleanup(&row);
    free(sum_text);
    free(seq_text);
    json_decref(seqs_json);
    return st;
}

/*
 * The multi-objective / constrained simulation (core/simulate_run_mo):
 * "objectives" with 2+ entries, or "constraints", or ehvi.
 * Multi-objective runs report fto, fta, fbp against the Pareto rows of
 * the requested objectives; constrained single-objective runs report the
 * gap between the table's best feasible value and the best feasible row
 * found within "budget" evaluations (default 40), and how many runs found
 * none. The reply is stored like any simulation.
 */
static enum hpod_status
simulate_mo(struct req *rq, const struct bench_table *t,
            const struct algo_def *algo, json_t *norm_algo, long long repeats,
            long long init, long long seed, unsigned asked)
{
    json_t *objs = json_object_get(rq->body, "objectives");
    json_t *cons = json_object_get(rq->body, "constraints");
    const double *col[MODEL_MAX_OBJECTIVES], *ccol[MODEL_MAX_CONSTRAINTS];
    int sense[MODEL_MAX_OBJECTIVES], cmax[MODEL_MAX_CONSTRAINTS];
    double bound[MODEL_MAX_CONSTRAINTS], ref[MODEL_MAX_OBJECTIVES];
    unsigned char con_log[MODEL_MAX_CONSTRAINTS];
    size_t m, nc, n = t->n;
    long long budget, pbudget;
    double *y = NULL, *c = NULL, *y0 = NULL, tol = 0;
    size_t *seqs = NULL, *lens = NULL, *front = NULL;
    unsigned char *pareto = NULL;
    enum hpod_status *status = NULL, st = HPOD_OK;
    json_t *summary = NULL, *metrics = NULL, *names = NULL;
    char f[64];
    int alias = 0;

    if (algo->name == ALGO_GREEDY)
        return hpod_fail(&rq->err, HPOD_EUNPROC, "algorithm.name",
                         "greedy has no multi-objective or constrained form");
    if (!objs) {
        json_t *o1 = json_object_get(rq->body, "objective");
        if (json_is_null(o1))
            o1 = NULL; /* as in the single-objective run: the default */
        alias = o1 != NULL;
        objs = json_pack("[O]", o1 ? o1
                                   : json_pack("{s:s, s:s}", "name", "bleu",
                                               "goal", "maximize"));
        if (!o1)
            json_decref(json_array_get(objs, 0));
    } else {
        json_incref(objs);
    }
    if (!json_is_array(objs) || json_array_size(objs) == 0 ||
        json_array_size(objs) > MODEL_MAX_OBJECTIVES) {
        st = hpod_fail(&rq->err, HPOD_EINVAL, "objectives",
                       "objectives must be an array of 1 to %d objects",
                       MODEL_MAX_OBJECTIVES);
        goto out;
    }
    m = json_array_size(objs);
    for (size_t j = 0; j < m; j++) {
        json_t *o = json_array_get(objs, j);
        json_t *nm = json_object_get(o, "name"),
               *g = json_object_get(o, "goal");
        /* Errors name what the client wrote: objective or objectives[j]. */
        if (alias)
            snprintf(f, sizeof f, "objective");
        else
            snprintf(f, sizeof f, "objectives[%zu]", j);
        if (!json_is_object(o) || !json_is_string(nm) ||
            (g && !json_is_string(g))) {
            st = hpod_fail(&rq->err, HPOD_EINVAL, f,
                           "%s must be {\"name\": metric, \"goal\": ...}", f);
            goto out;
        }
        const char *gs = g ? json_string_value(g) : "maximize";
        size_t fl = strlen(f);
        if (strcmp(gs, "maximize") && strcmp(gs, "minimize")) {
            snprintf(f + fl, sizeof f - fl, ".goal");
            st = hpod_fail(&rq->err, HPOD_EUNPROC, f,
                           "goal must be maximize or minimize");
            goto out;
        }
        if (!(col[j] = bench_table_metric(t, json_string_value(nm)))) {
            snprintf(f + fl, sizeof f - fl, ".name");
            st = hpod_fail(&rq->err, HPOD_EUNPROC, f, "%s has no metric %s",
                           t->name, json_string_value(nm));
            goto out;
        }
        sense[j] = gs[1] == 'a' ? 1 : -1;
    }
    nc = json_is_array(cons) ? json_array_size(cons) : 0;
    if (cons && (!json_is_array(cons) || nc > MODEL_MAX_CONSTRAINTS)) {
        st = hpod_fail(&rq->err, HPOD_EINVAL, "constraints",
                       "constraints must be an array of at most %d",
                       MODEL_MAX_CONSTRAINTS);
        goto out;
    }
    for (size_t k = 0; k < nc; k++) {
        json_t *o = json_array_get(cons, k);
        json_t *mt = json_object_get(o, "metric");
        json_t *mx = json_object_get(o, "max"), *mn = json_object_get(o, "min");
        snprintf(f, sizeof f, "constraints[%zu]", k);
        if (!json_is_object(o) || !json_is_string(mt) ||
            !json_is_number(mx ? mx : mn) || (mx && mn)) {
            st = hpod_fail(&rq->err, HPOD_EINVAL, f,
                           "%s must be {\"metric\": m, \"max\"|\"min\": x}", f);
            goto out;
        }
        if (!(ccol[k] = bench_table_metric(t, json_string_value(mt)))) {
            st = hpod_fail(&rq->err, HPOD_EUNPROC, f, "%s has no metric %s",
                           t->name, json_string_value(mt));
            goto out;
        }
        cmax[k] = mx != NULL;
        char fb[96];
        snprintf(fb, sizeof fb, "%s.%s", f, mx ? "max" : "min");
        if ((st = hj_number_field(mx ? mx : mn, fb, &bound[k], &rq->err)) !=
            HPOD_OK)
            goto out;
    }
    if (m == 1 && nc == 0) {
        st = hpod_fail(&rq->err, HPOD_EUNPROC, "objectives",
                       "ehvi needs two or more objectives, or constraints");
        goto out;
    }
    /* Two or more objectives measure fto, fta and fbp (and ftb, ftc, fb of
     * the first objective when asked); one objective with constraints
     * measures gap. */
    unsigned allowed = nc == 0  ? METRIC_SINGLE | METRIC_PARETO
                       : m == 1 ? SIM_METRIC_GAP
                                : METRIC_PARETO;
    if (!asked)
        asked = m == 1 ? SIM_METRIC_GAP : METRIC_PARETO;
    if ((st = metrics_check(
             rq, asked, allowed,
             nc == 0  ? "gap needs constraints"
             : m == 1 ? "one objective with constraints measures gap"
                      : "several objectives with constraints measure fto, "
                        "fta and fbp")) != HPOD_OK ||
        (st = sim_tolerance(rq, t, &tol)) != HPOD_OK)
        goto out;
    int big = n > 400;
    if ((st = opt_int(rq, "budget", 1, 1000000, m == 1 ? 40 : 20, &budget)) !=
            HPOD_OK ||
        (st = opt_int(rq, "pareto_budget", 1, 1000000, big ? 200 : 50,
                      &pbudget)) != HPOD_OK)
        goto out;
    y = xmalloc(n * m * sizeof *y);
    y0 = xmalloc(n * sizeof *y0);
    c = xmalloc(n * (nc ? nc : 1) * sizeof *c);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < m; j++)
            y[i * m + j] = sense[j] * col[j][i];
        y0[i] = y[i * m];
        for (size_t k = 0; k < nc; k++)
            c[i * nc + k] = cmax[k] ? ccol[k][i] : -ccol[k][i];
    }
    int ones[MODEL_MAX_OBJECTIVES];
    for (size_t j = 0; j < m; j++)
        ones[j] = 1;
    pareto_reference(y, n, m, ones, 0.1, ref);
    double cb[MODEL_MAX_CONSTRAINTS];
    for (size_t k = 0; k < nc; k++) {
        cb[k] = cmax[k] ? bound[k] : -bound[k];
        con_log[k] = cmax[k] && bound[k] > 0;
        for (size_t i = 0; i < n && con_log[k]; i++)
            con_log[k] = ccol[k][i] > 0;
    }
    /* Pareto rows of the requested objectives (feasible ones only). */
    pareto = xcalloc(n, 1);
    front = xmalloc(n * sizeof *front);
    if (m >= 2) {
        size_t nf = pareto_front(y, n, m, ones, front);
        for (size_t q = 0; q < nf; q++)
            pareto[front[q]] = 1;
    }
    struct simulate_mo_problem mp = {&t->space,
                                     t->raw,
                                     n,
                                     m,
                                     y,
                                     ref,
                                     nc,
                                     nc ? c : NULL,
                                     nc ? cb : NULL,
                                     nc ? con_log : NULL};
    struct simulate_mo_algo ma = {algo->name == ALGO_RANDOM,
                                  algo->name == ALGO_EHVI ? algo->surrogate
                                  : algo->name == ALGO_GRAPH
                                      ? MOBO_SURROGATE_GRAPH
                                      : MOBO_SURROGATE_GP,
                                  algo->kernel};
    /* The ftb, ftc and fb of several objectives are those of the first. */
    struct metric_spec spec;
    simrun_spec_init(&spec, y0, pareto, n, (size_t)init, tol, (size_t)budget,
                     (size_t)pbudget, m >= 2 ? asked : 0);
    seqs = xmalloc((size_t)repeats * n * sizeof *seqs);
    lens = xcalloc((size_t)repeats, sizeof *lens);
    status = xcalloc((size_t)repeats, sizeof *status);
    /* Multi-objective runs stop once every metric asked is final;
     * constrained single-objective runs take exactly `budget` evaluations
     * (a spec that measures nothing: simrun_simulate). */
    struct simrun run = {.mo = &mp,
                         .mo_algo = &ma,
                         .spec = &spec,
                         .seed0 = (unsigned long long)seed,
                         .init = (size_t)init,
                         .runs = (size_t)repeats,
                         .length = m >= 2 ? 0 : (size_t)budget,
                         .seqs = seqs,
                         .lens = lens,
                         .status = status};
    simrun_simulate(&run, SIM_THREADS);
    double seconds = run.seconds;
    for (long long r = 0; r < repeats; r++)
        if (status[r] != HPOD_OK) {
            st = hpod_fail(&rq->err, HPOD_EUNPROC, "algorithm",
                           "run %lld failed on this table", r);
            goto out;
        }
    if (m >= 2) {
        metrics_json(&spec, &run.sum, &metrics, &names);
    } else {
        double best = -INFINITY, *gaps = xmalloc(repeats * sizeof *gaps);
        size_t k = 0, none = 0;
        for (size_t i = 0; i < n; i++) {
            int ok = 1;
            for (size_t q = 0; q < nc; q++)
                ok &= c[i * nc + q] <= cb[q];
            if (ok && y[i] > best)
                best = y[i];
        }
        if (best == -INFINITY) {
            free(gaps);
            st = hpod_fail(&rq->err, HPOD_EUNPROC, "constraints",
                           "no row of %s meets the constraints", t->name);
            goto out;
        }
        for (long long r = 0; r < repeats; r++) {
            double b = -INFINITY;
            size_t len = lens[r] < (size_t)budget ? lens[r] : (size_t)budget;
            for (size_t i = 0; i < len; i++) {
                size_t row = seqs[r * n + i];
                int ok = 1;
                for (size_t q = 0; q < nc; q++)
                    ok &= c[row * nc + q] <= cb[q];
                if (ok && y[row] > b)
                    b = y[row];
            }
            if (b == -INFINITY)
                none++;
            else
                gaps[k++] = fabs(best - b);
        }
        struct simulate_stat g = {NAN, NAN, 0, 0};
        if (k)
            metric_mean_std(gaps, k, &g.mean, &g.std);
        g.runs = k;
        g.missed = none;
        free(gaps);
        metrics = json_pack("{s:o}", "gap", stat_json(&g));
        names = json_pack("[s]", "gap");
    }
    json_object_set_new(norm_algo, "seed", json_integer(seed));
    summary = json_pack(
        "{s:s, s:O, s:I, s:I, s:I, s:O, s:O, s:I, s:I, "
        "s:o, s:f}",
        "benchmark", rq->name, "algorithm", norm_algo, "repeats",
        (json_int_t)repeats, "init", (json_int_t)init, "seed", (json_int_t)seed,
        "objectives", objs, "constraints", cons ? cons : json_array(), "budget",
        (json_int_t)budget, "pareto_budget", (json_int_t)pbudget, "metrics",
        metrics, "seconds", seconds);
    if (!cons)
        json_decref(json_object_get(summary, "constraints"));
    metrics = NULL;
    json_object_set_new(summary, "computed_metrics", names);
    names = NULL;
    if (spec.y)
        json_object_set_new(summary, "tolerance", json_real(tol));
    st = reply_simulation(rq, summary, seqs, lens, n, (size_t)repeats,
                          m == 1 ? (size_t)budget : n, seconds);
out:
    json_decref(objs);
    json_decref(metrics);
    json_decref(names);
    json_decref(summary);
    free(y);
    free(y0);
    free(c);
    free(seqs);
    free(lens);
    free(status);
    free(pareto);
    free(front);
    return st;
}

/* ---- simulations on learning curves: sh and asha (issue 6) ---- */

#define LC_MAX_WORKERS 64

/*
 * An optional integer field of the algorithm object a: dflt when absent,
 * 400 when not an integer, 422 outside [lo, hi]; errors name
 * "algorithm.<key>".
 */
static enum hpod_status
lc_algo_int(struct req *rq, json_t *a, const char *key, long long lo,
            long long hi, long long dflt, long long *out)
{
    json_t *v = json_object_get(a, key);
    char f[64];

    snprintf(f, sizeof f, "algorithm.%s", key);
    *out = dflt;
    if (!v || json_is_null(v))
        return HPOD_OK;
    if (!json_is_integer(v))
        return hpod_fail(&rq->err, HPOD_EINVAL, f, "%s must be an integer", f);
    *out = json_integer_value(v);
    if (*out < lo || *out > hi)
        return hpod_fail(&rq->err, HPOD_EUNPROC, f,
                         "%s must be between %lld and %lld", f, lo, hi);
    return HPOD_OK;
}

static enum hpod_status
lc_algo_parse(struct req *rq, json_t *a, struct lc_algo *out, json_t **norm)
{
    static const char *const k_sh[] = {"name", "seed",     "p",       "c",
                                       "rank", "round_up", "horizon", NULL};
    static const char *const k_asha[] = {"name", "seed", "r",    "u",
                                         "R",    "p",    "keep", NULL};
    json_t *nm = json_object_get(a, "name");
    long long p, c, r, u, R, keep, seed, horizon;
    const char *rank = "bsf";
    int round_up = 0;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    *norm = NULL;
    if (!a || json_is_null(a))
        return hpod_fail(&rq->err, HPOD_EUNPROC, "algorithm",
                         "%s holds learning curves: simulate needs "
                         "\"algorithm\" sh or asha",
                         rq->name);
    if (!json_is_object(a))
        return hpod_fail(&rq->err, HPOD_EINVAL, "algorithm",
                         "algorithm must be an object");
    if (!json_is_string(nm))
        return hpod_fail(&rq->err, HPOD_EINVAL, "algorithm.name",
                         "algorithm.name must be a string");
    out->is_asha = strcmp(json_string_value(nm), "asha") == 0;
    if (!out->is_asha && strcmp(json_string_value(nm), "sh") != 0)
        return hpod_fail(&rq->err, HPOD_EUNPROC, "algorithm.name",
                         "%s holds learning curves: simulate runs sh or asha "
                         "on it, not \"%.40s\"",
                         rq->name, json_string_value(nm));
    if ((st = hj_check_keys(a, out->is_asha ? k_asha : k_sh, "algorithm",
                            &rq->err)) != HPOD_OK ||
        (st = lc_algo_int(rq, a, "seed", 0, (1LL << 53) - 1, 0, &seed)) !=
            HPOD_OK)
        return st;
    if (!out->is_asha) {
        json_t *rk = json_object_get(a, "rank"),
               *ru = json_object_get(a, "round_up");
        /* horizon (extrapolate only, core/sh.h): the checkpoint the curves
         * are extrapolated to; 0 = the longest curve of the run. */
        if ((st = lc_algo_int(rq, a, "p", 2, 1000, 2, &p)) != HPOD_OK ||
            (st = lc_algo_int(rq, a, "c", 1, 1000000, 10, &c)) != HPOD_OK ||
            (st = lc_algo_int(rq, a, "horizon", 0, 1000000, 0, &horizon)) !=
                HPOD_OK)
            return st;
        if (rk && !json_is_null(rk)) {
            if (!json_is_string(rk))
                return hpod_fail(&rq->err, HPOD_EINVAL, "algorithm.rank",
                                 "algorithm.rank must be a string");
            rank = json_string_value(rk);
            if (strcmp(rank, "bsf") && strcmp(rank, "last") &&
                strcmp(rank, "extrapolate"))
                return hpod_fail(&rq->err, HPOD_EUNPROC, "algorithm.rank",
                                 "algorithm.rank must be bsf, last or "
                                 "extrapolate");
        }
        if (ru && !json_is_null(ru)) {
            if (!json_is_boolean(ru))
                return hpod_fail(&rq->err, HPOD_EINVAL, "algorithm.round_up",
                                 "algorithm.round_up must be a boolean");
            round_up = json_is_true(ru);
        }
        out->sh.p = (size_t)p;
        out->sh.c = (size_t)c;
        out->sh.round_up = round_up;
        out->sh.rank = rank[0] == 'b'   ? SH_RANK_BSF
                       : rank[0] == 'l' ? SH_RANK_LAST
                                        : SH_RANK_EXTRAP;
        out->sh.horizon = (size_t)horizon;
        *norm = json_pack("{s:s, s:I, s:I, s:s, s:b, s:I}", "name", "sh", "p",
                          (json_int_t)p, "c", (json_int_t)c, "rank", rank,
                          "round_up", round_up, "horizon", (json_int_t)horizon);
        return HPOD_OK;
    }
    if ((st = lc_algo_int(rq, a, "r", 1, 1000000, 1, &r)) != HPOD_OK ||
        (st = lc_algo_int(rq, a, "u", 1, 1000000, 1, &u)) != HPOD_OK ||
        (st = lc_algo_int(rq, a, "R", 1, 10000000, 0, &R)) != HPOD_OK ||
        (st = lc_algo_int(rq, a, "p", 2, 1000, 2, &p)) != HPOD_OK ||
        (st = lc_algo_int(rq, a, "keep", 0, 1000, 2, &keep)) != HPOD_OK)
        return st;
    if (R == 0)
        return hpod_fail(&rq->err, HPOD_EINVAL, "algorithm.R",
                         "algorithm.R (the full training length in "
                         "checkpoints) is required");
    if (R < r)
        return hpod_fail(&rq->err, HPOD_EUNPROC, "algorithm.R",
                         "algorithm.R must be >= r");
    out->asha.r = (size_t)r;
    out->asha.u = (size_t)u;
    out->asha.R = (size_t)R;
    out->asha.p = (size_t)p;
    out->asha.keep = (size_t)keep;
    *norm =
        json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:s}", "name", "asha", "r",
                  (json_int_t)r, "u", (json_int_t)u, "R", (json_int_t)R, "p",
                  (json_int_t)p, "keep", (json_int_t)keep, "mode", "promotion");
    return HPOD_OK;
}

/* A number, or null for NaN (the JSON has no NaN). */
static json_t *
num_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/*
 * Successive halving on the set (dissertation Table 6.1; bench/lcrun.h):
 * seeds seed .. seed+repeats-1. *metrics and *runs receive new
 * references; draws (repeats × configs) the curves each run drew, in draw
 * order.
 */
static enum hpod_status
lc_run_sh(struct req *rq, const struct lcrun_curves *lc,
          const struct sh_params *prm, size_t configs, size_t repeats,
          uint64_t seed, size_t *draws, json_t **metrics, json_t **runs)
{
    struct sh_result *per = xmalloc(repeats * sizeof *per);
    struct sh_summary sum;
    enum hpod_status st;

    *metrics = *runs = NULL;
    st = lcrun_sh(lc, 0, prm, configs, repeats, seed, per, &sum, draws,
                  &rq->err);
    if (st != HPOD_OK)
        goto out;
    *runs = json_array();
    for (size_t k = 0; k < repeats; k++)
        json_array_append_new(
            *runs, json_pack("{s:I, s:I, s:b, s:I, s:I, s:I, s:I}", "final",
                             (json_int_t)per[k].final, "best",
                             (json_int_t)per[k].best, "correct", per[k].correct,
                             "discarded_at", (json_int_t)per[k].discarded_at,
                             "stages", (json_int_t)per[k].stages, "spent",
                             (json_int_t)per[k].spent, "full",
                             (json_int_t)per[k].full));
    /* saved: checkpoints not trained against training all `configs` to
     * the end of their curves, 100·(1 - spent/full), as `hpod bench --sh`
     * reports it. */
    *metrics = json_pack(
        "{s:f, s:f, s:o, s:f, s:f, s:f, s:f, s:I, s:I, s:I, s:I}", "acc",
        sum.acc, "dif", sum.dif, "dif_failed", num_or_null(sum.dif_failed),
        "stages", sum.stages, "spent", sum.spent, "full", sum.full, "saved",
        100.0 * (1.0 - sum.spent / sum.full), "correct",
        (json_int_t)sum.correct, "first_stage", (json_int_t)sum.first_stage,
        "last_stage", (json_int_t)sum.last_stage, "complete",
        (json_int_t)sum.complete);
out:
    free(per);
    return st;
}

/*
 * ASHA replayed with `workers` simulated workers (bench/lcrun.h), run k
 * on rng_seed(seed + k) as `hpod bench --asha` does, so both agree for
 * the same seeds. draws as for lc_run_sh.
 */
static enum hpod_status
lc_run_asha(struct req *rq, const struct lcrun_curves *lc,
            const struct asha_params *prm, size_t workers, size_t configs,
            size_t repeats, uint64_t seed, size_t *draws, json_t **metrics,
            json_t **runs)
{
    struct asha_sim_result *res = xmalloc(repeats * sizeof *res);
    size_t *trained = xmalloc(repeats * configs * sizeof *trained);
    struct lcrun_asha_summary sum;
    enum hpod_status st;

    *metrics = *runs = NULL;
    st = lcrun_asha(lc, prm, workers, configs, repeats, seed, res, draws,
                    trained, &sum, &rq->err);
    if (st != HPOD_OK)
        goto out;
    *runs = json_array();
    for (size_t k = 0; k < repeats; k++) {
        json_t *tr = json_array();
        for (size_t j = 0; j < configs; j++)
            json_array_append_new(
                tr, json_integer((json_int_t)trained[k * configs + j]));
        json_array_append_new(
            *runs, json_pack("{s:I, s:I, s:I, s:I, s:b, s:I, s:o}", "steps",
                             (json_int_t)res[k].steps, "steps_full",
                             (json_int_t)res[k].steps_full, "n_full",
                             (json_int_t)res[k].n_full, "best_rank",
                             (json_int_t)res[k].best_rank, "best_full",
                             res[k].best_full, "elapsed",
                             (json_int_t)res[k].elapsed, "trained", tr));
    }
    /* Means over the runs; saved is the mean of the runs' percentages, as
     * `hpod bench --asha` reports it. */
    *metrics = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "steps",
                         sum.steps, "steps_full", sum.steps_full, "saved",
                         sum.saved, "best_kept", sum.best_full, "best_rank",
                         sum.best_rank, "kept_best", sum.kept_best, "n_full",
                         sum.n_full, "elapsed", sum.elapsed);
out:
    free(res);
    free(trained);
    return st;
}

/*
 * POST /v1/benchmarks/nmtlc/<set>/simulate: successive halving or ASHA on
 * the set's learning curves. Body: algorithm (sh or asha, required),
 * configs drawn per run (1..n, default 40), repeats (1..1000, default
 * 100), seed (default 0), workers (asha only, 1..64, default 4). Stored
 * like every simulation; its sequences are the curves (0-based rows of
 * the set, file order) each run drew, in draw order.
 */
/* See benchmarks.h. */
enum hpod_status
sim_curves_parse(struct req *rq, const struct bench_lc_set *set,
                 struct sim_curves_req *out)
{
    static const char *const keys[] = {"algorithm", "configs", "repeats",
                                       "seed",      "workers", NULL};
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    if ((st = hj_check_keys(rq->body, keys, "", &rq->err)) != HPOD_OK ||
        (st = lc_algo_parse(rq, json_object_get(rq->body, "algorithm"),
                            &out->la, &out->norm)) != HPOD_OK ||
        (st = opt_int(rq, "configs", 1, 1000000, 40, &out->configs)) !=
            HPOD_OK ||
        (st = opt_int(rq, "repeats", 1, SIM_MAX_REPEATS, 100, &out->repeats)) !=
            HPOD_OK ||
        (st = opt_int(rq, "seed", 0, (1LL << 53) - 1, 0, &out->seed)) !=
            HPOD_OK ||
        (st = opt_int(rq, "workers", 1, LC_MAX_WORKERS, 4, &out->workers)) !=
            HPOD_OK)
        goto out;
    if ((size_t)out->configs > set->n) {
        st = hpod_fail(&rq->err, HPOD_EUNPROC, "configs",
                       "configs must be between 1 and %zu, the curves of %s",
                       set->n, set->name);
        goto out;
    }
    if (!out->la.is_asha && json_object_get(rq->body, "workers")) {
        st = hpod_fail(&rq->err, HPOD_EUNPROC, "workers",
                       "workers applies to asha only");
        goto out;
    }
    /* Runs are seeded seed, seed+1, ...: an algorithm.seed plays no part,
     * so the stored algorithm shows the body's. */
    json_object_set_new(out->norm, "seed", json_integer(out->seed));
out:
    if (st != HPOD_OK) {
        json_decref(out->norm);
        out->norm = NULL;
    }
    return st;
}

static enum hpod_status
simulate_curves(struct req *rq, const struct bench_lc_set *set)
{
    struct sim_curves_req cr;
    json_t *norm = NULL, *metrics = NULL, *runs = NULL, *summary = NULL;
    long long configs, repeats, seed, workers;
    size_t *draws = NULL, *lens = NULL;
    enum hpod_status st;

    if ((st = sim_curves_parse(rq, set, &cr)) != HPOD_OK)
        return st;
    struct lc_algo la = cr.la;
    norm = cr.norm;
    configs = cr.configs;
    repeats = cr.repeats;
    seed = cr.seed;
    workers = cr.workers;
    draws = xmalloc((size_t)repeats * (size_t)configs * sizeof *draws);
    lens = xmalloc((size_t)repeats * sizeof *lens);
    for (long long k = 0; k < repeats; k++)
        lens[k] = (size_t)configs;
    struct lcrun_curves lc;
    lcrun_curves_init(&lc, set);
    double t0 = now_s();
    st = la.is_asha
             ? lc_run_asha(rq, &lc, &la.asha, (size_t)workers, (size_t)configs,
                           (size_t)repeats, (uint64_t)seed, draws, &metrics,
                           &runs)
             : lc_run_sh(rq, &lc, &la.sh, (size_t)configs, (size_t)repeats,
                         (uint64_t)seed, draws, &metrics, &runs);
    double seconds = now_s() - t0;
    lcrun_curves_free(&lc);
    if (st != HPOD_OK)
        goto out;
    summary =
        json_pack("{s:s, s:O, s:I, s:I, s:I, s:o, s:o, s:f}", "benchmark",
                  rq->name, "algorithm", norm, "configs", (json_int_t)configs,
                  "repeats", (json_int_t)repeats, "seed", (json_int_t)seed,
                  "metrics", metrics, "runs", runs, "seconds", seconds);
    metrics = runs = NULL;
    if (la.is_asha)
        json_object_set_new(summary, "workers", json_integer(workers));
    st = reply_simulation(rq, summary, draws, lens, (size_t)configs,
                          (size_t)repeats, (size_t)configs, seconds);
out:
    json_decref(norm);
    json_decref(metrics);
    json_decref(runs);
    json_decref(summary);
    free(draws);
    free(lens);
    return st;
}

/*
 * The "metrics" list of a simulate request: names from ftb, ftc, fb, fto,
 * fta, fbp and gap, each at most once. *out gets their bits.
 */
static enum hpod_status
metrics_parse(struct req *rq, json_t *ms, unsigned *out)
{
    char f[32];
    *out = 0;
    if (!json_is_array(ms))
        return hpod_fail(&rq->err, HPOD_EINVAL, "metrics",
                         "metrics must be an array of metric names");
    if (json_array_size(ms) == 0)
        return hpod_fail(&rq->err, HPOD_EUNPROC, "metrics",
                         "metrics must name at least one metric");
    for (size_t i = 0; i < json_array_size(ms); i++) {
        json_t *v = json_array_get(ms, i);
        unsigned bit;
        snprintf(f, sizeof f, "metrics[%zu]", i);
        if (!json_is_string(v))
            return hpod_fail(&rq->err, HPOD_EINVAL, f,
                             "%s must be a metric name", f);
        const char *nm = json_string_value(v);
        enum metric_id id = metric_from_name(nm);
        if (id != METRIC_COUNT)
            bit = METRIC_BIT(id);
        else if (strcmp(nm, "gap") == 0)
            bit = SIM_METRIC_GAP;
        else
            return hpod_fail(&rq->err, HPOD_EUNPROC, f,
                             "unknown metric \"%.64s\": use ftb, ftc, fb, "
                             "fto, fta, fbp or gap",
                             nm);
        if (*out & bit)
            return hpod_fail(&rq->err, HPOD_EUNPROC, f,
                             "metric %s is named twice", nm);
        *out |= bit;
    }
    return HPOD_OK;
}

/* See benchmarks.h. */
enum hpod_status
sim_table_parse(struct req *rq, struct sim_table_req *out)
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
    if ((st = algo_from_json(json_is_null(v) ? NULL : v, &algo, &norm_algo,
                             &rq->err)) != HPOD_OK)
        goto out;
    if ((st = opt_int(rq, "repeats", 1, SIM_MAX_REPEATS, 100, &repeats)) !=
            HPOD_OK ||
        (st = opt_int(rq, "init", 1, 50, 3, &init)) != HPOD_OK ||
        (st = opt_int(rq, "seed", 0, (1LL << 53) - 1, 0, &seed)) != HPOD_OK ||
        (st = opt_int(rq, "budget", 1, 1000000, 20, &budget)) != HPOD_OK)
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
        (st = metrics_parse(rq, ms, &out->metrics)) != HPOD_OK)
        goto out;
    /* Runs are seeded seed, seed+1, ...: the algorithm's own seed plays no
     * part, so the stored algorithm says so rather than show a fresh one. */
    json_object_set_new(norm_algo, "seed", json_integer(seed));
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

enum hpod_status
handle_benchmark_simulate(struct req *rq)
{
    struct sim_table_req tr;
    struct bench_ref ref;
    struct algo_def algo;
    json_t *norm_algo = NULL, *v, *summary = NULL, *objs, *cons;
    long long repeats, init, seed, budget, pbudget;
    double tol;
    const char *obj_name = "bleu", *goal = "maximize", *of;
    char f[64];
    size_t *seqs = NULL, *lens = NULL;
    enum hpod_status *status = NULL, st;
    double *y = NULL;

    /* A table that does not exist is a 404 before anything else. */
    if ((st = resolve(rq, rq->name, &ref)) != HPOD_OK)
        return st;
    if (ref.curves) {
        st = simulate_curves(rq, ref.curves);
        goto out;
    }
    if ((st = sim_table_parse(rq, &tr)) != HPOD_OK)
        goto out;
    algo = tr.algo;
    norm_algo = tr.norm_algo;
    repeats = tr.repeats;
    init = tr.init;
    seed = tr.seed;
    budget = tr.budget;
    objs = json_object_get(rq->body, "objectives");
    cons = json_object_get(rq->body, "constraints");
    const struct bench_table *t = ref.table;
    /* "objectives" with one entry is the single-objective run, as in a
     * study definition; "objective" is its older alias. More entries, a
     * constraint or ehvi make the multi-objective run. */
    int single = !objs || (json_is_array(objs) && json_array_size(objs) == 1);
    if (algo.name == ALGO_EHVI || cons || !single) {
        st = simulate_mo(rq, t, &algo, norm_algo, repeats, init, seed,
                         tr.metrics);
        goto out;
    }
    v = objs ? json_array_get(objs, 0) : json_object_get(rq->body, "objective");
    of = objs ? "objectives[0]" : "objective";
    if (v && !json_is_null(v)) {
        json_t *on = json_object_get(v, "name"),
               *og = json_object_get(v, "goal");
        if (!json_is_object(v) || !json_is_string(on) ||
            (og && !json_is_string(og))) {
            st = hpod_fail(&rq->err, HPOD_EINVAL, of,
                           "%s must be {\"name\": metric, \"goal\": "
                           "\"maximize\"|\"minimize\"}",
                           of);
            goto out;
        }
        obj_name = json_string_value(on);
        goal = og ? json_string_value(og) : "maximize";
        if (strcmp(goal, "maximize") && strcmp(goal, "minimize")) {
            snprintf(f, sizeof f, "%s.goal", of);
            st = hpod_fail(&rq->err, HPOD_EUNPROC, f,
                           "goal must be maximize or minimize");
            goto out;
        }
    }
    const double *col = bench_table_metric(t, obj_name);
    if (!col) {
        snprintf(f, sizeof f, "%s.name", of);
        st = hpod_fail(&rq->err, HPOD_EUNPROC, f, "%s has no metric \"%.64s\"",
                       t->name, obj_name);
        goto out;
    }
    if ((st = sim_tolerance(rq, t, &tol)) != HPOD_OK)
        goto out;
    int big = strcmp(t->name, "nmthpo/sw-en") == 0 ||
              strcmp(t->name, "nmthpo/so-en") == 0;
    if ((st = opt_int(rq, "pareto_budget", 1, 1000000, big ? 200 : 50,
                      &pbudget)) != HPOD_OK)
        goto out;

    /* One objective measures ftb, ftc and fb unless "metrics" says
     * otherwise; fto, fta and fbp (the table's BLEU / GPU-time front) only
     * when asked, since they need every Pareto row in each sequence. */
    int has_pareto =
        bench_table_metric(t, "bleu") && bench_table_metric(t, "gpu_time");
    unsigned asked = tr.metrics ? tr.metrics : METRIC_SINGLE;
    if ((st = metrics_check(
             rq, asked, METRIC_SINGLE | (has_pareto ? METRIC_PARETO : 0),
             has_pareto ? "gap needs constraints"
                        : "fto, fta and fbp need a table with bleu and "
                          "gpu_time, gap needs constraints")) != HPOD_OK)
        goto out;
    int sense = goal[1] == 'a' ? 1 : -1;
    y = xmalloc(t->n * sizeof *y);
    for (size_t i = 0; i < t->n; i++)
        y[i] = sense * col[i];
    struct simulate_problem p = {
        .space = &t->space, .raw = t->raw, .y = y, .n = t->n};
    struct simulate_algo sa = {.kind = (enum sampler_kind)algo.name,
                               .kernel = algo.kernel,
                               .acquisition = algo.acquisition};
    struct metric_spec spec;
    simrun_spec_init(&spec, y, has_pareto ? t->pareto : NULL, t->n,
                     (size_t)init, tol, (size_t)budget, (size_t)pbudget, asked);
    seqs = xmalloc((size_t)repeats * t->n * sizeof *seqs);
    lens = xcalloc((size_t)repeats, sizeof *lens);
    status = xcalloc((size_t)repeats, sizeof *status);
    /* The loop of `hpod bench` (server/bench_cli.c): the same request gives
     * the same sequences there and here. */
    struct simrun run = {.p = &p,
                         .algo = &sa,
                         .spec = &spec,
                         .seed0 = (unsigned long long)seed,
                         .init = (size_t)init,
                         .runs = (size_t)repeats,
                         .seqs = seqs,
                         .lens = lens,
                         .status = status};
    simrun_simulate(&run, SIM_THREADS);
    double seconds = run.seconds;
    for (long long r = 0; r < repeats; r++)
        if (status[r] != HPOD_OK) {
            st = hpod_fail(
                &rq->err, HPOD_EUNPROC, "algorithm",
                "run %lld failed: %s cannot run on this table", r,
                json_string_value(json_object_get(norm_algo, "name")));
            goto out;
        }
    json_t *metrics, *names;
    metrics_json(&spec, &run.sum, &metrics, &names);
    summary = json_pack(
        "{s:s, s:O, s:I, s:I, s:I, s:{s:s, s:s}, s:f, s:I, "
        "s:I, s:o, s:o, s:f}",
        "benchmark", rq->name, "algorithm", norm_algo, "repeats",
        (json_int_t)repeats, "init", (json_int_t)init, "seed", (json_int_t)seed,
        "objective", "name", obj_name, "goal", goal, "tolerance", tol, "budget",
        (json_int_t)budget, "pareto_budget", (json_int_t)pbudget, "metrics",
        metrics, "computed_metrics", names, "seconds", seconds);
    st = reply_simulation(rq, summary, seqs, lens, t->n, (size_t)repeats, t->n,
                          seconds);
out:
    json_decref(summary);
    json_decref(norm_algo);
    free(seqs);
    free(lens);
    free(status);
    free(y);
    ref_cleanup(&ref);
    return st;
}

static json_t *
sim_json(const struct sim_row *r)
{
    json_t *o = hj_parse(r->summary);
    if (!o)
        o = json_object();
    json_object_set_new(o, "id", json_integer(r->id));
    json_object_set_new(o, "benchmark", json_string(r->benchmark));
    json_object_set_new(o, "seconds", json_real(r->seconds));
    json_object_set_new(o, "created_at", json_string(r->created_at));
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
    if ((st = sim_store_list(rq->db, rq->query(rq, "benchmark"), limit, offset,
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
    if (format && strcmp(format, "ss") == 0) {
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

/* ---- benchmark-backed studies ---- */

/*
 * A study backed by a learning-curve set (multi-fidelity studies driven by
 * fake trainers that read the curves through /evaluate with a step): one
 * value list per hyperparameter, the set's distinct configurations as
 * candidates (the first of each, in file order: the one /evaluate
 * answers with), and the one metric, ppl, minimized unless given.
 */
static enum hpod_status
expand_curve_study(struct req *rq, const struct bench_lc_set *c, json_t *copy)
{
    json_t *space = json_array(), *cands = json_array(), *objs;
    double *v = xmalloc((c->n ? c->n : 1) * sizeof *v);

    for (size_t k = 0; k < c->n_hyper; k++) {
        int is_int = 1;
        for (size_t i = 0; i < c->n; i++) {
            v[i] = c->curves[i].hyper[k];
            is_int &= v[i] == floor(v[i]) && fabs(v[i]) < 9e15;
        }
        qsort(v, c->n, sizeof *v, cmp_json_num);
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
        for (j = 0; j < i && !same_row(c->curves[j].hyper, c->curves[i].hyper,
                                       c->n_hyper);
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
            return hpod_fail(&rq->err, HPOD_EUNPROC, f,
                             "%s has one metric, ppl, not \"%.64s\"", c->name,
                             json_string_value(nm));
        }
    }
    return HPOD_OK;
}

enum hpod_status
benchmark_expand_study(struct req *rq, json_t *body, json_t **out)
{
    json_t *b = json_object_get(body, "benchmark"), *copy = NULL;
    struct bench_ref ref;
    enum hpod_status st = HPOD_OK;

    *out = NULL;
    if (!b || json_is_null(b))
        return HPOD_OK;
    if (!json_is_string(b))
        return hpod_fail(&rq->err, HPOD_EINVAL, "benchmark",
                         "benchmark must be a string");
    if (json_object_get(body, "space"))
        return hpod_fail(&rq->err, HPOD_EUNPROC, "space",
                         "a benchmark-backed study takes its space from the "
                         "table");
    if (json_object_get(body, "candidates"))
        return hpod_fail(&rq->err, HPOD_EUNPROC, "candidates",
                         "a benchmark-backed study takes its candidates from "
                         "the table");
    st = resolve(rq, json_string_value(b), &ref);
    if (st == HPOD_ENOTFOUND)
        return hpod_fail(&rq->err, HPOD_EUNPROC, "benchmark",
                         "unknown benchmark \"%.100s\"", json_string_value(b));
    if (st != HPOD_OK)
        return st;
    copy = json_deep_copy(body);
    if (ref.curves) {
        st = expand_curve_study(rq, ref.curves, copy);
        if (st == HPOD_OK) {
            *out = copy;
            copy = NULL;
        }
        goto out;
    }
    const struct bench_table *t = ref.table;
    json_t *space = json_array(), *cands = json_array();
    for (size_t k = 0; k < t->n_params; k++)
        json_array_append_new(space, param_json(&ref, k));
    for (size_t i = 0; i < t->n; i++)
        json_array_append_new(cands, row_params(&ref, i));
    json_object_set_new(copy, "space", space);
    json_object_set_new(copy, "candidates", cands);
    json_t *objs = json_object_get(copy, "objectives");
    if (!objs) {
        /* Only the NMT tables have an obvious objective (BLEU); a user's
         * own table must say what to optimize. */
        if (ref.imported || !bench_table_metric(t, "bleu")) {
            st = hpod_fail(&rq->err, HPOD_EINVAL, "objectives",
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
                !bench_table_metric(t, json_string_value(nm))) {
                char f[64];
                snprintf(f, sizeof f, "objectives[%zu].name", i);
                st = hpod_fail(&rq->err, HPOD_EUNPROC, f,
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
    ref_cleanup(&ref);
    return st;
}
