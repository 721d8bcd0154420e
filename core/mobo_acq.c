/*
 * core/mobo_acq.c - the acquisition of a multi-objective or constrained
 * choice and its pick; see mobo_acq.h.
 */
#include "core/mobo_acq.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/acquisition.h"
#include "core/ehvi.h"
#include "core/pareto.h"
#include "core/sampler_explain.h"
#include "core/trust_region.h"

/* log(MOBO_MIN_PFEAS). */
#define LOG_MIN_PFEAS (-6.907755278982137)

/* The acquisition at one point (mi, si: its m means and sds; lpf: its
 * log feasibility). Larger is better. */
static double
score_one(const struct mobo_ctx *x, const double *mi, const double *si,
          double lpf)
{
    size_t m = x->m;
    double e;

    /* Where the model is confident that a constraint fails, the product
     * EI·P can still win in the far tails (log EI of -1e4 against log P
     * of -2e3 once the incumbent is found), which would spend evaluations
     * on certain violations: such points are out. */
    if (lpf < LOG_MIN_PFEAS)
        return -INFINITY;
    if (m == 1) /* EI·Π P_c (Gardner et al. 2014), in logs; before any
                 * feasible incumbent, Π P_c alone (Gelbart et al. 2014). */
        return lpf + (x->has_best ? acq_log_ei(mi[0], si[0], x->best, 0) : 0);
    if (m == 2) {
        e = ehvi_2d(x->front, x->n_front, x->sense, x->ref, mi, si);
    } else if (m <= MOBO_EHVI_EXACT_MAX) {
        /* The same draws for every candidate (common random numbers): the
         * Monte Carlo error then mostly cancels in comparisons. */
        struct rng r = x->mc;
        e = ehvi_mc(x->front, x->n_front, m, x->sense, x->ref, mi, si,
                    MOBO_MC_SAMPLES, &r, NULL);
    } else {
        struct rng r = x->mc;
        e = ehvi_hvs_mc(m, x->sense, x->ref, mi, si, x->lambda, x->hvs_best,
                        MOBO_MC_SAMPLES, &r);
    }
    return (e > 0 ? log(e) : -INFINITY) + lpf;
}

void
mobo_acq_score(const struct mobo_ctx *x, const double *mu, const double *sd,
               const double *lpf, size_t k, const unsigned char *skip,
               struct compute_budget *b, double *score)
{
    size_t m = x->m, nch = (k + MOBO_ACQ_CHUNK - 1) / MOBO_ACQ_CHUNK;

    for (size_t i = 0; i < k; i++)
        score[i] = NAN;
    /* Chunk c holds the points c, c + nch, c + 2·nch, ...: each chunk
     * spans the whole list, so a cut leaves no region unscored. */
    for (size_t c = 0; c < nch; c++) {
        if (c > 0 && compute_budget_spent(b))
            break;
        for (size_t i = c; i < k; i += nch)
            if (!(skip && skip[i]))
                score[i] = score_one(x, mu + i * m, sd + i * m, lpf[i]);
    }
}

/*
 * The argmax of score over the eligible points; when every eligible score
 * is -Inf (nothing improves, or every point that would is believed
 * infeasible), the most probably feasible point if there are constraints,
 * else HPOD_ENUMERIC (the caller picks at random). HPOD_ENOTFOUND if no
 * point is eligible.
 */
enum hpod_status
mobo_acq_pick(const struct mobo_ctx *x, const double *score, const double *lpf,
              size_t k, const unsigned char *skip, size_t *pick)
{
    size_t p = acq_argmax(score, k, skip);
    if (p == k)
        return HPOD_ENOTFOUND;
    if (score[p] == -INFINITY) {
        if (x->n_con == 0)
            return HPOD_ENUMERIC;
        p = acq_argmax(lpf, k, skip);
    }
    *pick = p;
    return HPOD_OK;
}

/*
 * The explanation of a choice (e may be NULL): the runners-up by score
 * (finite: skip = the used candidates; continuous: skip NULL and the
 * runners-up dropped, as the points are not kept), and the pick, which
 * pick_best may have taken by feasibility instead.
 */
void
mobo_acq_explain(struct sampler_explain *e, const double *score, size_t k,
                 const unsigned char *skip, size_t pick)
{
    if (!e)
        return;
    if (!skip || sampler_explain_rank(e, score, NULL, NULL, k, skip) != pick) {
        e->n_runners = 0;
        e->pick.acq = score[pick];
    }
    e->pick.cand = skip ? pick : (size_t)-1;
}

/*
 * The choice under trust_k (finite studies): the best free candidate in
 * the trust region around the observed trials of the incumbent front, if
 * one has a finite score there; else pick_best over every free one. The
 * region is left for the step once it has stalled: the last trust_k · |F|
 * evaluations (F the front's observed trials) added none to F.
 */
enum hpod_status
mobo_acq_pick_trust(const struct mobo_ctx *x, const double *u,
                    const double *score, const double *lpf, size_t k,
                    const unsigned char *skip, size_t *pick)
{
    const struct mobo_input *in = x->in;
    size_t nf = 0, nc = 0, p, last = 0;
    size_t *idx, *centre;
    double *pts;
    unsigned char *mask, *sk2;
    enum hpod_status st;

    if (in->trust_k == 0 || in->n_cand == 0 || x->m < 2)
        return mobo_acq_pick(x, score, lpf, k, skip, pick);
    idx = xmalloc((in->n_obs ? in->n_obs : 1) * sizeof *idx);
    centre = xmalloc((in->n_obs ? in->n_obs : 1) * sizeof *centre);
    pts = xmalloc((in->n_obs ? in->n_obs : 1) * x->m * sizeof *pts);
    mask = xmalloc(k);
    sk2 = xmalloc(k);
    if ((st = mobo_ctx_feasible_complete(x, idx, &nf)) != HPOD_OK)
        goto out;
    for (size_t i = 0; i < nf; i++)
        memcpy(pts + i * x->m, in->obs_y + idx[i] * x->m, x->m * sizeof *pts);
    nc = pareto_front(pts, nf, x->m, x->sense, centre);
    for (size_t i = 0; i < nc; i++) {
        last = idx[centre[i]] > last ? idx[centre[i]] : last;
        centre[i] = in->obs_cand[idx[centre[i]]];
    }
    /* Stalled: trust_k evaluations per front trial since the front last
     * gained one found nothing; this step looks everywhere. */
    if (nc == 0 || in->n_obs - 1 - last >= in->trust_k * nc) {
        st = mobo_acq_pick(x, score, lpf, k, skip, pick);
        goto out;
    }
    if (in->trust_shape == MOBO_TRUST_STEPS)
        trust_region_steps(in->space, in->cand_raw, k, skip, centre, nc, mask);
    else
        trust_region_nearest(u, k, x->dim, in->space->kinds, skip, centre, nc,
                             in->trust_k, mask);
    for (size_t i = 0; i < k; i++)
        sk2[i] = skip[i] || !mask[i];
    p = acq_argmax(score, k, sk2);
    if (p < k && score[p] > -INFINITY) {
        *pick = p;
        goto out;
    }
    st = mobo_acq_pick(x, score, lpf, k, skip, pick);
out:
    free(idx);
    free(centre);
    free(pts);
    free(mask);
    free(sk2);
    return st;
}
