/*
 * study/params.c - a study's parameters: the space's entries parsed and
 * normalized into core/space, and configurations to and from JSON; see
 * params.h. Error statuses as study/def.c's: HPOD_EINVAL (400) for the
 * wrong shape, HPOD_EUNPROC (422) for a broken rule.
 */
#include "study/params.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtoa.h"
#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "study/def_types.h"
#include "store/model.h"
#include "study/choices.h"

#define MAX_PARAMS 64

static enum hpod_status params_check_active(const struct study_def *d,
                                            const double *raw, const char *path,
                                            struct hpod_err *err);

/* One entry of "space", as read before its type decides the rest. */
struct param_in {
    json_t *p;
    char path[64];
    const char *name, *type;
    json_t *values, *choices, *logv;
    double low, high;
    int has_low, has_high, log;
};

static enum hpod_status
parse_categorical(const struct param_in *in, struct study_def *d, json_t **out,
                  struct hpod_err *err)
{
    enum hpod_status st;
    char f[128];
    if (in->has_low || in->has_high || in->values || in->logv) {
        hj_path(f, sizeof f, in->path,
                in->has_low    ? "low"
                : in->has_high ? "high"
                : in->values   ? "values"
                               : "log");
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "a categorical parameter takes only choices");
    }
    hj_path(f, sizeof f, in->path, "choices");
    if (!in->choices)
        return hpod_fail(err, HPOD_EINVAL, f, "%s is required", f);
    if (!json_is_array(in->choices))
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be an array", f);
    size_t n = json_array_size(in->choices);
    if (n == 0 || n > 1000)
        return hpod_fail(err, HPOD_EUNPROC, f, "%s must hold 1 to 1000 choices",
                         f);
    if ((st = choices_check(in->choices, f, err)) != HPOD_OK)
        return st;
    space_add_categorical(&d->space, n);
    *out = json_pack("{s:s, s:s, s:O}", "name", in->name, "type", "categorical",
                     "choices", in->choices);
    return HPOD_OK;
}

/* values[k] (field fk) of a numeric parameter given by its values. */
static enum hpod_status
parse_value(const struct param_in *in, enum param_type pt, double *v, size_t k,
            const char *fk, struct hpod_err *err)
{
    json_t *x = json_array_get(in->values, k);
    enum hpod_status st = pt == PARAM_INT ? hj_int_field(x, fk, &v[k], err)
                                          : hj_number_field(x, fk, &v[k], err);
    if (st != HPOD_OK)
        return st;
    if (in->log && !(v[k] > 0))
        return hpod_fail(err, HPOD_EUNPROC, fk,
                         "log-scaled values must be > 0");
    for (size_t k2 = 0; k2 < k; k2++)
        if (v[k2] == v[k]) {
            char num[HPOD_DTOA_SIZE];
            hpod_dtoa(v[k], num);
            return hpod_fail(err, HPOD_EUNPROC, fk, "duplicate value %s", num);
        }
    return HPOD_OK;
}

static enum hpod_status
parse_values(const struct param_in *in, enum param_type pt, struct study_def *d,
             json_t **out, struct hpod_err *err)
{
    char f[128];
    enum hpod_status st = HPOD_OK;
    hj_path(f, sizeof f, in->path, "values");
    if (in->has_low || in->has_high)
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "give either values or low and high, not "
                         "both");
    if (!json_is_array(in->values))
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be an array", f);
    size_t n = json_array_size(in->values);
    if (n == 0 || n > 10000)
        return hpod_fail(err, HPOD_EUNPROC, f, "%s must hold 1 to 10000 values",
                         f);
    double *v = xmalloc(n * sizeof *v);
    for (size_t k = 0; k < n && st == HPOD_OK; k++) {
        char fk[160];
        snprintf(fk, sizeof fk, "%s[%zu]", f, k);
        st = parse_value(in, pt, v, k, fk, err);
    }
    if (st == HPOD_OK &&
        space_add_values(&d->space, pt, v, n, in->log) != HPOD_OK)
        st = hpod_fail(err, HPOD_EUNPROC, f, "invalid values");
    free(v);
    if (st != HPOD_OK)
        return st;
    const struct param *sp = &d->space.params[d->space.n_params - 1];
    json_t *sorted = json_array();
    for (size_t k = 0; k < sp->n_values; k++)
        json_array_append_new(
            sorted, pt == PARAM_INT ? json_integer((json_int_t)sp->values[k])
                                    : json_real(sp->values[k]));
    *out = json_pack("{s:s, s:s, s:o, s:b}", "name", in->name, "type", in->type,
                     "values", sorted, "log", in->log);
    return HPOD_OK;
}

static enum hpod_status
parse_range(const struct param_in *in, enum param_type pt, struct study_def *d,
            json_t **out, struct hpod_err *err)
{
    char f[128];
    double low = in->low, high = in->high;
    enum hpod_status st;
    if (!in->has_low || !in->has_high) {
        hj_path(f, sizeof f, in->path, in->has_low ? "high" : "low");
        return hpod_fail(err, HPOD_EINVAL, f, "%s is required (or give values)",
                         f);
    }
    if (pt == PARAM_INT) {
        /* Integers within ±2^53, like an int parameter's values;
         * a float range may span any finite doubles. */
        hj_path(f, sizeof f, in->path, "low");
        if ((st = hj_int_field(json_object_get(in->p, "low"), f, &low, err)) !=
            HPOD_OK)
            return st;
        hj_path(f, sizeof f, in->path, "high");
        if ((st = hj_int_field(json_object_get(in->p, "high"), f, &high,
                               err)) != HPOD_OK)
            return st;
    }
    hj_path(f, sizeof f, in->path, "low");
    if (!(low < high))
        return hpod_fail(err, HPOD_EUNPROC, f, "%s must be < high", f);
    if (in->log && !(low > 0))
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "%s must be > 0 when log is true", f);
    if (space_add_range(&d->space, pt, low, high, in->log) != HPOD_OK)
        return hpod_fail(err, HPOD_EUNPROC, f, "invalid range");
    if (pt == PARAM_INT)
        *out = json_pack("{s:s, s:s, s:I, s:I, s:b}", "name", in->name, "type",
                         in->type, "low", (json_int_t)low, "high",
                         (json_int_t)high, "log", in->log);
    else
        *out = json_pack("{s:s, s:s, s:f, s:f, s:b}", "name", in->name, "type",
                         in->type, "low", low, "high", high, "log", in->log);
    return HPOD_OK;
}

/*
 * "condition" of the entry at path: {"param": name, "in": [value, ...]}
 * (1 to 1000 values), copied into out as it is; its names and values are
 * checked once every entry is read (resolve_conditions).
 */
static enum hpod_status
condition_shape(json_t *c, const char *path, json_t *out, struct hpod_err *err)
{
    static const char *const keys[] = {"param", "in", NULL};
    const char *param = NULL;
    char f[96], fin[112];
    enum hpod_status st;

    if (!c)
        return HPOD_OK;
    hj_path(f, sizeof f, path, "condition");
    if (!json_is_object(c))
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be an object", f);
    if ((st = hj_check_keys(c, keys, f, err)) != HPOD_OK ||
        (st = hj_get_string(c, f, "param", 1, &param, err)) != HPOD_OK)
        return st;
    json_t *in = json_object_get(c, "in");
    hj_path(fin, sizeof fin, f, "in");
    if (!in)
        return hpod_fail(err, HPOD_EINVAL, fin, "%s is required", fin);
    if (!json_is_array(in))
        return hpod_fail(err, HPOD_EINVAL, fin, "%s must be an array", fin);
    if (json_array_size(in) == 0 || json_array_size(in) > 1000)
        return hpod_fail(err, HPOD_EUNPROC, fin,
                         "%s must hold 1 to 1000 values", fin);
    json_object_set_new(out, "condition", json_deep_copy(c));
    return HPOD_OK;
}

/*
 * "added_in" of the entry at path: the space version at which the
 * parameter joined (2 or more; POST /v1/trials/{id}/params writes it):
 * trials without it have it inactive (*optional = 1). Copied into out.
 */
static enum hpod_status
added_in(json_t *p, const char *path, json_t *out, unsigned char *optional,
         struct hpod_err *err)
{
    long long v = 0;
    int has = 0;
    enum hpod_status st =
        hj_get_int(p, path, "added_in", 2, LLONG_MAX, &v, &has, err);
    if (st == HPOD_OK && has)
        json_object_set_new(out, "added_in", json_integer(v));
    *optional = (unsigned char)has;
    return st;
}

/*
 * "fixed": the parameter's one value from now on (PATCH /v1/studies/{id}
 * freezes a parameter). It is parsed as a parameter of that one value
 * (choices [v] or values [v], *one a new reference the caller drops), the
 * normalized form the definition stores; so low, high and a true log are
 * refused, and choices or values, when given, must be exactly [v].
 */
static enum hpod_status
fixed_entry(struct param_in *in, json_t **one, struct hpod_err *err)
{
    json_t *fx = json_object_get(in->p, "fixed");
    int cat = strcmp(in->type, "categorical") == 0;
    json_t *given = cat ? in->choices : in->values;
    char f[128];
    double x;

    *one = NULL;
    if (!fx)
        return HPOD_OK;
    hj_path(f, sizeof f, in->path, "fixed");
    if (cat ? !choices_kind(fx) : !json_is_number(fx))
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be %s", f,
                         cat ? "a string, a number or a boolean" : "a number");
    enum hpod_status st;
    if (!cat && strcmp(in->type, "int") == 0 &&
        (st = hj_int_field(fx, f, &x, err)) != HPOD_OK)
        return st;
    if (in->has_low || in->has_high || (in->logv && json_is_true(in->logv))) {
        hj_path(f, sizeof f, in->path,
                in->has_low ? "low" : (in->has_high ? "high" : "log"));
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "a fixed parameter has one value: leave %s out", f);
    }
    if (given && !(json_is_array(given) && json_array_size(given) == 1 &&
                   choices_same(json_array_get(given, 0), fx))) {
        hj_path(f, sizeof f, in->path, cat ? "choices" : "values");
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "a fixed parameter's only value is fixed: leave %s "
                         "out",
                         f);
    }
    *one = json_pack("[O]", fx);
    if (cat)
        in->choices = *one;
    else
        in->values = *one;
    return HPOD_OK;
}

/*
 * "default" of parameter i (parsed, at path): the value a configuration
 * without it is taken to have (the trials a study had before the
 * parameter joined it). A legal value of the parameter; not with a
 * condition (a default would make the parameter active where its
 * condition says it is not). Normalized into out; d->defaults[i] its raw
 * value, NaN without one.
 */
static enum hpod_status
parse_default(json_t *p, const char *path, struct study_def *d, size_t i,
              json_t *out, struct hpod_err *err)
{
    json_t *v = json_object_get(p, "default");
    const struct param *sp = &d->space.params[i];
    char f[128];
    double x = NAN;

    d->defaults[i] = NAN;
    if (!v)
        return HPOD_OK;
    hj_path(f, sizeof f, path, "default");
    if (json_object_get(p, "condition"))
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "%s: a conditional parameter takes no default", f);
    if (sp->type == PARAM_CATEGORICAL) {
        long c = params_choice_index(d, i, v);
        const char *want = choices_kind(json_array_get(d->choices[i], 0));
        if (c < 0 || !choices_kind(v) || strcmp(choices_kind(v), want) != 0)
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "%s must be one of the choices of %s", f,
                             d->names[i]);
        d->defaults[i] = (double)c;
        json_object_set(out, "default",
                        json_array_get(d->choices[i], (size_t)c));
        return HPOD_OK;
    }
    if (!json_is_number(v) || !hj_exact_number(v, &x) ||
        !space_contains(&d->space, i, x))
        return hpod_fail(err, HPOD_EUNPROC, f, "%s must be a legal value of %s",
                         f, d->names[i]);
    d->defaults[i] = x;
    json_object_set_new(out, "default",
                        sp->type == PARAM_INT ? json_integer((json_int_t)x)
                                              : json_real(x));
    return HPOD_OK;
}

static enum hpod_status
parse_param(json_t *p, size_t i, struct study_def *d, json_t *norm,
            struct hpod_err *err)
{
    static const char *const keys[] = {
        "name",    "type",      "low",      "high",    "log",   "values",
        "choices", "condition", "added_in", "default", "fixed", NULL};
    struct param_in in = {.p = p};
    char f[128];
    enum hpod_status st;
    json_t *out = NULL, *one = NULL;

    snprintf(in.path, sizeof in.path, "space[%zu]", i);
    if (!json_is_object(p))
        return hpod_fail(err, HPOD_EINVAL, in.path, "%s must be an object",
                         in.path);
    if ((st = hj_check_keys(p, keys, in.path, err)) != HPOD_OK ||
        (st = hj_get_string(p, in.path, "name", 1, &in.name, err)) != HPOD_OK ||
        (st = hj_get_string(p, in.path, "type", 1, &in.type, err)) != HPOD_OK)
        return st;
    hj_path(f, sizeof f, in.path, "name");
    if (!metric_name_ok(in.name))
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "parameter name \"%.64s\" must be 1 to 64 letters, "
                         "digits, '_', '.' or '-'",
                         in.name);
    for (size_t k = 0; k < i; k++)
        if (strcmp(d->names[k], in.name) == 0)
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "duplicate parameter name \"%s\"", in.name);
    in.values = json_object_get(p, "values");
    in.choices = json_object_get(p, "choices");
    in.logv = json_object_get(p, "log");
    if ((st = hj_get_number(p, in.path, "low", &in.low, &in.has_low, err)) !=
            HPOD_OK ||
        (st = hj_get_number(p, in.path, "high", &in.high, &in.has_high, err)) !=
            HPOD_OK)
        return st;
    if (in.logv && !json_is_boolean(in.logv)) {
        hj_path(f, sizeof f, in.path, "log");
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be true or false", f);
    }
    in.log = in.logv && json_is_true(in.logv);
    if ((st = fixed_entry(&in, &one, err)) != HPOD_OK)
        return st;

    if (strcmp(in.type, "categorical") == 0) {
        st = parse_categorical(&in, d, &out, err);
    } else if (strcmp(in.type, "float") == 0 || strcmp(in.type, "int") == 0) {
        enum param_type pt = in.type[0] == 'f' ? PARAM_FLOAT : PARAM_INT;
        if (in.choices) {
            hj_path(f, sizeof f, in.path, "choices");
            st = hpod_fail(err, HPOD_EUNPROC, f,
                           "only categorical parameters take choices");
        } else {
            st = in.values ? parse_values(&in, pt, d, &out, err)
                           : parse_range(&in, pt, d, &out, err);
        }
    } else {
        hj_path(f, sizeof f, in.path, "type");
        st = hpod_fail(err, HPOD_EUNPROC, f,
                       "type must be float, int or categorical, not "
                       "\"%.40s\"",
                       in.type);
    }
    json_decref(one);
    if (st == HPOD_OK && json_object_get(p, "fixed"))
        json_object_set(
            out, "fixed",
            json_array_get(
                json_object_get(out, in.choices ? "choices" : "values"), 0));
    if (st == HPOD_OK)
        st =
            condition_shape(json_object_get(p, "condition"), in.path, out, err);
    if (st == HPOD_OK)
        st = added_in(p, in.path, out, &d->optional[i], err);
    if (st == HPOD_OK) {
        d->names[i] = json_string_value(json_object_get(out, "name"));
        d->choices[i] = json_object_get(out, "choices");
        st = parse_default(p, in.path, d, i, out, err);
    }
    if (st != HPOD_OK) {
        json_decref(out);
        return st;
    }
    json_array_append_new(norm, out);
    d->names[i] = json_string_value(json_object_get(out, "name"));
    d->choices[i] = json_object_get(out, "choices");
    return HPOD_OK;
}

enum hpod_status
params_from_json(const struct study_def *d, json_t *obj, double *raw,
                 const char *path, struct hpod_err *err)
{
    const char *key;
    json_t *v;
    char f[192];

    if (!json_is_object(obj))
        return hpod_fail(err, HPOD_EUNPROC, path, "%s must be an object", path);
    json_object_foreach(obj, key, v)
    {
        size_t i;
        for (i = 0; i < d->space.n_params; i++)
            if (strcmp(d->names[i], key) == 0)
                break;
        if (i == d->space.n_params) {
            snprintf(f, sizeof f, "%s.%.64s", path, key);
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "unknown parameter \"%.64s\"", key);
        }
    }
    for (size_t i = 0; i < d->space.n_params; i++) {
        const struct param *p = &d->space.params[i];
        snprintf(f, sizeof f, "%s.%s", path, d->names[i]);
        v = json_object_get(obj, d->names[i]);
        raw[i] = NAN;
        if (!v && d->defaults && !isnan(d->defaults[i]))
            raw[i] = d->defaults[i]; /* from before it joined */
        if (!v)
            continue; /* missing, or inactive: said below */
        if (p->type == PARAM_CATEGORICAL) {
            const char *kind = choices_kind(json_array_get(d->choices[i], 0));
            long c = params_choice_index(d, i, v);
            if (!choices_kind(v) || strcmp(choices_kind(v), kind) != 0)
                return hpod_fail(err, HPOD_EUNPROC, f, "%s must be a %s", f,
                                 kind);
            if (c < 0) {
                char *text = hj_dump(v, 0);
                hpod_fail(err, HPOD_EUNPROC, f, "%.60s is not a choice of %s",
                          text, d->names[i]);
                free(text);
                return HPOD_EUNPROC;
            }
            raw[i] = (double)c;
            continue;
        }
        if (!json_is_number(v))
            return hpod_fail(err, HPOD_EUNPROC, f, "%s must be a number", f);
        if (!hj_exact_number(v, &raw[i]))
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "%" JSON_INTEGER_FORMAT
                             " is not a legal value of %s",
                             json_integer_value(v), d->names[i]);
        if (!space_contains(&d->space, i, raw[i])) {
            char num[HPOD_DTOA_SIZE];
            hpod_dtoa(raw[i], num);
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "%s is not a legal value of %s", num, d->names[i]);
        }
    }
    return params_check_active(d, raw, path, err);
}

/*
 * The parameters of configuration raw (NaN: not given) against their
 * conditions: an active one must be given, an inactive one must not.
 */
static enum hpod_status
params_check_active(const struct study_def *d, const double *raw,
                    const char *path, struct hpod_err *err)
{
    size_t np = d->space.n_params;
    unsigned char active[64];
    char f[192];

    space_active(&d->space, raw, active);
    for (size_t i = 0; i < np; i++) {
        const struct param *p = &d->space.params[i];
        snprintf(f, sizeof f, "%s.%s", path, d->names[i]);
        if (active[i] && isnan(raw[i]) && !d->define_by_run && !d->optional[i])
            return hpod_fail(err, HPOD_EUNPROC, f, "%s is missing", f);
        if (!active[i] && !isnan(raw[i]))
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "%s is inactive here (its condition on %s does "
                             "not hold): leave it out",
                             f, d->names[p->parent]);
    }
    return HPOD_OK;
}

json_t *
params_to_json(const struct study_def *d, const double *raw)
{
    json_t *o = json_object();
    unsigned char active[MAX_PARAMS];
    space_active(&d->space, raw, active);
    for (size_t i = 0; i < d->space.n_params; i++) {
        const struct param *p = &d->space.params[i];
        json_t *v;
        if (isnan(raw[i]) || !active[i])
            continue; /* inactive: absent from the configuration */
        if (p->type == PARAM_CATEGORICAL)
            v = json_incref(json_array_get(d->choices[i], (size_t)raw[i]));
        else if (p->type == PARAM_INT)
            v = json_integer((json_int_t)llround(raw[i]));
        else
            v = json_real(raw[i]);
        json_object_set_new(o, d->names[i], v);
    }
    return o;
}

/* ---- conditions ---- */

/* The index of parameter name in d, or n_params. */
static size_t
param_index(const struct study_def *d, size_t n, const char *name)
{
    for (size_t j = 0; j < n; j++)
        if (strcmp(d->names[j], name) == 0)
            return j;
    return n;
}

/*
 * A cycle of conditions through parameter i (parent[] holds each
 * conditional parameter's parent, (size_t)-1 for the others): 422 naming
 * space[i].condition and the path, "a -> b -> a" (a's condition names b,
 * b's names a).
 */
static enum hpod_status
check_cycle(const struct study_def *d, const size_t *parent, size_t n, size_t i,
            struct hpod_err *err)
{
    size_t k = parent[i], steps = 0;
    while (k != (size_t)-1 && k != i && steps++ < n)
        k = parent[k];
    if (k != i)
        return HPOD_OK;
    char path[1024], f[64];
    size_t len = (size_t)snprintf(path, sizeof path, "%s", d->names[i]);
    k = i;
    do {
        k = parent[k];
        if (len < sizeof path)
            len += (size_t)snprintf(path + len, sizeof path - len, " -> %s",
                                    d->names[k]);
    } while (k != i);
    snprintf(f, sizeof f, "space[%zu].condition", i);
    return hpod_fail(err, HPOD_EUNPROC, f,
                     "%s: conditions must not cycle: %.900s", f, path);
}

/*
 * Value k of condition c of parameter i, whose parent is j: one of j's
 * values, of its type. *raw gets it as a raw value, *norm as the
 * definition holds it (new reference).
 */
static enum hpod_status
condition_value(const struct study_def *d, size_t i, size_t j, json_t *v,
                size_t k, double *raw, json_t **norm, struct hpod_err *err)
{
    const struct param *q = &d->space.params[j];
    char f[96];
    snprintf(f, sizeof f, "space[%zu].condition.in[%zu]", i, k);
    if (q->type == PARAM_CATEGORICAL) {
        long c = params_choice_index(d, j, v);
        const char *want = choices_kind(json_array_get(d->choices[j], 0));
        if (c < 0 || !choices_kind(v) || strcmp(choices_kind(v), want) != 0) {
            char *text = hj_dump(v, 0);
            hpod_fail(err, HPOD_EUNPROC, f, "%s: %.60s is not a choice of %s",
                      f, text ? text : "?", d->names[j]);
            free(text);
            return HPOD_EUNPROC;
        }
        *raw = (double)c;
        *norm = json_incref(json_array_get(d->choices[j], (size_t)c));
        return HPOD_OK;
    }
    if (!json_is_number(v) || !hj_exact_number(v, raw) ||
        !space_contains(&d->space, j, *raw))
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "%s must be one of the values of %s", f, d->names[j]);
    *norm =
        q->type == PARAM_INT ? json_integer((json_int_t)*raw) : json_real(*raw);
    return HPOD_OK;
}

/* Parameter i's condition c (parent j): its values, set in d->space;
 * the normalized "in" replaces c's. */
static enum hpod_status
set_condition(struct study_def *d, size_t i, size_t j, json_t *c,
              struct hpod_err *err)
{
    const struct param *q = &d->space.params[j];
    json_t *in = json_object_get(c, "in"), *norm = json_array();
    size_t n = json_array_size(in);
    double *raw = xmalloc(n * sizeof *raw);
    enum hpod_status st = HPOD_OK;
    char f[96];

    snprintf(f, sizeof f, "space[%zu].condition.param", i);
    if (q->type != PARAM_CATEGORICAL && q->n_values == 0)
        st = hpod_fail(err, HPOD_EUNPROC, f,
                       "%s: %s takes a range of values; a condition's "
                       "parameter is a categorical or one given by values",
                       f, d->names[j]);
    for (size_t k = 0; k < n && st == HPOD_OK; k++) {
        json_t *nv = NULL;
        st = condition_value(d, i, j, json_array_get(in, k), k, &raw[k], &nv,
                             err);
        if (st == HPOD_OK)
            json_array_append_new(norm, nv);
    }
    if (st == HPOD_OK &&
        space_set_condition(&d->space, i, j, raw, n) != HPOD_OK)
        st = hpod_fail(err, HPOD_EUNPROC, f, "%s: invalid condition", f);
    if (st == HPOD_OK)
        json_object_set(c, "in", norm);
    json_decref(norm);
    free(raw);
    return st;
}

/*
 * The conditions of the n entries of norm: each names another parameter
 * (422 otherwise), none cycles (422 naming the path), and each holds
 * values of its parameter, which has discrete values.
 */
static enum hpod_status
resolve_conditions(struct study_def *d, json_t *norm, size_t n,
                   struct hpod_err *err)
{
    size_t *parent = xmalloc((n ? n : 1) * sizeof *parent);
    enum hpod_status st = HPOD_OK;

    for (size_t i = 0; i < n && st == HPOD_OK; i++) {
        json_t *c = json_object_get(json_array_get(norm, i), "condition");
        parent[i] = (size_t)-1;
        if (!c)
            continue;
        const char *name = json_string_value(json_object_get(c, "param"));
        if ((parent[i] = param_index(d, n, name)) == n) {
            char f[96];
            snprintf(f, sizeof f, "space[%zu].condition.param", i);
            st = hpod_fail(err, HPOD_EUNPROC, f,
                           "%s: no parameter \"%.64s\" in the space", f, name);
        }
    }
    for (size_t i = 0; i < n && st == HPOD_OK; i++)
        st = check_cycle(d, parent, n, i, err);
    for (size_t i = 0; i < n && st == HPOD_OK; i++)
        if (parent[i] != (size_t)-1)
            st = set_condition(
                d, i, parent[i],
                json_object_get(json_array_get(norm, i), "condition"), err);
    free(parent);
    return st;
}

/* "space": 1 to MAX_PARAMS parameters, normalized into norm. */
enum hpod_status
params_parse_space(json_t *space, struct study_def *d, json_t *norm,
                   struct hpod_err *err)
{
    enum hpod_status st;
    if (!space)
        return hpod_fail(err, HPOD_EINVAL, "space", "space is required");
    if (!json_is_array(space))
        return hpod_fail(err, HPOD_EINVAL, "space", "space must be an array");
    size_t np = json_array_size(space);
    if (np > MAX_PARAMS)
        return hpod_fail(err, HPOD_EUNPROC, "space",
                         "space must hold at most %d parameters (none: "
                         "define-by-run)",
                         MAX_PARAMS);
    d->names = xcalloc(np ? np : 1, sizeof *d->names);
    d->choices = xcalloc(np ? np : 1, sizeof *d->choices);
    d->optional = xcalloc(np ? np : 1, 1);
    d->defaults = xcalloc(np ? np : 1, sizeof *d->defaults);
    for (size_t i = 0; i < np; i++)
        if ((st = parse_param(json_array_get(space, i), i, d, norm, err)) !=
            HPOD_OK)
            return st;
    return resolve_conditions(d, norm, np, err);
}

long
params_choice_index(const struct study_def *d, size_t i, const json_t *v)
{
    json_t *ch = d->choices[i];
    for (size_t c = 0; c < json_array_size(ch); c++)
        if (choices_same(v, json_array_get(ch, c)))
            return (long)c;
    return -1;
}

enum hpod_status
params_parse_dbr(json_t *body, struct study_def *d, struct hpod_err *err)
{
    json_t *v = json_object_get(body, "define_by_run");
    long long version = 1;
    int has = 0;
    enum hpod_status st;

    if (v && !json_is_null(v) && !json_is_boolean(v))
        return hpod_fail(err, HPOD_EINVAL, "define_by_run",
                         "define_by_run must be true or false");
    d->define_by_run = json_is_true(v) || d->space.n_params == 0;
    if ((st = hj_get_int(body, "", "space_version", 1, LLONG_MAX, &version,
                         &has, err)) != HPOD_OK)
        return st;
    d->space_version = version;
    return HPOD_OK;
}

void
params_dbr_to_def(const struct study_def *d, json_t *def)
{
    /* Only a define-by-run study, or one whose space grew, has these keys:
     * the stored definitions of every other study stay as they were. */
    if (d->define_by_run)
        json_object_set_new(def, "define_by_run", json_true());
    if (d->space_version > 1)
        json_object_set_new(def, "space_version",
                            json_integer(d->space_version));
}
