/*
 * core/mobo.h - multi-objective and constrained choices: expected
 * hypervolume improvement (EHVI) with one GP or graph surrogate per
 * objective, times the probability that every constraint holds.
 *
 * The handler gathers a study's history exactly as for core/sampler.h,
 * with m objective values per trial (NaN where a trial did not report a
 * metric: decoupled reports) and the values of its constrained metrics;
 * mobo_next chooses the next configuration, mobo_feasibility gives the
 * probability that configurations satisfy every constraint (for the
 * recommendations of /best and /pareto, which must reach the study's
 * confidence). Every answer is a function of (seed, seq, history) only.
 *
 * Method (docs/ARCHITECTURE.md, "Algorithms"):
 *   - each objective j gets its own surrogate, fitted only on the trials
 *     that reported objective j; pending trials enter it at its predicted
 *     mean (kriging believer, Ginsbourger et al. 2010). GP: core/gp.h,
 *     ML-II fit. Graph: core/graph.h's harmonic mean, with the
 *     Gaussian-field variance rescaled by each node's weighted degree
 *     (s²·d_i·G_ii instead of s²·d̄·G_ii; why in mobo.c, degree_scale,
 *     figures in docs/tuning.md);
 *   - each constrained metric c gets its own GP, fitted on the trials that
 *     reported c, on log(value) when con_log[c] is set (speed, time and
 *     memory have multiplicative noise: Beck et al. 2016), and
 *     P(c(x) <= con_max[c]) = Φ((b - μ_c(x)) / σ_c(x)) with b = con_max[c]
 *     (log con_max[c] under con_log) and μ_c, σ_c the latent posterior
 *     (mobo_feasibility, mobo_front); mobo_next's acquisition takes the
 *     probability that the value a trial at x would REPORT meets the
 *     bound, σ_c² plus the GP's noise variance: feasibility is judged on
 *     reported values, and a training's time has a noisy part (its number
 *     of updates to convergence) that the latent P would call certain
 *     next to one unlucky neighbour (en-ja: the best feasible rows sit
 *     at 0.91-0.99 of the bound among near-identical ones at 1.01-1.3);
 *   - m = 1: the objective GP is fitted on the values raised to at least
 *     the lower Tukey fence Q1 - 1.5 IQR of the observed ones (from 8 on):
 *     a failed training (BLEU 2 among 17-20) is another regime, which a
 *     stationary GP can only bridge by shrinking its lengthscales or
 *     inflating its noise; capped, it still says "bad here" and the order
 *     above the fence and the incumbent are kept;
 *   - m >= 2: acquisition log EHVI(x) + Σ_c log P_c(x) (the product
 *     EHVI · Π P_c of Gardner et al. 2014 / Beck et al. 2016, in logs so
 *     that it does not underflow), EHVI against the incumbent front: the
 *     observed trials that reported all m objectives and meet every
 *     constraint they reported (one they did not report must hold with
 *     P_c >= ½; see mobo_front), plus the believed means of pending trials
 *     feasible with probability >= ½; exact (ehvi_2d) for m = 2, Monte
 *     Carlo (ehvi_mc, MOBO_MC_SAMPLES draws, the same draws for every
 *     candidate so that candidates are compared on common random numbers)
 *     for 3 <= m <= MOBO_EHVI_EXACT_MAX; beyond, Monte Carlo through
 *     random hypervolume scalarizations (ehvi_hvs_mc, the same draws);
 *   - m = 1: log EI(x) + Σ_c log P_c(x), EI over the best value of the
 *     same incumbent set (the constrained single-objective sampler; with
 *     n_con = 0 it is plain EI); while that set is empty, Σ_c log P_c(x) alone,
 * i.e. look for a feasible region first (Gelbart, Snoek & Adams 2014). Points
 * with Π_c P_c < MOBO_MIN_PFEAS are excluded: in the far tails log EI can fall
 * faster than log P (once the best feasible point is known, EI is ~0
 * everywhere), and the plain product would then spend evaluations on certain
 * violations. When no point is left with a positive acquisition, the most
 * probably feasible one is chosen. Finite studies score every free candidate;
 * continuous studies run core/acqopt.h's optimizer (seeded random points, then
 * local refinement around the best few; GP), or, with the graph surrogate,
 * build the graph over ACQOPT_N_NODES random nodes plus the evaluated and
 * pending points (as core/sampler.c does). Argmax with ties to the lowest
 * index.
 *
 * Pure numerics: no I/O, no globals; randomness from rng_seed2(seed, seq).
 */
#ifndef HPOD_MOBO_H
#define HPOD_MOBO_H

#include <stddef.h>

#include "core/space.h"
#include "common/status.h"

struct sampler_explain; /* core/sampler.h */

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
    MOBO_BLEND_FIRST = 1, /* the first objective */
    MOBO_BLEND_ALL = 2    /* every objective */
};

/* GREEDY: no surrogate, the model-free control (mobo_greedy). */
enum mobo_surrogate {
    MOBO_SURROGATE_GP = 0,
    MOBO_SURROGATE_GRAPH = 1,
    MOBO_SURROGATE_GREEDY = 2
};

/*
 * The refit schedule of the objective GPs (GP surrogate): the
 * hyperparameters of objective j are those ML-II fits on the FIRST s of
 * the n trials that reported j (in the order of the observations), with s
 * = mobo_fit_point(n) and the fit's random starts drawn from (seed, j, s)
 * alone; the GP is then conditioned on all n (and the pending trials)
 * with them. s = n up to GP_REFIT_ALWAYS_N, then the schedule points
 * s_{k+1} = s_k + ceil(GP_REFIT_GROWTH · s_k) (core/gp.h): a refit every
 * 10% growth, as the kept model of gp studies. Every choice is therefore
 * a function of (seed, seq, history) alone; a struct mobo_state only
 * saves the fit (and the factor, extended by Cholesky appends) that an
 * earlier call already made on the same first s rows.
 */
#ifndef MOBO_REFIT_GROWTH
#define MOBO_REFIT_GROWTH 0.1
#endif
size_t mobo_fit_point(size_t n);

/*
 * mobo_trust_region - the trust region of mobo_input.trust_k: sets
 * mask[i] = 1 for the k nearest candidates i with !used[i] (Euclidean
 * distance in the encoded space u, n × dim; ties to the lower index) of
 * each of the nf centres (rows of u, indices centre[0..nf)), 0 elsewhere.
 * Returns the number of candidates marked.
 */
size_t mobo_trust_region(const double *u, size_t n, size_t dim,
                         const unsigned char *used, const size_t *centre,
                         size_t nf, size_t k, unsigned char *mask);

/* mobo_input.trust_shape: which free candidates form the trust region. */
enum mobo_trust_shape {
    MOBO_TRUST_NEAREST = 0, /* the trust_k nearest (mobo_trust_region) */
    MOBO_TRUST_STEPS = 1    /* one step from a front row (mobo_step_region) */
};

/*
 * mobo_step_region - the trust region of mobo_input.trust_shape
 * MOBO_TRUST_STEPS: sets mask[i] = 1 for the candidates i with !used[i]
 * that are ONE STEP from one of the nf centres (candidate indices
 * centre[0..nf)), 0 elsewhere: the two configurations (raw, n ×
 * sp->n_params) differ in exactly one parameter, by any value. Every
 * hyperparameter counts alike, however many values it has and however far
 * apart they are encoded (the k nearest in the encoded space take every
 * learning-rate step before any change of a two-valued parameter; why in
 * docs/mo_tuning.md, Session 25). Returns the number of candidates marked.
 */
size_t mobo_step_region(const struct space *sp, const double *raw, size_t n,
                        const unsigned char *used, const size_t *centre,
                        size_t nf, unsigned char *mask);

/*
 * mobo_blend - the equal mixture of two Gaussian predictions at k points,
 * moment matched without the spread of the means: mu[i] = (mu_a[i] +
 * mu_b[i]) / 2, sd[i] = sqrt((sd_a[i]² + sd_b[i]²) / 2). mu/sd may alias
 * mu_a/sd_a. The spread term (mu_a - mu_b)²/4 of the exact mixture
 * variance was measured and lost (docs/mo_tuning.md, Session 24).
 */
void mobo_blend(const double *mu_a, const double *sd_a, const double *mu_b,
                const double *sd_b, size_t k, double *mu, double *sd);

/*
 * Optional per-caller cache (one per study or simulated run; not
 * thread-safe): the objective GPs of the last call, their fit's key (the
 * first s rows, seed, objective, kernel) and their factor and candidate
 * predictions (gp_set_queries), which the next call extends. It never
 * changes an answer beyond round-off (tests/unit/test_mobo.c checks warm
 * against cold to 1e-9).
 */
struct mobo_state;
struct mobo_state *mobo_state_create(void);
void mobo_state_destroy(struct mobo_state *s); /* accepts NULL */

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
     * options, study/algo.c). log_objectives (0/1): each objective whose
     * reported values are all nonzero and of one sign (a positive metric,
     * negated when minimized) gets a surrogate of sign(y)·log|y| (GPU time
     * and the like have multiplicative noise and span decades); its EHVI,
     * front and reference are then in those units (a reference of the
     * other sign or zero, which has no log, is taken one unit below the
     * smallest transformed value). Other objectives stay as they are.
     * trust_k (0: off; finite studies only): a trust region around the
     * front, MORBO-like (Daulton et al. 2022): only the trust_k nearest
     * free candidates (Euclidean, encoded space; ties to the lower index)
     * of each trial of the incumbent front are eligible; when none of
     * them has a positive EHVI, every free candidate is, and so for a
     * step once the region has stalled: the last trust_k · |F|
     * evaluations (F the front's observed trials) added none to F. */
    int log_objectives;
    size_t trust_k;
    /* trust_shape (enum mobo_trust_shape; read only with trust_k > 0):
     * MOBO_TRUST_NEAREST, the trust_k nearest free candidates of each
     * front trial; MOBO_TRUST_STEPS, the free candidates one step from a
     * front trial (mobo_step_region: one hyperparameter changed), trust_k then
     * setting only the stall rule's trust_k · |F|. When the step region has no
     * free candidate with a positive EHVI, every free candidate is eligible, as
     * above. Other values: HPOD_EINVAL. */
    int trust_shape;
    /* front_ref (>= 0, finite; 0: off, ref as given): EHVI's reference is
     * taken from the observed front instead of ref: per objective, the
     * worst value on the front of the trials that reported every
     * objective and meet their constraints, moved out by front_ref × the
     * range of those trials' values (|that value| if the range is 0, 1 if
     * both are); in the surrogates' units under log_objectives. While no
     * trial qualifies, ref. With ref beyond the worst of the whole space
     * (the default), EHVI pays for extending the front into values no
     * front row has, dominated corners included; at the front's nadir it
     * pays for the region the front spans (docs/mo_tuning.md). */
    double front_ref;
    /* gp_blend (enum mobo_blend; graph surrogate only, m >= 2): the
     * surrogate of the FIRST objective (MOBO_BLEND_FIRST) or of every
     * objective (MOBO_BLEND_ALL) is the equal mixture of the graph's and a
     * GP's predictions (mobo_blend: mean the average, variance the
     * average of the variances), the GP fitted as the GP surrogate's
     * (refit schedule, kriging believer; a pending trial is believed at
     * the average of the two beliefs); the other objectives keep the
     * graph. Why: on the nmthpo tables the GP predicts the next evaluated
     * row's BLEU better than the graph (forward rank correlation 0.35
     * against -0.02 on zh-en after 30 rows), GPU time as well or worse on
     * the 118-176-row tables and better on the 604-767-row ones; the
     * blend lowers fta on five of six tables (docs/mo_tuning.md,
     * Session 24). Other values: HPOD_EINVAL. */
    int gp_blend;
    /* Optional cache (NULL: none); see struct mobo_state. */
    struct mobo_state *state;
    /* Optional output (NULL: nothing recorded): mobo_next clears it and,
     * on success, fills the pick's acquisition (the log of EHVI, or EI
     * for one objective, plus the log probability of feasibility: the
     * score it maximizes) and, for finite studies, the runners-up by that
     * score. mean/sd stay NAN: there is one surrogate per objective. The
     * caller clears it (sampler_explain_clear). */
    struct sampler_explain *explain;
};

/*
 * mobo_feasibility - probability that every constraint holds at the k
 * encoded points u (k × space->dim, as from space_encode), written to
 * pfeas (k entries): Π_c Φ((b_c - μ_c(x)) / σ_c(x)), from one GP per
 * constrained metric fitted on the trials that reported it (kernel
 * in->kernel; the better by marginal likelihood of two fits seeded from
 * in->seed and in->seq, so mobo_next uses the same models). A metric that no
 * trial has reported contributes a factor 1: nothing is known against it (the
 * caller may decide otherwise for recommendations). A metric with one report
 * gets a GP with the default hyperparameters (gp_create), in the units of its
 * value (or log value): its prior scale is then 1. σ_c = 0 gives a step (1 if
 * μ_c <= b_c). n_con == 0: every pfeas is 1. Objectives, candidates and pending
 * trials are not read.
 * Returns HPOD_OK; HPOD_EINVAL on NULL pointers (where sizes need them),
 * an unknown kernel, a non-finite con_max, a reported value <= 0 under
 * con_log or a non-finite u; HPOD_ENUMERIC if a GP cannot be fitted.
 */
enum hpod_status mobo_feasibility(const struct mobo_input *in, const double *u,
                                  size_t k, double *pfeas);

/*
 * mobo_front - the incumbent that mobo_next improves on, as indices into
 * the observations: the trials that reported all m objectives, whose
 * constraints are met as reported (a constraint a trial did not report
 * counts as met when its GP gives P >= ½, or when nobody reported it),
 * and that no other such trial dominates (m = 1: those with the largest
 * value). idx (n_obs entries of room) receives them in increasing order,
 * *n_front their number. Pending trials are not read. This is a model
 * view: a /pareto answer that must show only observed-feasible trials
 * filters on the reported values itself.
 * Returns HPOD_OK; HPOD_EINVAL and HPOD_ENUMERIC as mobo_feasibility
 * (m == 0 and NULL obs_raw/obs_y with n_obs > 0 are HPOD_EINVAL).
 */
enum hpod_status mobo_front(const struct mobo_input *in, size_t *idx,
                            size_t *n_front);

/*
 * mobo_next - chooses one configuration by the acquisition described at
 * the top of this file: raw (n_params) receives it and, for finite
 * studies, *cand its candidate index (continuous: *cand = (size_t)-1).
 * Never returns a used candidate, nor (continuous) an evaluated or
 * pending node of the graph.
 * Returns HPOD_OK;
 *   HPOD_EINVAL on inconsistent input (NULL pointers where sizes need
 *     them, m == 0, an unknown surrogate or kernel, a non-finite ref with
 *     m >= 2, a candidate index >= n_cand, as mobo_feasibility);
 *   HPOD_ENOTFOUND if a finite study has no free candidate;
 *   HPOD_ENUMERIC when the model cannot choose and the caller should fall
 *     back to a random choice: fewer than 2 trials reported all m
 *     objectives, a surrogate cannot be fitted, or no candidate has a
 *     positive acquisition (EHVI underflowed everywhere) while there is
 *     no constraint to rank them by feasibility instead.
 * Cost: one GP fit (multi-start ML-II) per objective, or one graph
 * factorization per objective (two with pending trials); two thorough
 * fits per constrained metric (see fit_con_gp in mobo.c for why);
 * for m >= 3, MOBO_MC_SAMPLES hypervolume improvements per candidate.
 */
enum hpod_status mobo_next(const struct mobo_input *in, double *raw,
                           size_t *cand);

/*
 * mobo_greedy - the model-free control for several objectives (what
 * mobo_next answers when in->surrogate is MOBO_SURROGATE_GREEDY): the free
 * candidate nearest, in scaled Euclidean distance (space_encode), to any
 * row of the incumbent front (mobo_front: the observed trials that
 * reported every objective, meet their constraints and that no other such
 * trial dominates); ties to the lowest candidate index, so it draws no
 * random number. With m = 1 it is core/sampler.c's greedy (nearest to the
 * best), except that tied best observations all count. Finite studies
 * only; ref is not read. Fills in->explain's pick (acquisition: minus the
 * squared distance) and runners-up the same way.
 * Returns HPOD_OK; HPOD_EINVAL on inconsistent input (as mobo_next, and
 * n_cand == 0); HPOD_ENOTFOUND when no candidate is free; HPOD_ENUMERIC
 * while the front is empty (the caller falls back to a random choice).
 * Cost: O(n_obs² m) for the front, O(n_cand · n_front · dim) to choose.
 */
enum hpod_status mobo_greedy(const struct mobo_input *in, double *raw,
                             size_t *cand);

#endif
