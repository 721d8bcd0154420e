/*
 * bench/simreq.h - the one parser of a simulate request (POST
 * /v1/benchmarks/{name}/simulate): a jansson body in, a plain C request
 * out, errors naming the JSON path. The handler calls it to check a
 * request before its job is stored; the job worker (bench/jobs) calls it
 * again on the stored body to rebuild the same request.
 *
 * The "algorithm" object belongs to the study layer above (its parser,
 * and auto's rule, are those of a study definition), so the caller hands
 * its parser down as a simreq_algo_fn (study/simalgo.h).
 */
#ifndef HPOD_BENCH_SIMREQ_H
#define HPOD_BENCH_SIMREQ_H

#include <jansson.h>
#include <stddef.h>

#include "bench/catalog.h"
#include "bench/simcurves.h"
#include "bench/simulate.h"
#include "common/status.h"
#include "core/autoalgo.h"
#include "core/simulate.h"

/* What the algorithm of a simulation on a lookup table runs. */
struct simreq_algo {
    struct simulate_algo single; /* a single-objective run's sampler */
    struct simulate_mo_algo mo;  /* a multi-objective run's */
    int mo_able;  /* 0: greedy, which has no constrained single-objective
                     form */
    int force_mo; /* 1: always the multi-objective run (ehvi) */
    /* Non-NULL: the method's name, when it runs on learning curves or
     * stages only (a 422 on a lookup table). */
    const char *not_on_tables;
};

/*
 * simreq_algo_fn - parses the "algorithm" value a (borrowed; NULL when
 * absent) of a simulation on a lookup table whose features are f (the
 * table's rows and parameters, the request's objectives, constraints,
 * budget and init: what auto decides on) into out, and *norm (a new
 * reference) its normalized form. Errors name "algorithm..." paths.
 */
typedef enum hpod_status (*simreq_algo_fn)(json_t *a,
                                           const struct autoalgo_features *f,
                                           struct simreq_algo *out,
                                           json_t **norm, struct hpod_err *err);

/*
 * simreq_table_parse - the part of a request on lookup table `table` that
 * needs none of its rows (only its size and parameter count, and how many
 * of its parameters are categorical, n_categorical, for auto): fields,
 * algorithm, repeats, init, seed, budget, metrics. On failure
 * out->norm_algo is NULL; on success the caller owns it.
 */
enum hpod_status simreq_table_parse(json_t *body,
                                    const struct bench_table *table,
                                    size_t n_categorical, simreq_algo_fn algo,
                                    struct bench_sim_table *out,
                                    struct hpod_err *err);

/* A simulate request, checked against its benchmark and ready to run. */
struct simreq {
    int curves;        /* 1: on a learning-curve set */
    long long repeats; /* its runs */
    /* Lookup tables: the parsed request (norm_algo owned) and its plan. */
    struct bench_sim_table table;
    struct bench_sim_plan *plan;
    /* Learning curves (lc.norm owned). */
    struct sim_curves_req lc;
};

/*
 * simreq_parse - every check of body that can be made before a run, on
 * the benchmark ref (named name; a table must outlive out). HPOD_EINVAL
 * (400) or HPOD_EUNPROC (422) with err naming the field; out is then
 * empty. simreq_clear releases it either way.
 */
enum hpod_status simreq_parse(json_t *body, const char *name,
                              const struct bench_ref *ref, simreq_algo_fn algo,
                              struct simreq *out, struct hpod_err *err);
void simreq_clear(struct simreq *r);

#endif
