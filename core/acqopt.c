/*
 * core/acqopt.c - random sampling plus local refinement of an
 * acquisition function; see acqopt.h.
 */
#include "core/acqopt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/acquisition.h"
#include "core/compute_budget.h"
#include "core/gp.h"

_Static_assert(ACQOPT_CHUNK % GP_PREDICT_BLOCK == 0,
               "a chunk is whole GP prediction blocks");

#define ACQOPT_CAP                                                             \
    (ACQOPT_N_RANDOM +                                                         \
     ACQOPT_REFINE_STEPS * ACQOPT_REFINE_TOP * ACQOPT_REFINE_PER)

size_t
acqopt_capacity(void)
{
    return ACQOPT_CAP;
}

void
acqopt_ws_init(struct acqopt_ws *ws, const struct space *sp)
{
    memset(ws, 0, sizeof *ws);
    ws->dim = sp->dim;
    ws->n_params = sp->n_params;
    ws->cap = ACQOPT_CAP;
    ws->u = xmalloc(ws->cap * ws->dim * sizeof *ws->u);
    ws->score = xmalloc(ws->cap * sizeof *ws->score);
    ws->rawbuf =
        xmalloc((ws->n_params ? ws->n_params : 1) * sizeof *ws->rawbuf);
    ws->taken = xmalloc(ws->cap);
}

void
acqopt_ws_clear(struct acqopt_ws *ws)
{
    if (!ws)
        return;
    free(ws->u);
    free(ws->score);
    free(ws->rawbuf);
    free(ws->taken);
    memset(ws, 0, sizeof *ws);
}

void
acqopt_sample(const struct space *sp, struct rng *r, size_t n, double *u,
              double *rawbuf)
{
    for (size_t i = 0; i < n; i++) {
        space_sample(sp, r, rawbuf);
        space_encode(sp, rawbuf, u + i * sp->dim);
    }
}

/*
 * The refinement centres: the ACQOPT_REFINE_TOP largest scores among the
 * first total points, ties to the lowest index; top[t] = total where
 * fewer remain or the score is -Inf (no direction to refine in).
 */
static void
pick_centres(struct acqopt_ws *ws, size_t total, size_t *top)
{
    memset(ws->taken, 0, total);
    for (size_t t = 0; t < ACQOPT_REFINE_TOP; t++) {
        top[t] = acq_argmax(ws->score, total, ws->taken);
        if (top[t] < total && ws->score[top[t]] == -INFINITY)
            top[t] = total;
        if (top[t] < total)
            ws->taken[top[t]] = 1;
    }
}

static int
ws_fits(const struct acqopt_ws *ws, const struct space *sp)
{
    return ws && sp && ws->u && sp->dim == ws->dim &&
           sp->n_params == ws->n_params;
}

enum hpod_status
acqopt_draw(struct acqopt_ws *ws, const struct space *sp, struct rng *r)
{
    if (!ws_fits(ws, sp) || !r)
        return HPOD_EINVAL;
    acqopt_sample(sp, r, ACQOPT_N_RANDOM, ws->u, ws->rawbuf);
    ws->n = ACQOPT_N_RANDOM;
    return HPOD_OK;
}

/*
 * Scores the drawn points in chunks of ACQOPT_CHUNK while the budget
 * lasts (at least one chunk); *total gets how many were scored. The
 * chunks are whole multiples of GP_PREDICT_BLOCK, so a GP scores each
 * point with the same arithmetic as in one batch.
 */
static enum hpod_status
score_drawn(struct acqopt_ws *ws, acqopt_score_fn fn, void *ctx,
            struct compute_budget *b, size_t *total)
{
    enum hpod_status st;
    size_t k = 0;

    while (k < ACQOPT_N_RANDOM) {
        size_t c = ACQOPT_N_RANDOM - k < ACQOPT_CHUNK ? ACQOPT_N_RANDOM - k
                                                      : ACQOPT_CHUNK;
        if ((st = fn(ctx, ws->u + k * ws->dim, k, c, ws->score + k)) != HPOD_OK)
            return st;
        k += c;
        if (k < ACQOPT_N_RANDOM && compute_budget_spent(b))
            break;
    }
    *total = k;
    return HPOD_OK;
}

enum hpod_status
acqopt_run(struct acqopt_ws *ws, const struct space *sp, struct rng *r,
           acqopt_score_fn fn, void *ctx, struct compute_budget *b,
           size_t *best)
{
    size_t dim, total = 0, top[ACQOPT_REFINE_TOP];
    double step = ACQOPT_STEP0;
    enum hpod_status st;

    if (!ws_fits(ws, sp) || !r || !fn || !best || ws->n != ACQOPT_N_RANDOM)
        return HPOD_EINVAL;
    dim = ws->dim;
    ws->n = 0; /* a failed run leaves nothing to reuse */
    if ((st = score_drawn(ws, fn, ctx, b, &total)) != HPOD_OK)
        return st;
    for (int round = 0; round < ACQOPT_REFINE_STEPS; round++, step /= 2) {
        /* Refinement while the budget lasts; what was scored stands. */
        if (total < ACQOPT_N_RANDOM || compute_budget_spent(b))
            break;
        size_t k = total;
        pick_centres(ws, total, top);
        for (size_t t = 0; t < ACQOPT_REFINE_TOP; t++) {
            if (top[t] >= total)
                continue;
            for (size_t j = 0; j < ACQOPT_REFINE_PER; j++, k++)
                space_perturb(sp, ws->u + top[t] * dim, step, r,
                              ws->u + k * dim, ws->rawbuf);
        }
        if (k > total && (st = fn(ctx, ws->u + total * dim, total, k - total,
                                  ws->score + total)) != HPOD_OK)
            return st;
        total = k;
    }
    ws->n = total;
    *best = acq_argmax(ws->score, total, NULL);
    return HPOD_OK;
}
