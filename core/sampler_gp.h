/*
 * core/sampler_gp.h - the GP sampler: Bayesian optimization with a
 * Gaussian process (core/gp.h) on the normal scores of the observations,
 * log EI / log PI / UCB (core/acquisition.h), on a finite candidate list
 * or, through core/acqopt.h, a continuous space. Called by sampler_next
 * (core/sampler.h) and by the hedge's GP arm (core/hedge.h); the input is
 * core/sampler_input.h's.
 */
#ifndef HPOD_SAMPLER_GP_H
#define HPOD_SAMPLER_GP_H

#include <stddef.h>

#include "common/status.h"
#include "core/rng.h"
#include "core/sampler_input.h"

struct gp;

/* Frees a state's GP part (sampler_state.gp); accepts NULL. */
void sampler_gp_cache_free(struct sampler_gp_cache *c);

/*
 * sampler_gp_fit - fits the GP on the observations of in (normal scores,
 * less w times the transfer prior at their candidates when w != 0) and
 * conditions it on observations plus pending points at their predicted
 * means. The hyperparameters are the study's kept ones (in->gp_model)
 * unless gp_refit_due asks for a refit from the stream r, which is then
 * recorded there. *gp_out: the GP (*owned: the caller destroys it; else
 * it is the state's), in the units of the normal scores; *best: EI's (and
 * PI's) incumbent in those units, the largest posterior mean at an
 * observation; *noise (may be NULL): the noise variance EI adds under
 * "nei" (at least SAMPLER_NEI_FLOOR in standardized units).
 * HPOD_ENUMERIC when no fit can be factorized.
 */
enum hpod_status sampler_gp_fit(const struct sampler_input *in, struct rng *r,
                                struct gp **gp_out, int *owned, double *best,
                                double w, double *noise);

/*
 * sampler_gp_finite - the free candidate of largest acquisition (ties to
 * the lowest index) into *cand, within the trust region when in asks for
 * one (core/trust_region.h). HPOD_ENOTFOUND when no candidate is free;
 * another failure means the model could not choose (the caller falls
 * back to a random choice).
 */
enum hpod_status sampler_gp_finite(const struct sampler_input *in,
                                   struct rng *r, size_t *cand);

/*
 * sampler_gp_continuous - a continuous (or mixed) space: core/acqopt.h's
 * random points and local refinement, from the trial's stream r; the
 * model is fitted from the same stream between the draw and the
 * refinement. raw (n_params) receives the choice.
 */
enum hpod_status sampler_gp_continuous(const struct sampler_input *in,
                                       struct rng *r, double *raw);

#endif
