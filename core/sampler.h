/*
 * core/sampler.h - picks the next configuration of a study with one
 * objective: at random, the greedy control, or a model (the GP sampler,
 * core/sampler_gp.h; the graph sampler, core/sampler_graph.h; GP-Hedge
 * over both, core/hedge.h). What a choice reads is core/sampler_input.h;
 * what it knew when it chose, core/sampler_explain.h.
 *
 * The handler gathers the study's history (completed trials with their
 * objective, oriented so that larger is better; pending trials) and, for
 * finite studies, the candidates with a flag for those already taken; the
 * sampler chooses. Every choice is a function of (seed, issue number,
 * history, and for the GP the study's kept model) only, so any process,
 * cold or warm, gives the same answer.
 */
#ifndef HPOD_SAMPLER_H
#define HPOD_SAMPLER_H

#include <stddef.h>

#include "common/status.h"
#include "core/sampler_explain.h"
#include "core/sampler_gp_model.h"
#include "core/sampler_input.h"
#include "core/space.h"

/*
 * A per-study cache (struct sampler_state, core/sampler_input.h) a caller
 * may keep between calls; the answer never depends on it.
 */
struct sampler_state *sampler_state_create(void);
void sampler_state_free(struct sampler_state *s); /* accepts NULL */

/*
 * sampler_next - chooses one configuration: raw (n_params) receives it and,
 * for finite studies, *cand its candidate index. Returns HPOD_ENOTFOUND if
 * a finite study has no candidate left, HPOD_EINVAL on inconsistent input.
 * A model that cannot be fitted (numerically) falls back to a random
 * choice rather than failing the request. Before in->init observations
 * (and for random studies) the choice is random from rng_seed2(seed, seq);
 * a transfer prior replaces that initial design by the free candidate of
 * largest prior. With a work budget (in->budget) that ran out, the choice
 * is the best found by then, and in->explain->budget_cut says so.
 */
enum hpod_status sampler_next(const struct sampler_input *in, double *raw,
                              size_t *cand);

#endif
