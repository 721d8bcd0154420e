/*
 * handlers/benchmarks.h - the request validator of handlers/benchmarks.c
 * that needs neither the database nor a table's rows: the handler calls
 * it first, and the fuzz harness (tests/fuzz) calls it on arbitrary
 * bodies. The curve-set validator is bench_sim_curves_parse
 * (bench/simulate.h).
 */
#ifndef HPOD_BENCHMARKS_H
#define HPOD_BENCHMARKS_H

#include <jansson.h>

#include "bench/simulate.h"
#include "common/status.h"
#include "handlers/handlers.h"
#include "study/def.h"

/* A simulate request on a lookup table, as far as it is checked without
 * the table (objectives, constraints, tolerance and pareto_budget are
 * checked against it by bench_simulate_table). */
struct sim_table_req {
    struct algo_def algo;
    json_t *norm_algo; /* new reference: the normalized algorithm */
    long long repeats, init, seed, budget;
    /* "metrics": METRIC_BIT()s (core/metrics.h) and SIM_METRIC_GAP; 0 when
     * absent (the defaults of the kind of run). Whether each applies is
     * checked against the table and objectives. */
    unsigned metrics;
};

/*
 * sim_table_parse - validates the table-independent part of a simulate
 * request on lookup table `table` (read only for "auto", whose choice
 * depends on the table's size). Reads rq->body, writes rq->err; nothing
 * else of rq. On failure out->norm_algo is NULL.
 */
struct bench_table;
enum hpod_status sim_table_parse(struct req *rq,
                                 const struct bench_table *table,
                                 struct sim_table_req *out);

/*
 * simulation_job_run - the bench_job_run_fn (bench/jobs.h) of `hpod serve`:
 * runs a stored simulate request, parsed as POST .../simulate parsed it
 * before it queued the job. arg: the struct hpod_ctx (unused).
 */
struct bench_job;
enum hpod_status simulation_job_run(void *arg, const struct bench_job *job,
                                    struct bench_sim_result *res,
                                    struct hpod_err *err);

#endif
