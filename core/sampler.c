/*
 * core/sampler.c - random and greedy choices (model-based samplers plug in
 * here); see sampler.h.
 */
#include "core/sampler.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/rng.h"

/* Uniform choice among the free candidates, by the trial's own stream. */
static enum hpod_status
random_candidate(const struct sampler_input *in, struct rng *r, size_t *cand)
{
    size_t free_n = 0, k;
    for (size_t i = 0; i < in->n_cand; i++)
        free_n += !in->cand_used[i];
    if (free_n == 0)
        return HPOD_ENOTFOUND;
    k = (size_t)rng_below(r, free_n);
    for (size_t i = 0; i < in->n_cand; i++) {
        if (in->cand_used[i])
            continue;
        if (k-- == 0) {
            *cand = i;
            return HPOD_OK;
        }
    }
    return HPOD_EINTERNAL;
}

/*
 * Greedy control (DESIGN.md §5): the free candidate nearest, in scaled
 * Euclidean distance, to the best observation so far; ties by index.
 */
static enum hpod_status
greedy_candidate(const struct sampler_input *in, size_t *cand)
{
    const struct space *sp = in->space;
    size_t best = 0, np = sp->n_params, dim = sp->dim;
    double *ub = xmalloc(dim * sizeof *ub), *u = xmalloc(dim * sizeof *u);
    double bd = INFINITY;
    size_t pick = in->n_cand;

    for (size_t i = 1; i < in->n_obs; i++)
        if (in->obs_y[i] > in->obs_y[best])
            best = i;
    space_encode(sp, in->obs_raw + best * np, ub);
    for (size_t i = 0; i < in->n_cand; i++) {
        if (in->cand_used[i])
            continue;
        space_encode(sp, in->cand_raw + i * np, u);
        double d = 0;
        for (size_t k = 0; k < dim; k++)
            d += (u[k] - ub[k]) * (u[k] - ub[k]);
        if (d < bd) {
            bd = d;
            pick = i;
        }
    }
    free(ub);
    free(u);
    if (pick == in->n_cand)
        return HPOD_ENOTFOUND;
    *cand = pick;
    return HPOD_OK;
}

enum hpod_status
sampler_next(const struct sampler_input *in, double *raw, size_t *cand)
{
    struct rng r;
    enum hpod_status st;
    size_t np = in->space->n_params;
    int use_model = in->kind != SAMPLER_RANDOM &&
                    in->n_obs >= (size_t)(in->init > 0 ? in->init : 1);

    rng_seed2(&r, in->seed, (uint64_t)in->seq);
    *cand = (size_t)-1;
    if (in->n_cand == 0) {
        if (in->kind == SAMPLER_GREEDY)
            return HPOD_EINVAL;
        space_sample(in->space, &r, raw);
        return HPOD_OK;
    }
    if (use_model && in->kind == SAMPLER_GREEDY)
        st = greedy_candidate(in, cand);
    else
        st = random_candidate(in, &r, cand);
    if (st == HPOD_OK)
        memcpy(raw, in->cand_raw + *cand * np, np * sizeof *raw);
    return st;
}
