/*
 * study/def.c - the study definition parser; see def.h. Error statuses:
 * HPOD_EINVAL (400) when the JSON has the wrong shape (type, missing or
 * unknown field), HPOD_EUNPROC (422) when the shape is right but a rule is
 * broken.
 */
#include "study/def.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtoa.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/text.h"
#include "core/graph.h"
#include "study/auto.h"

#define MAX_CANDIDATES 100000

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
        const char *name = NULL, *goal = NULL;
        snprintf(path, sizeof path, "objectives[%zu]", i);
        if (!json_is_object(o))
            return hpod_fail(err, HPOD_EINVAL, path, "%s must be an object",
                             path);
        if ((st = hj_check_keys(o, keys, path, err)) != HPOD_OK ||
            (st = hj_get_string(o, path, "name", 1, &name, err)) != HPOD_OK ||
            (st = hj_get_string(o, path, "goal", 1, &goal, err)) != HPOD_OK)
            return st;
        hj_path(f, sizeof f, path, "name");
        if (!metric_name_ok(name))
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "metric name \"%.64s\" must be 1 to 64 letters, "
                             "digits, '_', '.' or '-'",
                             name);
        for (size_t k = 0; k < i; k++)
            if (strcmp(d->obj_names[k], name) == 0)
                return hpod_fail(err, HPOD_EUNPROC, f,
                                 "duplicate objective \"%s\"", name);
        hj_path(f, sizeof f, path, "goal");
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

/* "decoupled" of constraint c (path): absent is false, else a boolean. */
static enum hpod_status
con_decoupled(json_t *c, const char *path, int *out, struct hpod_err *err)
{
    json_t *v = json_object_get(c, "decoupled");
    char f[96];
    *out = 0;
    if (!v)
        return HPOD_OK;
    hj_path(f, sizeof f, path, "decoupled");
    if (!json_is_boolean(v))
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be a boolean", f);
    *out = json_is_true(v);
    return HPOD_OK;
}

static enum hpod_status
parse_constraints(json_t *arr, json_t *norm, struct hpod_err *err)
{
    static const char *const keys[] = {"metric",    "max",  "min", "confidence",
                                       "decoupled", "cost", NULL};
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
        const char *metric = NULL;
        double max = 0, min = 0, conf = 0.5, cost = CONSTRAINT_PROBE_COST;
        int has_max, has_min, has_conf, has_cost, decoupled = 0;
        snprintf(path, sizeof path, "constraints[%zu]", i);
        if (!json_is_object(c))
            return hpod_fail(err, HPOD_EINVAL, path, "%s must be an object",
                             path);
        if ((st = hj_check_keys(c, keys, path, err)) != HPOD_OK ||
            (st = hj_get_string(c, path, "metric", 1, &metric, err)) !=
                HPOD_OK ||
            (st = hj_get_number(c, path, "max", &max, &has_max, err)) !=
                HPOD_OK ||
            (st = hj_get_number(c, path, "min", &min, &has_min, err)) !=
                HPOD_OK ||
            (st = hj_get_number(c, path, "confidence", &conf, &has_conf,
                                err)) != HPOD_OK ||
            (st = hj_get_number(c, path, "cost", &cost, &has_cost, err)) !=
                HPOD_OK ||
            (st = con_decoupled(c, path, &decoupled, err)) != HPOD_OK)
            return st;
        hj_path(f, sizeof f, path, "metric");
        if (!metric_name_ok(metric))
            return hpod_fail(err, HPOD_EUNPROC, f, "invalid metric name");
        if (has_max == has_min)
            return hpod_fail(err, HPOD_EUNPROC, path,
                             "%s needs exactly one of max and min", path);
        hj_path(f, sizeof f, path, "confidence");
        if (!(conf > 0 && conf < 1))
            return hpod_fail(err, HPOD_EUNPROC, f, "%s must be between 0 and 1",
                             f);
        hj_path(f, sizeof f, path, "cost");
        if (has_cost && !decoupled)
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "%s is only for a decoupled constraint", f);
        if (!(cost > 0 && cost <= 1))
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "%s must be in (0, 1]: a share of a full "
                             "training",
                             f);
        json_t *nc = json_pack("{s:s, s:f, s:f}", "metric", metric,
                               has_max ? "max" : "min", has_max ? max : min,
                               "confidence", conf);
        /* Only a decoupled constraint carries the two fields, so that the
         * stored definitions of other studies stay as they were. */
        if (decoupled) {
            json_object_set_new(nc, "decoupled", json_true());
            json_object_set_new(nc, "cost", json_real(cost));
        }
        json_array_append_new(norm, nc);
    }
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

/*
 * parse_auto - "algorithm" omitted or {"name": "auto"} (study/auto.h): the
 * rule reads the space (parsed), the candidates' count, the objectives,
 * the constraints (parsed) and the budget (d->budget, parsed).
 */
static enum hpod_status
parse_auto(json_t *body, struct study_def *d, json_t **norm,
           struct hpod_err *err)
{
    json_t *cand = json_object_get(body, "candidates");
    json_t *cons = json_object_get(body, "constraints");
    struct autoalgo_features f = {
        .n_params = d->space.n_params,
        .n_candidates = json_is_array(cand) ? json_array_size(cand) : 0,
        .n_objectives = d->n_objectives,
        .n_constraints = json_is_array(cons) ? json_array_size(cons) : 0,
        .budget = d->budget,
        .init = AUTO_INIT,
        .warm_start = !json_is_null(json_object_get(body, "warm_start")) &&
                      json_object_get(body, "warm_start") != NULL,
    };
    for (size_t i = 0; i < d->space.n_params; i++)
        f.n_categorical += d->space.params[i].type == PARAM_CATEGORICAL;
    for (size_t i = 0; i < f.n_constraints; i++)
        f.decoupled |=
            json_is_true(json_object_get(json_array_get(cons, i), "decoupled"));
    json_t *a = json_object_get(body, "algorithm");
    return auto_choose(json_is_null(a) ? NULL : a, &f, &d->algo, norm, err);
}

/* ---- the whole definition ---- */

/*
 * bind_def - points d's borrowed names (parameters, choices, constraints,
 * objectives, name, benchmark) into d->def, which outlives the body.
 */
static void
bind_def(struct study_def *d)
{
    json_t *ds = json_object_get(d->def, "space");
    for (size_t i = 0; i < d->space.n_params; i++) {
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
        d->con_decoupled[i] = json_is_true(json_object_get(c, "decoupled"));
        d->con_cost[i] = d->con_decoupled[i]
                             ? json_number_value(json_object_get(c, "cost"))
                             : 1;
    }
    json_t *dobj = json_object_get(d->def, "objectives");
    for (size_t i = 0; i < d->n_objectives; i++)
        d->obj_names[i] =
            json_string_value(json_object_get(json_array_get(dobj, i), "name"));
    d->name = json_string_value(json_object_get(d->def, "name"));
    d->benchmark = json_string_value(json_object_get(d->def, "benchmark"));
    json_t *ws = json_object_get(d->def, "warm_start");
    d->warm_study = json_integer_value(json_object_get(ws, "study"));
    d->warm_benchmark = json_string_value(json_object_get(ws, "benchmark"));
    d->warm_auto = json_is_true(json_object_get(ws, "auto"));
}

/*
 * "warm_start": {"study": id} or {"benchmark": name}, exactly one, or
 * {"auto": true} (study/warmstart.h warmstart_auto), which a stored
 * definition holds with its resolution: "study" (when one was found) and
 * "reason" (400 otherwise); *norm gets the normalized object (new
 * reference). Whether the source exists and fits is checked by
 * study/warmstart.c.
 */
static enum hpod_status
parse_warm_start(json_t *v, json_t **norm, struct hpod_err *err)
{
    static const char *const keys[] = {"study", "benchmark", "auto", "reason",
                                       NULL};
    const char *bench = NULL, *reason = NULL;
    json_t *aut;
    long long id = 0;
    int has = 0;
    enum hpod_status st;

    if (!json_is_object(v))
        return hpod_fail(err, HPOD_EINVAL, "warm_start",
                         "warm_start must be an object");
    if ((st = hj_check_keys(v, keys, "warm_start", err)) != HPOD_OK ||
        (st = hj_get_int(v, "warm_start", "study", 1, LLONG_MAX, &id, &has,
                         err)) != HPOD_OK ||
        (st = hj_get_string(v, "warm_start", "benchmark", 0, &bench, err)) !=
            HPOD_OK ||
        (st = hj_get_string(v, "warm_start", "reason", 0, &reason, err)) !=
            HPOD_OK)
        return st;
    if ((aut = json_object_get(v, "auto")) && !json_is_true(aut))
        return hpod_fail(err, HPOD_EINVAL, "warm_start.auto",
                         "warm_start.auto must be true (leave warm_start out "
                         "for none)");
    if (aut && bench)
        return hpod_fail(err, HPOD_EINVAL, "warm_start.benchmark",
                         "warm_start.auto chooses a study: leave benchmark "
                         "out");
    if (!aut && reason)
        return hpod_fail(err, HPOD_EINVAL, "warm_start.reason",
                         "warm_start.reason is set by hpod with auto");
    if (aut) {
        *norm = json_pack("{s:b}", "auto", 1);
        if (has)
            json_object_set_new(*norm, "study", json_integer(id));
        if (reason)
            json_object_set_new(*norm, "reason", json_string(reason));
        return HPOD_OK;
    }
    if (has == (bench != NULL))
        return hpod_fail(err, HPOD_EINVAL, "warm_start",
                         "warm_start needs exactly one of study, benchmark and "
                         "auto");
    *norm = has ? json_pack("{s:I}", "study", (json_int_t)id)
                : json_pack("{s:s}", "benchmark", bench);
    return HPOD_OK;
}

static enum hpod_status
parse_def(json_t *body, struct study_def *d, struct hpod_err *err)
{
    static const char *const keys[] = {
        "name",          "space",     "candidates", "objectives",
        "constraints",   "algorithm", "budget",     "benchmark",
        "lease_seconds", "reference", "warm_start", "define_by_run",
        "space_version", NULL};
    const char *name = NULL, *benchmark = NULL;
    json_t *objs, *norm_space = NULL, *norm_objs = NULL, *norm_cons = NULL,
                  *norm_algo = NULL, *norm_warm = NULL, *v;
    long long budget = -1, lease = 3600;
    int has;
    enum hpod_status st;

    memset(d, 0, sizeof *d);
    space_init(&d->space);
    d->budget = -1;
    if (!json_is_object(body))
        return hpod_fail(err, HPOD_EINVAL, "", "study must be a JSON object");
    if ((st = hj_check_keys(body, keys, "", err)) != HPOD_OK ||
        (st = hj_get_string(body, "", "name", 1, &name, err)) != HPOD_OK ||
        (st = hj_get_string(body, "", "benchmark", 0, &benchmark, err)) !=
            HPOD_OK)
        goto out;
    if (strlen(name) == 0 || strlen(name) > 200) {
        st = hpod_fail(err, HPOD_EUNPROC, "name",
                       "name must be 1 to 200 characters");
        goto out;
    }
    /* A benchmark-backed study arrives here already expanded by
     * bench/expand.c (space and candidates from the table); the
     * name is only recorded. */
    norm_space = json_array();
    if ((st = params_parse_space(json_object_get(body, "space"), d, norm_space,
                                 err)) != HPOD_OK ||
        (st = params_parse_dbr(body, d, err)) != HPOD_OK)
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
    if (!auto_requested(v) &&
        (st = algo_from_json(v, &d->algo, &norm_algo, err)) != HPOD_OK)
        goto out;
    if ((st = hj_get_int(body, "", "budget", 1, STUDY_MAX_BUDGET, &budget, &has,
                         err)) != HPOD_OK)
        goto out;
    d->budget = has ? budget : -1;
    if (auto_requested(v) &&
        (st = parse_auto(body, d, &norm_algo, err)) != HPOD_OK)
        goto out;
    if (d->algo.name == ALGO_MULTISTAGE &&
        (st = check_multistage(body, d, has, err)) != HPOD_OK)
        goto out;
    if ((st = hj_get_int(body, "", "lease_seconds", 1, 604800, &lease, &has,
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
    params_dbr_to_def(d, d->def);
    /* Only a study that names a source has the key: the stored definitions
     * of every other study stay as they were. */
    if ((v = json_object_get(body, "warm_start")) && !json_is_null(v)) {
        if ((st = parse_warm_start(v, &norm_warm, err)) != HPOD_OK)
            goto out;
        json_object_set(d->def, "warm_start", norm_warm);
    }
    bind_def(d);

    if ((v = json_object_get(body, "candidates")) && !json_is_null(v) &&
        d->define_by_run) {
        st = hpod_fail(err, HPOD_EUNPROC, "candidates",
                       "a define-by-run study has no candidates: its space "
                       "grows as trials ask for parameters");
        goto out;
    }
    if ((v = json_object_get(body, "candidates")) && !json_is_null(v) &&
        (st = parse_candidates(v, d, err)) != HPOD_OK)
        goto out;
out:
    json_decref(norm_space);
    json_decref(norm_objs);
    json_decref(norm_cons);
    json_decref(norm_algo);
    json_decref(norm_warm);
    if (st != HPOD_OK)
        def_clear(d);
    return st;
}

/*
 * check_graph_size - a graph over a finite study's candidates (graph,
 * ehvi's graph surrogate, GP-Hedge's graph arm, asha's or multistage's
 * graph base) holds dense n×n matrices: more than GRAPH_MAX_NODES
 * candidates are refused when the study is created, while it can still
 * choose gp (core/graph.h; graph_create would refuse too, and the
 * suggestions would fall back to random). Stored definitions are not
 * checked again: a study keeps the algorithm it was created with.
 */
static enum hpod_status
check_graph_size(json_t *body, const struct study_def *d, struct hpod_err *err)
{
    const struct algo_def *al = &d->algo;
    size_t n = d->candidates ? json_array_size(d->candidates) : 0;
    const char *key =
        al->name == ALGO_GRAPH                        ? "name"
        : al->name == ALGO_EHVI && al->surrogate == 1 ? "surrogate"
        : al->name == ALGO_GP && al->gp_hedge         ? "hedge"
        : (al->name == ALGO_ASHA || al->name == ALGO_MULTISTAGE) &&
                al->base == ALGO_GRAPH
            ? "base"
            : NULL;
    if (!key || n <= GRAPH_MAX_NODES)
        return HPOD_OK;
    char field[64];
    snprintf(field, sizeof field, "algorithm.%s%s",
             auto_requested(json_object_get(body, "algorithm")) ? "chosen."
                                                                : "",
             key);
    return hpod_fail(err, HPOD_EUNPROC, field,
                     "a graph over the candidates holds n-by-n matrices: at "
                     "most %d candidates, this study has %zu (gp has no such "
                     "limit)",
                     GRAPH_MAX_NODES, n);
}

enum hpod_status
def_from_json(json_t *body, struct study_def *d, struct hpod_err *err)
{
    /* A new study's name in NFC, look-alikes refused (common/text.h). */
    enum hpod_status st = hpod_text_member(body, "name", "name", err);
    if (st != HPOD_OK) {
        memset(d, 0, sizeof *d);
        return st;
    }
    st = parse_def(body, d, err);
    if (st == HPOD_OK && (st = check_graph_size(body, d, err)) != HPOD_OK)
        def_clear(d);
    return st;
}

enum hpod_status
def_from_text(const char *text, struct study_def *d, struct hpod_err *err)
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
def_clear(struct study_def *d)
{
    if (!d)
        return;
    json_decref(d->def);
    json_decref(d->candidates);
    space_clear(&d->space);
    free(d->names);
    free(d->choices);
    free(d->optional);
    free(d->defaults);
    memset(d, 0, sizeof *d);
}

int
def_trial_feasible(const struct study_def *d, const struct metric_set *values)
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
