/*
 * bench/catalog.c - the benchmarks a name can refer to. See
 * bench/catalog.h.
 */
#include "bench/catalog.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/import.h"
#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "core/pareto.h"
#include "core/space.h"
#include "store/audit_store.h"
#include "store/bench_store.h"

#define IMPORTED_CACHE 32

/*
 * ---- imported tables: parsed once per process ----
 *
 * A process-side copy is only valid while it matches the database. It
 * does here without asking the database again: an imported table is
 * written once by POST /v1/benchmarks (store/bench_store inserts; nothing
 * updates or deletes a row, and a second import of a name is refused), so
 * the stored definition and rows of a name never change once it exists,
 * and a copy parsed from them stays equal to what any process would read.
 * Names not found are not cached, so a table imported through another
 * process is found on its first use here.
 */
struct imported {
    char name[160];
    struct bench_table table;
    json_t *choices, *types;
};

static pthread_mutex_t imp_mu = PTHREAD_MUTEX_INITIALIZER;
static struct imported *imp_cache[IMPORTED_CACHE];
static size_t imp_next;

/* See bench/catalog.h. */
void
catalog_clear(void)
{
    pthread_mutex_lock(&imp_mu);
    for (size_t i = 0; i < IMPORTED_CACHE; i++) {
        if (!imp_cache[i])
            continue;
        tables_table_free(&imp_cache[i]->table);
        json_decref(imp_cache[i]->choices);
        json_decref(imp_cache[i]->types);
        free(imp_cache[i]);
        imp_cache[i] = NULL;
    }
    pthread_mutex_unlock(&imp_mu);
}

/* See bench/catalog.h. */
int
catalog_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Pareto flags for max bleu / min gpu_time, when both metrics exist. */
static void
table_pareto(struct bench_table *t)
{
    const double *b = tables_table_metric(t, "bleu");
    const double *g = tables_table_metric(t, "gpu_time");
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
            t->raw[i * np + k] = import_raw_value(
                json_object_get(json_array_get(rows, i), pn), ch);
        if (ch) {
            space_add_categorical(&t->space, json_array_size(ch));
            continue;
        }
        double *v = xmalloc((n ? n : 1) * sizeof *v);
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            v[m++] = t->raw[i * np + k];
        qsort(v, m, sizeof *v, catalog_cmp_double);
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

/* See bench/catalog.h. */
enum hpod_status
catalog_resolve(const struct bench_db *db, struct db *pg, const char *name,
                struct bench_ref *ref, struct hpod_err *err)
{
    char *def_text = NULL, *rows_text = NULL;
    enum hpod_status st;

    memset(ref, 0, sizeof *ref);
    if ((ref->table = tables_db_table(db, name)) != NULL)
        return HPOD_OK;
    if ((ref->curves = tables_lc_find(db->lc, db->n_lc, name)) != NULL)
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
    if ((st = bench_store_get(pg, name, &def_text, &rows_text, err)) != HPOD_OK)
        return st;
    json_t *def = hj_parse(def_text), *rows = hj_parse(rows_text);
    free(def_text);
    free(rows_text);
    if (!def || !rows) {
        json_decref(def);
        json_decref(rows);
        return hpod_fail(err, HPOD_EINTERNAL, "",
                         "stored benchmark \"%s\" is not valid JSON", name);
    }
    struct imported *im = build_imported(name, def, rows);
    json_decref(def);
    json_decref(rows);
    /* Entries are never evicted while a request may use them: the cache
     * only grows to IMPORTED_CACHE, then further tables are parsed per
     * request and owned by it (see catalog_ref_clear). */
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
    return catalog_resolve(db, pg, name, ref, err);
}

/* See bench/catalog.h. */
void
catalog_ref_clear(struct bench_ref *ref)
{
    if (ref->imported == 2) {
        tables_table_free((struct bench_table *)ref->table);
        free((struct bench_table *)ref->table);
        json_decref(ref->choices);
        json_decref(ref->types);
    }
    memset(ref, 0, sizeof *ref);
}

/* ---- JSON views of a table ---- */

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

/* See bench/catalog.h. */
json_t *
catalog_ref_choices(const struct bench_ref *ref, size_t k)
{
    json_t *c = ref->choices ? json_array_get(ref->choices, k) : NULL;
    return json_is_array(c) ? c : NULL;
}

static json_t *
value_json(const struct bench_ref *ref, size_t k, double v)
{
    json_t *ch = catalog_ref_choices(ref, k);
    if (ch)
        return json_incref(json_array_get(ch, (size_t)v));
    if (param_is_int(ref, k))
        return json_integer((json_int_t)llround(v));
    return json_real(v);
}

/* See bench/catalog.h. */
json_t *
catalog_ref_param_json(const struct bench_ref *ref, size_t k)
{
    const struct param *p = &ref->table->space.params[k];
    const char *name = ref->table->param_names[k];
    json_t *ch = catalog_ref_choices(ref, k);
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

/* See bench/catalog.h. */
json_t *
catalog_ref_row_params(const struct bench_ref *ref, size_t i)
{
    const struct bench_table *t = ref->table;
    json_t *o = json_object();
    for (size_t k = 0; k < t->n_params; k++)
        json_object_set_new(o, t->param_names[k],
                            value_json(ref, k, t->raw[i * t->n_params + k]));
    return o;
}

/* See bench/catalog.h. */
int
catalog_same_row(const double *x, const double *y, size_t w)
{
    return memcmp(x, y, w * sizeof *x) == 0;
}

enum hpod_status
catalog_import(struct db *pg, const char *name, const char *definition,
               const char *rows, size_t n_rows, long long by_token,
               struct hpod_err *err)
{
    /* A table's name is [A-Za-z0-9_.-] segments (common/name.h): it needs
     * no escaping in JSON text. */
    char lab[80] = "", target[200], detail[240];
    const char *slash = strchr(name, '/');
    struct audit_row_in ev = {.token_id = by_token,
                              .action = "benchmark.import",
                              .target = target,
                              .detail = detail};
    enum hpod_status st;

    if (slash && (size_t)(slash - name) < sizeof lab) {
        memcpy(lab, name, (size_t)(slash - name));
        lab[slash - name] = '\0';
        ev.lab = lab;
    }
    snprintf(target, sizeof target, "benchmark/%s", name);
    snprintf(detail, sizeof detail, "{\"name\":\"%s\",\"rows\":%zu}", name,
             n_rows);
    if ((st = db_begin(pg, err)) != HPOD_OK)
        return st;
    if ((st = bench_store_insert(pg, name, definition, rows, err)) != HPOD_OK ||
        (st = audit_store_insert(pg, &ev, err)) != HPOD_OK ||
        (st = db_commit(pg, err)) != HPOD_OK)
        db_rollback(pg);
    return st;
}
