/*
 * bench/simulate.h - simulations on the benchmarks, the request body
 * (borrowed jansson values) checked against the table and the repeats
 * run, with no HTTP:
 *   - on a lookup table, a single-objective run (core/simulate_run) or a
 *     multi-objective / constrained one (core/simulate_run_mo), both
 *     through bench/simrun as `hpod-bench` runs them, in pieces of
 *     repeats if the caller wants (bench/jobs runs a job in slices);
 *   - on a learning-curve set, see bench/simcurves.h.
 * The request itself is parsed by bench/simreq; the caller stores the
 * result (bench/jobs).
 */
#ifndef HPOD_BENCH_SIMULATE_H
#define HPOD_BENCH_SIMULATE_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>

#include "bench/simrun.h"
#include "bench/tables.h"
#include "common/status.h"
#include "core/metrics.h"
#include "core/simulate.h"

#define BENCH_SIM_MAX_REPEATS 1000
/* The limits of a study definition's objectives and constraints. */
#define BENCH_SIM_MAX_OBJECTIVES 8
#define BENCH_SIM_MAX_CONSTRAINTS 16

/* The constrained run's metric, beside enum metric_id's. */
#define SIM_METRIC_GAP (1u << METRIC_COUNT)

/* A finished simulation: what is stored and answered. */
struct bench_sim_result {
    json_t *summary; /* new reference */
    /* Sequence r: the first min(lens[r], cap) row ids at seqs + r·stride
     * (owned). */
    size_t *seqs, *lens;
    size_t stride, runs, cap;
    double seconds;
};
void bench_simulate_result_free(struct bench_sim_result *res);

/* bench_simulate_result_set - hands *summary, *seqs and *lens over to res (the
 * pointers become NULL) with the other fields. */
void bench_simulate_result_set(struct bench_sim_result *res, json_t **summary,
                               size_t **seqs, size_t **lens, size_t stride,
                               size_t runs, size_t cap, double seconds);

/*
 * bench_simulate_metrics_parse - the "metrics" list ms of a simulate request:
 * names from ftb, ftc, fb, fto, fta, fbp and gap, each at most once. *out
 * gets their bits (METRIC_BIT()s and SIM_METRIC_GAP).
 */
enum hpod_status bench_simulate_metrics_parse(struct hpod_err *err, json_t *ms,
                                              unsigned *out);

/*
 * A simulate request on a lookup table, as far as it is checked without
 * the table (bench/simreq parses it; objectives, constraints, tolerance,
 * budget and pareto_budget are read from the body by
 * bench_simulate_plan_create).
 */
struct bench_sim_table {
    struct simulate_algo single; /* the sampler of a single-objective run */
    struct simulate_mo_algo mo;  /* that of a multi-objective run */
    /* 0: greedy, whose multi-objective form (core/mobo.h mobo_greedy)
     * needs several objectives: no constrained single-objective run. */
    int mo_able;
    int force_mo;      /* 1: always the multi-objective run (ehvi) */
    json_t *norm_algo; /* the normalized algorithm, stored as is (its
                          "seed" is set to seed); owned by whoever parsed
                          it */
    long long repeats, init, seed, budget;
    /* "metrics": METRIC_BIT()s and SIM_METRIC_GAP; 0 when absent (the
     * defaults of the kind of run). */
    unsigned metrics;
};

/*
 * A simulation on a lookup table, checked against the table and ready to
 * run in pieces: run r uses seed + r alone (core/simulate), so any split
 * of the repeats into ranges run apart, then summarized together by
 * bench_simulate_plan_result, gives exactly the result of running them all at
 * once (the same sequences, the same metrics).
 */
struct bench_sim_plan;

/*
 * bench_simulate_plan_create - checks body (objectives, constraints, tolerance,
 * budgets, metrics) against table t (named name) for the parsed request
 * tr and prepares its runs. body, t and tr->norm_algo are referenced, not
 * copied: t must outlive the plan (body and norm_algo are kept by
 * reference count). HPOD_EINVAL or HPOD_EUNPROC with err naming the field.
 */
enum hpod_status bench_simulate_plan_create(json_t *body, const char *name,
                                            const struct bench_table *t,
                                            const struct bench_sim_table *tr,
                                            struct bench_sim_plan **out,
                                            struct hpod_err *err);
void bench_simulate_plan_free(struct bench_sim_plan *p);

/* Row ids per sequence that a plan's runs may hold (the table's rows). */
size_t bench_simulate_plan_stride(const struct bench_sim_plan *p);

/* Optional hooks of bench_simulate_plan_run, handed to bench/simrun. */
struct bench_sim_hooks {
    /* Called now and then with the runs of this call done so far. */
    void (*progress)(void *arg, size_t done, size_t runs);
    void *progress_arg;
    /* Once *stop is nonzero no further run starts. */
    const atomic_int *stop;
    /* 0, or hpod_now_s() after which no run but the first starts. */
    double stop_at;
};

/*
 * bench_simulate_plan_run - runs first .. first + count - 1 of p's repeats
 * (first + count <= repeats) on a few threads into out
 * (simrun_runs_init'ed here). When hooks->stop or stop_at ends the call
 * early, out->runs is the number of runs from first on that finished
 * without a gap (at least 1 after stop_at; possibly 0 after stop). HPOD_EUNPROC
 * (err says which run) when a run failed.
 */
enum hpod_status bench_simulate_plan_run(const struct bench_sim_plan *p,
                                         size_t first, size_t count,
                                         const struct bench_sim_hooks *hooks,
                                         struct simrun_runs *out,
                                         struct hpod_err *err);

/*
 * bench_simulate_plan_result - the simulation's result from all of its runs
 * (all->first 0, all->runs the repeats, all->seconds the wall time of
 * every piece): the metrics, the summary, and the sequences, whose arrays
 * are handed over to res (all is left empty).
 */
enum hpod_status bench_simulate_plan_result(const struct bench_sim_plan *p,
                                            struct simrun_runs *all,
                                            struct bench_sim_result *res,
                                            struct hpod_err *err);

/*
 * bench_simulate_table - the whole simulation at once: plan, every run,
 * result (what a job of a single piece does).
 */
enum hpod_status bench_simulate_table(json_t *body, const char *name,
                                      const struct bench_table *t,
                                      const struct bench_sim_table *tr,
                                      struct bench_sim_result *res,
                                      struct hpod_err *err);

/*
 * The arrays of a multi-objective or constrained run on a table (owned),
 * built the same way for HTTP and `hpod-bench`.
 */
struct bench_mo_setup {
    size_t n, m, nc;
    double *y;  /* n × m: objective j times its sense (larger is better) */
    double *y0; /* n: the first objective of y */
    double *c;  /* n × nc: constraint values, feasible when c <= cb */
    double ref[BENCH_SIM_MAX_OBJECTIVES]; /* pareto_reference of y, 10% */
    double cb[BENCH_SIM_MAX_CONSTRAINTS];
    unsigned char con_log[BENCH_SIM_MAX_CONSTRAINTS]; /* bound and column
                                                        positive: a max
                                                        bound on a log */
    unsigned char *pareto;         /* n: the rows on y's front (m >= 2) */
    struct simulate_mo_problem mp; /* the problem, pointing into the above */
};

/*
 * bench_simulate_mo_setup_init - objectives col[j] (t's columns) with sense[j]
 * (1 maximize, -1 minimize), constraints ccol[k] <= bound[k] (cmax[k]) or
 * >= bound[k]. m <= BENCH_SIM_MAX_OBJECTIVES, nc <=
 * BENCH_SIM_MAX_CONSTRAINTS.
 */
void bench_simulate_mo_setup_init(struct bench_mo_setup *s,
                                  const struct bench_table *t, size_t m,
                                  const double *const *col, const int *sense,
                                  size_t nc, const double *const *ccol,
                                  const int *cmax, const double *bound);
void bench_simulate_mo_setup_free(struct bench_mo_setup *s);

/*
 * bench_simulate_mo_gap - the constrained single-objective measure: over runs
 * sequences (row ids at seqs + r·stride, the first min(lens[r], budget)),
 * the mean and std of |best feasible y - best feasible y found| and the
 * runs that found no feasible row (missed). Returns 0 (g untouched) when
 * no row of the table is feasible.
 */
int bench_simulate_mo_gap(const struct bench_mo_setup *s, const size_t *seqs,
                          size_t stride, const size_t *lens, size_t runs,
                          size_t budget, struct simulate_stat *g);

#endif
