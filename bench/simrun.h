/*
 * bench/simrun.h - runs the repeats of one simulation on several
 * threads: the one piece shared by `hpod-bench` (tools/) and
 * POST /v1/benchmarks/{name}/simulate. core/simulate stays single-threaded
 * and pure; the threads live here.
 */
#ifndef HPOD_SIMRUN_H
#define HPOD_SIMRUN_H

#include <stdatomic.h>
#include <stddef.h>

#include "core/metrics.h"
#include "core/simulate.h"
#include "common/status.h"

struct simrun {
    /* Inputs (borrowed). */
    const struct simulate_problem *p;
    const struct simulate_algo *algo;
    const struct metric_spec *spec; /* stop rule, see simulate_run */
    /* Set both for multi-objective or constrained runs (simulate_run_mo);
     * p and algo are then ignored but p->n is read from mo. */
    const struct simulate_mo_problem *mo;
    const struct simulate_mo_algo *mo_algo;
    unsigned long long seed0; /* run r uses seed seed0 + r */
    size_t init, runs;
    size_t length; /* most rows per run; 0: the whole table */
    /* Outputs (caller buffers): runs × p->n row ids, runs lengths and
     * statuses. */
    size_t *seqs, *lens;
    enum hpod_status *status;
    /* Outputs of simrun_simulate: wall seconds, failed runs and the first
     * failure's status, and (when no run failed) the summary of spec. */
    double seconds;
    size_t failed;
    enum hpod_status first_error;
    struct simulate_summary sum;
    /* Optional: called from the calling thread now and then. */
    void (*progress)(void *arg, size_t done, size_t runs);
    void *progress_arg;
    /* Optional: once *cancel is nonzero, runs not yet started are skipped
     * with status HPOD_EINTERNAL (the caller discards the result). */
    const atomic_int *cancel;
    /* Private. */
    atomic_size_t next, done;
};

/*
 * simrun_run - every run of s on up to threads threads (the caller is one
 * of them). Each thread keeps one sampler state across its runs; runs are
 * functions of their seed alone, whatever thread runs them.
 */
void simrun_run(struct simrun *s, size_t threads);

/*
 * simrun_spec_init - what a simulation measures, built the same way for
 * `hpod-bench` and POST /v1/benchmarks/{name}/simulate: the metrics of
 * metrics (METRIC_BIT()s) among those y (n values, larger is better, may be
 * NULL) and pareto (n flags, may be NULL) enable. The arrays are borrowed.
 */
void simrun_spec_init(struct metric_spec *spec, const double *y,
                      const unsigned char *pareto, size_t n, size_t ninit,
                      double tol, size_t fb_budget, size_t fbp_budget,
                      unsigned metrics);

/*
 * simrun_simulate - the one simulation loop of hpod-bench and of the
 * simulate handler: every run of s (simrun_run) with s->spec as the stop
 * rule, so each sequence ends as soon as the metrics s->spec measures are
 * final and its budgets are spent (a spec that measures nothing, or NULL,
 * runs each sequence to s->length), then s->seconds, s->failed,
 * s->first_error and, when no run failed, s->sum (simulate_summarize over
 * s->spec). The same request gives the same sequences on either path.
 */
void simrun_simulate(struct simrun *s, size_t threads);

#endif
