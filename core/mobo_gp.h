/*
 * core/mobo_gp.h - the GP surrogates of mobo_next (core/mobo.h): one GP
 * per objective, fitted only on the trials that reported it, pending
 * trials at their predicted means (kriging believer); with one objective
 * the values are first raised to the lower Tukey fence (cap_low_outliers
 * in mobo_gp.c says why). Candidates are scored by core/mobo_acq.h.
 */
#ifndef HPOD_MOBO_GP_H
#define HPOD_MOBO_GP_H

#include <stddef.h>

#include "common/status.h"
#include "core/mobo_ctx.h"
#include "core/rng.h"

/*
 * The refit schedule of the objective GPs (GP surrogate): the
 * hyperparameters of objective j are those ML-II fits on the FIRST s of
 * the n trials that reported j (in the order of the observations), with s
 * = mobo_gp_fit_point(n) and the fit's random starts drawn from (seed, j, s)
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
size_t mobo_gp_fit_point(size_t n);

/* Frees the state's objective GPs (mobo_state.obj); the state stays. */
void mobo_gp_state_clear(struct mobo_state *s);

/*
 * mobo_gp_fit_objective - x->ogp[j]: the GP of objective j on the trials
 * that reported it (hyperparameters on the schedule above, kept in
 * in->state when there is one), conditioned on them plus the pending
 * trials at their predicted means, which are kept in x->pend_mu. The
 * standardization is that of all its reports. HPOD_ENUMERIC when no
 * trial reported j or the GP cannot be fitted.
 */
enum hpod_status mobo_gp_fit_objective(struct mobo_ctx *x, size_t j);

/*
 * mobo_gp_finite - a finite study: the candidates are every GP's fixed
 * query set (gp_set_queries), so that a kept GP extends V = L⁻¹K* by the
 * new rows only; the pick (mobo_acq_pick_trust) into *cand.
 */
enum hpod_status mobo_gp_finite(struct mobo_ctx *x, size_t *cand);

/*
 * mobo_gp_continuous - a continuous space: core/acqopt.h's random points
 * and local refinement from the trial's stream r; the pick (mobo_acq_pick
 * over every point scored), decoded, into raw.
 */
enum hpod_status mobo_gp_continuous(struct mobo_ctx *x, struct rng *r,
                                    double *raw);

#endif
