/*
 * core/acqopt.h - the one optimizer of an acquisition function over a
 * continuous (or mixed) search space, shared by core/sampler_gp.c and
 * core/mobo_gp.c.
 *
 * Method: ACQOPT_N_RANDOM points drawn from the space (space_sample, then
 * space_encode, from the caller's stream; acqopt_draw), scored in one batch;
 * then ACQOPT_REFINE_STEPS rounds of local refinement: around each of the
 * ACQOPT_REFINE_TOP best points scored so far (ties to the lowest index,
 * points scored -Inf or NaN are never refined around), ACQOPT_REFINE_PER
 * Gaussian steps of size ACQOPT_STEP0 in the encoded cube (halved each
 * round), snapped to legal values by space_perturb and scored as one
 * batch. Every point scored stays a candidate (the refined ones are
 * appended, never overwritten), so the caller's argmax runs over all of
 * them. Why these constants: docs/tuning.md.
 *
 * The caller owns the workspace: acqopt_ws_init allocates it once for a
 * space, acqopt_draw and acqopt_run only write into it (no allocation per
 * call), and it may be reused for any number of runs over spaces of the same
 * dimension. The score callback receives a batch of encoded points and the
 * index of the first of them in the workspace, so that it can keep per-point
 * side results (e.g. feasibility) in arrays of acqopt_capacity() entries.
 *
 * Pure numerics: no I/O, no globals; deterministic for a given stream.
 */
#ifndef HPOD_ACQOPT_H
#define HPOD_ACQOPT_H

#include <stddef.h>

#include "common/status.h"
#include "core/rng.h"
#include "core/space.h"

/* Random points scored before any refinement, and the chunks they are
 * scored in (the budget is checked between chunks; a multiple of
 * GP_PREDICT_BLOCK, core/gp.h). */
#define ACQOPT_N_RANDOM 2000
#define ACQOPT_CHUNK 256
/* Rounds of local refinement, points refined around, steps per point. */
#define ACQOPT_REFINE_STEPS 3
#define ACQOPT_REFINE_TOP 5
#define ACQOPT_REFINE_PER 16
/* Step (standard deviation, encoded units) of the first round. */
#define ACQOPT_STEP0 0.1
/* Random nodes a graph surrogate adds over a continuous space (its
 * candidates: the graph cannot score points off its nodes, so it is not
 * refined; core/sampler_graph.c and core/mobo_graph.c). */
#define ACQOPT_N_NODES 1000

/*
 * acqopt_score_fn - writes score[i] (larger is better; -Inf: worthless,
 * NaN: ineligible) for the k encoded points u (k × dim), which are the
 * workspace's points first .. first + k - 1. Any status but HPOD_OK stops
 * the run and is returned by acqopt_run.
 */
typedef enum hpod_status (*acqopt_score_fn)(void *ctx, const double *u,
                                            size_t first, size_t k,
                                            double *score);

struct acqopt_ws {
    size_t dim, n_params, cap;
    double *u;            /* cap × dim encoded points */
    double *score;        /* cap scores */
    double *rawbuf;       /* n_params of scratch */
    unsigned char *taken; /* cap flags of scratch */
    size_t n;             /* points scored by the last run */
};

/* The number of points one run scores (the size of per-point arrays). */
size_t acqopt_capacity(void);

/* acqopt_ws_init - allocates ws for sp (dim >= 1). acqopt_ws_clear frees it
 * (accepts a zeroed or freed ws). */
void acqopt_ws_init(struct acqopt_ws *ws, const struct space *sp);
void acqopt_ws_clear(struct acqopt_ws *ws);

/*
 * acqopt_sample - n random points of sp drawn from r, encoded into u
 * (n × dim); rawbuf is n_params doubles of scratch. The draws a run makes
 * first, exposed for callers that score a fixed random set (the graph
 * surrogates).
 */
void acqopt_sample(const struct space *sp, struct rng *r, size_t n, double *u,
                   double *rawbuf);

/*
 * acqopt_draw - the first step: the ACQOPT_N_RANDOM random points, from r,
 * into ws->u (ws->n = ACQOPT_N_RANDOM). Separate from acqopt_run so that
 * a caller may draw from its stream in between (core/sampler_gp.c fits its GP
 * from the same stream after the draw). HPOD_EINVAL on a NULL argument or
 * a space of another dimension than ws was made for.
 */
enum hpod_status acqopt_draw(struct acqopt_ws *ws, const struct space *sp,
                             struct rng *r);

/*
 * acqopt_run - the rest of the method, after acqopt_draw: scores the drawn
 * points in chunks of ACQOPT_CHUNK, then refines (steps from r); ws->u and
 * ws->score then hold the ws->n points scored and *best is the index of
 * the largest score (ties to the lowest index; ws->n if every score is
 * NaN). With a budget b (core/compute_budget.h; NULL: unbounded) checked
 * after each chunk and before each round of refinement, a spent budget
 * ends the run there (at least one chunk is scored; no refinement unless
 * every drawn point was): the answer is the best point scored so far.
 * Returns HPOD_OK, HPOD_EINVAL on a NULL argument, a space of another
 * dimension or a workspace not freshly drawn, or the callback's first
 * failure.
 */
struct compute_budget;
enum hpod_status acqopt_run(struct acqopt_ws *ws, const struct space *sp,
                            struct rng *r, acqopt_score_fn fn, void *ctx,
                            struct compute_budget *b, size_t *best);

#endif
