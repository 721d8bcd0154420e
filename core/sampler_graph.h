/*
 * core/sampler_graph.h - the graph sampler: graph-based SMBO (Zhang & Duh,
 * TACL 2020) on core/graph.h's kNN graph, by EI on the Gaussian field
 * (acquisition 0; 2 adds "nei"'s noise floor) or by expected influence
 * (EIF, acquisition 1). Called by sampler_next (core/sampler.h) and by the
 * hedge's graph arm (core/hedge.h); the input is core/sampler_input.h's.
 *
 * Graph EI's and EIF's lengthscales, EIF's labels and EI's variance
 * depart from the paper (graph_build, eif_labels, eif_scores and
 * ei_scores in sampler_graph.c say how; docs/tuning.md has the figures).
 */
#ifndef HPOD_SAMPLER_GRAPH_H
#define HPOD_SAMPLER_GRAPH_H

#include <stddef.h>

#include "common/status.h"
#include "core/rng.h"
#include "core/sampler_input.h"

/*
 * sampler_graph_finite - the free candidate of largest score (ties to the
 * lowest index) into *cand, over the state's graph of the candidates
 * (built on first use), within the trust region when in asks for one.
 * HPOD_EINVAL on a candidate index out of range, HPOD_ENOTFOUND when no
 * candidate is free.
 */
enum hpod_status sampler_graph_finite(const struct sampler_input *in,
                                      size_t *cand);

/*
 * sampler_graph_continuous - a continuous space: the graph over the
 * observed and pending points and ACQOPT_N_NODES random nodes drawn from
 * r (core/acqopt.h); the best random node, decoded, into raw.
 */
enum hpod_status sampler_graph_continuous(const struct sampler_input *in,
                                          struct rng *r, double *raw);

#endif
