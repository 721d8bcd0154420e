/*
 * core/sampler_explain.c - the pick and runners-up of a choice; see
 * sampler_explain.h.
 */
#include "core/sampler_explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

static void
explain_point_reset(struct sampler_explain_point *p)
{
    p->cand = (size_t)-1;
    p->mean = p->sd = p->acq = NAN;
}

void
sampler_explain_reset(struct sampler_explain *e, int chooser)
{
    free(e->runner_raw);
    e->runner_raw = NULL;
    e->chooser = chooser;
    e->arm = 0;
    e->budget_cut = 0;
    e->incumbent = NAN;
    e->n_runners = 0;
    explain_point_reset(&e->pick);
    for (size_t k = 0; k < SAMPLER_EXPLAIN_RUNNERS; k++)
        explain_point_reset(&e->runner[k]);
}

void
sampler_explain_clear(struct sampler_explain *e)
{
    if (!e)
        return;
    sampler_explain_reset(e, SAMPLER_CHOSE_RANDOM);
    e->n_obs = e->n_pend = 0;
}

/* Row i of u equals one of the k rows at sel. */
static int
explain_dup(const double *u, size_t dim, size_t i, const size_t *sel, size_t k)
{
    for (size_t j = 0; u && j < k; j++)
        if (memcmp(u + i * dim, u + sel[j] * dim, dim * sizeof *u) == 0)
            return 1;
    return 0;
}

size_t
sampler_explain_rank_points(struct sampler_explain *e, const double *score,
                            const double *mean, const double *var, size_t n,
                            const unsigned char *skip, const double *u,
                            size_t dim)
{
    size_t sel[SAMPLER_EXPLAIN_RUNNERS + 1], k;

    for (k = 0; k <= SAMPLER_EXPLAIN_RUNNERS; k++) {
        size_t best = n;
        for (size_t i = 0; i < n; i++) {
            int taken = 0;
            if ((skip && skip[i]) || isnan(score[i]))
                continue;
            for (size_t j = 0; j < k && !taken; j++)
                taken = sel[j] == i;
            if (taken || explain_dup(u, dim, i, sel, k))
                continue;
            if (best == n || score[i] > score[best])
                best = i;
        }
        if (best == n)
            break;
        sel[k] = best;
        struct sampler_explain_point *p = k == 0 ? &e->pick : &e->runner[k - 1];
        p->cand = best;
        p->acq = score[best];
        p->mean = mean ? mean[best] : NAN;
        p->sd = !var || isnan(var[best])
                    ? NAN
                    : sqrt(var[best] > 0.0 ? var[best] : 0.0);
    }
    e->n_runners = k > 0 ? k - 1 : 0;
    return k > 0 ? sel[0] : n;
}

size_t
sampler_explain_rank(struct sampler_explain *e, const double *score,
                     const double *mean, const double *var, size_t n,
                     const unsigned char *skip)
{
    return sampler_explain_rank_points(e, score, mean, var, n, skip, NULL, 0);
}

void
sampler_explain_decode(struct sampler_explain *e, const struct space *sp,
                       const double *u)
{
    size_t dim = sp->dim, np = sp->n_params;

    e->runner_raw = xmalloc((e->n_runners + 1) * np * sizeof *e->runner_raw);
    for (size_t j = 0; j < e->n_runners; j++) {
        space_decode(sp, u + e->runner[j].cand * dim, e->runner_raw + j * np);
        e->runner[j].cand = (size_t)-1;
    }
    e->pick.cand = (size_t)-1;
}
