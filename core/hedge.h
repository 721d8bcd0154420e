/*
 * core/hedge.h - GP-Hedge (Hoffman, Brochu & de Freitas, UAI 2011) over
 * two arms on a finite candidate list: arm 0, the GP sampler as configured
 * (core/sampler_gp.h), and arm 1, graph EI (core/sampler_graph.h, Matérn,
 * acquisition ei). The study option "hedge" (sampler_input.variant
 * SAMPLER_V_HEDGE).
 *
 * At each model step t (init <= t <= n) both arms' nominees are those they
 * would choose from the first t observations (only they used, no pending;
 * the GP arm with its own kept-model chain, from the defaults at t = init,
 * each step's fit from rng_seed2(seed, t)); an arm's gain is the sum over
 * its nominees at t < n of the posterior mean there of that chain's GP
 * conditioned on all n observations (normal scores, standardized units),
 * weighted by SAMPLER_HEDGE_DISCOUNT^(n-1-t) (a discounted Hedge: which arm
 * suits the search changes as it moves from exploring to exploiting). The
 * choice is arm 1's nominee at n with probability
 * 1/(1 + exp(η·(gain0 - gain1))), η = SAMPLER_HEDGE_ETA, drawn from
 * rng_seed2(seed ^ SAMPLER_HEDGE_STREAM, seq), else arm 0's; the nominees
 * at n are computed from the input as it is (pending trials, every held
 * candidate; graph EI labels only the observations, so that its factor is
 * the replay's). The nominees are cached in the sampler state (checked
 * against the observations, so never changing an answer); a cold process
 * replays them: n GP and n graph choices. A work budget
 * (sampler_input.budget) is checked between replayed steps: once it is
 * spent the replay stops, keeps what it replayed for the next choice,
 * and the GP arm alone chooses this time (explain->budget_cut says so).
 */
#ifndef HPOD_HEDGE_H
#define HPOD_HEDGE_H

#include <stddef.h>

#include "common/status.h"
#include "core/rng.h"
#include "core/sampler_input.h"

#define SAMPLER_HEDGE_ETA 1.0
#define SAMPLER_HEDGE_DISCOUNT 0.8
#define SAMPLER_HEDGE_STREAM 0x6865646765ULL

/* Frees a state's hedge part (sampler_state.hedge); accepts NULL. */
void hedge_cache_free(struct hedge_cache *c);

/*
 * hedge_finite - the hedge's choice among in's free candidates into *cand
 * (in->explain, when set, gets the chosen arm's explanation and
 * explain->arm). HPOD_EINVAL on a candidate index out of range; another
 * failure means an arm could not choose (the caller falls back to a
 * random choice).
 */
enum hpod_status hedge_finite(const struct sampler_input *in, struct rng *r,
                              size_t *cand);

#endif
