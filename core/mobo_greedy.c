/*
 * core/mobo_greedy.c - the model-free control for several objectives; see
 * mobo_greedy.h.
 */
#include "core/mobo_greedy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/mobo_ctx.h"
#include "core/sampler_explain.h"

/* Minus the squared distance of each free candidate to the nearest of the
 * nf encoded front rows uf (NaN for a taken one): larger is nearer. */
static void
greedy_scores(const struct mobo_input *in, const double *uf, size_t nf,
              double *score)
{
    size_t dim = in->space->dim, np = in->space->n_params;
    double *u = xmalloc(dim * sizeof *u);
    for (size_t i = 0; i < in->n_cand; i++) {
        score[i] = NAN;
        if (in->cand_used[i])
            continue;
        space_encode(in->space, in->cand_raw + i * np, u);
        double best = INFINITY;
        for (size_t f = 0; f < nf; f++) {
            double d = space_d2(in->space->kinds, u, uf + f * dim, dim);
            if (d < best)
                best = d;
        }
        score[i] = -best;
    }
    free(u);
}

enum hpod_status
mobo_greedy(const struct mobo_input *in, double *raw, size_t *cand)
{
    size_t nf = 0, *idx = NULL, free_n = 0;
    double *uf = NULL, *score = NULL;
    enum hpod_status st;

    if ((st = mobo_ctx_check(in)) != HPOD_OK)
        return st;
    if (!raw || !cand || in->m == 0 || in->n_cand == 0 || !in->cand_raw ||
        !in->cand_used || (in->n_obs > 0 && (!in->obs_raw || !in->obs_y)))
        return HPOD_EINVAL;
    sampler_explain_clear(in->explain);
    *cand = (size_t)-1;
    for (size_t i = 0; i < in->n_cand; i++)
        free_n += !in->cand_used[i];
    if (free_n == 0)
        return HPOD_ENOTFOUND;
    size_t dim = in->space->dim, np = in->space->n_params;
    idx = xmalloc((in->n_obs + 1) * sizeof *idx);
    if ((st = mobo_ctx_front(in, idx, &nf)) != HPOD_OK)
        goto out;
    if (nf == 0) {
        st = HPOD_ENUMERIC;
        goto out;
    }
    uf = xmalloc(nf * dim * sizeof *uf);
    for (size_t f = 0; f < nf; f++)
        space_encode(in->space, in->obs_raw + idx[f] * np, uf + f * dim);
    score = xmalloc(in->n_cand * sizeof *score);
    greedy_scores(in, uf, nf, score);
    size_t pick = in->n_cand;
    for (size_t i = 0; i < in->n_cand; i++)
        if (!isnan(score[i]) && (pick == in->n_cand || score[i] > score[pick]))
            pick = i; /* strict >: ties to the lowest index */
    if (in->explain) {
        sampler_explain_rank(in->explain, score, NULL, NULL, in->n_cand,
                             in->cand_used);
        in->explain->chooser = SAMPLER_CHOSE_GREEDY;
    }
    *cand = pick;
    memcpy(raw, in->cand_raw + pick * np, np * sizeof *raw);
out:
    free(idx);
    free(uf);
    free(score);
    return st;
}
