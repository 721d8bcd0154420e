/*
 * study/def.c - validation and mapping of JSON resources; see
 * def.h. Error statuses: HPOD_EINVAL (400) when the JSON has the
 * wrong shape (type, missing or unknown field), HPOD_EUNPROC (422) when
 * the shape is right but a rule is broken.
 */
#include "study/def.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/kernels.h"
#include "common/mem.h"
#include "common/dtoa.h"
#include "common/err.h"

#define MAX_PARAMS 64
#define MAX_CANDIDATES 100000
#define MAX_BUDGET 10000000

static void
fieldf(char *out, size_t n, const char *path, const char *key)
{
    snprintf(out, n, "%s%s%s", path, *path && *key ? "." : "", key);
}

/* Optional integer field with bounds; *present says whether it was there. */
static enum hpod_status
get_int(json_t *obj, const char *key, const char *path, long long min,
        long long max, long long *out, int *present, struct hpod_err *err)
{
    char f[128];
    json_t *v = json_object_get(obj, key);
    fieldf(f, sizeof f, path, key);
    *present = v != NULL && !json_is_null(v);
    if (!*present)
        return HPOD_OK;
    if (!json_is_integer(v))
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be an integer", f);
    long long x = json_integer_value(v);
    if (x < min || x > max)
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "%s must be between %lld and %lld", f, min, max);
    *out = x;
    return HPOD_OK;
}

static enum hpod_status
get_string(json_t *obj, const char *key, const char *path, int required,
           const char **out, struct hpod_err *err)
{
    char f[128];
    json_t *v = json_object_get(obj, key);
    fieldf(f, sizeof f, path, key);
    *out = NULL;
    if (!v || json_is_null(v)) {
        if (required)
            return hpod_fail(err, HPOD_EINVAL, f, "%s is required", f);
        return HPOD_OK;
    }
    if (!json_is_string(v))
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be a string", f);
    *out = json_string_value(v);
    return HPOD_OK;
}

static enum hpod_status
get_number(json_t *obj, const char *key, const char *path, double *out,
           int *present, struct hpod_err *err)
{
    char f[128];
    json_t *v = json_object_get(obj, key);
    fieldf(f, sizeof f, path, key);
    *present = v != NULL;
    if (!v)
        return HPOD_OK;
    return hj_number_field(v, f, out, err);
}

/* ---- the search space ---- */

static enum hpod_status
parse_param(json_t *p, size_t i, struct study_def *d, json_t *norm,
            struct hpod_err *err)
{
    static const char *const keys[] = {"name", "type",   "low",     "high",
                                       "log",  "values", "choices", NULL};
    char path[64], f[128];
    const char *name, *type;
    enum hpod_status st;
    json_t *values, *choices, *logv, *out = NULL;
    double low = 0, high = 0;
    int has_low, has_high, log = 0;

    snprintf(path, sizeof path, "space[%zu]", i);
    if (!json_is_object(p))
        return hpod_fail(err, HPOD_EINVAL, path, "%s must be an object", path);
    if ((st = hj_check_keys(p, keys, path, err)) != HPOD_OK ||
        (st = get_string(p, "name", path, 1, &name, err)) != HPOD_OK ||
        (st = get_string(p, "type", path, 1, &type, err)) != HPOD_OK)
        return st;
    fieldf(f, sizeof f, path, "name");
    if (!metric_name_ok(name))
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "parameter name \"%.64s\" must be 1 to 64 letters, "
                         "digits, '_', '.' or '-'",
                         name);
    for (size_t k = 0; k < i; k++)
        if (strcmp(d->names[k], name) == 0)
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "duplicate parameter name \"%s\"", name);
    values = json_object_get(p, "values");
    choices = json_object_get(p, "choices");
    logv = json_object_get(p, "log");
    if ((st = get_number(p, "low", path, &low, &has_low, err)) != HPOD_OK ||
        (st = get_number(p, "high", path, &high, &has_high, err)) != HPOD_OK)
        return st;
    if (logv && !json_is_boolean(logv)) {
        fieldf(f, sizeof f, path, "log");
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be true or false", f);
    }
    log = logv && json_is_true(logv);

    if (strcmp(type, "categorical") == 0) {
        if (has_low || has_high || values || logv) {
            fieldf(f, sizeof f, path,
                   has_low    ? "low"
                   : has_high ? "high"
                   : values   ? "values"
                              : "log");
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "a categorical parameter takes only choices");
        }
        fieldf(f, sizeof f, path, "choices");
        if (!choices)
            return hpod_fail(err, HPOD_EINVAL, f, "%s is required", f);
        if (!json_is_array(choices))
            return hpod_fail(err, HPOD_EINVAL, f, "%s must be an array", f);
        size_t n = json_array_size(choices);
        if (n == 0 || n > 1000)
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "%s must hold 1 to 1000 choices", f);
        for (size_t c = 0; c < n; c++) {
            json_t *cv = json_array_get(choices, c);
            char fc[160];
            snprintf(fc, sizeof fc, "%s[%zu]", f, c);
            if (!json_is_string(cv))
                return hpod_fail(err, HPOD_EINVAL, fc, "%s must be a string",
                                 fc);
            if (json_string_length(cv) == 0 || json_string_length(cv) > 200)
                return hpod_fail(err, HPOD_EUNPROC, fc,
                                 "%s must be 1 to 200 characters", fc);
            for (size_t c2 = 0; c2 < c; c2++)
                if (json_equal(cv, json_array_get(choices, c2)))
                    return hpod_fail(err, HPOD_EUNPROC, fc,
                                     "duplicate choice \"%s\"",
                                     json_string_value(cv));
        }
        space_add_categorical(&d->space, n);
        out = json_pack("{s:s, s:s, s:O}", "name", name, "type", "categorical",
                        "choices", choices);
    } else if (strcmp(type, "float") == 0 || strcmp(type, "int") == 0) {
        enum param_type pt = type[0] == 'f' ? PARAM_FLOAT : PARAM_INT;
        if (choices) {
            fieldf(f, sizeof f, path, "choices");
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "only categorical parameters take choices");
        }
        if (values) {
            fieldf(f, sizeof f, path, "values");
            if (has_low || has_high)
                return hpod_fail(err, HPOD_EUNPROC, f,
                                 "give either values or low and high, not "
                                 "both");
            if (!json_is_array(values))
                return hpod_fail(err, HPOD_EINVAL, f, "%s must be an array", f);
            size_t n = json_array_size(values);
            if (n == 0 || n > 10000)
                return hpod_fail(err, HPOD_EUNPROC, f,
                                 "%s must hold 1 to 10000 values", f);
            double *v = xmalloc(n * sizeof *v);
            for (size_t k = 0; k < n; k++) {
                json_t *x = json_array_get(values, k);
                char fk[160];
                snprintf(fk, sizeof fk, "%s[%zu]", f, k);
                st = pt == PARAM_INT ? hj_int_field(x, fk, &v[k], err)
                                     : hj_number_field(x, fk, &v[k], err);
                if (st != HPOD_OK) {
                    free(v);
                    return st;
                }
                if (log && !(v[k] > 0)) {
                    free(v);
                    return hpod_fail(err, HPOD_EUNPROC, fk,
                                     "log-scaled values must be > 0");
                }
                for (size_t k2 = 0; k2 < k; k2++)
                    if (v[k2] == v[k]) {
                        char num[HPOD_DTOA_SIZE];
                        hpod_dtoa(v[k], num);
                        free(v);
                        return hpod_fail(err, HPOD_EUNPROC, fk,
                                         "duplicate value %s", num);
                    }
            }
            st = space_add_values(&d->space, pt, v, n, log);
            free(v);
            if (st != HPOD_OK)
                return hpod_fail(err, HPOD_EUNPROC, f, "invalid values");
            const struct param *sp = &d->space.params[d->space.n_params - 1];
            json_t *sorted = json_array();
            for (size_t k = 0; k < sp->n_values; k++)
                json_array_append_new(
                    sorted, pt == PARAM_INT
                                ? json_integer((json_int_t)sp->values[k])
                                : json_real(sp->values[k]));
            out = json_pack("{s:s, s:s, s:o, s:b}", "name", name, "type", type,
                            "values", sorted, "log", log);
        } else {
            if (!has_low || !has_high) {
                fieldf(f, sizeof f, path, has_low ? "high" : "low");
                return hpod_fail(err, HPOD_EINVAL, f,
                                 "%s is required (or give values)", f);
            }
            if (pt == PARAM_INT) {
                /* Integers within ±2^53, like an int parameter's values;
                 * a float range may span any finite doubles. */
                fieldf(f, sizeof f, path, "low");
                if ((st = hj_int_field(json_object_get(p, "low"), f, &low,
                                       err)) != HPOD_OK)
                    return st;
                fieldf(f, sizeof f, path, "high");
                if ((st = hj_int_field(json_object_get(p, "high"), f, &high,
                                       err)) != HPOD_OK)
                    return st;
            }
            fieldf(f, sizeof f, path, "low");
            if (!(low < high))
                return hpod_fail(err, HPOD_EUNPROC, f, "%s must be < high", f);
            if (log && !(low > 0))
                return hpod_fail(err, HPOD_EUNPROC, f,
                                 "%s must be > 0 when log is true", f);
            if (space_add_range(&d->space, pt, low, high, log) != HPOD_OK)
                return hpod_fail(err, HPOD_EUNPROC, f, "invalid range");
            if (pt == PARAM_INT)
                out = json_pack("{s:s, s:s, s:I, s:I, s:b}", "name", name,
                                "type", type, "low", (json_int_t)low, "high",
                                (json_int_t)high, "log", log);
            else
                out =
                    json_pack("{s:s, s:s, s:f, s:f, s:b}", "name", name, "type",
                              type, "low", low, "high", high, "log", log);
        }
    } else {
        fieldf(f, sizeof f, path, "type");
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "type must be float, int or categorical, not "
                         "\"%.40s\"",
                         type);
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
        if (!v)
            return hpod_fail(err, HPOD_EUNPROC, f, "%s is missing", f);
        if (p->type == PARAM_CATEGORICAL) {
            size_t c, n = json_array_size(d->choices[i]);
            if (!json_is_string(v))
                return hpod_fail(err, HPOD_EUNPROC, f, "%s must be a string",
                                 f);
            for (c = 0; c < n; c++)
                if (json_equal(v, json_array_get(d->choices[i], c)))
                    break;
            if (c == n)
                return hpod_fail(err, HPOD_EUNPROC, f,
                                 "\"%.60s\" is not a choice of %s",
                                 json_string_value(v), d->names[i]);
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
    return HPOD_OK;
}

json_t *
params_to_json(const struct study_def *d, const double *raw)
{
    json_t *o = json_object();
    for (size_t i = 0; i < d->space.n_params; i++) {
        const struct param *p = &d->space.params[i];
        json_t *v;
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

static enum hpod_status
parse_candidates(json_t *arr, struct study_def *d, struct hpod_err *err)
{
    size_t n, w = d->space.n_params;
    double *raw = NULL;
    enum hpod_status st = HPOD_OK;
    json_t *norm = NULL;

    if (!json_is_array(arr))
        return hpod_fail(err, HPOD_EINVAL, "candidates",
                         "candidates must be an array");
    n = json_array_size(arr);
    if (n == 0 || n > MAX_CANDIDATES)
        return hpod_fail(err, HPOD_EUNPROC, "candidates",
                         "candidates must hold 1 to %d configurations",
                         MAX_CANDIDATES);
    raw = xmalloc(n * w * sizeof *raw);
    norm = json_array();
    for (size_t j = 0; j < n; j++) {
        char path[48];
        snprintf(path, sizeof path, "candidates[%zu]", j);
        if ((st = params_from_json(d, json_array_get(arr, j), raw + j * w, path,
                                   err)) != HPOD_OK)
            goto out;
        json_array_append_new(norm, params_to_json(d, raw + j * w));
    }
    size_t first, later;
    if (space_find_duplicate(raw, n, w, &first, &later)) {
        char path[48];
        snprintf(path, sizeof path, "candidates[%zu]", later);
        st = hpod_fail(err, HPOD_EUNPROC, path,
                       "candidates[%zu] duplicates candidates[%zu]", later,
                       first);
        goto out;
    }
    d->candidates = norm;
    norm = NULL;
out:
    json_decref(norm);
    free(raw);
    return st;
}

/* ---- objectives, constraints, algorithm ---- */

static enum hpod_status
parse_objectives(json_t *arr, struct study_def *d, json_t *norm,
                 struct hpod_err *err)
{
    static const char *const keys[] = {"name", "goal", NULL};
    enum hpod_status st;
    if (!json_is_array(arr))
        return hpod_fail(err, HPOD_EINVAL, "objectives",
                         "objectives must be an array");
    size_t n = json_array_size(arr);
    if (n == 0 || n > MODEL_MAX_OBJECTIVES)
        return hpod_fail(err, HPOD_EUNPROC, "objectives",
                         "objectives must hold 1 to %d objectives",
                         MODEL_MAX_OBJECTIVES);
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i);
        char path[48], f[96];
        const char *name, *goal;
        snprintf(path, sizeof path, "objectives[%zu]", i);
        if (!json_is_object(o))
            return hpod_fail(err, HPOD_EINVAL, path, "%s must be an object",
                             path);
        if ((st = hj_check_keys(o, keys, path, err)) != HPOD_OK ||
            (st = get_string(o, "name", path, 1, &name, err)) != HPOD_OK ||
            (st = get_string(o, "goal", path, 1, &goal, err)) != HPOD_OK)
            return st;
        fieldf(f, sizeof f, path, "name");
        if (!metric_name_ok(name))
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "metric name \"%.64s\" must be 1 to 64 letters, "
                             "digits, '_', '.' or '-'",
                             name);
        for (size_t k = 0; k < i; k++)
            if (strcmp(d->obj_names[k], name) == 0)
                return hpod_fail(err, HPOD_EUNPROC, f,
                                 "duplicate objective \"%s\"", name);
        fieldf(f, sizeof f, path, "goal");
        if (strcmp(goal, "maximize") && strcmp(goal, "minimize"))
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "goal must be maximize or minimize");
        json_t *no = json_pack("{s:s, s:s}", "name", name, "goal", goal);
        json_array_append_new(norm, no);
        d->obj_names[i] = json_string_value(json_object_get(no, "name"));
        d->obj_sense[i] = goal[1] == 'a' ? 1 : -1;
    }
    d->n_objectives = n;
    return HPOD_OK;
}

static enum hpod_status
parse_constraints(json_t *arr, json_t *norm, struct hpod_err *err)
{
    static const char *const keys[] = {"metric", "max", "min", "confidence",
                                       NULL};
    enum hpod_status st;
    if (!json_is_array(arr))
        return hpod_fail(err, HPOD_EINVAL, "constraints",
                         "constraints must be an array");
    if (json_array_size(arr) > MODEL_MAX_CONSTRAINTS)
        return hpod_fail(err, HPOD_EUNPROC, "constraints",
                         "at most 16 constraints");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *c = json_array_get(arr, i);
        char path[48], f[96];
        const char *metric;
        double max = 0, min = 0, conf = 0.5;
        int has_max, has_min, has_conf;
        snprintf(path, sizeof path, "constraints[%zu]", i);
        if (!json_is_object(c))
            return hpod_fail(err, HPOD_EINVAL, path, "%s must be an object",
                             path);
        if ((st = hj_check_keys(c, keys, path, err)) != HPOD_OK ||
            (st = get_string(c, "metric", path, 1, &metric, err)) != HPOD_OK ||
            (st = get_number(c, "max", path, &max, &has_max, err)) != HPOD_OK ||
            (st = get_number(c, "min", path, &min, &has_min, err)) != HPOD_OK ||
            (st = get_number(c, "confidence", path, &conf, &has_conf, err)) !=
                HPOD_OK)
            return st;
        fieldf(f, sizeof f, path, "metric");
        if (!metric_name_ok(metric))
            return hpod_fail(err, HPOD_EUNPROC, f, "invalid metric name");
        if (has_max == has_min)
            return hpod_fail(err, HPOD_EUNPROC, path,
                             "%s needs exactly one of max and min", path);
        fieldf(f, sizeof f, path, "confidence");
        if (!(conf > 0 && conf < 1))
            return hpod_fail(err, HPOD_EUNPROC, f, "%s must be between 0 and 1",
                             f);
        json_t *nc = json_pack("{s:s, s:f, s:f}", "metric", metric,
                               has_max ? "max" : "min", has_max ? max : min,
                               "confidence", conf);
        json_array_append_new(norm, nc);
    }
    return HPOD_OK;
}

static unsigned long long
fresh_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* Below 2^53 so it survives a round trip through any JSON client. */
    return ((unsigned long long)ts.tv_nsec * 2654435761ULL ^
            (unsigned long long)ts.tv_sec ^
            ((unsigned long long)getpid() << 20)) &
           ((1ULL << 53) - 1);
}

static enum hpod_status
pick(const char *value, const char *const *options, const char *field, int *out,
     struct hpod_err *err)
{
    for (int i = 0; options[i]; i++)
        if (strcmp(value, options[i]) == 0) {
            *out = i;
            return HPOD_OK;
        }
    return hpod_fail(err, HPOD_EUNPROC, field, "unknown %s \"%.40s\"", field,
                     value);
}

static enum hpod_status parse_algorithm(json_t *a, struct study_def *d,
                                        json_t **norm, struct hpod_err *err);

enum hpod_status
algo_from_json(json_t *a, struct algo_def *algo, json_t **norm,
               struct hpod_err *err)
{
    struct study_def d;
    enum hpod_status st;
    memset(&d, 0, sizeof d);
    st = parse_algorithm(a, &d, norm, err);
    *algo = d.algo;
    return st;
}

/*
 * parse_base - the sampler that proposes new configurations under asha and
 * multistage: base (random|gp|graph), its kernel and acquisition; the
 * returned strings are the normalized names (static or borrowed from a).
 */
static enum hpod_status
parse_base(json_t *a, struct study_def *d, const char **base,
           const char **kernel, const char **acq, struct hpod_err *err)
{
    static const char *const bases[] = {"random", "gp", "graph", NULL};
    static const char *const kernels[] = {"matern52", "rbf", NULL};
    static const char *const acq_gp[] = {"ei", "pi", "ucb", NULL};
    static const char *const acq_graph[] = {"ei", "eif", NULL};
    enum hpod_status st;

    if ((st = get_string(a, "base", "algorithm", 0, base, err)) != HPOD_OK ||
        (st = get_string(a, "kernel", "algorithm", 0, kernel, err)) !=
            HPOD_OK ||
        (st = get_string(a, "acquisition", "algorithm", 0, acq, err)) !=
            HPOD_OK)
        return st;
    *base = *base ? *base : "random";
    *kernel = *kernel ? *kernel : "matern52";
    if ((st = pick(*base, bases, "algorithm.base", &d->algo.base, err)) !=
            HPOD_OK ||
        (st = pick(*kernel, kernels, "algorithm.kernel", &d->algo.kernel,
                   err)) != HPOD_OK)
        return st;
    *acq = *acq ? *acq : d->algo.base == ALGO_GRAPH ? "eif" : "ei";
    if ((st = pick(*acq, d->algo.base == ALGO_GRAPH ? acq_graph : acq_gp,
                   "algorithm.acquisition", &d->algo.acquisition, err)) !=
        HPOD_OK)
        return st;
    d->algo.kernel = d->algo.kernel == 0 ? KERNEL_MATERN52 : KERNEL_RBF;
    return HPOD_OK;
}

/* A required key of the object at path is missing: 400 naming it. */
static enum hpod_status
fail_missing(const char *path, const char *key, struct hpod_err *err)
{
    char f[96];
    snprintf(f, sizeof f, "%s.%s", path, key);
    return hpod_fail(err, HPOD_EINVAL, f, "%s is required", f);
}

/*
 * parse_stages - multistage's "stages": [{"steps": s, "trials": n}, ...]
 * (1 to MODEL_MAX_STAGES, steps strictly increasing) and "k" (default 3,
 * the paper's), into d->algo; *out receives the normalized array.
 */
static enum hpod_status
parse_stages(json_t *a, struct study_def *d, json_t **out, struct hpod_err *err)
{
    static const char *const keys[] = {"steps", "trials", NULL};
    json_t *arr = json_object_get(a, "stages");
    long long k = 3;
    int has;
    enum hpod_status st;

    *out = NULL;
    if (!arr)
        return hpod_fail(err, HPOD_EINVAL, "algorithm.stages",
                         "algorithm.stages is required: [{\"steps\": s, "
                         "\"trials\": n}, ...]");
    if (!json_is_array(arr))
        return hpod_fail(err, HPOD_EINVAL, "algorithm.stages",
                         "algorithm.stages must be an array");
    if (json_array_size(arr) == 0 || json_array_size(arr) > MODEL_MAX_STAGES)
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.stages",
                         "algorithm.stages must hold 1 to %d stages",
                         MODEL_MAX_STAGES);
    if ((st = get_int(a, "k", "algorithm", 1, 1000, &k, &has, err)) != HPOD_OK)
        return st;
    d->algo.ms_k = k;
    d->algo.ms_n = json_array_size(arr);
    for (size_t i = 0; i < d->algo.ms_n; i++) {
        json_t *e = json_array_get(arr, i);
        char path[48];
        snprintf(path, sizeof path, "algorithm.stages[%zu]", i);
        if (!json_is_object(e))
            return hpod_fail(err, HPOD_EINVAL, path,
                             "%s must be {\"steps\": s, \"trials\": n}", path);
        if ((st = hj_check_keys(e, keys, path, err)) != HPOD_OK ||
            (st = get_int(e, "steps", path, 1, 10000000, &d->algo.ms_steps[i],
                          &has, err)) != HPOD_OK)
            return st;
        if (!has)
            return fail_missing(path, "steps", err);
        if ((st = get_int(e, "trials", path, 1, MAX_BUDGET,
                          &d->algo.ms_trials[i], &has, err)) != HPOD_OK)
            return st;
        if (!has)
            return fail_missing(path, "trials", err);
        if (i > 0 && d->algo.ms_steps[i] <= d->algo.ms_steps[i - 1]) {
            char f[64];
            snprintf(f, sizeof f, "%s.steps", path);
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "stage steps must increase strictly (%lld after "
                             "%lld)",
                             d->algo.ms_steps[i], d->algo.ms_steps[i - 1]);
        }
    }
    *out = json_array();
    for (size_t i = 0; i < d->algo.ms_n; i++)
        json_array_append_new(
            *out,
            json_pack("{s:I, s:I}", "steps", (json_int_t)d->algo.ms_steps[i],
                      "trials", (json_int_t)d->algo.ms_trials[i]));
    return HPOD_OK;
}

static enum hpod_status
parse_algorithm(json_t *a, struct study_def *d, json_t **norm,
                struct hpod_err *err)
{
    static const char *const names[] = {
        "random", "gp", "graph", "greedy", "ehvi", "asha", "multistage", NULL};
    static const char *const k_asha[] = {
        "name", "seed", "kernel", "acquisition", "init", "r", "u",
        "R",    "p",    "keep",   "base",        "mode", NULL};
    static const char *const modes[] = {"promotion", "stopping", NULL};
    static const char *const k_ms[] = {"name",        "seed", "kernel",
                                       "acquisition", "init", "stages",
                                       "k",           "base", NULL};
    static const char *const k_ehvi[] = {"name",      "seed", "kernel",
                                         "surrogate", "init", NULL};
    static const char *const surrogates[] = {"gp", "graph", NULL};
    static const char *const k_random[] = {"name", "seed", NULL};
    static const char *const k_model[] = {"name",        "seed", "kernel",
                                          "acquisition", "init", NULL};
    static const char *const k_greedy[] = {"name", "seed", "init", NULL};
    static const char *const kernels[] = {"matern52", "rbf", NULL};
    static const char *const acq_gp[] = {"ei", "pi", "ucb", NULL};
    static const char *const acq_graph[] = {"ei", "eif", NULL};
    const char *name, *kernel, *acq;
    long long seed = 0, init = 3;
    int has = 0, n = 0;
    enum hpod_status st;

    memset(&d->algo, 0, sizeof d->algo);
    if (!a) {
        d->algo.name = ALGO_RANDOM;
        d->algo.seed = fresh_seed();
        *norm = json_pack("{s:s, s:I}", "name", "random", "seed",
                          (json_int_t)d->algo.seed);
        return HPOD_OK;
    }
    if (!json_is_object(a))
        return hpod_fail(err, HPOD_EINVAL, "algorithm",
                         "algorithm must be an object");
    if ((st = get_string(a, "name", "algorithm", 1, &name, err)) != HPOD_OK)
        return st;
    if ((st = pick(name, names, "algorithm.name", &n, err)) != HPOD_OK)
        return st;
    d->algo.name = (enum algo_name)n;
    st = hj_check_keys(a,
                       n == ALGO_RANDOM       ? k_random
                       : n == ALGO_GREEDY     ? k_greedy
                       : n == ALGO_EHVI       ? k_ehvi
                       : n == ALGO_ASHA       ? k_asha
                       : n == ALGO_MULTISTAGE ? k_ms
                                              : k_model,
                       "algorithm", err);
    if (st != HPOD_OK)
        return st;
    if ((st = get_int(a, "seed", "algorithm", 0, (1LL << 53) - 1, &seed, &has,
                      err)) != HPOD_OK)
        return st;
    d->algo.seed = has ? (unsigned long long)seed : fresh_seed();
    if ((st = get_int(a, "init", "algorithm", 1, 1000, &init, &has, err)) !=
        HPOD_OK)
        return st;
    d->algo.init = (int)init;
    if (n == ALGO_RANDOM) {
        *norm = json_pack("{s:s, s:I}", "name", name, "seed",
                          (json_int_t)d->algo.seed);
        return HPOD_OK;
    }
    if (n == ALGO_GREEDY) {
        *norm = json_pack("{s:s, s:I, s:i}", "name", name, "seed",
                          (json_int_t)d->algo.seed, "init", d->algo.init);
        return HPOD_OK;
    }
    if (n == ALGO_ASHA) {
        /* Asynchronous successive halving (Li et al. 2020) over a base
         * sampler for new configurations; core/asha keeps the rungs. */
        const char *base, *mode;
        long long v;
        if ((st = parse_base(a, d, &base, &kernel, &acq, err)) != HPOD_OK ||
            (st = get_string(a, "mode", "algorithm", 0, &mode, err)) != HPOD_OK)
            return st;
        mode = mode ? mode : "promotion";
        if ((st = pick(mode, modes, "algorithm.mode", &d->algo.asha_mode,
                       err)) != HPOD_OK)
            return st;
        struct {
            const char *key;
            long long lo, hi, dflt, *out;
        } ints[] = {{"r", 1, 1000000, 1, &d->algo.asha_r},
                    {"u", 1, 1000000, 1, &d->algo.asha_u},
                    {"R", 1, 10000000, 0, &d->algo.asha_R},
                    {"p", 2, 1000, 2, &d->algo.asha_p},
                    {"keep", 0, 1000, 2, &d->algo.asha_keep}};
        for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
            v = ints[i].dflt;
            if ((st = get_int(a, ints[i].key, "algorithm", ints[i].lo,
                              ints[i].hi, &v, &has, err)) != HPOD_OK)
                return st;
            *ints[i].out = v;
        }
        if (!json_object_get(a, "R"))
            return hpod_fail(err, HPOD_EINVAL, "algorithm.R",
                             "algorithm.R (the full training length in "
                             "steps) is required");
        if (d->algo.asha_R < d->algo.asha_r)
            return hpod_fail(err, HPOD_EUNPROC, "algorithm.R",
                             "algorithm.R must be >= r");
        *norm = json_pack(
            "{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:s, "
            "s:s, s:s, s:i}",
            "name", name, "seed", (json_int_t)d->algo.seed, "r",
            (json_int_t)d->algo.asha_r, "u", (json_int_t)d->algo.asha_u, "R",
            (json_int_t)d->algo.asha_R, "p", (json_int_t)d->algo.asha_p, "keep",
            (json_int_t)d->algo.asha_keep, "base", base, "mode", mode, "kernel",
            kernel, "acquisition", acq, "init", d->algo.init);
        return HPOD_OK;
    }
    if (n == ALGO_MULTISTAGE) {
        const char *base;
        json_t *stages;
        if ((st = parse_base(a, d, &base, &kernel, &acq, err)) != HPOD_OK ||
            (st = parse_stages(a, d, &stages, err)) != HPOD_OK)
            return st;
        *norm =
            json_pack("{s:s, s:I, s:o, s:I, s:s, s:s, s:s, s:i}", "name", name,
                      "seed", (json_int_t)d->algo.seed, "stages", stages, "k",
                      (json_int_t)d->algo.ms_k, "base", base, "kernel", kernel,
                      "acquisition", acq, "init", d->algo.init);
        return HPOD_OK;
    }
    if (n == ALGO_EHVI) {
        /* One surrogate per objective (gp or graph), expected hypervolume
         * improvement across them (DESIGN.md §3, Emmerich et al. 2011). */
        const char *sur;
        if ((st = get_string(a, "kernel", "algorithm", 0, &kernel, err)) !=
                HPOD_OK ||
            (st = get_string(a, "surrogate", "algorithm", 0, &sur, err)) !=
                HPOD_OK)
            return st;
        kernel = kernel ? kernel : "matern52";
        sur = sur ? sur : "gp";
        if ((st = pick(kernel, kernels, "algorithm.kernel", &d->algo.kernel,
                       err)) != HPOD_OK ||
            (st = pick(sur, surrogates, "algorithm.surrogate",
                       &d->algo.surrogate, err)) != HPOD_OK)
            return st;
        d->algo.kernel = d->algo.kernel == 0 ? KERNEL_MATERN52 : KERNEL_RBF;
        *norm = json_pack("{s:s, s:I, s:s, s:s, s:i}", "name", name, "seed",
                          (json_int_t)d->algo.seed, "kernel", kernel,
                          "surrogate", sur, "init", d->algo.init);
        return HPOD_OK;
    }
    if ((st = get_string(a, "kernel", "algorithm", 0, &kernel, err)) !=
            HPOD_OK ||
        (st = get_string(a, "acquisition", "algorithm", 0, &acq, err)) !=
            HPOD_OK)
        return st;
    if (!kernel)
        kernel = "matern52";
    if (!acq)
        acq = n == ALGO_GP ? "ei" : "eif";
    if ((st = pick(kernel, kernels, "algorithm.kernel", &d->algo.kernel,
                   err)) != HPOD_OK ||
        (st = pick(acq, n == ALGO_GP ? acq_gp : acq_graph,
                   "algorithm.acquisition", &d->algo.acquisition, err)) !=
            HPOD_OK)
        return st;
    d->algo.kernel = d->algo.kernel == 0 ? KERNEL_MATERN52 : KERNEL_RBF;
    *norm = json_pack("{s:s, s:I, s:s, s:s, s:i}", "name", name, "seed",
                      (json_int_t)d->algo.seed, "kernel", kernel, "acquisition",
                      acq, "init", d->algo.init);
    return HPOD_OK;
}

static enum hpod_status
parse_reference(json_t *ref, const struct study_def *d, struct hpod_err *err)
{
    const char *key;
    json_t *v;
    if (!json_is_object(ref))
        return hpod_fail(err, HPOD_EINVAL, "reference",
                         "reference must be an object");
    json_object_foreach(ref, key, v)
    {
        char f[96];
        size_t i;
        snprintf(f, sizeof f, "reference.%.64s", key);
        for (i = 0; i < d->n_objectives; i++)
            if (strcmp(d->obj_names[i], key) == 0)
                break;
        if (i == d->n_objectives)
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "\"%.64s\" is not an objective", key);
        double x;
        enum hpod_status st = hj_number_field(v, f, &x, err);
        if (st != HPOD_OK)
            return st;
    }
    return HPOD_OK;
}

/*
 * check_multistage - what multistage needs of the rest of the study: one
 * objective (a stage ranks its configurations on it) and no constraints;
 * without a budget, the budget is the new configurations the stages start:
 * stage 0's trials, then each later stage's trials minus the seeds it
 * takes from the one before (min(k, its trials, the previous trials)).
 */
static enum hpod_status
check_multistage(json_t *body, struct study_def *d, int has_budget,
                 struct hpod_err *err)
{
    const struct algo_def *al = &d->algo;
    if (d->n_objectives != 1)
        return hpod_fail(err, HPOD_EUNPROC, "objectives",
                         "multistage ranks a stage on one objective; use asha "
                         "for several");
    if (json_array_size(json_object_get(body, "constraints")) > 0)
        return hpod_fail(err, HPOD_EUNPROC, "constraints",
                         "multistage does not take constraints");
    if (!has_budget) {
        long long total = al->ms_trials[0];
        for (size_t i = 1; i < al->ms_n; i++) {
            long long seeds = al->ms_k;
            if (seeds > al->ms_trials[i])
                seeds = al->ms_trials[i];
            if (seeds > al->ms_trials[i - 1])
                seeds = al->ms_trials[i - 1];
            total += al->ms_trials[i] - seeds;
        }
        d->budget = total;
    }
    return HPOD_OK;
}

/* ---- the whole definition ---- */

static enum hpod_status
parse_def(json_t *body, struct study_def *d, struct hpod_err *err)
{
    static const char *const keys[] = {
        "name",          "space",     "candidates", "objectives",
        "constraints",   "algorithm", "budget",     "benchmark",
        "lease_seconds", "reference", NULL};
    const char *name, *benchmark;
    json_t *space, *objs, *norm_space = NULL, *norm_objs = NULL,
                          *norm_cons = NULL, *norm_algo = NULL, *v;
    long long budget = -1, lease = 3600;
    int has;
    enum hpod_status st;

    memset(d, 0, sizeof *d);
    space_init(&d->space);
    d->budget = -1;
    if (!json_is_object(body))
        return hpod_fail(err, HPOD_EINVAL, "", "study must be a JSON object");
    if ((st = hj_check_keys(body, keys, "", err)) != HPOD_OK ||
        (st = get_string(body, "name", "", 1, &name, err)) != HPOD_OK ||
        (st = get_string(body, "benchmark", "", 0, &benchmark, err)) != HPOD_OK)
        goto out;
    if (strlen(name) == 0 || strlen(name) > 200) {
        st = hpod_fail(err, HPOD_EUNPROC, "name",
                       "name must be 1 to 200 characters");
        goto out;
    }
    /* A benchmark-backed study arrives here already expanded by
     * handlers/benchmarks.c (space and candidates from the table); the
     * name is only recorded. */
    space = json_object_get(body, "space");
    if (!space) {
        st = hpod_fail(err, HPOD_EINVAL, "space", "space is required");
        goto out;
    }
    if (!json_is_array(space)) {
        st = hpod_fail(err, HPOD_EINVAL, "space", "space must be an array");
        goto out;
    }
    size_t np = json_array_size(space);
    if (np == 0 || np > MAX_PARAMS) {
        st = hpod_fail(err, HPOD_EUNPROC, "space",
                       "space must hold 1 to %d parameters", MAX_PARAMS);
        goto out;
    }
    d->names = xcalloc(np, sizeof *d->names);
    d->choices = xcalloc(np, sizeof *d->choices);
    norm_space = json_array();
    for (size_t i = 0; i < np; i++)
        if ((st = parse_param(json_array_get(space, i), i, d, norm_space,
                              err)) != HPOD_OK)
            goto out;

    objs = json_object_get(body, "objectives");
    if (!objs) {
        st =
            hpod_fail(err, HPOD_EINVAL, "objectives", "objectives is required");
        goto out;
    }
    norm_objs = json_array();
    if ((st = parse_objectives(objs, d, norm_objs, err)) != HPOD_OK)
        goto out;
    norm_cons = json_array();
    if ((v = json_object_get(body, "constraints")) && !json_is_null(v) &&
        (st = parse_constraints(v, norm_cons, err)) != HPOD_OK)
        goto out;
    v = json_object_get(body, "algorithm");
    if ((st = parse_algorithm(json_is_null(v) ? NULL : v, d, &norm_algo,
                              err)) != HPOD_OK)
        goto out;
    if ((st = get_int(body, "budget", "", 1, MAX_BUDGET, &budget, &has, err)) !=
        HPOD_OK)
        goto out;
    d->budget = has ? budget : -1;
    if (d->algo.name == ALGO_MULTISTAGE &&
        (st = check_multistage(body, d, has, err)) != HPOD_OK)
        goto out;
    if ((st = get_int(body, "lease_seconds", "", 1, 604800, &lease, &has,
                      err)) != HPOD_OK)
        goto out;
    d->lease_seconds = (int)lease;
    if ((v = json_object_get(body, "reference")) && !json_is_null(v) &&
        (st = parse_reference(v, d, err)) != HPOD_OK)
        goto out;

    d->def = json_pack(
        "{s:s, s:O, s:O, s:O, s:O, s:O, s:O, s:i, s:O}", "name", name, "space",
        norm_space, "objectives", norm_objs, "constraints", norm_cons,
        "algorithm", norm_algo, "budget",
        d->budget >= 0 ? json_integer(d->budget) : json_null(), "benchmark",
        benchmark ? json_string(benchmark) : json_null(), "lease_seconds",
        d->lease_seconds, "reference", v && !json_is_null(v) ? v : json_null());
    /* budget's and benchmark's new references were increfed by s:O. */
    if (d->budget >= 0)
        json_decref(json_object_get(d->def, "budget"));
    if (benchmark)
        json_decref(json_object_get(d->def, "benchmark"));
    if (!d->def) {
        st = hpod_fail(err, HPOD_ENOMEM, "", "could not build definition");
        goto out;
    }
    /* Re-point borrowed names at the definition, which outlives the body. */
    json_t *ds = json_object_get(d->def, "space");
    for (size_t i = 0; i < np; i++) {
        json_t *p = json_array_get(ds, i);
        d->names[i] = json_string_value(json_object_get(p, "name"));
        d->choices[i] = json_object_get(p, "choices");
    }
    json_t *dcon = json_object_get(d->def, "constraints");
    d->n_constraints = json_array_size(dcon);
    for (size_t i = 0; i < d->n_constraints; i++) {
        json_t *c = json_array_get(dcon, i);
        json_t *mx = json_object_get(c, "max");
        d->con_metric[i] = json_string_value(json_object_get(c, "metric"));
        d->con_is_max[i] = mx != NULL;
        d->con_bound[i] =
            json_number_value(mx ? mx : json_object_get(c, "min"));
        d->con_confidence[i] =
            json_number_value(json_object_get(c, "confidence"));
    }
    json_t *dobj = json_object_get(d->def, "objectives");
    for (size_t i = 0; i < d->n_objectives; i++)
        d->obj_names[i] =
            json_string_value(json_object_get(json_array_get(dobj, i), "name"));
    d->name = json_string_value(json_object_get(d->def, "name"));
    d->benchmark = json_string_value(json_object_get(d->def, "benchmark"));

    if ((v = json_object_get(body, "candidates")) && !json_is_null(v) &&
        (st = parse_candidates(v, d, err)) != HPOD_OK)
        goto out;
out:
    json_decref(norm_space);
    json_decref(norm_objs);
    json_decref(norm_cons);
    json_decref(norm_algo);
    if (st != HPOD_OK)
        study_def_cleanup(d);
    return st;
}

enum hpod_status
study_def_from_json(json_t *body, struct study_def *d, struct hpod_err *err)
{
    return parse_def(body, d, err);
}

enum hpod_status
study_def_from_text(const char *text, struct study_def *d, struct hpod_err *err)
{
    json_t *body = hj_parse(text);
    enum hpod_status st;
    if (!body) {
        memset(d, 0, sizeof *d);
        return hpod_fail(err, HPOD_EINTERNAL, "",
                         "stored definition is not "
                         "valid JSON");
    }
    st = parse_def(body, d, err);
    json_decref(body);
    return st;
}

void
study_def_cleanup(struct study_def *d)
{
    if (!d)
        return;
    json_decref(d->def);
    json_decref(d->candidates);
    space_cleanup(&d->space);
    free(d->names);
    free(d->choices);
    memset(d, 0, sizeof *d);
}

int
trial_feasible(const struct study_def *d, const struct metric_set *values)
{
    for (size_t i = 0; i < d->n_constraints; i++) {
        const double *x = metric_set_find(values, d->con_metric[i]);
        if (!x)
            return 0;
        if (d->con_is_max[i] ? !(*x <= d->con_bound[i])
                             : !(*x >= d->con_bound[i]))
            return 0;
    }
    return 1;
}

json_t *
metric_set_to_json(const struct metric_set *m)
{
    json_t *o = json_object();
    for (size_t i = 0; m && i < m->n; i++)
        json_object_set_new(o, m->v[i].name, json_real(m->v[i].value));
    return o;
}

/* ---- responses ---- */

json_t *
study_to_json(const struct study *s)
{
    json_t *o = hj_parse(s->definition);
    if (!json_is_object(o)) {
        json_decref(o);
        return NULL;
    }
    json_t *counts = json_object();
    for (int k = 0; k < TRIAL_NSTATES; k++)
        json_object_set_new(counts, trial_state_name(k),
                            json_integer(s->counts[k]));
    json_object_set_new(o, "id", json_integer(s->id));
    json_object_set_new(o, "benchmark",
                        s->benchmark ? json_string(s->benchmark) : json_null());
    json_object_set_new(o, "n_candidates",
                        s->n_candidates >= 0 ? json_integer(s->n_candidates)
                                             : json_null());
    json_object_set_new(o, "state",
                        json_string(study_done(s) ? "done" : "active"));
    json_object_set_new(o, "trial_counts", counts);
    json_object_set_new(o, "created_at",
                        json_string(s->created_at ? s->created_at : ""));
    return o;
}

json_t *
trial_to_json(const struct trial *t)
{
    json_t *params = hj_parse(t->params);
    if (!json_is_object(params)) {
        json_decref(params);
        return NULL;
    }
    json_t *o = json_object();
    json_t *steps = json_array();
    for (size_t i = 0; i < t->n_steps; i++)
        json_array_append_new(
            steps, json_pack("{s:i, s:o}", "step", t->steps[i].step, "values",
                             metric_set_to_json(&t->steps[i].values)));
    json_object_set_new(o, "id", json_integer(t->id));
    json_object_set_new(o, "study_id", json_integer(t->study_id));
    json_object_set_new(o, "state", json_string(trial_state_name(t->state)));
    json_object_set_new(o, "params", params);
    json_object_set_new(o, "values", metric_set_to_json(&t->values));
    json_object_set_new(o, "intermediate", steps);
    json_object_set_new(o, "worker", json_string(t->worker ? t->worker : ""));
    json_object_set_new(o, "reason",
                        t->reason ? json_string(t->reason) : json_null());
    json_object_set_new(o, "created_at",
                        json_string(t->created_at ? t->created_at : ""));
    json_object_set_new(o, "updated_at",
                        json_string(t->updated_at ? t->updated_at : ""));
    json_object_set_new(o, "lease_expires_at",
                        t->lease_expires_at ? json_string(t->lease_expires_at)
                                            : json_null());
    if (t->resume_from_step >= 0)
        json_object_set_new(o, "resume_from_step",
                            json_integer(t->resume_from_step));
    if (t->train_to >= 1)
        json_object_set_new(o, "train_to", json_integer(t->train_to));
    return o;
}

enum hpod_status
query_int(const char *text, const char *name, long long min, long long max,
          long long dflt, long long *out, struct hpod_err *err)
{
    char *end;
    long long v;
    if (!text) {
        *out = dflt;
        return HPOD_OK;
    }
    errno = 0;
    v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max)
        return hpod_fail(err, HPOD_EINVAL, name,
                         "%s must be an integer from %lld to %lld", name, min,
                         max);
    *out = v;
    return HPOD_OK;
}

/* ---- reports ---- */

void
report_input_cleanup(struct report_input *in)
{
    if (!in)
        return;
    metric_set_cleanup(&in->values);
    in->step = -1;
}

enum hpod_status
report_from_json(json_t *body, struct report_input *out, struct hpod_err *err)
{
    static const char *const keys[] = {"values", "step", NULL};
    enum hpod_status st = HPOD_OK;
    json_t *v, *val;
    const char *key;
    char f[96];

    memset(out, 0, sizeof *out);
    out->step = -1;
    if (!json_is_object(body))
        return hpod_fail(err, HPOD_EINVAL, "", "body must be a JSON object");
    if ((st = hj_check_keys(body, keys, "", err)) != HPOD_OK)
        return st;
    v = json_object_get(body, "values");
    if (!v)
        return hpod_fail(err, HPOD_EINVAL, "values", "values is required");
    if (!json_is_object(v))
        return hpod_fail(err, HPOD_EINVAL, "values",
                         "values must be an object of metric: number");
    if (json_object_size(v) == 0 || json_object_size(v) > REPORT_MAX_METRICS)
        return hpod_fail(err, HPOD_EUNPROC, "values",
                         "values must hold 1 to %d metrics",
                         REPORT_MAX_METRICS);
    json_object_foreach(v, key, val)
    {
        snprintf(f, sizeof f, "values.%.64s", key);
        if (!metric_name_ok(key)) {
            st = hpod_fail(err, HPOD_EUNPROC, f,
                           "metric name must be 1 to %d letters, digits, "
                           "'_', '.' or '-'",
                           METRIC_NAME_MAX);
            goto out;
        }
        if (!json_is_number(val)) {
            st = hpod_fail(err, HPOD_EINVAL, f, "%s must be a number", f);
            goto out;
        }
        if (json_is_integer(val) &&
            (json_integer_value(val) > HJ_MAX_EXACT_INT ||
             json_integer_value(val) < -HJ_MAX_EXACT_INT)) {
            st = hpod_fail(err, HPOD_EUNPROC, f,
                           "%s is an integer beyond 2^53 in magnitude, which "
                           "a double cannot hold exactly: send it as a float",
                           f);
            goto out;
        }
        if (!isfinite(json_number_value(val))) {
            st = hpod_fail(err, HPOD_EUNPROC, f, "%s must be finite", f);
            goto out;
        }
        /* jansson keeps one value per key: no duplicate reaches here. */
        metric_set_add(&out->values, key, json_number_value(val));
    }
    v = json_object_get(body, "step");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v)) {
            st = hpod_fail(err, HPOD_EINVAL, "step", "step must be an integer");
            goto out;
        }
        out->step = json_integer_value(v);
        if (out->step < 0 || out->step > REPORT_MAX_STEP) {
            st = hpod_fail(err, HPOD_EUNPROC, "step",
                           "step must be between 0 and %lld", REPORT_MAX_STEP);
            goto out;
        }
    }
out:
    if (st != HPOD_OK)
        report_input_cleanup(out);
    return st;
}

enum hpod_status
report_check_metrics(const struct study_def *d, const struct report_input *in,
                     struct hpod_err *err)
{
    for (size_t i = 0; i < in->values.n; i++) {
        const char *m = in->values.v[i].name;
        int known = 0;
        char f[96];
        for (size_t j = 0; j < d->n_objectives && !known; j++)
            known = strcmp(m, d->obj_names[j]) == 0;
        for (size_t c = 0; c < d->n_constraints && !known; c++)
            known = strcmp(m, d->con_metric[c]) == 0;
        if (known)
            continue;
        snprintf(f, sizeof f, "values.%s", m);
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "metric \"%s\" is neither an objective nor a "
                         "constrained metric of the study",
                         m);
    }
    return HPOD_OK;
}

/* report_merge: contract in def.h. */
void
report_merge(const struct study_def *d, const struct trial *t,
             const struct metric_set *in, struct metric_set *add, int *complete,
             size_t *conflict)
{
    *conflict = (size_t)-1;
    *complete = 1;
    for (size_t i = 0; i < in->n; i++) {
        const double *old = metric_set_find(&t->values, in->v[i].name);
        /* Exactly the same double: every stored value reads back exactly
         * (double precision column), so a retry compares equal. */
        if (old ? *old != in->v[i].value : t->state == TRIAL_COMPLETED) {
            *conflict = i;
            return;
        }
        if (!old)
            metric_set_add(add, in->v[i].name, in->v[i].value);
    }
    for (size_t j = 0; j < d->n_objectives; j++)
        *complete &= metric_set_find(&t->values, d->obj_names[j]) != NULL ||
                     metric_set_find(add, d->obj_names[j]) != NULL;
}
