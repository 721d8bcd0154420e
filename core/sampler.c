/*
 * core/sampler.c - random, greedy and the dispatch to the model samplers;
 * see sampler.h.
 */
#include "core/sampler.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/acquisition.h"
#include "core/hedge.h"
#include "core/rng.h"
#include "core/sampler_gp.h"
#include "core/sampler_graph.h"

struct sampler_state *
sampler_state_create(void)
{
    return xcalloc(1, sizeof(struct sampler_state));
}

void
sampler_state_free(struct sampler_state *s)
{
    if (!s)
        return;
    sampler_gp_cache_free(s->gp);
    graph_cache_clear(&s->graph);
    hedge_cache_free(s->hedge);
    free(s);
}

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
 * Greedy control (the baseline of the benchmarks): the free candidate nearest,
 * in scaled Euclidean distance, to the best observation so far; ties by index.
 */
static enum hpod_status
greedy_candidate(const struct sampler_input *in, size_t *cand)
{
    const struct space *sp = in->space;
    size_t np = sp->n_params, dim = sp->dim;
    double *ub = xmalloc(dim * sizeof *ub), *u = xmalloc(dim * sizeof *u);
    double bd = INFINITY;
    size_t pick = in->n_cand;

    space_encode(sp, in->obs_raw + acq_argmax(in->obs_y, in->n_obs, NULL) * np,
                 ub);
    for (size_t i = 0; i < in->n_cand; i++) {
        if (in->cand_used[i])
            continue;
        space_encode(sp, in->cand_raw + i * np, u);
        double d = space_d2(sp->kinds, u, ub, dim);
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

static enum hpod_status
next_choice(const struct sampler_input *in, double *raw, size_t *cand)
{
    struct rng r;
    enum hpod_status st;
    size_t np = in->space->n_params;
    int use_model = in->kind != SAMPLER_RANDOM && in->n_obs > 0 &&
                    in->n_obs >= (size_t)(in->init > 0 ? in->init : 1);

    rng_seed2(&r, in->seed, (uint64_t)in->seq);
    *cand = (size_t)-1;
    if (in->explain) {
        sampler_explain_reset(
            in->explain,
            !use_model ? (in->kind == SAMPLER_RANDOM ? SAMPLER_CHOSE_RANDOM
                                                     : SAMPLER_CHOSE_INIT)
            : in->kind == SAMPLER_GREEDY ? SAMPLER_CHOSE_GREEDY
                                         : SAMPLER_CHOSE_MODEL);
        in->explain->n_obs = in->n_obs;
        in->explain->n_pend = in->n_pend;
    }
    if (in->n_cand == 0) {
        if (in->kind == SAMPLER_GREEDY)
            return HPOD_EINVAL;
        if (use_model) {
            struct rng mr = r;
            st = in->kind == SAMPLER_GP
                     ? sampler_gp_continuous(in, &mr, raw)
                     : sampler_graph_continuous(in, &mr, raw);
            if (st == HPOD_OK)
                return HPOD_OK;
            /* A model that cannot be fitted: fall back to random. */
            if (in->explain)
                sampler_explain_reset(in->explain, SAMPLER_CHOSE_FALLBACK);
        }
        space_sample(in->space, &r, raw);
        return HPOD_OK;
    }
    st = HPOD_ENUMERIC;
    if (!use_model && in->prior_cand && in->kind == SAMPLER_GP) {
        /* Transfer: the initial design is the source's best free
         * candidates, in the order of its prior. */
        *cand = acq_argmax(in->prior_cand, in->n_cand, in->cand_used);
        if (*cand == in->n_cand)
            return HPOD_ENOTFOUND;
        if (in->explain) {
            sampler_explain_reset(in->explain, SAMPLER_CHOSE_MODEL);
            in->explain->n_obs = in->n_obs;
            in->explain->n_pend = in->n_pend;
            sampler_explain_rank(in->explain, in->prior_cand, in->prior_cand,
                                 NULL, in->n_cand, in->cand_used);
        }
        st = HPOD_OK;
    }
    if (use_model) {
        struct rng mr = r;
        if (in->kind == SAMPLER_GREEDY)
            st = greedy_candidate(in, cand);
        else if (in->kind == SAMPLER_GP && (in->variant & SAMPLER_V_HEDGE))
            st = hedge_finite(in, &mr, cand);
        else if (in->kind == SAMPLER_GP)
            st = sampler_gp_finite(in, &mr, cand);
        else
            st = sampler_graph_finite(in, cand);
        if (st == HPOD_ENOTFOUND || st == HPOD_EINVAL)
            return st;
        if (st != HPOD_OK && in->explain)
            sampler_explain_reset(in->explain, SAMPLER_CHOSE_FALLBACK);
    }
    if (st != HPOD_OK)
        st = random_candidate(in, &r, cand);
    if (st == HPOD_OK && in->explain && in->explain->pick.cand == (size_t)-1)
        in->explain->pick.cand = *cand; /* random or greedy */
    if (st == HPOD_OK)
        memcpy(raw, in->cand_raw + *cand * np, np * sizeof *raw);
    return st;
}

enum hpod_status
sampler_next(const struct sampler_input *in, double *raw, size_t *cand)
{
    enum hpod_status st = next_choice(in, raw, cand);
    if (in->explain && compute_budget_was_cut(in->budget))
        in->explain->budget_cut = 1;
    return st;
}
