/*
 * core/mobo_graph.c - the graph surrogate of mobo_next; see mobo_graph.h.
 */
#include "core/mobo_graph.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/acqopt.h"
#include "core/gp.h"
#include "core/graph.h"
#include "core/mobo_acq.h"
#include "core/mobo_gp.h"

/*
 * Labels of objective j on the graph: the trials that reported j at their
 * nodes (several trials on one node are averaged; graph_predict wants
 * distinct nodes). lab/y have room for n_obs + n_pend; returns the count.
 */
static size_t
graph_labels(const struct mobo_ctx *x, size_t j, const size_t *onode,
             size_t *slot, size_t *lab, double *y, double *cnt)
{
    const struct mobo_input *in = x->in;
    size_t nl = 0, m = x->m;

    for (size_t i = 0; i < in->n_obs; i++) {
        double v = in->obs_y[i * m + j];
        size_t nd = onode[i];
        if (!isfinite(v))
            continue;
        if (slot[nd] == SIZE_MAX) {
            slot[nd] = nl;
            lab[nl] = nd;
            y[nl] = 0;
            cnt[nl++] = 0;
        }
        y[slot[nd]] += v;
        cnt[slot[nd]] += 1;
    }
    for (size_t l = 0; l < nl; l++)
        y[l] /= cnt[l];
    return nl;
}

/*
 * Variance scale per node: d_i / d̄, d_i the weighted degree of node i and
 * d̄ their mean (1 for an isolated node). Why: graph_predict's variance is
 * s²·d̄·G_ii, and G_ii = 1/d_i already for a node whose neighbours are all
 * labeled, so the Gaussian-field variance mostly ranks nodes by how poorly
 * connected they are, and EHVI on it chases unusual configurations.
 * s²·d_i·G_ii keeps the growth with the distance from the labeled set
 * and drops the degree; it found the Pareto rows sooner on four NMT tables
 * (docs/tuning.md, "EHVI on the graph").
 */
static void
degree_scale(const struct graph *g, size_t nn, double *dscale)
{
    double dbar = graph_mean_wdegree(g);
    for (size_t i = 0; i < nn; i++) {
        double d = graph_wdegree(g, i);
        dscale[i] = d > 0 && dbar > 0 ? d / dbar : 1;
    }
}

/*
 * Harmonic means and degree-scaled Gaussian-field standard deviations
 * (degree_scale) of every objective at the nn nodes of g (mu, sd: nn × m).
 * Pending nodes are labeled with their first prediction (kriging
 * believer) and the graph re-solved; the second solve downdates the
 * cached factor (core/graph.h).
 */
static enum hpod_status
graph_objectives(struct mobo_ctx *x, struct graph *g, size_t nn,
                 const size_t *onode, const size_t *pnode, double *mu,
                 double *sd)
{
    const struct mobo_input *in = x->in;
    size_t m = x->m, cap = in->n_obs + in->n_pend;
    size_t *slot = xmalloc(nn * sizeof *slot);
    size_t *lab = xmalloc((cap ? cap : 1) * sizeof *lab);
    double *y = xmalloc((cap ? cap : 1) * sizeof *y);
    double *cnt = xmalloc((cap ? cap : 1) * sizeof *cnt);
    double *mean = xmalloc(nn * sizeof *mean), *var = xmalloc(nn * sizeof *var);
    double *dscale = xmalloc(nn * sizeof *dscale);
    enum hpod_status st = HPOD_OK;

    degree_scale(g, nn, dscale);
    for (size_t j = 0; j < m; j++) {
        size_t nl, nl0;
        for (size_t i = 0; i < nn; i++)
            slot[i] = SIZE_MAX;
        nl = nl0 = graph_labels(x, j, onode, slot, lab, y, cnt);
        if (nl == 0) {
            st = HPOD_ENUMERIC;
            break;
        }
        if ((st = graph_predict(g, lab, y, nl, mean, var)) != HPOD_OK)
            break;
        for (size_t p = 0; p < in->n_pend; p++) {
            size_t nd = pnode[p];
            x->pend_mu[p * m + j] =
                slot[nd] == SIZE_MAX ? mean[nd] : y[slot[nd]];
            if (slot[nd] != SIZE_MAX)
                continue;
            slot[nd] = nl;
            lab[nl] = nd;
            y[nl++] = mean[nd];
        }
        if (nl > nl0 &&
            (st = graph_predict(g, lab, y, nl, mean, var)) != HPOD_OK)
            break;
        for (size_t i = 0; i < nn; i++) {
            mu[i * m + j] = mean[i];
            sd[i * m + j] = var[i] > 0 ? sqrt(var[i] * dscale[i]) : 0;
        }
    }
    free(slot);
    free(lab);
    free(y);
    free(cnt);
    free(mean);
    free(var);
    free(dscale);
    return st;
}

/* graph_cache's builder: graph_create with the options at ctx. */
static enum hpod_status
build_cached(const double *u, size_t nn, size_t dim, void *ctx,
             struct graph **g)
{
    return graph_create(u, nn, dim, ctx, g);
}

void
mobo_graph_blend(const double *mu_a, const double *sd_a, const double *mu_b,
                 const double *sd_b, size_t k, double *mu, double *sd)
{
    for (size_t i = 0; i < k; i++) {
        double va = sd_a[i] * sd_a[i], vb = sd_b[i] * sd_b[i];
        mu[i] = 0.5 * (mu_a[i] + mu_b[i]);
        sd[i] = sqrt(0.5 * (va + vb));
    }
}

/*
 * mobo_input.gp_blend: objective j's graph predictions (mu, sd: nn × m,
 * at the nodes u) blended with its GP's (fit_obj_gp; finite: the GP's
 * query set, so a kept GP extends its predictions), and the pending
 * trials' belief (pend_mu) the average of the graph's and the GP's.
 */
static enum hpod_status
blend_gp(struct mobo_ctx *x, size_t j, const double *u, size_t nn, int finite,
         double *mu, double *sd)
{
    size_t m = x->m, npd = x->in->n_pend;
    double *mean = xmalloc(nn * sizeof *mean), *var = xmalloc(nn * sizeof *var);
    double *gsd = xmalloc(nn * sizeof *gsd);
    double *gmu = xmalloc(nn * sizeof *gmu), *ggsd = xmalloc(nn * sizeof *ggsd);
    double *pg = xmalloc((npd ? npd : 1) * sizeof *pg);
    enum hpod_status st;

    for (size_t p = 0; p < npd; p++)
        pg[p] = x->pend_mu[p * m + j];
    if ((st = mobo_gp_fit_objective(x, j)) != HPOD_OK)
        goto out;
    if (!finite)
        st = gp_predict(x->ogp[j], u, nn, mean, var);
    else if ((st = gp_set_queries(x->ogp[j], u, nn)) == HPOD_OK)
        st = gp_predict_queries(x->ogp[j], mean, var);
    if (st != HPOD_OK)
        goto out;
    for (size_t i = 0; i < nn; i++) {
        gsd[i] = var[i] > 0 ? sqrt(var[i]) : 0;
        gmu[i] = mu[i * m + j];
        ggsd[i] = sd[i * m + j];
    }
    mobo_graph_blend(gmu, ggsd, mean, gsd, nn, gmu, ggsd);
    for (size_t i = 0; i < nn; i++) {
        mu[i * m + j] = gmu[i];
        sd[i * m + j] = ggsd[i];
    }
    for (size_t p = 0; p < npd; p++)
        x->pend_mu[p * m + j] = 0.5 * (pg[p] + x->pend_mu[p * m + j]);
out:
    free(mean);
    free(var);
    free(gsd);
    free(gmu);
    free(ggsd);
    free(pg);
    return st;
}

/* The objective mobo_input.gp_blend names (the first), blended
 * (blend_gp). */
static enum hpod_status
blend_gps(struct mobo_ctx *x, const double *u, size_t nn, int finite,
          double *mu, double *sd)
{
    if (x->in->gp_blend != MOBO_BLEND_FIRST)
        return HPOD_OK;
    return blend_gp(x, 0, u, nn, finite, mu, sd);
}

/*
 * Graph surrogate. Finite: the nodes are the candidates. Continuous: the
 * observed and pending points, then ACQOPT_N_NODES random points from
 * r (acqopt_sample); only the random ones are eligible (as in
 * sampler_graph_continuous).
 */
enum hpod_status
mobo_graph_choose(struct mobo_ctx *x, struct rng *r, double *raw, size_t *cand)
{
    const struct mobo_input *in = x->in;
    const struct space *sp = in->space;
    size_t dim = x->dim, m = x->m, no = in->n_obs, npd = in->n_pend;
    int finite = in->n_cand > 0;
    size_t nn = finite ? in->n_cand : no + npd + ACQOPT_N_NODES;
    double *u = xmalloc(nn * dim * sizeof *u);
    double *mu = xmalloc(nn * m * sizeof *mu),
           *sd = xmalloc(nn * m * sizeof *sd);
    double *lpf = xmalloc(nn * sizeof *lpf),
           *score = xmalloc(nn * sizeof *score);
    size_t *onode = xmalloc((no ? no : 1) * sizeof *onode);
    size_t *pnode = xmalloc((npd ? npd : 1) * sizeof *pnode);
    unsigned char *skip = xcalloc(nn, 1);
    struct graph *g = NULL;
    struct graph_options o;
    size_t pick = 0;
    enum hpod_status st;

    if (finite) {
        space_encode_rows(sp, in->cand_raw, nn, u);
        if (no > 0)
            memcpy(onode, in->obs_cand, no * sizeof *onode);
        if (npd > 0)
            memcpy(pnode, in->pend_cand, npd * sizeof *pnode);
        memcpy(skip, in->cand_used, nn);
    } else {
        double *rawbuf = xmalloc(x->np * sizeof *rawbuf);
        space_encode_rows(sp, in->obs_raw, no, u);
        space_encode_rows(sp, in->pend_raw, npd, u + no * dim);
        for (size_t i = 0; i < no; i++)
            onode[i] = i;
        for (size_t i = 0; i < npd; i++)
            pnode[i] = no + i;
        memset(skip, 1, no + npd);
        acqopt_sample(sp, r, nn - no - npd, u + (no + npd) * dim, rawbuf);
        free(rawbuf);
    }
    graph_options_default(&o);
    o.kernel = (enum kernel_kind)in->kernel;
    o.kinds = in->space->kinds;
    if ((st = finite && in->state
                  ? graph_cache_get(&in->state->graph, u, nn, dim, in->kernel,
                                    0, build_cached, &o, &g)
                  : graph_create(u, nn, dim, &o, &g)) != HPOD_OK ||
        (st = graph_objectives(x, g, nn, onode, pnode, mu, sd)) != HPOD_OK ||
        (m >= 2 && (st = blend_gps(x, u, nn, finite, mu, sd)) != HPOD_OK) ||
        (st = mobo_ctx_incumbent(x)) != HPOD_OK ||
        (st = mobo_ctx_con_logpf(x, u, nn, lpf)) != HPOD_OK)
        goto out;
    mobo_acq_score(x, mu, sd, lpf, nn, skip, in->budget, score);
    if ((st = finite
                  ? mobo_acq_pick_trust(x, u, score, lpf, nn, skip, &pick)
                  : mobo_acq_pick(x, score, lpf, nn, skip, &pick)) != HPOD_OK)
        goto out;
    mobo_acq_explain(in->explain, score, nn, finite ? skip : NULL, pick);
    if (finite) {
        *cand = pick;
        memcpy(raw, in->cand_raw + pick * x->np, x->np * sizeof *raw);
    } else {
        space_decode(sp, u + pick * dim, raw);
    }
out:
    /* Continuous: every random node may be skipped only if nn == no+npd,
     * which ACQOPT_N_NODES > 0 rules out, so ENOTFOUND cannot leak. */
    if (!(finite && in->state))
        graph_free(g);
    else if (st != HPOD_OK && g)
        graph_forget(g);
    free(u);
    free(mu);
    free(sd);
    free(lpf);
    free(score);
    free(onode);
    free(pnode);
    free(skip);
    return st;
}
