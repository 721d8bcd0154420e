/*
 * bench/simcurves.c - simulations on a learning-curve set: the body
 * parsed, successive halving or ASHA run (bench/lcrun). See
 * bench/simcurves.h.
 */
#include "bench/simcurves.h"
#include "common/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/lcrun.h"
#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"

#define LC_MAX_WORKERS 64

/*
 * An optional integer field of the algorithm object a: dflt when absent,
 * 400 when not an integer, 422 outside [lo, hi]; errors name
 * "algorithm.<key>".
 */
static enum hpod_status
lc_algo_int(struct hpod_err *err, json_t *a, const char *key, long long lo,
            long long hi, long long dflt, long long *out)
{
    json_t *v = json_object_get(a, key);
    char f[64];

    snprintf(f, sizeof f, "algorithm.%s", key);
    *out = dflt;
    if (!v || json_is_null(v))
        return HPOD_OK;
    if (!json_is_integer(v))
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be an integer", f);
    *out = json_integer_value(v);
    if (*out < lo || *out > hi)
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "%s must be between %lld and %lld", f, lo, hi);
    return HPOD_OK;
}

static enum hpod_status
lc_algo_parse(struct hpod_err *err, const char *name, json_t *a,
              struct lc_algo *out, json_t **norm)
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
        return hpod_fail(err, HPOD_EUNPROC, "algorithm",
                         "%s holds learning curves: simulate needs "
                         "\"algorithm\" sh or asha",
                         name);
    if (!json_is_object(a))
        return hpod_fail(err, HPOD_EINVAL, "algorithm",
                         "algorithm must be an object");
    if (!json_is_string(nm))
        return hpod_fail(err, HPOD_EINVAL, "algorithm.name",
                         "algorithm.name must be a string");
    out->is_asha = strcmp(json_string_value(nm), "asha") == 0;
    if (!out->is_asha && strcmp(json_string_value(nm), "sh") != 0)
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.name",
                         "%s holds learning curves: simulate runs sh or asha "
                         "on it, not \"%.40s\"",
                         name, json_string_value(nm));
    if ((st = hj_check_keys(a, out->is_asha ? k_asha : k_sh, "algorithm",
                            err)) != HPOD_OK ||
        (st = lc_algo_int(err, a, "seed", 0, (1LL << 53) - 1, 0, &seed)) !=
            HPOD_OK)
        return st;
    if (!out->is_asha) {
        json_t *rk = json_object_get(a, "rank"),
               *ru = json_object_get(a, "round_up");
        /* horizon (extrapolate only, core/sh.h): the checkpoint the curves
         * are extrapolated to; 0 = the longest curve of the run. */
        if ((st = lc_algo_int(err, a, "p", 2, 1000, 2, &p)) != HPOD_OK ||
            (st = lc_algo_int(err, a, "c", 1, 1000000, 10, &c)) != HPOD_OK ||
            (st = lc_algo_int(err, a, "horizon", 0, 1000000, 0, &horizon)) !=
                HPOD_OK)
            return st;
        if (rk && !json_is_null(rk)) {
            if (!json_is_string(rk))
                return hpod_fail(err, HPOD_EINVAL, "algorithm.rank",
                                 "algorithm.rank must be a string");
            rank = json_string_value(rk);
            if (strcmp(rank, "bsf") && strcmp(rank, "last") &&
                strcmp(rank, "extrapolate"))
                return hpod_fail(err, HPOD_EUNPROC, "algorithm.rank",
                                 "algorithm.rank must be bsf, last or "
                                 "extrapolate");
        }
        if (ru && !json_is_null(ru)) {
            if (!json_is_boolean(ru))
                return hpod_fail(err, HPOD_EINVAL, "algorithm.round_up",
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
    if ((st = lc_algo_int(err, a, "r", 1, 1000000, 1, &r)) != HPOD_OK ||
        (st = lc_algo_int(err, a, "u", 1, 1000000, 1, &u)) != HPOD_OK ||
        (st = lc_algo_int(err, a, "R", 1, 10000000, 0, &R)) != HPOD_OK ||
        (st = lc_algo_int(err, a, "p", 2, 1000, 2, &p)) != HPOD_OK ||
        (st = lc_algo_int(err, a, "keep", 0, 1000, 2, &keep)) != HPOD_OK)
        return st;
    if (R == 0)
        return hpod_fail(err, HPOD_EINVAL, "algorithm.R",
                         "algorithm.R (the full training length in "
                         "checkpoints) is required");
    if (R < r)
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.R",
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
lc_run_sh(struct hpod_err *err, const struct lcrun_curves *lc,
          const struct sh_params *prm, size_t configs, size_t repeats,
          uint64_t seed, size_t *draws, json_t **metrics, json_t **runs)
{
    struct sh_result *per = xmalloc(repeats * sizeof *per);
    struct sh_summary sum;
    enum hpod_status st;

    *metrics = *runs = NULL;
    st = lcrun_sh(lc, 0, prm, configs, repeats, seed, per, &sum, draws, err);
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
     * the end of their curves, 100·(1 - spent/full), as `hpod-bench --sh`
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
 * on rng_seed(seed + k) as `hpod-bench --asha` does, so both agree for
 * the same seeds. draws as for lc_run_sh.
 */
static enum hpod_status
lc_run_asha(struct hpod_err *err, const struct lcrun_curves *lc,
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
                    trained, &sum, err);
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
     * `hpod-bench --asha` reports it. */
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
 * The "objectives" of a simulation on learning curves: left out, or the
 * one objective a curve set has, [{"name": "ppl", "goal": "minimize"}]
 * as a strict client sends it.
 */
static enum hpod_status
lc_objectives(json_t *objs, struct hpod_err *err)
{
    static const char *const keys[] = {"name", "goal", NULL};
    json_t *o = json_array_get(objs, 0);
    json_t *nm = json_object_get(o, "name"), *g = json_object_get(o, "goal");
    enum hpod_status st;

    if (!objs || json_is_null(objs))
        return HPOD_OK;
    if (!json_is_array(objs) || json_array_size(objs) == 0)
        return hpod_fail(err, HPOD_EINVAL, "objectives",
                         "objectives must be an array of objects");
    if (!json_is_object(o) || !json_is_string(nm) || !json_is_string(g))
        return hpod_fail(err, HPOD_EINVAL, "objectives[0]",
                         "objectives[0] must be {\"name\": \"ppl\", \"goal\": "
                         "\"minimize\"}");
    if ((st = hj_check_keys(o, keys, "objectives[0]", err)) != HPOD_OK)
        return st;
    if (strcmp(json_string_value(nm), "ppl") != 0)
        return hpod_fail(err, HPOD_EUNPROC, "objectives[0].name",
                         "a learning-curve set has one objective, ppl, not "
                         "\"%.64s\"",
                         json_string_value(nm));
    if (strcmp(json_string_value(g), "minimize") != 0)
        return hpod_fail(err, HPOD_EUNPROC, "objectives[0].goal",
                         "ppl is minimized: goal must be minimize");
    if (json_array_size(objs) > 1)
        return hpod_fail(err, HPOD_EUNPROC, "objectives[1]",
                         "a learning-curve set has one objective, ppl");
    return HPOD_OK;
}

/*
 * POST /v1/benchmarks/nmtlc/<set>/simulate: successive halving or ASHA on
 * the set's learning curves. Body: algorithm (sh or asha, required),
 * configs drawn per run (1..n, default 40), repeats (1..1000, default
 * 100), seed (default 0), workers (asha only, 1..64, default 4). Stored
 * like every simulation; its sequences are the curves (0-based rows of
 * the set, file order) each run drew, in draw order.
 */
/* See bench/simulate.h. */
enum hpod_status
simcurves_parse(json_t *body, const char *name, const struct bench_lc_set *set,
                struct sim_curves_req *out, struct hpod_err *err)
{
    static const char *const keys[] = {"algorithm", "configs", "repeats",
                                       "seed",      "workers", "objectives",
                                       NULL};
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    out->configs = 40;
    out->repeats = 100;
    out->workers = 4;
    if ((st = hj_check_keys(body, keys, "", err)) != HPOD_OK ||
        (st = lc_objectives(json_object_get(body, "objectives"), err)) !=
            HPOD_OK ||
        (st = lc_algo_parse(err, name, json_object_get(body, "algorithm"),
                            &out->la, &out->norm)) != HPOD_OK ||
        (st = hj_get_int(body, "", "configs", 1, 1000000, &out->configs, NULL,
                         err)) != HPOD_OK ||
        (st = hj_get_int(body, "", "repeats", 1, BENCH_SIM_MAX_REPEATS,
                         &out->repeats, NULL, err)) != HPOD_OK ||
        (st = hj_get_int(body, "", "seed", 0, (1LL << 53) - 1, &out->seed, NULL,
                         err)) != HPOD_OK ||
        (st = hj_get_int(body, "", "workers", 1, LC_MAX_WORKERS, &out->workers,
                         NULL, err)) != HPOD_OK)
        goto out;
    if ((size_t)out->configs > set->n) {
        st = hpod_fail(err, HPOD_EUNPROC, "configs",
                       "configs must be between 1 and %zu, the curves of %s",
                       set->n, set->name);
        goto out;
    }
    if (!out->la.is_asha && json_object_get(body, "workers")) {
        st = hpod_fail(err, HPOD_EUNPROC, "workers",
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

/* See bench/simulate.h. */
enum hpod_status
simcurves_simulate(json_t *body, const char *name,
                   const struct bench_lc_set *set, struct bench_sim_result *res,
                   struct hpod_err *err)
{
    struct sim_curves_req cr;
    json_t *norm = NULL, *metrics = NULL, *runs = NULL, *summary = NULL;
    long long configs, repeats, seed, workers;
    size_t *draws = NULL, *lens = NULL;
    enum hpod_status st;

    if ((st = simcurves_parse(body, name, set, &cr, err)) != HPOD_OK)
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
    double t0 = hpod_now_s();
    st = la.is_asha
             ? lc_run_asha(err, &lc, &la.asha, (size_t)workers, (size_t)configs,
                           (size_t)repeats, (uint64_t)seed, draws, &metrics,
                           &runs)
             : lc_run_sh(err, &lc, &la.sh, (size_t)configs, (size_t)repeats,
                         (uint64_t)seed, draws, &metrics, &runs);
    double seconds = hpod_now_s() - t0;
    lcrun_curves_free(&lc);
    if (st != HPOD_OK)
        goto out;
    summary =
        json_pack("{s:s, s:O, s:I, s:I, s:I, s:o, s:o, s:f}", "benchmark", name,
                  "algorithm", norm, "configs", (json_int_t)configs, "repeats",
                  (json_int_t)repeats, "seed", (json_int_t)seed, "metrics",
                  metrics, "runs", runs, "seconds", seconds);
    metrics = runs = NULL;
    if (la.is_asha)
        json_object_set_new(summary, "workers", json_integer(workers));
    bench_simulate_result_set(res, &summary, &draws, &lens, (size_t)configs,
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
