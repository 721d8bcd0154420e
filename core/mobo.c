/*
 * core/mobo.c - EHVI and constrained choices over GP or graph surrogates:
 * the entry points; contracts and the method in core/mobo.h.
 *
 * Layout: the models (one surrogate per objective, one GP per constrained
 * metric, the incumbent front) are built once into a struct mobo_ctx
 * (core/mobo_ctx.h); the candidates are then scored from their predictive
 * means and standard deviations by one function shared by every surrogate
 * and space (core/mobo_acq.h). The surrogates: core/mobo_gp.h and
 * core/mobo_graph.h; the control: core/mobo_greedy.h. The single-objective
 * samplers live in core/sampler.h, the EHVI integrals in core/ehvi.h.
 */
#include "core/mobo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/mobo_ctx.h"
#include "core/mobo_gp.h"
#include "core/mobo_graph.h"
#include "core/mobo_greedy.h"
#include "core/rng.h"
#include "core/sampler_explain.h"

struct mobo_state *
mobo_state_create(void)
{
    return xcalloc(1, sizeof(struct mobo_state));
}

void
mobo_state_free(struct mobo_state *s)
{
    if (!s)
        return;
    mobo_gp_state_clear(s);
    graph_cache_clear(&s->graph);
    free(s);
}

static enum hpod_status
check_input(const struct mobo_input *in, const double *raw, const size_t *cand)
{
    enum hpod_status st = mobo_ctx_check(in);
    if (st != HPOD_OK)
        return st;
    if (!raw || !cand || in->m == 0)
        return HPOD_EINVAL;
    if (in->surrogate != MOBO_SURROGATE_GP &&
        in->surrogate != MOBO_SURROGATE_GRAPH)
        return HPOD_EINVAL;
    if (in->gp_blend != MOBO_BLEND_NONE && in->gp_blend != MOBO_BLEND_FIRST)
        return HPOD_EINVAL;
    if (in->trust_shape != MOBO_TRUST_NEAREST &&
        in->trust_shape != MOBO_TRUST_STEPS)
        return HPOD_EINVAL;
    if (in->m >= 2) {
        if (!in->ref || !(in->front_ref >= 0) || !isfinite(in->front_ref))
            return HPOD_EINVAL;
        for (size_t j = 0; j < in->m; j++)
            if (!isfinite(in->ref[j]))
                return HPOD_EINVAL;
    }
    if (in->n_obs > 0 && (!in->obs_raw || !in->obs_y))
        return HPOD_EINVAL;
    if (in->n_pend > 0 && !in->pend_raw)
        return HPOD_EINVAL;
    if (in->n_cand == 0)
        return HPOD_OK;
    if (!in->cand_raw || !in->cand_used || (in->n_obs > 0 && !in->obs_cand) ||
        (in->n_pend > 0 && !in->pend_cand))
        return HPOD_EINVAL;
    for (size_t i = 0; i < in->n_obs; i++)
        if (in->obs_cand[i] >= in->n_cand)
            return HPOD_EINVAL;
    for (size_t i = 0; i < in->n_pend; i++)
        if (in->pend_cand[i] >= in->n_cand)
            return HPOD_EINVAL;
    return HPOD_OK;
}

/* ---- public ---- */

enum hpod_status
mobo_feasibility(const struct mobo_input *in, const double *u, size_t k,
                 double *pfeas)
{
    struct mobo_ctx x;
    double *lpf;
    enum hpod_status st;

    if ((st = mobo_ctx_check(in)) != HPOD_OK)
        return st;
    if (k == 0)
        return HPOD_OK;
    if (!u || !pfeas)
        return HPOD_EINVAL;
    for (size_t i = 0; i < k * in->space->dim; i++)
        if (!isfinite(u[i]))
            return HPOD_EINVAL;
    if (in->n_con == 0) {
        for (size_t i = 0; i < k; i++)
            pfeas[i] = 1;
        return HPOD_OK;
    }
    mobo_ctx_init(&x, in);
    lpf = xmalloc(k * sizeof *lpf);
    if ((st = mobo_ctx_fit_constraints(&x)) == HPOD_OK &&
        (st = mobo_ctx_con_logpf(&x, u, k, lpf)) == HPOD_OK)
        for (size_t i = 0; i < k; i++)
            pfeas[i] = exp(lpf[i]);
    free(lpf);
    mobo_ctx_clear(&x);
    return st;
}
enum hpod_status
mobo_front(const struct mobo_input *in, size_t *idx, size_t *n_front)
{
    return mobo_ctx_front(in, idx, n_front);
}

static enum hpod_status
next_choice(const struct mobo_input *in, double *raw, size_t *cand)
{
    struct mobo_ctx x;
    struct rng r;
    size_t complete = 0;
    enum hpod_status st;

    if (in && in->surrogate == MOBO_SURROGATE_GREEDY)
        return mobo_greedy(in, raw, cand);
    if ((st = check_input(in, raw, cand)) != HPOD_OK)
        return st;
    sampler_explain_clear(in->explain);
    *cand = (size_t)-1;
    if (in->n_cand > 0) {
        size_t free_n = 0;
        for (size_t i = 0; i < in->n_cand; i++)
            free_n += !in->cand_used[i];
        if (free_n == 0)
            return HPOD_ENOTFOUND;
    }
    for (size_t i = 0; i < in->n_obs; i++) {
        size_t j = 0;
        while (j < in->m && isfinite(in->obs_y[i * in->m + j]))
            j++;
        complete += j == in->m;
    }
    if (complete < 2)
        return HPOD_ENUMERIC;

    rng_seed2(&r, in->seed, (uint64_t)in->seq);
    mobo_ctx_init(&x, in);
    x.observed_pf = 1;
    if ((st = mobo_ctx_fit_constraints(&x)) != HPOD_OK)
        goto out;
    if (in->surrogate == MOBO_SURROGATE_GRAPH) {
        st = mobo_graph_choose(&x, &r, raw, cand);
        goto out;
    }
    for (size_t j = 0; j < in->m; j++)
        if ((st = mobo_gp_fit_objective(&x, j)) != HPOD_OK)
            goto out;
    if ((st = mobo_ctx_incumbent(&x)) != HPOD_OK)
        goto out;
    if (in->n_cand > 0) {
        if ((st = mobo_gp_finite(&x, cand)) == HPOD_OK)
            memcpy(raw, in->cand_raw + *cand * x.np, x.np * sizeof *raw);
    } else {
        st = mobo_gp_continuous(&x, &r, raw);
    }
out:
    /* Only a finite study with no free candidate is "not found"; that was
     * answered above, so anything else here is a model failure. */
    if (st == HPOD_ENOTFOUND)
        st = HPOD_ENUMERIC;
    if (st != HPOD_OK && in->n_cand > 0)
        *cand = (size_t)-1;
    mobo_ctx_clear(&x);
    return st;
}

enum hpod_status
mobo_next(const struct mobo_input *in, double *raw, size_t *cand)
{
    enum hpod_status st = next_choice(in, raw, cand);
    if (in && in->explain && compute_budget_was_cut(in->budget))
        in->explain->budget_cut = 1;
    return st;
}
