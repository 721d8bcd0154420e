/*
 * bench/import.c - validation of an imported lookup table. See
 * bench/import.h.
 */
#include "bench/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "common/name.h"
#include "core/space.h"

#define IMPORT_MAX_ROWS 100000
#define IMPORT_MAX_PARAMS 64
#define IMPORT_MAX_METRICS 16

/* See bench/import.h. */
double
import_raw_value(json_t *v, json_t *choices)
{
    if (json_is_string(v)) {
        for (size_t c = 0; c < json_array_size(choices); c++)
            if (json_equal(v, json_array_get(choices, c)))
                return (double)c;
        return -1;
    }
    return json_number_value(v);
}

static int
valid_part(const char *s, size_t n)
{
    return hpod_name_ok_n(s, n, 64);
}

static int
valid_import_name(const char *s)
{
    const char *slash = strchr(s, '/');
    if (!slash || strchr(slash + 1, '/'))
        return 0;
    size_t a = (size_t)(slash - s), b = strlen(slash + 1);
    if (!valid_part(s, a) || !valid_part(slash + 1, b))
        return 0;
    return !(a == 6 && strncmp(s, "nmthpo", 6) == 0) &&
           !(a == 5 && strncmp(s, "nmtlc", 5) == 0);
}

/* The body's keys, name and the three arrays with their sizes. */
static enum hpod_status
import_head(json_t *body, const char **name_out, json_t **params,
            json_t **metrics, json_t **rows, struct hpod_err *err)
{
    static const char *const keys[] = {"name", "params", "metrics", "rows",
                                       NULL};
    enum hpod_status st;
    json_t *v;

    if ((st = hj_check_keys(body, keys, "", err)) != HPOD_OK)
        return st;
    v = json_object_get(body, "name");
    if (!v)
        return hpod_fail(err, HPOD_EINVAL, "name", "name is required");
    if (!json_is_string(v))
        return hpod_fail(err, HPOD_EINVAL, "name", "name must be a string");
    *name_out = json_string_value(v);
    if (!valid_import_name(*name_out))
        return hpod_fail(err, HPOD_EUNPROC, "name",
                         "name must be \"namespace/name\", each part 1 to 64 "
                         "letters, digits, '_', '.' or '-', namespace not "
                         "nmthpo or nmtlc");
    *params = json_object_get(body, "params");
    *metrics = json_object_get(body, "metrics");
    *rows = json_object_get(body, "rows");
    if (!*params || !json_is_array(*params))
        return hpod_fail(err, HPOD_EINVAL, "params",
                         *params ? "params must be an array"
                                 : "params is required");
    if (!*metrics || !json_is_array(*metrics))
        return hpod_fail(err, HPOD_EINVAL, "metrics",
                         *metrics ? "metrics must be an array"
                                  : "metrics is required");
    if (!*rows || !json_is_array(*rows))
        return hpod_fail(err, HPOD_EINVAL, "rows",
                         *rows ? "rows must be an array" : "rows is required");
    size_t np = json_array_size(*params), nm = json_array_size(*metrics);
    size_t n = json_array_size(*rows);
    if (np == 0 || np > IMPORT_MAX_PARAMS)
        return hpod_fail(err, HPOD_EUNPROC, "params",
                         "params must hold 1 to %d parameters",
                         IMPORT_MAX_PARAMS);
    if (nm == 0 || nm > IMPORT_MAX_METRICS)
        return hpod_fail(err, HPOD_EUNPROC, "metrics",
                         "metrics must hold 1 to %d names", IMPORT_MAX_METRICS);
    if (n == 0 || n > IMPORT_MAX_ROWS)
        return hpod_fail(err, HPOD_EUNPROC, "rows",
                         "rows must hold 1 to %d rows", IMPORT_MAX_ROWS);
    return HPOD_OK;
}

/* params[k]: an object with a string name and type and a boolean log. */
static enum hpod_status
import_param(json_t *p, size_t k, const char **col, const char **type,
             struct hpod_err *err)
{
    static const char *const pkeys[] = {"name", "type", "log", NULL};
    enum hpod_status st;
    char f[192];

    snprintf(f, sizeof f, "params[%zu]", k);
    if (!json_is_object(p))
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be an object", f);
    if ((st = hj_check_keys(p, pkeys, f, err)) != HPOD_OK)
        return st;
    json_t *pn = json_object_get(p, "name"), *pt = json_object_get(p, "type");
    json_t *lg = json_object_get(p, "log");
    if (!json_is_string(pn) || !json_is_string(pt) ||
        (lg && !json_is_boolean(lg))) {
        snprintf(f, sizeof f, "params[%zu].%s", k,
                 !json_is_string(pn)   ? "name"
                 : !json_is_string(pt) ? "type"
                                       : "log");
        return hpod_fail(err, HPOD_EINVAL, f,
                         "%s is missing or has "
                         "the wrong type",
                         f);
    }
    *col = json_string_value(pn);
    *type = json_string_value(pt);
    snprintf(f, sizeof f, "params[%zu].type", k);
    if (strcmp(*type, "float") && strcmp(*type, "int") &&
        strcmp(*type, "categorical"))
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "type must be float, int or categorical");
    if (json_is_true(lg) && (*type)[0] == 'c')
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "a categorical parameter cannot be log-scaled");
    return HPOD_OK;
}

/* Column names: params then metrics, all distinct, into cols and types. */
static enum hpod_status
import_columns(json_t *params, json_t *metrics, const char **cols,
               const char **types, struct hpod_err *err)
{
    size_t np = json_array_size(params), nm = json_array_size(metrics);
    enum hpod_status st = HPOD_OK;
    char f[192];

    for (size_t k = 0; k < np && st == HPOD_OK; k++)
        st = import_param(json_array_get(params, k), k, &cols[k], &types[k],
                          err);
    for (size_t m = 0; m < nm && st == HPOD_OK; m++) {
        json_t *mv = json_array_get(metrics, m);
        snprintf(f, sizeof f, "metrics[%zu]", m);
        if (!json_is_string(mv))
            st = hpod_fail(err, HPOD_EINVAL, f, "%s must be a string", f);
        else
            cols[np + m] = json_string_value(mv);
    }
    for (size_t c = 0; c < np + nm && st == HPOD_OK; c++) {
        if (c < np)
            snprintf(f, sizeof f, "params[%zu].name", c);
        else
            snprintf(f, sizeof f, "metrics[%zu]", c - np);
        if (!valid_part(cols[c], strlen(cols[c])))
            st = hpod_fail(err, HPOD_EUNPROC, f,
                           "column name \"%.64s\" must be 1 to 64 letters, "
                           "digits, '_', '.' or '-'",
                           cols[c]);
        for (size_t c2 = 0; c2 < c && st == HPOD_OK; c2++)
            if (strcmp(cols[c], cols[c2]) == 0)
                st = hpod_fail(err, HPOD_EUNPROC, f, "duplicate column \"%s\"",
                               cols[c]);
    }
    return st;
}

/* The columns the table has. */
struct import_cols {
    json_t *params;
    const char **cols, **types;
    size_t np, nm;
    json_t **choice_sets; /* np: the choices seen, first-seen order */
};

/* Value v of column c in row f: present with the right type. */
static enum hpod_status
import_cell(const struct import_cols *ic, size_t c, json_t *v, const char *f,
            struct hpod_err *err)
{
    int is_param = c < ic->np;
    char ty = is_param ? ic->types[c][0] : 'f';
    double x;

    if (!v)
        return hpod_fail(err, HPOD_EUNPROC, f, "%s is missing", f);
    if (ty == 'c') {
        if (!json_is_string(v) || json_string_length(v) == 0)
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "%s must be a non-empty string", f);
        json_t *cs = ic->choice_sets[c];
        size_t q;
        for (q = 0; q < json_array_size(cs); q++)
            if (json_equal(v, json_array_get(cs, q)))
                break;
        if (q == json_array_size(cs))
            json_array_append(cs, v);
        return HPOD_OK;
    }
    if (ty == 'i' ? !json_is_integer(v) : !json_is_number(v))
        return hpod_fail(err, HPOD_EUNPROC, f, "%s must be %s", f,
                         ty == 'i' ? "an integer" : "a number");
    /* Held as doubles (parameters in core/space, metrics in the table): a
     * number a double would round is refused. */
    if ((ty == 'i' ? hj_int_field(v, f, &x, err)
                   : hj_number_field(v, f, &x, err)) != HPOD_OK)
        return HPOD_EUNPROC;
    if (is_param &&
        json_is_true(json_object_get(json_array_get(ic->params, c), "log")) &&
        !(json_number_value(v) > 0))
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "%s must be > 0 for a log-scaled parameter", f);
    return HPOD_OK;
}

/* rows[i]: every column present with the right type, nothing else. */
static enum hpod_status
import_row(const struct import_cols *ic, json_t *r, size_t i,
           struct hpod_err *err)
{
    size_t nc = ic->np + ic->nm;
    enum hpod_status st = HPOD_OK;
    const char *key;
    json_t *v;
    char f[192];

    snprintf(f, sizeof f, "rows[%zu]", i);
    if (!json_is_object(r))
        return hpod_fail(err, HPOD_EUNPROC, f, "%s must be an object", f);
    json_object_foreach(r, key, v)
    {
        size_t c;
        for (c = 0; c < nc && strcmp(ic->cols[c], key); c++)
            ;
        if (c == nc) {
            snprintf(f, sizeof f, "rows[%zu].%.64s", i, key);
            return hpod_fail(err, HPOD_EUNPROC, f, "unknown column \"%.64s\"",
                             key);
        }
    }
    for (size_t c = 0; c < nc && st == HPOD_OK; c++) {
        snprintf(f, sizeof f, "rows[%zu].%s", i, ic->cols[c]);
        st = import_cell(ic, c, json_object_get(r, ic->cols[c]), f, err);
    }
    return st;
}

/* The strings of choices sorted (byte order), for an order-free encoding. */
static json_t *
sorted_choices(json_t *choices)
{
    size_t nc = json_array_size(choices);
    const char **cs = xcalloc(nc ? nc : 1, sizeof *cs);
    for (size_t q = 0; q < nc; q++)
        cs[q] = json_string_value(json_array_get(choices, q));
    for (size_t a = 1; a < nc; a++)
        for (size_t b = a; b > 0 && strcmp(cs[b - 1], cs[b]) > 0; b--) {
            const char *t = cs[b];
            cs[b] = cs[b - 1];
            cs[b - 1] = t;
        }
    json_t *sorted = json_array();
    for (size_t q = 0; q < nc; q++)
        json_array_append_new(sorted, json_string(cs[q]));
    free(cs);
    return sorted;
}

/* The normalized params: name, type, log and sorted categorical choices. */
static json_t *
import_norm_params(const struct import_cols *ic)
{
    json_t *nparams = json_array();
    for (size_t k = 0; k < ic->np; k++) {
        json_t *p = json_array_get(ic->params, k);
        json_t *np_ = json_pack("{s:s, s:s, s:b}", "name", ic->cols[k], "type",
                                ic->types[k], "log",
                                json_is_true(json_object_get(p, "log")));
        if (ic->types[k][0] == 'c')
            json_object_set_new(np_, "choices",
                                sorted_choices(ic->choice_sets[k]));
        json_array_append_new(nparams, np_);
    }
    return nparams;
}

/* Duplicate configurations (the later row is named). */
static enum hpod_status
import_dups(const struct import_cols *ic, json_t *rows, json_t *nparams,
            struct hpod_err *err)
{
    size_t n = json_array_size(rows), np = ic->np, first, later;
    double *raw = xmalloc(n * np * sizeof *raw);
    enum hpod_status st = HPOD_OK;
    char f[192];

    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < np; k++)
            raw[i * np + k] = import_raw_value(
                json_object_get(json_array_get(rows, i), ic->cols[k]),
                json_object_get(json_array_get(nparams, k), "choices"));
    if (space_find_duplicate(raw, n, np, &first, &later)) {
        snprintf(f, sizeof f, "rows[%zu]", later);
        st = hpod_fail(err, HPOD_EUNPROC, f,
                       "rows[%zu] has the configuration of rows[%zu]", later,
                       first);
    }
    free(raw);
    return st;
}

/* See bench/import.h. */
enum hpod_status
import_validate(json_t *body, const char **name_out, json_t **def_out,
                struct hpod_err *err)
{
    json_t *params = NULL, *metrics = NULL, *rows = NULL, *nparams = NULL;
    json_t *def = NULL;
    struct import_cols ic;
    enum hpod_status st;

    *def_out = NULL;
    if ((st = import_head(body, name_out, &params, &metrics, &rows, err)) !=
        HPOD_OK)
        return st;
    ic.params = params;
    ic.np = json_array_size(params);
    ic.nm = json_array_size(metrics);
    ic.cols = xcalloc(ic.np + ic.nm, sizeof *ic.cols);
    ic.types = xcalloc(ic.np, sizeof *ic.types);
    ic.choice_sets = xcalloc(ic.np, sizeof *ic.choice_sets);
    for (size_t k = 0; k < ic.np; k++)
        ic.choice_sets[k] = json_array();
    st = import_columns(params, metrics, ic.cols, ic.types, err);
    for (size_t i = 0; i < json_array_size(rows) && st == HPOD_OK; i++)
        st = import_row(&ic, json_array_get(rows, i), i, err);
    if (st == HPOD_OK) {
        nparams = import_norm_params(&ic);
        def = json_pack("{s:O, s:O}", "params", nparams, "metrics", metrics);
        st = import_dups(&ic, rows, nparams, err);
    }
    for (size_t k = 0; k < ic.np; k++)
        json_decref(ic.choice_sets[k]);
    free(ic.choice_sets);
    free(ic.cols);
    free(ic.types);
    json_decref(nparams);
    if (st != HPOD_OK) {
        json_decref(def);
        return st;
    }
    *def_out = def;
    return HPOD_OK;
}
