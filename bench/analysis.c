/*
 * bench/analysis.c - importance and comparison of lookup tables; contracts
 * in bench/analysis.h.
 */
#include "bench/analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "core/rankcorr.h"

enum hpod_status
analysis_metric_name(const struct bench_ref *ref, const char *metric,
                     const char *field, const char **out, struct hpod_err *err)
{
    const struct bench_table *t = ref->table;
    *out = NULL;
    if (!t)
        return hpod_fail(err, HPOD_EUNPROC, field,
                         "a learning-curve set has no metric table: this is "
                         "computed on lookup tables only");
    for (size_t m = 0; m < t->n_metrics; m++)
        if (!metric || strcmp(t->metric_names[m], metric) == 0) {
            *out = t->metric_names[m];
            return HPOD_OK;
        }
    return hpod_fail(err, HPOD_EUNPROC, field, "table %s has no metric \"%s\"",
                     t->name, metric ? metric : "");
}

enum hpod_status
analysis_importance(const struct bench_ref *ref, const char *metric,
                    struct ebm **out, struct hpod_err *err)
{
    const char *name;
    enum hpod_status st;

    *out = NULL;
    if ((st = analysis_metric_name(ref, metric, "metric", &name, err)) !=
        HPOD_OK)
        return st;
    const struct bench_table *t = ref->table;
    unsigned char *cat = xcalloc(t->n_params ? t->n_params : 1, 1);
    for (size_t k = 0; k < t->n_params; k++)
        cat[k] = catalog_ref_choices(ref, k) != NULL;
    if (t->n == 0 ||
        ebm_fit(t->raw, t->n, t->n_params, cat, tables_table_metric(t, name),
                NULL, out) != HPOD_OK)
        st = hpod_fail(err, HPOD_EUNPROC, "metric",
                       "table %s has no rows to fit on", t->name);
    free(cat);
    return st;
}

/* A row's configuration as canonical text (keys sorted), with its row. */
struct keyed_row {
    char *key;
    size_t row;
};

static int
cmp_keyed_row(const void *x, const void *y)
{
    const struct keyed_row *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    if (c)
        return c;
    return (a->row > b->row) - (a->row < b->row);
}

static struct keyed_row *
row_keys(const struct bench_ref *ref)
{
    size_t n = ref->table->n;
    struct keyed_row *k = xmalloc((n ? n : 1) * sizeof *k);
    for (size_t i = 0; i < n; i++) {
        json_t *o = catalog_ref_row_params(ref, i);
        k[i].key = hj_dump(o, JSON_SORT_KEYS);
        k[i].row = i;
        json_decref(o);
        if (!k[i].key)
            k[i].key = xstrdup("");
    }
    qsort(k, n, sizeof *k, cmp_keyed_row);
    return k;
}

static void
keys_free(struct keyed_row *k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(k[i].key);
    free(k);
}

static int
same_params(const struct bench_table *a, const struct bench_table *b)
{
    if (a->n_params != b->n_params)
        return 0;
    for (size_t i = 0; i < a->n_params; i++) {
        size_t j = 0;
        while (j < b->n_params && strcmp(a->param_names[i], b->param_names[j]))
            j++;
        if (j == b->n_params)
            return 0;
    }
    return 1;
}

/* Merges the sorted keys: the metric values of each shared configuration
 * (first row of each key) into va, vb; returns how many. */
static size_t
shared_values(const struct keyed_row *ka, size_t na, const double *ma,
              const struct keyed_row *kb, size_t nb, const double *mb,
              double *va, double *vb)
{
    size_t i = 0, j = 0, s = 0;
    while (i < na && j < nb) {
        int c = strcmp(ka[i].key, kb[j].key);
        if (c == 0) {
            va[s] = ma[ka[i].row];
            vb[s++] = mb[kb[j].row];
        }
        if (c <= 0) {
            const char *k = ka[i].key;
            while (i < na && strcmp(ka[i].key, k) == 0)
                i++;
        }
        if (c >= 0) {
            const char *k = kb[j].key;
            while (j < nb && strcmp(kb[j].key, k) == 0)
                j++;
        }
    }
    return s;
}

enum hpod_status
analysis_compare(const struct bench_ref *a, const struct bench_ref *b,
                 const char *metric, int maximize, struct analysis_compare *out,
                 struct hpod_err *err)
{
    const char *name_a, *name_b;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    out->spearman = NAN;
    if ((st = analysis_metric_name(a, metric, "metric", &name_a, err)) !=
        HPOD_OK)
        return st;
    if (!b->table)
        return hpod_fail(err, HPOD_EUNPROC, "with",
                         "a learning-curve set has no metric table: tables "
                         "are compared with tables only");
    if (!same_params(a->table, b->table))
        return hpod_fail(err, HPOD_EUNPROC, "with",
                         "tables %s and %s have different parameters",
                         a->table->name, b->table->name);
    if ((st = analysis_metric_name(b, name_a, "metric", &name_b, err)) !=
        HPOD_OK)
        return st;
    size_t na = a->table->n, nb = b->table->n;
    struct keyed_row *ka = row_keys(a), *kb = row_keys(b);
    double *va = xmalloc((na ? na : 1) * sizeof *va);
    double *vb = xmalloc((na ? na : 1) * sizeof *vb);
    out->n_shared =
        shared_values(ka, na, tables_table_metric(a->table, name_a), kb, nb,
                      tables_table_metric(b->table, name_b), va, vb);
    out->spearman = rank_spearman(va, vb, out->n_shared);
    out->top_k = rank_top_k(out->n_shared, BENCH_TOP_FRACTION);
    out->top_overlap =
        rank_top_overlap(va, vb, out->n_shared, BENCH_TOP_FRACTION, maximize,
                         &out->top_a, &out->top_b, &out->top_both);
    keys_free(ka, na);
    keys_free(kb, nb);
    free(va);
    free(vb);
    return HPOD_OK;
}
