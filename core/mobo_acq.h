/*
 * core/mobo_acq.h - the acquisition of mobo_next (core/mobo.h) from the
 * models of a struct mobo_ctx: log EHVI (or log EI for one objective) plus
 * the log probability of feasibility, points confidently infeasible
 * excluded; the pick, inside the trust region when mobo_input.trust_k asks
 * for one (core/trust_region.h), and its explanation.
 */
#ifndef HPOD_MOBO_ACQ_H
#define HPOD_MOBO_ACQ_H

#include <stddef.h>

#include "common/status.h"
#include "core/mobo_ctx.h"

/* Points mobo_acq_score scores between two checks of the budget. */
#define MOBO_ACQ_CHUNK 256

/*
 * mobo_acq_score - score[i] for k points from their objective means and
 * standard deviations (k × m) and log feasibility lpf (k); points with
 * skip[i] (skip may be NULL) get NaN. Larger is better. The incumbent
 * (mobo_ctx_incumbent) must be built. The points are scored in chunks of
 * about MOBO_ACQ_CHUNK, each spread over the whole list (chunk c: points
 * c, c + nch, ...); with a budget b (NULL: unbounded) spent after a chunk
 * the rest stay NaN (ineligible). A point's score never depends on the
 * chunking.
 */
void mobo_acq_score(const struct mobo_ctx *x, const double *mu,
                    const double *sd, const double *lpf, size_t k,
                    const unsigned char *skip, struct compute_budget *b,
                    double *score);

/*
 * mobo_acq_pick - the argmax of score over the eligible points; when every
 * eligible score is -Inf (nothing improves, or every point that would is
 * believed infeasible), the most probably feasible point if there are
 * constraints, else HPOD_ENUMERIC (the caller picks at random).
 * HPOD_ENOTFOUND if no point is eligible.
 */
enum hpod_status mobo_acq_pick(const struct mobo_ctx *x, const double *score,
                               const double *lpf, size_t k,
                               const unsigned char *skip, size_t *pick);

/*
 * mobo_acq_pick_trust - mobo_acq_pick for a finite study (u: the k
 * candidates encoded) under mobo_input.trust_k: the best free candidate
 * in the trust region around the observed trials of the incumbent front,
 * if one has a finite score there; else mobo_acq_pick over every free one.
 */
enum hpod_status mobo_acq_pick_trust(const struct mobo_ctx *x, const double *u,
                                     const double *score, const double *lpf,
                                     size_t k, const unsigned char *skip,
                                     size_t *pick);

/*
 * mobo_acq_explain - the explanation of a choice (e may be NULL): the
 * runners-up by score (finite: skip = the used candidates; continuous:
 * skip NULL and the runners-up dropped, as the points are not kept), and
 * the pick, which mobo_acq_pick may have taken by feasibility instead.
 */
void mobo_acq_explain(struct sampler_explain *e, const double *score, size_t k,
                      const unsigned char *skip, size_t pick);

#endif
