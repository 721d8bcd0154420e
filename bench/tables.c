/*
 * bench/tables.c - reading and validating the lookup tables and
 * learning curves of the benchmarks directory (bench_tables.h).
 *
 * Only files here: no SQL (store/), no numerics beyond building the
 * table's search space (core/space.c), no HTTP.
 */
#include "bench/tables.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/mem.h"
#include "common/dtoa.h"
#include "common/err.h"

const char *const bench_param_names[BENCH_N_PARAMS] = {
    "bpe", "num_layers", "num_embed", "num_hidden", "num_heads", "init_lr"};

const char *const bench_datasets[BENCH_N_DATASETS] = {
    "zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en"};

/* Strips the line ending ("\n" or "\r\n") in place; returns the length. */
static size_t
chomp(char *s)
{
    size_t len = strlen(s);
    while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
        s[--len] = '\0';
    return len;
}

/* Splits s at tabs in place; returns the number of fields (<= max). */
static size_t
split_tabs(char *s, char **fields, size_t max)
{
    size_t n = 0;
    for (;;) {
        if (n == max)
            return max + 1; /* too many */
        fields[n++] = s;
        char *tab = strchr(s, '\t');
        if (!tab)
            return n;
        *tab = '\0';
        s = tab + 1;
    }
}

/* Parses a whole field as a finite double. Returns 1 on success. */
static int
parse_num(const char *s, double *out)
{
    char *end;
    if (*s == '\0')
        return 0;
    errno = 0;
    double v = strtod(s, &end);
    if (*end != '\0' || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * 1 if the sorted distinct positive values v[0..m) form a geometric
 * progression of at least 3 terms (constant ratio, to 1e-9 relative).
 */
static int
is_geometric(const double *v, size_t m)
{
    if (m < 3 || !(v[0] > 0))
        return 0;
    double q = v[1] / v[0];
    for (size_t i = 2; i < m; i++)
        if (fabs(v[i] / v[i - 1] - q) > 1e-9 * q)
            return 0;
    return 1;
}

/*
 * Which parameters may be log-scaled: the sizes (bpe merges, embedding,
 * hidden and head counts), when their grid doubles. Layer counts and the
 * learning rate are scaled linearly, as the papers' .hyps_scaled files do
 * (so-en's num_layers 1, 2, 4 -> 0, 0.333, 1; init_lr -> 0, 0.429, 1).
 */
static const int size_param[BENCH_N_PARAMS] = {1, 0, 1, 1, 1, 0};

/* Adds column j of raw (n × np) to sp as the list of its distinct values. */
static enum hpod_status
add_column(struct space *sp, const double *raw, size_t n, size_t np, size_t j)
{
    double *v = xmalloc(n * sizeof *v);
    size_t m = 0;
    int integral = 1;
    for (size_t i = 0; i < n; i++) {
        v[i] = raw[i * np + j];
        integral &= v[i] == floor(v[i]);
    }
    qsort(v, n, sizeof *v, cmp_double);
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[i] != v[m - 1])
            v[m++] = v[i];
    int log = j < BENCH_N_PARAMS && size_param[j] && is_geometric(v, m);
    enum hpod_status st =
        space_add_values(sp, integral ? PARAM_INT : PARAM_FLOAT, v, m, log);
    free(v);
    return st;
}

#define MAX_COLS 64

/*
 * The header's columns (fields, n_cols of them): role[c] -1 id, -2
 * pareto, 0..BENCH_N_PARAMS-1 a parameter, 100+m metric m. Fills t's
 * names.
 */
static enum hpod_status
tsv_header(struct bench_table *t, char **fields, size_t n_cols, int *role,
           const char *path, size_t lineno, struct hpod_err *err)
{
    enum hpod_status st = HPOD_OK;
    int have_id = 0, have_pareto = 0, have_param[BENCH_N_PARAMS] = {0};

    t->n_params = BENCH_N_PARAMS;
    t->param_names = xcalloc(BENCH_N_PARAMS, sizeof *t->param_names);
    t->metric_names = xcalloc(n_cols, sizeof *t->metric_names);
    for (size_t c = 0; c < n_cols; c++) {
        for (size_t d = 0; d < c; d++)
            if (strcmp(fields[c], fields[d]) == 0) {
                st = hpod_fail(err, HPOD_EUNPROC, fields[c],
                               "%s:%zu: duplicate column \"%s\"", path, lineno,
                               fields[c]);
                return st;
            }
        if (fields[c][0] == '\0') {
            st = hpod_fail(err, HPOD_EUNPROC, "",
                           "%s:%zu: column %zu has no name", path, lineno,
                           c + 1);
            return st;
        }
        if (strcmp(fields[c], "id") == 0) {
            role[c] = -1;
            have_id = 1;
            continue;
        }
        if (strcmp(fields[c], "pareto") == 0) {
            role[c] = -2;
            have_pareto = 1;
            continue;
        }
        int p = -1;
        for (int k = 0; k < BENCH_N_PARAMS; k++)
            if (strcmp(fields[c], bench_param_names[k]) == 0)
                p = k;
        if (p >= 0) {
            role[c] = p;
            have_param[p] = 1;
            continue;
        }
        role[c] = 100 + (int)t->n_metrics;
        t->metric_names[t->n_metrics++] = xstrdup(fields[c]);
    }
    for (int k = 0; k < BENCH_N_PARAMS; k++) {
        t->param_names[k] = xstrdup(bench_param_names[k]);
        if (!have_param[k]) {
            st = hpod_fail(err, HPOD_EUNPROC, bench_param_names[k],
                           "%s:%zu: missing column \"%s\"", path, lineno,
                           bench_param_names[k]);
            return st;
        }
    }
    if (!have_id || !have_pareto || t->n_metrics == 0) {
        const char *miss = !have_id       ? "id"
                           : !have_pareto ? "pareto"
                                          : "(a metric)";
        st = hpod_fail(err, HPOD_EUNPROC, miss, "%s:%zu: missing column \"%s\"",
                       path, lineno, miss);
        return st;
    }

    return HPOD_OK;
}

/* Row i of the table: the n_cols fields of a data line, by role. */
static enum hpod_status
tsv_row(struct bench_table *t, char **fields, size_t n_cols, const int *role,
        double *mrow, const char *path, size_t lineno, struct hpod_err *err)
{
    enum hpod_status st = HPOD_OK;

    size_t i = t->n;
    for (size_t c = 0; c < n_cols; c++) {
        double v;
        if (!parse_num(fields[c], &v)) {
            const char *cn = role[c] == -1   ? "id"
                             : role[c] == -2 ? "pareto"
                             : role[c] < 100 ? bench_param_names[role[c]]
                                             : t->metric_names[role[c] - 100];
            st = hpod_fail(err, HPOD_EUNPROC, cn,
                           "%s:%zu: column \"%s\": \"%.32s\" is not a "
                           "finite number",
                           path, lineno, cn, fields[c]);
            return st;
        }
        if (role[c] == -1) {
            if (v != (double)i) {
                char num[HPOD_DTOA_SIZE];
                hpod_dtoa(v, num);
                st = hpod_fail(err, HPOD_EUNPROC, "id",
                               "%s:%zu: id %s, expected %zu (ids are "
                               "the 0-based row numbers)",
                               path, lineno, num, i);
                return st;
            }
        } else if (role[c] == -2) {
            if (v != 0 && v != 1) {
                char num[HPOD_DTOA_SIZE];
                hpod_dtoa(v, num);
                st = hpod_fail(err, HPOD_EUNPROC, "pareto",
                               "%s:%zu: pareto must be 0 or 1, not %s", path,
                               lineno, num);
                return st;
            }
            t->pareto[i] = (unsigned char)v;
        } else if (role[c] < 100) {
            t->raw[i * BENCH_N_PARAMS + (size_t)role[c]] = v;
        } else {
            mrow[i * t->n_metrics + (size_t)(role[c] - 100)] = v;
        }
    }
    return HPOD_OK;
}

enum hpod_status
tables_table_load(const char *path, const char *name, struct bench_table *t,
                  struct hpod_err *err)
{
    enum hpod_status st = HPOD_OK;
    FILE *f = NULL;
    char *line = NULL;
    size_t cap_line = 0, lineno = 0, cap_rows = 0, n_cols = 0;
    char *fields[MAX_COLS + 1];
    /* Column roles (tsv_header). */
    int role[MAX_COLS];
    double *mrow = NULL; /* metrics, row-major while reading */

    memset(t, 0, sizeof *t);
    space_init(&t->space);
    f = fopen(path, "r");
    if (!f)
        return hpod_fail(err, HPOD_ENOTFOUND, "", "%s: could not open: %s",
                         path, strerror(errno));
    snprintf(t->name, sizeof t->name, "%s", name);

    /* Header. */
    while (getline(&line, &cap_line, f) >= 0) {
        lineno++;
        if (chomp(line) > 0)
            break;
    }
    if (lineno == 0 || line == NULL || line[0] == '\0') {
        st = hpod_fail(err, HPOD_EUNPROC, "", "%s:%zu: no header line", path,
                       lineno);
        goto out;
    }
    n_cols = split_tabs(line, fields, MAX_COLS);
    if (n_cols > MAX_COLS) {
        st = hpod_fail(err, HPOD_EUNPROC, "", "%s:%zu: more than %d columns",
                       path, lineno, MAX_COLS);
        goto out;
    }
    if ((st = tsv_header(t, fields, n_cols, role, path, lineno, err)) !=
        HPOD_OK)
        goto out;

    /* Rows. */
    while (getline(&line, &cap_line, f) >= 0) {
        lineno++;
        if (chomp(line) == 0)
            continue;
        size_t got = split_tabs(line, fields, MAX_COLS);
        if (got != n_cols) {
            st = hpod_fail(err, HPOD_EUNPROC, "",
                           "%s:%zu: %s fields, expected %zu", path, lineno,
                           got > n_cols ? "more" : "fewer", n_cols);
            goto out;
        }
        if (t->n == cap_rows) {
            cap_rows = cap_rows ? 2 * cap_rows : 256;
            t->raw =
                xrealloc(t->raw, cap_rows * BENCH_N_PARAMS * sizeof *t->raw);
            mrow = xrealloc(mrow, cap_rows * t->n_metrics * sizeof *mrow);
            t->pareto = xrealloc(t->pareto, cap_rows);
        }
        if ((st = tsv_row(t, fields, n_cols, role, mrow, path, lineno, err)) !=
            HPOD_OK)
            goto out;
        t->n++;
    }
    if (ferror(f)) {
        st = hpod_fail(err, HPOD_EUNPROC, "", "%s:%zu: read error: %s", path,
                       lineno, strerror(errno));
        goto out;
    }
    if (t->n == 0) {
        st = hpod_fail(err, HPOD_EUNPROC, "", "%s:%zu: no rows", path, lineno);
        goto out;
    }

    t->metrics = xmalloc(t->n * t->n_metrics * sizeof *t->metrics);
    for (size_t i = 0; i < t->n; i++)
        for (size_t m = 0; m < t->n_metrics; m++)
            t->metrics[m * t->n + i] = mrow[i * t->n_metrics + m];
    for (size_t j = 0; j < BENCH_N_PARAMS; j++) {
        st = add_column(&t->space, t->raw, t->n, BENCH_N_PARAMS, j);
        if (st != HPOD_OK) {
            st = hpod_fail(err, HPOD_EINTERNAL, bench_param_names[j],
                           "%s: could not build the space for column \"%s\"",
                           path, bench_param_names[j]);
            goto out;
        }
    }

out:
    free(line);
    free(mrow);
    if (f)
        fclose(f);
    if (st != HPOD_OK)
        tables_table_free(t);
    return st;
}

void
tables_table_free(struct bench_table *t)
{
    if (!t)
        return;
    if (t->param_names)
        for (size_t k = 0; k < t->n_params; k++)
            free(t->param_names[k]);
    if (t->metric_names)
        for (size_t m = 0; m < t->n_metrics; m++)
            free(t->metric_names[m]);
    free(t->param_names);
    free(t->metric_names);
    free(t->raw);
    free(t->metrics);
    free(t->pareto);
    space_clear(&t->space);
    memset(t, 0, sizeof *t);
}

const double *
tables_table_metric(const struct bench_table *t, const char *name)
{
    for (size_t m = 0; m < t->n_metrics; m++)
        if (strcmp(t->metric_names[m], name) == 0)
            return t->metrics + m * t->n;
    return NULL;
}

enum hpod_status
tables_load_dir(const char *dir, const char *const *names, size_t n_names,
                struct bench_table **out, size_t *n_out, struct hpod_err *err)
{
    if (!names) {
        names = bench_datasets;
        n_names = BENCH_N_DATASETS;
    }
    struct bench_table *ts = xcalloc(n_names ? n_names : 1, sizeof *ts);
    *out = NULL;
    *n_out = 0;
    for (size_t k = 0; k < n_names; k++) {
        if (strchr(names[k], '/') || names[k][0] == '\0' ||
            strlen(names[k]) > 32) {
            tables_free(ts, k);
            return hpod_fail(err, HPOD_EINVAL, "", "bad table name \"%.40s\"",
                             names[k]);
        }
        size_t len = strlen(dir) + strlen(names[k]) + 16;
        char *path = xmalloc(len);
        char name[64];
        snprintf(path, len, "%s/nmthpo/%s.tsv", dir, names[k]);
        snprintf(name, sizeof name, "nmthpo/%s", names[k]);
        enum hpod_status st = tables_table_load(path, name, &ts[k], err);
        free(path);
        if (st != HPOD_OK) {
            tables_free(ts, k);
            return st;
        }
    }
    *out = ts;
    *n_out = n_names;
    return HPOD_OK;
}

void
tables_free(struct bench_table *tables, size_t n)
{
    if (!tables)
        return;
    for (size_t k = 0; k < n; k++)
        tables_table_free(&tables[k]);
    free(tables);
}

/* Frees one set's contents (not the set itself). */
static void
lc_set_clear(struct bench_lc_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->curves[i].hyper);
        free(s->curves[i].ppl);
    }
    free(s->curves);
    for (size_t k = 0; k < s->n_hyper; k++)
        free(s->hyper_names[k]);
    free(s->hyper_names);
}

/*
 * Validates one parsed model and appends it to its set (created on first
 * sight). Returns HPOD_OK or HPOD_EUNPROC with err naming path:line.
 */
static enum hpod_status
lc_add(json_t *o, const char *path, size_t lineno, struct bench_lc_set **sets,
       size_t *n_sets, size_t *cap_sets, struct hpod_err *err)
{
    json_t *ds = json_object_get(o, "dataset_name");
    json_t *hp = json_object_get(o, "hyperparams");
    json_t *curve = json_object_get(o, "perplexity_curve");
    json_t *opt = json_object_get(o, "perplexity_optimal");
    const char *key;
    json_t *val;

    if (!json_is_string(ds) || json_string_length(ds) == 0 ||
        json_string_length(ds) > 80)
        return hpod_fail(err, HPOD_EUNPROC, "dataset_name",
                         "%s:%zu: \"dataset_name\" must be a non-empty "
                         "string of at most 80 characters",
                         path, lineno);
    if (!json_is_object(hp))
        return hpod_fail(err, HPOD_EUNPROC, "hyperparams",
                         "%s:%zu: \"hyperparams\" must be an object", path,
                         lineno);
    if (!json_is_array(curve) || json_array_size(curve) == 0)
        return hpod_fail(err, HPOD_EUNPROC, "perplexity_curve",
                         "%s:%zu: \"perplexity_curve\" must be a non-empty "
                         "array",
                         path, lineno);
    if (!json_is_number(opt) || !isfinite(json_number_value(opt)))
        return hpod_fail(err, HPOD_EUNPROC, "perplexity_optimal",
                         "%s:%zu: \"perplexity_optimal\" must be a number",
                         path, lineno);
    json_object_foreach(hp, key, val)
    {
        if (!json_is_number(val) || !isfinite(json_number_value(val)))
            return hpod_fail(err, HPOD_EUNPROC, "hyperparams",
                             "%s:%zu: hyperparams.%.40s must be a number", path,
                             lineno, key);
    }
    for (size_t i = 0; i < json_array_size(curve); i++) {
        json_t *v = json_array_get(curve, i);
        if (!json_is_number(v) || !isfinite(json_number_value(v)))
            return hpod_fail(err, HPOD_EUNPROC, "perplexity_curve",
                             "%s:%zu: perplexity_curve[%zu] must be a "
                             "finite number",
                             path, lineno, i);
    }

    char name[96];
    snprintf(name, sizeof name, "nmtlc/%s", json_string_value(ds));
    struct bench_lc_set *s = NULL;
    for (size_t k = 0; k < *n_sets; k++)
        if (strcmp((*sets)[k].name, name) == 0)
            s = &(*sets)[k];
    if (!s) {
        if (json_object_size(hp) == 0)
            return hpod_fail(err, HPOD_EUNPROC, "hyperparams",
                             "%s:%zu: \"hyperparams\" is empty", path, lineno);
        if (*n_sets == *cap_sets) {
            *cap_sets = *cap_sets ? 2 * *cap_sets : 8;
            *sets = xrealloc(*sets, *cap_sets * sizeof **sets);
        }
        s = &(*sets)[(*n_sets)++];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "%s", name);
        s->hyper_names = xcalloc(json_object_size(hp), sizeof(char *));
        json_object_foreach(hp, key, val)
        {
            s->hyper_names[s->n_hyper++] = xstrdup(key);
        }
    }
    if (json_object_size(hp) != s->n_hyper)
        return hpod_fail(err, HPOD_EUNPROC, "hyperparams",
                         "%s:%zu: hyperparams has %zu keys, the first model "
                         "of %s has %zu",
                         path, lineno, json_object_size(hp), s->name,
                         s->n_hyper);
    /* Grow by one; sets are a few hundred models, amortized by realloc. */
    s->curves = xrealloc(s->curves, (s->n + 1) * sizeof *s->curves);
    struct bench_curve *c = &s->curves[s->n];
    memset(c, 0, sizeof *c);
    c->hyper = xmalloc(s->n_hyper * sizeof *c->hyper);
    for (size_t k = 0; k < s->n_hyper; k++) {
        json_t *v = json_object_get(hp, s->hyper_names[k]);
        if (!v) {
            free(c->hyper);
            return hpod_fail(err, HPOD_EUNPROC, "hyperparams",
                             "%s:%zu: hyperparams lacks \"%.40s\", which the "
                             "first model of %s has",
                             path, lineno, s->hyper_names[k], s->name);
        }
        c->hyper[k] = json_number_value(v);
    }
    c->len = json_array_size(curve);
    c->ppl = xmalloc(c->len * sizeof *c->ppl);
    for (size_t i = 0; i < c->len; i++)
        c->ppl[i] = json_number_value(json_array_get(curve, i));
    c->ppl_optimal = json_number_value(opt);
    s->n++;
    return HPOD_OK;
}

enum hpod_status
tables_lc_load(const char *path, struct bench_lc_set **out, size_t *n_out,
               struct hpod_err *err)
{
    enum hpod_status st = HPOD_OK;
    struct bench_lc_set *sets = NULL;
    size_t n_sets = 0, cap_sets = 0, lineno = 0, cap_line = 0;
    char *line = NULL;

    *out = NULL;
    *n_out = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return hpod_fail(err, HPOD_ENOTFOUND, "", "%s: could not open: %s",
                         path, strerror(errno));
    while (getline(&line, &cap_line, f) >= 0) {
        lineno++;
        if (chomp(line) == 0)
            continue;
        json_error_t jerr;
        json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
        if (!o) {
            st = hpod_fail(err, HPOD_EUNPROC, "", "%s:%zu: invalid JSON: %s",
                           path, lineno, jerr.text);
            goto out;
        }
        if (!json_is_object(o)) {
            json_decref(o);
            st = hpod_fail(err, HPOD_EUNPROC, "",
                           "%s:%zu: expected a JSON object", path, lineno);
            goto out;
        }
        st = lc_add(o, path, lineno, &sets, &n_sets, &cap_sets, err);
        json_decref(o);
        if (st != HPOD_OK)
            goto out;
    }
    if (ferror(f))
        st = hpod_fail(err, HPOD_EUNPROC, "", "%s:%zu: read error: %s", path,
                       lineno, strerror(errno));
    else if (n_sets == 0)
        st = hpod_fail(err, HPOD_EUNPROC, "", "%s: no learning curves", path);

out:
    free(line);
    fclose(f);
    if (st != HPOD_OK) {
        tables_lc_free(sets, n_sets);
        return st;
    }
    *out = sets;
    *n_out = n_sets;
    return HPOD_OK;
}

void
tables_lc_free(struct bench_lc_set *sets, size_t n)
{
    if (!sets)
        return;
    for (size_t k = 0; k < n; k++)
        lc_set_clear(&sets[k]);
    free(sets);
}

const struct bench_lc_set *
tables_lc_find(const struct bench_lc_set *sets, size_t n, const char *name)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(sets[k].name, name) == 0)
            return &sets[k];
    return NULL;
}

enum hpod_status
tables_curve_ppl(const struct bench_curve *c, size_t step, double *out)
{
    if (step == 0 || step > c->len)
        return HPOD_EUNPROC;
    *out = c->ppl[step - 1];
    return HPOD_OK;
}

enum hpod_status
tables_db_load(const char *dir, struct bench_db *db, struct hpod_err *err)
{
    memset(db, 0, sizeof *db);
    enum hpod_status st =
        tables_load_dir(dir, NULL, 0, &db->tables, &db->n_tables, err);
    if (st != HPOD_OK)
        return st;
    size_t len = strlen(dir) + 32;
    char *path = xmalloc(len);
    snprintf(path, len, "%s/nmtlc/scratch.jsonl", dir);
    st = tables_lc_load(path, &db->lc, &db->n_lc, err);
    free(path);
    if (st != HPOD_OK)
        tables_db_free(db);
    return st;
}

void
tables_db_free(struct bench_db *db)
{
    if (!db)
        return;
    tables_free(db->tables, db->n_tables);
    tables_lc_free(db->lc, db->n_lc);
    memset(db, 0, sizeof *db);
}

const struct bench_table *
tables_db_table(const struct bench_db *db, const char *name)
{
    for (size_t k = 0; k < db->n_tables; k++)
        if (strcmp(db->tables[k].name, name) == 0)
            return &db->tables[k];
    return NULL;
}
