/*
 * bench/simreq.c - the simulate request parsed; see simreq.h.
 */
#include "bench/simreq.h"

#include <string.h>

#include "common/err.h"
#include "common/json.h"

/* The features auto decides on: table t's (n_categorical of its
 * parameters are categorical) with the request's objectives, constraints,
 * budget (none unless given) and init, as a study whose candidates are
 * t's rows would have them. Simulate has no decoupled constraint or
 * warm start. */
static struct autoalgo_features
features(json_t *body, const struct bench_table *t, size_t n_categorical,
         long long init)
{
    json_t *objs = json_object_get(body, "objectives");
    json_t *cons = json_object_get(body, "constraints");
    json_t *budget = json_object_get(body, "budget");
    return (struct autoalgo_features){
        .n_params = t->n_params,
        .n_categorical = n_categorical,
        .n_candidates = t->n,
        .n_objectives = json_is_array(objs) && json_array_size(objs) > 0
                            ? json_array_size(objs)
                            : 1,
        .n_constraints = json_is_array(cons) ? json_array_size(cons) : 0,
        .budget = json_is_integer(budget) ? json_integer_value(budget) : -1,
        .init = (int)init,
    };
}

/* 1 when the algorithm value a names sh, the learning-curve method that
 * only bench/ knows (the study parser would call it unknown). */
static int
names_sh(json_t *a)
{
    json_t *nm = json_object_get(a, "name");
    return json_is_object(a) && json_is_string(nm) &&
           strcmp(json_string_value(nm), "sh") == 0;
}

/* See simreq.h. */
enum hpod_status
simreq_table_parse(json_t *body, const struct bench_table *table,
                   size_t n_categorical, simreq_algo_fn algo,
                   struct bench_sim_table *out, struct hpod_err *err)
{
    static const char *const keys[] = {
        "algorithm",  "repeats",     "init",    "seed",
        "objective",  "tolerance",   "budget",  "pareto_budget",
        "objectives", "constraints", "metrics", NULL};
    struct simreq_algo al;
    json_t *norm = NULL, *ms;
    long long repeats = 100, init = 3, seed = 0, budget = 20;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    if ((st = hj_check_keys(body, keys, "", err)) != HPOD_OK)
        goto out;
    if (json_object_get(body, "objectives") &&
        json_object_get(body, "objective")) {
        st = hpod_fail(err, HPOD_EINVAL, "objective",
                       "give objectives or its alias objective, not both");
        goto out;
    }
    if (names_sh(json_object_get(body, "algorithm"))) {
        st = hpod_fail(err, HPOD_EUNPROC, "algorithm.name",
                       "sh needs learning curves: simulate it on an "
                       "nmtlc set");
        goto out;
    }
    /* init first: auto's rule reads it. An omitted algorithm is auto, as
     * in a study definition. */
    if ((st = hj_get_int(body, "", "init", 1, 50, &init, NULL, err)) != HPOD_OK)
        goto out;
    struct autoalgo_features f = features(body, table, n_categorical, init);
    if ((st = algo(json_object_get(body, "algorithm"), &f, &al, &norm, err)) !=
            HPOD_OK ||
        (st = hj_get_int(body, "", "repeats", 1, BENCH_SIM_MAX_REPEATS,
                         &repeats, NULL, err)) != HPOD_OK ||
        (st = hj_get_int(body, "", "seed", 0, (1LL << 53) - 1, &seed, NULL,
                         err)) != HPOD_OK ||
        (st = hj_get_int(body, "", "budget", 1, 1000000, &budget, NULL, err)) !=
            HPOD_OK)
        goto out;
    if (al.not_on_tables) {
        int asha = strcmp(al.not_on_tables, "asha") == 0;
        st = hpod_fail(err, HPOD_EUNPROC, "algorithm.name",
                       "simulate runs random, gp, graph, greedy and ehvi "
                       "on a lookup table%s%s%s",
                       asha ? "; " : ", not ", al.not_on_tables,
                       asha ? " needs learning curves: simulate it on an "
                              "nmtlc set"
                            : "");
        goto out;
    }
    ms = json_object_get(body, "metrics");
    if (ms && !json_is_null(ms) &&
        (st = bench_simulate_metrics_parse(err, ms, &out->metrics)) != HPOD_OK)
        goto out;
    /* Runs are seeded seed, seed+1, ...: the algorithm's own seed plays no
     * part, so the stored algorithm says so rather than show a fresh one. */
    json_object_set_new(norm, "seed", json_integer(seed));
    if (json_is_object(json_object_get(norm, "chosen")))
        json_object_set_new(json_object_get(norm, "chosen"), "seed",
                            json_integer(seed));
    out->single = al.single;
    out->mo = al.mo;
    out->mo_able = al.mo_able;
    out->force_mo = al.force_mo;
    out->norm_algo = norm;
    norm = NULL;
    out->repeats = repeats;
    out->init = init;
    out->seed = seed;
    out->budget = budget;
out:
    json_decref(norm);
    return st;
}

/* The categorical columns of an imported table. */
static size_t
categorical_columns(const struct bench_ref *ref)
{
    size_t n = 0;
    for (size_t k = 0; ref->table && k < ref->table->n_params; k++)
        n += catalog_ref_choices(ref, k) != NULL;
    return n;
}

/* See simreq.h. */
enum hpod_status
simreq_parse(json_t *body, const char *name, const struct bench_ref *ref,
             simreq_algo_fn algo, struct simreq *out, struct hpod_err *err)
{
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    if (ref->curves) {
        out->curves = 1;
        st = simcurves_parse(body, name, ref->curves, &out->lc, err);
        out->repeats = out->lc.repeats;
    } else if ((st = simreq_table_parse(body, ref->table,
                                        categorical_columns(ref), algo,
                                        &out->table, err)) == HPOD_OK) {
        out->repeats = out->table.repeats;
        st = bench_simulate_plan_create(body, name, ref->table, &out->table,
                                        &out->plan, err);
    }
    if (st != HPOD_OK)
        simreq_clear(out);
    return st;
}

/* See simreq.h. */
void
simreq_clear(struct simreq *r)
{
    if (!r)
        return;
    bench_simulate_plan_free(r->plan);
    json_decref(r->table.norm_algo);
    json_decref(r->lc.norm);
    memset(r, 0, sizeof *r);
}
