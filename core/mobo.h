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
 *     (s²·d_i·G_ii instead of s²·d̄·G_ii; why in mobo_graph.c, degree_scale,
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
 * pending points (as core/sampler_graph.c does). Argmax with ties to the lowest
 * index.
 *
 * Pure numerics: no I/O, no globals; randomness from rng_seed2(seed, seq).
 */
#ifndef HPOD_MOBO_H
#define HPOD_MOBO_H

#include <stddef.h>

#include "common/status.h"
#include "core/mobo_greedy.h" /* mobo_greedy, the model-free control */
#include "core/mobo_input.h"
#include "core/space.h"

struct mobo_state *mobo_state_create(void);
void mobo_state_free(struct mobo_state *s); /* accepts NULL */

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

#endif
