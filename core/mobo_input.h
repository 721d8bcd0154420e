/*
 * core/mobo_input.h - what a multi-objective or constrained choice reads
 * (struct mobo_input) and the method's constants; shared by core/mobo (the
 * entry points; the method is described there) and the modules it
 * dispatches to: core/mobo_ctx, core/mobo_acq, core/mobo_gp,
 * core/mobo_graph and core/mobo_greedy.
 */
#ifndef HPOD_MOBO_INPUT_H
#define HPOD_MOBO_INPUT_H

#include <stddef.h>

#include "core/compute_budget.h"
#include "core/space.h"

struct sampler_explain; /* core/sampler_explain.h */

/* Monte Carlo draws per candidate for EHVI with m >= 3 objectives. */
#define MOBO_MC_SAMPLES 256
/*
 * The most objectives for which a draw's hypervolume improvement is exact
 * (ehvi_mc). Its cost grows exponentially with m: per candidate (256
 * draws, release, one core) 1.4 ms at m = 4 with 57 front points, 4.5 ms
 * at m = 5 with 40, 37 ms at m = 6 and 44 ms at m = 8 with 38-40, so
 * that an 8-objective study's suggest took 70-90 s after 22 trials
 * (hpod serve, 1000 continuous candidates, a loaded machine). Above it
 * EHVI is estimated through random hypervolume scalarizations
 * (ehvi_hvs_mc: one direction per draw, the directions drawn once per
 * suggestion from (seed, seq) and shared by every candidate), O(m) per
 * draw once each direction's front maximum is known.
 */
#define MOBO_EHVI_EXACT_MAX 4
/*
 * Points whose probability of feasibility is below this are not chosen
 * while a more probably feasible point has a positive acquisition.
 */
#define MOBO_MIN_PFEAS 1e-3

/*
 * Fewest reports of a constrained metric before its GP may vouch for a
 * trial that did not report it (mobo_feasibility's callers: the service's
 * /best and decoupled probes, and their simulation). ML-II on fewer points
 * does not identify signal variance, noise and a lengthscale per
 * dimension: with two reports on either side of the bound, the fit can put
 * the whole difference in a long lengthscale and answer P ≈ 1 next to the
 * feasible one, which no user would take as evidence.
 */
#define MOBO_MIN_CON_REPORTS 5

/* mobo_input.gp_blend: which objectives blend a GP into the graph. */
enum mobo_blend {
    MOBO_BLEND_NONE = 0,
    MOBO_BLEND_FIRST = 1 /* the first objective */
};

/* GREEDY: no surrogate, the model-free control (mobo_greedy). */
enum mobo_surrogate {
    MOBO_SURROGATE_GP = 0,
    MOBO_SURROGATE_GRAPH = 1,
    MOBO_SURROGATE_GREEDY = 2
};

/* mobo_input.trust_shape: which free candidates form the trust region. */
enum mobo_trust_shape {
    MOBO_TRUST_NEAREST = 0, /* the trust_k nearest (trust_region_nearest) */
    MOBO_TRUST_STEPS = 1    /* one step from a front row (trust_region_steps) */
};

/*
 * Optional per-caller cache (one per study or simulated run; not
 * thread-safe; mobo_state_create in core/mobo.h): the objective GPs of
 * the last call, their fit's key (the first s rows, seed, objective,
 * kernel) and their factor and candidate predictions (gp_set_queries),
 * which the next call extends, and the graph over a finite study's
 * candidates. It never changes an answer beyond round-off
 * (tests/unit/test_mobo.c checks warm against cold to 1e-9).
 */
struct mobo_state;

/*
 * Everything mobo_next and mobo_feasibility read. All arrays are borrowed
 * for the call and row-major. A "non-finite" value (NaN, ±Inf) in obs_y or
 * obs_c means "not reported".
 */
struct mobo_input {
    const struct space *space;
    int surrogate; /* enum mobo_surrogate */
    int kernel;    /* enum kernel_kind, for the GPs and the graph weights */
    unsigned long long seed;
    int seq; /* issue number of the trial being chosen (0-based) */
    /* Finite studies: n_cand candidates (raw, n_cand × n_params) and the
     * flags of those already held by a trial. n_cand == 0: continuous. */
    const double *cand_raw;
    const unsigned char *cand_used;
    size_t n_cand;
    /* Objectives: m >= 1 of them, each ORIENTED so that larger is better
     * (the caller negates a minimized metric). */
    size_t m;
    /* Hypervolume reference point (m values, oriented like obs_y; the
     * caller derives it, e.g. pareto_reference() or the study's). Only
     * read when m >= 2; must then be finite. */
    const double *ref;
    /* Observations: obs_raw n_obs × n_params, obs_y n_obs × m (NaN: not
     * reported), obs_cand n_obs candidate indices (finite studies only). */
    const double *obs_raw;
    const double *obs_y;
    const size_t *obs_cand;
    size_t n_obs;
    /* Pending trials: pend_raw n_pend × n_params, pend_cand (finite). */
    const double *pend_raw;
    const size_t *pend_cand;
    size_t n_pend;
    /* Constraints: n_con metrics; obs_c n_obs × n_con observed values (NaN:
     * not reported). Feasible iff value <= con_max[c] (a "min" bound is
     * passed by negating both the values and the bound). con_log (n_con
     * flags, may be NULL = none): the metric is positive and its GP models
     * log(value) against log(con_max[c]); the caller sets it only for
     * metrics whose reported values are all > 0 (a value <= 0 under
     * con_log is HPOD_EINVAL); con_max[c] <= 0 under con_log makes the
     * constraint impossible (P = 0). A "min" bound on a positive metric
     * keeps its log model when passed as 1/value <= 1/min under con_log
     * (log(1/v) = -log v). */
    size_t n_con;
    const double *obs_c;
    const double *con_max;
    const unsigned char *con_log;
    /* Variants of the multi-objective method (m >= 2; an ehvi study's
     * options, study/algo.c). trust_k (0: off; finite studies only): a trust
     * region around the front, MORBO-like (Daulton et al. 2022): only the
     * trust_k nearest free candidates (Euclidean, encoded space; ties to the
     * lower index) of each trial of the incumbent front are eligible; when none
     * of them has a positive EHVI, every free candidate is, and so for a step
     * once the region has stalled: the last trust_k · |F| evaluations (F the
     * front's observed trials) added none to F. */
    size_t trust_k;
    /* trust_shape (enum mobo_trust_shape; read only with trust_k > 0):
     * MOBO_TRUST_NEAREST, the trust_k nearest free candidates of each
     * front trial; MOBO_TRUST_STEPS, the free candidates one step from a
     * front trial (trust_region_steps: one hyperparameter changed), trust_k
     * then setting only the stall rule's trust_k · |F|. When the step region
     * has no free candidate with a positive EHVI, every free candidate is
     * eligible, as above. Other values: HPOD_EINVAL. */
    int trust_shape;
    /* front_ref (>= 0, finite; 0: off, ref as given): EHVI's reference is
     * taken from the observed front instead of ref: per objective, the
     * worst value on the front of the trials that reported every
     * objective and meet their constraints, moved out by front_ref × the
     * range of those trials' values (|that value| if the range is 0, 1 if
     * both are). While no trial qualifies, ref. With ref beyond the worst of
     * the whole space (the default), EHVI pays for extending the front into
     * values no front row has, dominated corners included; at the front's nadir
     * it pays for the region the front spans (docs/mo_tuning.md). */
    double front_ref;
    /* gp_blend (enum mobo_blend; graph surrogate only, m >= 2): the
     * surrogate of the first objective (MOBO_BLEND_FIRST) is the equal
     * mixture of the graph's and a GP's predictions (mobo_graph_blend: mean the
     * average, variance the average of the variances), the GP fitted as the GP
     * surrogate's (refit schedule, kriging believer; a pending trial is
     * believed at the average of the two beliefs); the other objectives keep
     * the graph. Why: on the nmthpo tables the GP predicts the next evaluated
     * row's BLEU better than the graph (forward rank correlation 0.35
     * against -0.02 on zh-en after 30 rows), GPU time as well or worse on
     * the 118-176-row tables and better on the 604-767-row ones; the
     * blend lowers fta on five of six tables (docs/mo_tuning.md). Other
     * values: HPOD_EINVAL. */
    int gp_blend;
    /* Optional cache (NULL: none); see struct mobo_state. */
    struct mobo_state *state;
    /* The choice's work budget (core/compute_budget.h; NULL: unbounded):
     * the GP fits, the acquisition optimizer and the scoring of the
     * candidates (in chunks spread over the list) yield when it is spent,
     * answering the best scored. */
    struct compute_budget *budget;
    /* Optional output (NULL: nothing recorded): mobo_next clears it and,
     * on success, fills the pick's acquisition (the log of EHVI, or EI
     * for one objective, plus the log probability of feasibility: the
     * score it maximizes) and, for finite studies, the runners-up by that
     * score. mean/sd stay NAN: there is one surrogate per objective. The
     * caller clears it (sampler_explain_clear). */
    struct sampler_explain *explain;
};

#endif
