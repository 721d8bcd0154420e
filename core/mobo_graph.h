/*
 * core/mobo_graph.h - the graph surrogate of mobo_next (core/mobo.h):
 * core/graph.h's harmonic mean per objective on the kNN graph over the
 * candidates (finite) or over the observed, pending and ACQOPT_N_NODES
 * random points (continuous), with the Gaussian-field variance rescaled by
 * each node's weighted degree (degree_scale in mobo_graph.c says why), and
 * mobo_input.gp_blend's mixture with a GP. Candidates are scored by
 * core/mobo_acq.h.
 */
#ifndef HPOD_MOBO_GRAPH_H
#define HPOD_MOBO_GRAPH_H

#include <stddef.h>

#include "common/status.h"
#include "core/mobo_ctx.h"
#include "core/rng.h"

/*
 * mobo_graph_blend - the equal mixture of two Gaussian predictions at k points,
 * moment matched without the spread of the means: mu[i] = (mu_a[i] +
 * mu_b[i]) / 2, sd[i] = sqrt((sd_a[i]² + sd_b[i]²) / 2). mu/sd may alias
 * mu_a/sd_a. The spread term (mu_a - mu_b)²/4 of the exact mixture
 * variance was measured and lost (docs/mo_tuning.md).
 */
void mobo_graph_blend(const double *mu_a, const double *sd_a,
                      const double *mu_b, const double *sd_b, size_t k,
                      double *mu, double *sd);

/*
 * mobo_graph_choose - the choice with the graph surrogate: raw (and, for
 * finite studies, *cand) receive it. The constraint GPs must be fitted
 * (mobo_ctx_fit_constraints); the incumbent is built here, after the
 * pending trials' beliefs.
 */
enum hpod_status mobo_graph_choose(struct mobo_ctx *x, struct rng *r,
                                   double *raw, size_t *cand);

#endif
