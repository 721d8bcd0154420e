/*
 * core/simulate.h - simulated studies on a lookup table (Zhang & Duh, TACL
 * 2020, section 4): seeded runs that sample the table's rows without
 * replacement, the first `init` rows at random and every later one by
 * sampler_next (core/sampler.h), the same function that serves real
 * studies; and the aggregation of the paper's metrics (core/metrics.h)
 * over many runs.
 *
 * Pure: no I/O, no threads, no globals. Every run is a function of
 * (table, algorithm, seed, init) only, so runs may be spread over threads
 * by the caller (tools/ does) and give the same sequences.
 * Tables are loaded by bench/tables.c.
 */
#ifndef HPOD_SIMULATE_H
#define HPOD_SIMULATE_H

#include <stddef.h>

#include "core/metrics.h"
#include "core/sampler.h"
#include "core/space.h"
#include "common/status.h"

/* A lookup table seen as a finite study. Borrowed by every call. */
struct simulate_problem {
    const struct space *space; /* the table's parameters */
    const double *raw;         /* n × space->n_params raw rows */
    const double *y;           /* n objective values, larger is better */
    size_t n;                  /* rows (> 0) */
};

/* The algorithm, as sampler_next takes it. */
struct simulate_algo {
    enum sampler_kind kind;
    int kernel;       /* enum kernel_kind (gp, graph) */
    int acquisition;  /* gp: 0 ei, 1 pi, 2 ucb; graph: 0 ei, 1 eif */
    unsigned variant; /* sampler_input.variant (SAMPLER_V_*) */
    double ls_min;    /* sampler_input.ls_min (0: the GP's default) */
    /* Transfer (sampler_input's prior_cand, prior_rule): a prior over the
     * table's rows (n, borrowed) or NULL. With one, a GP run's initial
     * rows are the sampler's (the prior's best) instead of
     * simulate_init_rows'. */
    const double *prior;
    int prior_rule;
    int trust_div;   /* sampler_input.trust_div (0: none) */
    double ls_prior; /* sampler_input.ls_prior (0: none) */
};

/*
 * simulate_init_rows - the initial rows of a run: count distinct row ids in
 * [0, n) drawn uniformly without replacement. Draw i uses the stream
 * rng_seed2(seed, i) and takes the k-th still-free row, k = rng_below(free
 * rows); that is exactly what sampler_next's random path does for a study
 * with this seed, so a RANDOM simulation replays a real random study. The
 * rows depend on (seed, n) only: every algorithm starts from the same ones.
 * Inputs: used (n flags, caller's scratch, all zero on entry; the chosen
 * rows are set to 1 on return); out (count ids). count <= n.
 */
void simulate_init_rows(unsigned long long seed, size_t n, size_t count,
                        unsigned char *used, size_t *out);

/*
 * simulate_run - one seeded run. Samples rows without replacement: the
 * first min(init, n) by simulate_init_rows, then each next one by
 * sampler_next with the rows so far as observations (obs_y = p->y), the
 * table as candidates (cand_raw = p->raw) and the sampled rows marked used
 * (seq = issue number, init = init). Stops after min(length, n) rows or,
 * when until is not NULL, as soon as metric_needed_length(until, ...) says
 * the sequence is long enough for every metric it enables (checked after
 * each row; the initial rows count). state (borrowed, may be NULL) is
 * the sampler's cache (sampler.h): pass one per thread to reuse the graph
 * over the table from run to run; the sequence does not depend on it (a
 * new run's labeled set is never a superset of the last one's, so the
 * factor starts cold every run); NULL makes a private one for the run.
 * Outputs: seq_out (caller buffer of min(length, n) entries) receives the
 * 0-based row ids in sampling order; *len_out their number.
 * Return: HPOD_OK; HPOD_EINVAL on NULL pointers, n == 0, length == 0 or a
 * space without parameters; sampler_next's status if it fails (the rows
 * sampled so far are in seq_out and *len_out); HPOD_EINTERNAL if it
 * answers a row out of range or already sampled.
 */
enum hpod_status simulate_run(const struct simulate_problem *p,
                              const struct simulate_algo *a,
                              unsigned long long seed, size_t init,
                              size_t length, const struct metric_spec *until,
                              struct sampler_state *state, size_t *seq_out,
                              size_t *len_out);

/*
 * simulate_many - runs seeds seed0, seed0+1, ..., seed0+runs-1 one after
 * the other (simulate_run each, sharing one sampler state). Run r writes row r
 * of seqs (runs × stride, stride = min(length, n)) and lens[r]. Sequential on
 * purpose: callers that want threads call simulate_run per seed themselves
 * (tools/). Return: HPOD_OK, or the status of the first failing run (later
 * runs are not attempted; their lens are 0).
 */
enum hpod_status
simulate_many(const struct simulate_problem *p, const struct simulate_algo *a,
              unsigned long long seed0, size_t runs, size_t init, size_t length,
              const struct metric_spec *until, size_t *seqs, size_t *lens);

/*
 * Multi-objective and constrained runs (TACL Table 4): the same
 * protocol, with core/mobo choosing (EHVI with one surrogate per
 * objective, times P(feasible) with constraints; m = 1 with constraints is
 * constrained EI). y is n × m, each objective ORIENTED so that larger is
 * better; ref (m) the hypervolume reference in the same orientation; c is
 * n × n_con constrained metrics as "value <= con_max" (a "min" bound is
 * negated by the caller), con_log as in core/mobo.h (may be NULL).
 */
struct simulate_mo_problem {
    const struct space *space;
    const double *raw; /* n × n_params */
    size_t n, m;
    const double *y;
    const double *ref;
    size_t n_con;
    const double *c;
    const double *con_max;
    const unsigned char *con_log;
};

/* random: 1 for random search (the same sequences as simulate_run's). */
struct simulate_mo_algo {
    int random;
    int surrogate;    /* enum mobo_surrogate */
    int kernel;       /* enum kernel_kind */
    size_t trust_k;   /* mobo_input.trust_k */
    double front_ref; /* mobo_input.front_ref */
    int gp_blend;     /* mobo_input.gp_blend */
    int trust_shape;  /* mobo_input.trust_shape */
};

struct mobo_state;

/*
 * What one step of a simulated multi-objective run knows, borrowed: the
 * candidates taken (used, one flag per row of the problem), the m
 * objectives and n_con constraints observed so far (obs_raw n_obs x
 * n_params, obs_y n_obs x m, obs_c n_obs x n_con, obs_cand their rows) and
 * the run's kept models (state, NULL for none).
 */
struct simulate_mo_step {
    const unsigned char *used;
    size_t m, n_con, n_obs;
    const double *obs_raw, *obs_y, *obs_c;
    const size_t *obs_cand;
    struct mobo_state *state;
};

/*
 * simulate_mo_choose - the row step seq of a run chooses: mobo_next with
 * a's surrogate and settings on what s knows or, when the model cannot
 * decide, the step's own random choice, as the server falls back. raw:
 * scratch of the space's n_params. HPOD_ENOTFOUND when no row is left.
 */
enum hpod_status simulate_mo_choose(const struct simulate_mo_problem *p,
                                    const struct simulate_mo_algo *a,
                                    unsigned long long seed, size_t seq,
                                    const struct simulate_mo_step *s,
                                    double *raw, size_t *row);

/*
 * simulate_run_mo - one seeded run as simulate_run, choosing with
 * mobo_next (falling back to the random choice of the step's own stream
 * while the model cannot decide, as the server does). Same outputs and
 * stop rule (until may enable only the Pareto metrics). One struct
 * mobo_state per run keeps the objective GPs between steps (it never
 * changes a choice: core/mobo.h).
 */
enum hpod_status simulate_run_mo(const struct simulate_mo_problem *p,
                                 const struct simulate_mo_algo *a,
                                 unsigned long long seed, size_t init,
                                 size_t length, const struct metric_spec *until,
                                 size_t *seq_out, size_t *len_out);

/*
 * One aggregated metric: mean and population std over the runs where it
 * was reached (core/metrics.h returns 0 for "not in the sequence"), and
 * how many runs missed it. NaN mean/std when every run missed it or the
 * metric is switched off (runs == 0 then).
 */
struct simulate_stat {
    double mean, std;
    size_t runs;   /* runs that reached it */
    size_t missed; /* runs whose sequence never reached it */
};

struct simulate_summary {
    /* In enum metric_id order; switched off: NaN mean, runs 0. */
    struct simulate_stat ftb, ftc, fb;  /* spec->y != NULL */
    struct simulate_stat fto, fta, fbp; /* spec->pareto != NULL */
};

/*
 * simulate_summarize - the metrics spec measures (metric_spec_measures:
 * ftb, ftc, fb when spec->y is set; fto, fta, fbp when spec->pareto is
 * set; less what spec->skip switches off) for each of the runs
 * sequences (row r of seqs, stride entries apart, lens[r] long), then
 * their mean and population std (metric_mean_std). fb and fbp are always
 * reached (a budget longer than a sequence counts what it holds); fb is
 * missed only if its prefix holds no valid row. All arrays borrowed.
 */
void simulate_summarize(const struct metric_spec *spec, const size_t *seqs,
                        size_t stride, const size_t *lens, size_t runs,
                        struct simulate_summary *out);

/*
 * simulate_rs_ftb_expectation - what random search should score: the mean
 * and std of max(P, ninit), P uniform on 1..n (the position of one given
 * row in a random permutation; init rows count as found at ninit, as
 * metric_ftb does). Mean = (n+1)/2 + Σ_{p<ninit}(ninit-p)/n.
 */
void simulate_rs_ftb_expectation(size_t n, size_t ninit, double *mean,
                                 double *std);

#endif
