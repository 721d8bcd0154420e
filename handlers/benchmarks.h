/*
 * handlers/benchmarks.h - the request validators of handlers/benchmarks.c
 * that need neither the database nor a table's rows: the handlers call
 * them first, and the fuzz harnesses (tests/fuzz) call them on arbitrary
 * bodies.
 */
#ifndef HPOD_BENCHMARKS_H
#define HPOD_BENCHMARKS_H

#include <jansson.h>

#include "core/asha_sim.h"
#include "core/metrics.h"
#include "core/sh.h"
#include "common/status.h"
#include "bench/tables.h"
#include "handlers/handlers.h"
#include "study/def.h"

/*
 * What a curve simulation runs, parsed from "algorithm": successive
 * halving (`sh`: p, c, rank, round_up; core/sh.h) or ASHA (`asha`: r, u,
 * R, p, keep; core/asha_sim.h, promotion mode). The ranges are those of
 * the study validator's asha (study/def.c), R required.
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
 * sim_curves_parse - validates POST /v1/benchmarks/{name}/simulate for the
 * curve set set (only its name and n are read). Reads rq->body and
 * rq->name, writes rq->err; nothing else of rq. On failure out->norm is
 * NULL.
 */
enum hpod_status sim_curves_parse(struct req *rq,
                                  const struct bench_lc_set *set,
                                  struct sim_curves_req *out);

/* A simulate request on a lookup table, as far as it is checked without
 * the table (objectives, constraints, tolerance and pareto_budget are
 * checked against it). */
struct sim_table_req {
    struct algo_def algo;
    json_t *norm_algo; /* new reference: the normalized algorithm */
    long long repeats, init, seed, budget;
    /* "metrics": METRIC_BIT()s (core/metrics.h) and SIM_METRIC_GAP; 0 when
     * absent (the defaults of the kind of run). Whether each applies is
     * checked against the table and objectives. */
    unsigned metrics;
};

/* The constrained run's metric, beside enum metric_id's. */
#define SIM_METRIC_GAP (1u << METRIC_COUNT)

/*
 * sim_table_parse - validates the table-independent part of a simulate
 * request on a lookup table. Reads rq->body, writes rq->err; nothing else
 * of rq. On failure out->norm_algo is NULL.
 */
enum hpod_status sim_table_parse(struct req *rq, struct sim_table_req *out);

#endif
