/*
 * bench/simrun.h - runs the repeats of one simulation on several
 * threads: the one piece shared by `hpod-bench` (tools/) and
 * POST /v1/benchmarks/{name}/simulate. core/simulate stays single-threaded
 * and pure; the threads live here.
 */
#ifndef HPOD_SIMRUN_H
#define HPOD_SIMRUN_H

#include <jansson.h>
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
     * with status HPOD_EBUSY (never a run's own status); the runs started
     * before finish. */
    const atomic_int *cancel;
    /* Optional (0: none): runs after the first that would start once
     * hpod_now_s() >= stop_at are skipped the same way, so a call ends
     * about then with at least one run done. */
    double stop_at;
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

/* Runs first .. first + runs - 1 of a simulation (a piece of its
 * repeats, or all of them): run first + k holds lens[k] row ids at
 * seqs + k·stride. seconds: their wall time. */
struct simrun_runs {
    size_t first, runs, stride;
    size_t *seqs, *lens; /* owned */
    double seconds;
};
/* Room for runs runs from first on (every lens 0). */
void simrun_runs_init(struct simrun_runs *r, size_t first, size_t runs,
                      size_t stride);
void simrun_runs_clear(struct simrun_runs *r);

/* The sequences of r as JSON (new): one array of row ids per run. */
json_t *simrun_runs_json(const struct simrun_runs *r);

/*
 * simrun_runs_from_json - seqs (an array of runs, each an array of at
 * most stride row ids, each below stride; what simrun_runs_json wrote) as
 * runs first, first + 1, ... into r, with seconds. HPOD_EUNPROC when seqs
 * has another shape (r is then empty).
 */
enum hpod_status simrun_runs_from_json(json_t *seqs, size_t first,
                                       size_t stride, double seconds,
                                       struct simrun_runs *r,
                                       struct hpod_err *err);

/*
 * simrun_runs_append - copies src's runs into dst where they belong
 * (src->first - dst->first from dst's start; same stride, and they fit)
 * and adds src's seconds.
 */
void simrun_runs_append(struct simrun_runs *dst, const struct simrun_runs *src);

#endif
