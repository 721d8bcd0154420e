/*
 * core/sampler_graph.c - graph-based SMBO (Zhang & Duh 2020); see
 * sampler_graph.h.
 *
 * Nodes are the candidates (or, for continuous spaces, random points plus
 * the evaluated ones); labels are the completed values; pending nodes are
 * labeled with a constant lie; score by EI on the Gaussian field or by
 * expected influence (EIF).
 */
#include "core/sampler_graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/acqopt.h"
#include "core/acquisition.h"
#include "core/graph.h"
#include "core/normal_scores.h"
#include "core/trust_region.h"

/* EIF's graph lengthscale as a fraction of the median edge length (see
 * graph_build) and its share of labels scaled to 1 (see eif_labels). */
#define SAMPLER_EIF_ELL_FRAC 0.5
#define SAMPLER_EIF_TOP_FRAC 0.075
/* Graph EI's lengthscale: a median-length edge weighs this (see
 * graph_build). */
#define SAMPLER_EI_EDGE_WEIGHT 0.004

/*
 * Builds the graph the sampler uses over x (n×dim): the paper's kNN graph
 * (average degree n/7, graph.h defaults) with RBF or Matérn weights and a
 * lengthscale shorter than graph.h's median edge length, so that a node's
 * nearest neighbours outweigh its far ones (with near-uniform weights the
 * harmonic mean is nearly flat and EI ranks by variance alone):
 *   - EIF (acq == 1): SAMPLER_EIF_ELL_FRAC times the median edge length (a
 *     typical edge weighs kernel_corr(4), 0.14 for RBF, instead of 0.61);
 *   - EI (acq == 0): the ℓ at which a median-length edge weighs
 *     SAMPLER_EI_EDGE_WEIGHT (ℓ = 0.30·median for RBF, 0.24·median for
 *     Matérn-5/2, whose heavier tail needs the shorter ℓ).
 * Both fractions were chosen on the NMT tables, not derived (figures per
 * ℓ and the commands: docs/tuning.md, "Graph lengthscales"). The auto ℓ
 * is only known once the graph is built, hence the second build
 * (O(n²·dim), once per candidate set and process).
 */
static enum hpod_status
graph_build(const double *x, size_t n, size_t dim, const unsigned char *kinds,
            int kernel, int acq, struct graph **out)
{
    struct graph_options o;
    struct graph *g = NULL;
    enum hpod_status st;
    double frac;

    *out = NULL;
    graph_options_default(&o);
    o.kernel = (enum kernel_kind)kernel;
    o.kinds = kinds;
    if ((st = graph_create(x, n, dim, &o, &g)) != HPOD_OK)
        return st;
    if (acq == 1) {
        frac = SAMPLER_EIF_ELL_FRAC;
    } else {
        /* kernel_corr is decreasing in r²: bisect kernel_corr(r²) = w. */
        double lo = 0.0, hi = 1e4;
        for (int it = 0; it < 200; it++) {
            double mid = 0.5 * (lo + hi);
            if (kernel_corr(o.kernel, mid) > SAMPLER_EI_EDGE_WEIGHT)
                lo = mid;
            else
                hi = mid;
        }
        frac = 1.0 / sqrt(0.5 * (lo + hi));
    }
    o.lengthscale = frac * graph_lengthscale(g);
    graph_free(g);
    return graph_create(x, n, dim, &o, out);
}

/* What graph_build needs besides the points (graph_cache's ctx). */
struct build_args {
    const unsigned char *kinds;
    int kernel, acq;
};

/* graph_cache's builder: graph_build with the arguments at ctx. */
static enum hpod_status
build_cached(const double *x, size_t n, size_t dim, void *ctx,
             struct graph **out)
{
    const struct build_args *a = ctx;
    return graph_build(x, n, dim, a->kinds, a->kernel, a->acq, out);
}

/* The cache's graph over the candidates x (n×dim) of in's space, rebuilt
 * if x, the kernel or the acquisition changed (graph EI and EIF use
 * different lengthscales). */
static enum hpod_status
cached_graph(struct graph_cache *c, const struct sampler_input *in,
             const double *x, size_t n, int acq, struct graph **out)
{
    struct build_args a = {in->space->kinds, in->kernel, acq};
    return graph_cache_get(c, x, n, in->space->dim, in->kernel, acq,
                           build_cached, &a, out);
}

/*
 * EIF's {0,1} labels (writes fl, nl entries): 1 for the labels of which
 * fewer than max(1, ⌈SAMPLER_EIF_TOP_FRAC·nl⌉) are strictly larger (the
 * top 7.5%, ties included), 0 for the rest. With fewer than 14 labels
 * that is the best alone, i.e. graph.h's GRAPH_EIF_REFERENCE labels.
 *
 * Not the paper's rule (best -> 1, others 1 only if a random walk from the
 * best is absorbed there with probability > 0.5, which almost never
 * happens) nor the reference code's (best alone): with a single 1 among
 * many 0s, f·t1 searches the neighbourhood of one local optimum row by row
 * and stays there. Labeling the top few 1 keeps several good regions
 * alive; 7.5% was the share that beat greedy on all six NMT tables
 * (docs/tuning.md, "EIF").
 */
static void
eif_labels(const double *y, size_t nl, double *fl)
{
    size_t need = (size_t)ceil(SAMPLER_EIF_TOP_FRAC * (double)nl);

    if (need < 1)
        need = 1;
    for (size_t i = 0; i < nl; i++) {
        size_t above = 0;
        for (size_t j = 0; j < nl && above < need; j++)
            above += y[j] > y[i];
        fl[i] = above < need ? 1.0 : 0.0;
    }
}

/*
 * Expected influence, the half that works (score, n entries; labeled nodes
 * get 0 and are skipped by the caller): f_k·t1_k, t1_k = Σ_{i∈U\k}
 * f⁺⁽ᵏ'¹⁾_i, the chance that k is good times the goodness it spreads when
 * it is, with f the harmonic propagation of eif_labels. The paper's full
 * (1-f_k)·Σ(1-f⁺⁽ᵏ'⁰⁾) + f_k·Σf⁺⁽ᵏ'¹⁾ is dominated by its first term,
 * ≈ u·(1-f_k), which picks the nodes least like the best (core/graph.h,
 * graph_eif). The public reference code gets the same effect by mapping
 * its predictions inversely.
 *
 * graph_eif_terms scales the labels itself (best alone -> 1), so t1 is
 * rebuilt from the label-free part of its terms, graph_eif_spread's
 * t0_k + t1_k - (u-1) = q_k = Σ_{i∈U\k} G_ik/G_kk, whence with any f in
 * [0,1]
 *   t1_k = (F - f_k) + (1 - f_k)·q_k,   F = Σ_{i∈U} f_i
 * (rank-one look-ahead, graph.h), and f itself is graph_predict of the
 * {0,1} labels (equal to the uncentered propagation wherever a component
 * holds a label). Both calls share the cached G (same labeled set), so
 * the cost stays O(u²) per suggestion after the first.
 *
 * Other combinations of the terms (t1 or f alone, f^½·t1, scaled real
 * labels) did worse on at least one table: docs/tuning.md, "EIF".
 */
static enum hpod_status
eif_scores(struct graph *g, size_t n, const size_t *lab, const double *y,
           size_t nl, double *score, double *f_out)
{
    double *f = xmalloc(n * sizeof *f), *t0 = xmalloc(n * sizeof *t0);
    double *var = xmalloc(n * sizeof *var);
    double *fl = xmalloc(nl * sizeof *fl);
    unsigned char *is_lab = xcalloc(n, 1);
    double sum_f = 0.0;
    enum hpod_status st;

    eif_labels(y, nl, fl);
    /* q alone (t0 holds it): one G·1, not the terms' labels and f. */
    if ((st = graph_eif_spread(g, lab, y, nl, t0)) != HPOD_OK)
        goto out;
    if ((st = graph_predict(g, lab, fl, nl, f, var)) != HPOD_OK)
        goto out;
    for (size_t j = 0; j < nl; j++)
        is_lab[lab[j]] = 1;
    for (size_t i = 0; i < n; i++)
        if (!is_lab[i])
            sum_f += f[i];
    for (size_t i = 0; i < n; i++)
        score[i] =
            is_lab[i] ? 0.0 : f[i] * ((sum_f - f[i]) + (1.0 - f[i]) * t0[i]);
    if (f_out)
        memcpy(f_out, f, n * sizeof *f);
out:
    free(f);
    free(t0);
    free(var);
    free(fl);
    free(is_lab);
    return st;
}

/*
 * Graph EI's scores (score, n entries) from the labels at lab (nl, the
 * observed ones first: no of them, then the pending ones). Two changes to
 * EI on graph_predict as it stands, both because graph EI lost to the
 * greedy control, picking the nodes with the fewest neighbours, without
 * them (figures: docs/tuning.md, "Graph EI"):
 * 1. The variance is s²·d_i·G_ii instead of s²·d̄·G_ii (graph.h): G_ii ≈
 *    1/d_i near the labels, so the plain variance ranks nodes by how
 *    poorly they are connected (the same finding as core/mobo_graph.c's
 *    degree_scale for EHVI).
 * 2. The labels are normal scores of their ranks (normal_scores),
 *    EI's incumbent the largest of them: failed runs are outliers that the
 *    harmonic mean, a weighted average, spreads over every neighbour of the
 *    best rows, and they inflate s²; on ranks they weigh like any other bad
 *    row. The map is increasing, so the incumbent is still the best
 *    observation.
 * Pending nodes get the mean of the observed scores (≈ 0): graph_scores'
 * constant lie, in the scores' units.
 */
static enum hpod_status
ei_scores(struct graph *g, size_t n, const size_t *lab, const double *obs_y,
          size_t no, size_t nl, int floor, double *score, double *mv)
{
    double *y = xmalloc(nl * sizeof *y);
    double *mean = xmalloc(n * sizeof *mean), *var = xmalloc(n * sizeof *var);
    double lie = 0.0, best = -INFINITY, dbar = graph_mean_wdegree(g);
    double ss = 0.0;
    enum hpod_status st;

    normal_scores(obs_y, no, y);
    for (size_t i = 0; i < no; i++) {
        lie += y[i] / (double)no;
        best = y[i] > best ? y[i] : best;
    }
    for (size_t i = 0; floor && i < no; i++)
        ss += (y[i] - lie) * (y[i] - lie) / (double)no;
    for (size_t j = no; j < nl; j++)
        y[j] = lie;
    if ((st = graph_predict(g, lab, y, nl, mean, var)) == HPOD_OK) {
        /* An isolated node (all its weights underflowed) keeps its
         * ε-regularized variance, as in core/mobo_graph.c. */
        for (size_t i = 0; i < n; i++)
            if (graph_wdegree(g, i) > 0.0)
                var[i] *= graph_wdegree(g, i) / dbar;
        /* Graph "nei": EI on the predicted observation, with a noise
         * variance of SAMPLER_NEI_FLOOR times the labels' (normal scores')
         * variance, so a node predicted equal to the incumbent keeps EI
         * above zero. */
        for (size_t i = 0; floor && i < n; i++)
            var[i] += SAMPLER_NEI_FLOOR * ss;
        acq_score(ACQ_EI, mean, var, n, best, 0.0, score);
        if (mv) {
            memcpy(mv, mean, n * sizeof *mean);
            memcpy(mv + n, var, n * sizeof *var);
            mv[2 * n] = best;
        }
    }
    free(y);
    free(mean);
    free(var);
    return st;
}

/*
 * Scores the n nodes of g with labels at lab_obs (observations) and
 * lab_pend (pending). Pending nodes get a constant lie, the mean of the
 * observed values (the "constant liar" of Ginsbourger et al. 2010, a
 * sibling of the kriging believer the GP uses): it steers concurrent workers
 * apart like the believer does, and it keeps the labeled set growing from call
 * to call (pending nodes stay labeled when their report arrives), so the cached
 * factor is downdated in O(u²) instead of refactorized, which an extra
 * observations-only solve for the believer would force.
 */
/* mv (may be NULL): receives the mean (n), the variance (n) and the
 * incumbent (1) for the explanation; EIF has no variance or incumbent
 * (NAN) and its mean is the propagated {0,1} label. */
static enum hpod_status
graph_scores(struct graph *g, size_t n, const struct sampler_input *in,
             const size_t *lab_obs, const size_t *lab_pend, double *score,
             double *mv)
{
    size_t no = in->n_obs, np = in->n_pend, nl = no + np;
    size_t *lab = xmalloc(nl * sizeof *lab);
    double *y = xmalloc(nl * sizeof *y);
    double lie = 0.0;
    enum hpod_status st = HPOD_OK;

    memcpy(lab, lab_obs, no * sizeof *lab);
    memcpy(y, in->obs_y, no * sizeof *y);
    for (size_t i = 0; i < no; i++)
        lie += in->obs_y[i] / (double)no;
    for (size_t j = 0; j < np; j++) {
        lab[no + j] = lab_pend[j];
        y[no + j] = lie;
    }
    if (in->acquisition == 1) {
        st = eif_scores(g, n, lab, y, nl, score, mv);
        for (size_t i = 0; mv && i <= n; i++)
            mv[n + i] = NAN;
    } else {
        st = ei_scores(g, n, lab, in->obs_y, no, nl, in->acquisition == 2,
                       score, mv);
    }
    free(lab);
    free(y);
    return st;
}

enum hpod_status
sampler_graph_finite(const struct sampler_input *in, size_t *cand)
{
    size_t n = in->n_cand, dim = in->space->dim;
    double *u = xmalloc(n * dim * sizeof *u);
    double *score = xmalloc(n * sizeof *score);
    double *mv = in->explain ? xmalloc((2 * n + 1) * sizeof *mv) : NULL;
    unsigned char *skip = xcalloc(n, 1);
    struct graph_cache own = {0};
    struct graph_cache *c = in->state ? &in->state->graph : &own;
    struct graph *g = NULL;
    enum hpod_status st;

    space_encode_rows(in->space, in->cand_raw, n, u);
    for (size_t i = 0; i < in->n_obs; i++)
        if (in->obs_cand[i] >= n) {
            st = HPOD_EINVAL;
            goto out;
        }
    for (size_t i = 0; i < in->n_pend; i++)
        if (in->pend_cand[i] >= n) {
            st = HPOD_EINVAL;
            goto out;
        }
    if ((st = cached_graph(c, in, u, n, in->acquisition, &g)) != HPOD_OK ||
        (st = graph_scores(g, n, in, in->obs_cand, in->pend_cand, score, mv)) !=
            HPOD_OK)
        goto out;
    if (in->trust_div > 0)
        trust_region_best(u, n, dim, in->space->kinds, in->cand_used,
                          in->obs_cand, in->obs_y, in->n_obs,
                          (size_t)in->trust_div, SAMPLER_TR_TAU, score);
    for (size_t i = 0; i < n; i++)
        skip[i] = in->cand_used[i];
    *cand = acq_argmax(score, n, skip);
    if (*cand == n)
        st = HPOD_ENOTFOUND;
    else if (mv) {
        in->explain->incumbent = mv[2 * n];
        sampler_explain_rank(in->explain, score, mv, mv + n, n, skip);
    }
out:
    free(mv);
    graph_cache_clear(&own);
    free(u);
    free(score);
    free(skip);
    return st;
}

/* The explanation of a graph choice over random nodes u (n × dim): the
 * pick and the next best distinct free nodes with their raw values. */
static void
explain_nodes(const struct sampler_input *in, const double *score,
              const double *mv, size_t n, const unsigned char *skip,
              const double *u)
{
    struct sampler_explain *e = in->explain;
    size_t dim = in->space->dim;

    e->incumbent = mv[2 * n];
    if (sampler_explain_rank_points(e, score, mv, mv + n, n, skip, u, dim) == n)
        return;
    sampler_explain_decode(e, in->space, u);
}

enum hpod_status
sampler_graph_continuous(const struct sampler_input *in, struct rng *r,
                         double *raw)
{
    const struct space *sp = in->space;
    size_t dim = sp->dim, npar = sp->n_params;
    size_t no = in->n_obs, npd = in->n_pend, nr = ACQOPT_N_NODES;
    size_t n = no + npd + nr;
    double *u = xmalloc(n * dim * sizeof *u);
    double *rawbuf = xmalloc(npar * sizeof *rawbuf);
    double *score = xmalloc(n * sizeof *score);
    double *mv = in->explain ? xmalloc((2 * n + 1) * sizeof *mv) : NULL;
    size_t *lo = xmalloc((no + 1) * sizeof *lo);
    size_t *lp = xmalloc((npd + 1) * sizeof *lp);
    unsigned char *skip = xcalloc(n, 1);
    struct graph *g = NULL;
    enum hpod_status st;

    space_encode_rows(sp, in->obs_raw, no, u);
    space_encode_rows(sp, in->pend_raw, npd, u + no * dim);
    for (size_t i = 0; i < no; i++)
        lo[i] = i;
    for (size_t i = 0; i < npd; i++)
        lp[i] = no + i;
    for (size_t i = 0; i < no + npd; i++)
        skip[i] = 1;
    acqopt_sample(sp, r, nr, u + (no + npd) * dim, rawbuf);
    if ((st = graph_build(u, n, dim, sp->kinds, in->kernel, in->acquisition,
                          &g)) != HPOD_OK ||
        (st = graph_scores(g, n, in, lo, lp, score, mv)) != HPOD_OK)
        goto out;
    size_t pick = acq_argmax(score, n, skip);
    if (pick == n) {
        st = HPOD_ENUMERIC;
        goto out;
    }
    space_decode(sp, u + pick * dim, raw);
    if (mv)
        explain_nodes(in, score, mv, n, skip, u);
out:
    free(mv);
    graph_free(g);
    free(u);
    free(rawbuf);
    free(score);
    free(lo);
    free(lp);
    free(skip);
    return st;
}
