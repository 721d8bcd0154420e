/*
 * bench/simcurves.h - simulations on a learning-curve set: successive
 * halving or ASHA (bench/lcrun) as a simulate body asks, with no HTTP.
 */
#ifndef HPOD_BENCH_SIMCURVES_H
#define HPOD_BENCH_SIMCURVES_H

#include <jansson.h>

#include "bench/simulate.h"
#include "bench/tables.h"
#include "common/status.h"
#include "core/asha_sim.h"
#include "core/sh.h"

/*
 * What a curve simulation runs, parsed from "algorithm": successive
 * halving (`sh`: p, c, rank, round_up; core/sh.h) or ASHA (`asha`: r, u,
 * R, p, keep; core/asha_sim.h, promotion mode). The ranges are those of
 * the study validator's asha, R required.
 */
struct lc_algo {
    int is_asha;
    struct sh_params sh;
    struct asha_params asha;
};

/* A simulate request on a learning-curve set, validated. */
struct sim_curves_req {
    struct lc_algo la;
    json_t *norm; /* new reference: the normalized algorithm */
    long long configs, repeats, seed, workers;
};

/*
 * simcurves_parse - validates a simulate body for the curve set
 * set (named name; only set->n and set->name are read). On failure
 * out->norm is NULL.
 */
enum hpod_status simcurves_parse(json_t *body, const char *name,
                                 const struct bench_lc_set *set,
                                 struct sim_curves_req *out,
                                 struct hpod_err *err);

/*
 * simcurves_simulate - successive halving or ASHA on the set's curves
 * as body asks. Its sequences are the curves (0-based rows of the set,
 * file order) each run drew, in draw order.
 */
enum hpod_status simcurves_simulate(json_t *body, const char *name,
                                    const struct bench_lc_set *set,
                                    struct bench_sim_result *res,
                                    struct hpod_err *err);

#endif
