/*
 * core/graph.h - graph-based SMBO (Zhang & Duh 2020, "GB"): a kNN graph over
 * a finite candidate set, harmonic label propagation (Zhu, Ghahramani &
 * Lafferty 2003), the Gaussian-field variance (Zhu 2005) for EI on the
 * graph, and expected influence (EIF) scored for every candidate at once
 * with the rank-one look-ahead.
 *
 * Pure numerics: no I/O, no globals. Candidates are n points already encoded
 * in [0,1]^dim (row-major). Everything is dense: a graph holds O(n²) doubles
 * (about 3·n² once predict/eif has run: W, G = Δ_UU⁻¹ and a scratch
 * matrix), which is 14 MB for the 767-row sw-en table.
 *
 * Caching. A struct graph keeps G = (Δ_UU)⁻¹ for the labeled SET of its last
 * graph_predict/graph_eif call (the set alone determines G; label values do
 * not). A later call whose labeled set is a superset downdates G with the
 * Schur complement (O(u²·m) for m new labels) instead of refactorizing
 * (O(u³)) when that is cheaper (2m <= the new u) and no new label lands in
 * a component that had none (its ε must then vanish); the same set reuses
 * G as is; anything else refactors. A cold object gives the same answer
 * up to round-off (tested to 1e-9; 3e-15 relative after 450 successive
 * downdates on n = 767), unless Δ_UU was so ill-conditioned that
 * linalg_cholesky had to add jitter, which the downdated G then inherits.
 * Because of this cache, one struct graph must not be used by two threads
 * at once.
 *
 * The acquisition functions on top (EI from mean/var) live in the caller.
 */
#ifndef HPOD_GRAPH_H
#define HPOD_GRAPH_H

#include <stddef.h>

#include "core/kernels.h"
#include "common/status.h"

struct graph; /* opaque */

/*
 * The most nodes a graph may have. A graph holds dense n×n matrices (the
 * weights, and the factor of Δ_UU over the unlabeled nodes): 128 MB each
 * at 4000 nodes, and the first factorization is O(n³), 3.7 s at 4000
 * (one core, release build, through a suggest of hpod serve). Beyond this
 * graph_create refuses instead of allocating: at 60000 nodes the weights
 * alone would need 28.8 GB, and a failed allocation aborts (xmalloc).
 */
#define GRAPH_MAX_NODES 4000

/* How graph_eif maps the labels to {0, 1} (see graph_eif_labels). */
enum graph_eif_mode {
    GRAPH_EIF_PAPER = 0,    /* best -> 1; others by random-walk probability */
    GRAPH_EIF_REFERENCE = 1 /* best -> 1; every other labeled node -> 0 */
};

struct graph_options {
    /* Edge weight w_ij = kernel_corr(kernel, d_ij² / ℓ²), d² = space_d2
     * (core/space.h) with the feature kinds below. */
    enum kernel_kind kernel;
    /* The points' feature kinds (dim entries, borrowed for graph_create;
     * categoricals differ by overlap); NULL: Euclidean (the default). */
    const unsigned char *kinds;
    /*
     * Neighbours per node before symmetrization: i ~ j if j is among the k
     * nearest of i or i among the k nearest of j (ties in distance broken
     * by the lower index). k >= n is clamped to n - 1 (complete graph).
     * k == 0: choose the k in [1, n-1] whose symmetrized graph has the
     * average degree closest to n·avg_degree_frac (ties: the smaller k).
     */
    size_t k;
    double avg_degree_frac; /* in (0, 1]; default 1/7, the paper's n/7 */
    /*
     * ℓ > 0, or 0 = automatic: the median Euclidean length of the graph's
     * edges (each undirected edge counted once), so that a typical edge
     * weighs kernel_corr(1) (0.61 for RBF, 0.52 for Matérn-5/2). If that
     * median is 0 (duplicate points), the mean positive edge length; if no
     * edge has positive length, 1.
     */
    double lengthscale;
    /*
     * ε >= 0 in units of the mean weighted degree d̄ = Σ_i d_i / n. Δ_UU is
     * singular exactly when a connected component (edges with w > 0) holds
     * no labeled node; ε·d̄ is then added to the diagonal entries of the
     * nodes of such components, and only those: components that hold a
     * label keep the exact harmonic solution. Must be > 0 for such graphs
     * (else graph_predict/graph_eif return HPOD_ENUMERIC). Default 1e-3.
     */
    double eps;
    int eif_labels; /* enum graph_eif_mode; default GRAPH_EIF_PAPER */
};

/* Which path the last graph_predict/graph_eif took to obtain G. */
enum graph_path {
    GRAPH_PATH_NONE = 0, /* no call yet, or the last one failed */
    GRAPH_PATH_EMPTY,    /* every node labeled: nothing to factor */
    GRAPH_PATH_COLD,     /* Cholesky of Δ_UU and inverse, O(u³) */
    GRAPH_PATH_WARM,     /* Schur-complement downdate of the cached G */
    GRAPH_PATH_REUSE     /* same labeled set: cached G as is */
};

/* Fills o with the defaults: RBF, k = 0, 1/7, ℓ = 0 (auto), ε = 1e-3, PAPER. */
void graph_options_default(struct graph_options *o);

/*
 * graph_create - builds the kNN graph over the n candidates x (n×dim,
 * row-major, borrowed for the call). o may be NULL for the defaults.
 * *out receives a new graph owned by the caller (graph_free).
 * Return: HPOD_OK; HPOD_EUNPROC if n > GRAPH_MAX_NODES (nothing is
 * allocated); HPOD_EINVAL on NULL pointers, n == 0, dim == 0,
 * non-finite coordinates, avg_degree_frac outside (0, 1] (when k == 0),
 * lengthscale < 0, eps < 0, non-finite options or an unknown kernel or
 * eif_labels. O(n²·dim + n·k log k) time (23 ms for n = 767, dim = 6).
 */
enum hpod_status graph_create(const double *x, size_t n, size_t dim,
                              const struct graph_options *o,
                              struct graph **out);

/* Frees g and everything it owns; accepts NULL. */
void graph_free(struct graph *g);

/* Accessors (g must be a graph from graph_create; i, j < n). */
size_t graph_size(const struct graph *g);
size_t graph_k(const struct graph *g);           /* k actually used */
double graph_lengthscale(const struct graph *g); /* ℓ actually used */
/*
 * Neighbour count under the kNN rule (an edge whose weight underflowed to 0,
 * possible only with a tiny lengthscale, still counts here but connects
 * nothing).
 */
size_t graph_degree(const struct graph *g, size_t i);
double graph_avg_degree(const struct graph *g); /* mean neighbour count */
/*
 * Weighted degree d_i = Σ_j w_ij, and its mean d̄ over the nodes (1 if
 * every weight is 0), the d̄ of graph_predict's variance. With them a
 * caller turns that variance s²·d̄·G_ii into s²·d_i·G_ii (see
 * graph_predict).
 */
double graph_wdegree(const struct graph *g, size_t i);
double graph_mean_wdegree(const struct graph *g);
double graph_weight(const struct graph *g, size_t i, size_t j); /* 0: none */
size_t graph_components(const struct graph *g); /* over edges with w > 0 */
/* Writes the Laplacian Δ = D - W (n×n, row-major) to out. */
void graph_laplacian(const struct graph *g, double *out);
enum graph_path graph_last_path(const struct graph *g);
/* Drops the cached G, so that the next call takes the cold path. */
void graph_forget(struct graph *g);

/*
 * graph_predict - harmonic mean and Gaussian-field variance at every node.
 * Inputs: lab[0..nl) distinct node indices < n, y[0..nl) their finite
 * labels (nl >= 1). Both borrowed.
 * Outputs (caller buffers of n): mean[i] = y at labeled nodes, else
 *   f_U = ȳ + G·W_UL·(y - ȳ),  G = (Δ_UU + E)⁻¹,
 * E being the ε·d̄ diagonal of graph_options.eps (zero unless a component
 * holds no label). This is the harmonic solution -Δ_UU⁻¹Δ_UL y: centering
 * on the label mean ȳ changes nothing where a component holds a label
 * (Δ·1 = 0) and makes ȳ the prior mean of components that hold none.
 * var[i] = 0 at labeled nodes, else s²·d̄·G_ii, s² the labels' sample
 * variance (1 if nl < 2 or all labels are equal). Why this scale: Zhu's
 * Gaussian field has covariance (2β(Δ + I/σ²))⁻¹ with an arbitrary β; taking
 * 2β = 1/(s²·d̄) makes a node whose neighbours are all labeled (G_ii = 1/d_i)
 * have variance ≈ s², in the labels' units, and the variance grows with the
 * distance to the labeled set, so EI = σ(zΦ(z)+φ(z)) on it is meaningful.
 * Caution: G_ii ≈ 1/d_i near the labels, so this variance is larger at
 * poorly connected nodes (degree k, the kNN rule's outliers) for that
 * reason alone; EI and EHVI on it chase them. s²·d_i·G_ii =
 * s²·[(I - P_UU)⁻¹]_ii (P = D⁻¹W the random walk; the expected number of
 * visits to i of a walk from i before it is absorbed at a label) is s²
 * for a node whose neighbours are all labeled and grows with the distance
 * from them without the degree; core/sampler_graph.c (graph EI) and
 * core/mobo_graph.c rescale by d_i/d̄ (graph_wdegree) for that reason. Return:
 * HPOD_OK; HPOD_EINVAL on NULL pointers, nl == 0, an index >= n, a duplicate
 * index or a non-finite label; HPOD_ENUMERIC if Δ_UU cannot be factored (eps ==
 * 0 on a graph with an unlabeled component). On error the outputs are
 * unspecified; the cache stays consistent (a rejected call leaves it as it
 * was).
 */
enum hpod_status graph_predict(struct graph *g, const size_t *lab,
                               const double *y, size_t nl, double *mean,
                               double *var);

/*
 * graph_eif_labels - the {0,1} labels EIF propagates (same inputs as
 * graph_predict; larger y is better). fl[j] (nl entries) is the scaled label
 * of lab[j]: 1 for the best labeled node b (the first j with the maximum y);
 * in GRAPH_EIF_REFERENCE mode 0 for all others; in GRAPH_EIF_PAPER mode 1
 * if hit[j] > 0.5, where hit[j] is the probability that a random walk
 * started at b, moving i -> m with probability w_im / d_i and absorbed at
 * the first labeled node it visits after leaving b (b itself included, so
 * hit[b] is the probability of returning first), is absorbed at lab[j]:
 *   hit[j] = (w_bj + Σ_{m∈U} w_bm·(G·W_{U,j})_m) / d_b
 * (the absorption probabilities of Doyle & Snell; Σ_j hit[j] = 1 over the
 * labeled nodes of b's component). Since they sum to 1, at most one node
 * besides b can exceed 0.5. hit (nl entries) may be NULL; it is filled in
 * both modes. An isolated best node (d_b = 0) has hit = 0 everywhere.
 * Return: as graph_predict.
 */
enum hpod_status graph_eif_labels(struct graph *g, const size_t *lab,
                                  const double *y, size_t nl, double *fl,
                                  double *hit);

/*
 * graph_eif - expected influence of labeling each unlabeled node (larger is
 * better; score has n entries, -INFINITY at labeled nodes). With the labels
 * scaled to {0,1} (graph_eif_labels) and propagated to f (G·W_UL·fl, no
 * centering, so f ∈ [0,1]):
 *   EIF(k) = (1 - f_k)·Σ_{i∈U\k}(1 - f⁺⁽ᵏ'⁰⁾_i) + f_k·Σ_{i∈U\k} f⁺⁽ᵏ'¹⁾_i
 * where f⁺⁽ᵏ'ʸ⁾ is the propagation with k clamped to y; k itself is not in
 * the sums (as in the public reference code; including it would add 1 to
 * every score). The clamped solutions come from the rank-one look-ahead
 * f⁺ = f_U + (y - f_k)·G[:,k]/G_kk (Zhu, Lafferty & Ghahramani 2003), whose
 * sums need only f, G·1 and diag(G): O(u²) for all candidates once G is
 * known. The clamped problems keep the ε of the unclamped one.
 *
 * Caution: maximizing this score as written picks nodes with f ≈ 0, the
 * least like the best, because the (1 - f_k)·Σ(1 - f⁺) term is ≈ u·(1 - f_k)
 * (on the NMT tables it found sw-en's best row last). The single terms
 * from graph_eif_terms do much better as acquisitions; the sampler's final
 * choice is core/sampler_graph.c's eif_scores (f·Σf⁺ with the top 7.5% of the
 * labels set to 1 on a graph with half the median edge length). Figures:
 * docs/tuning.md, "EIF".
 * Return: as graph_predict.
 */
enum hpod_status graph_eif(struct graph *g, const size_t *lab, const double *y,
                           size_t nl, double *score);

/*
 * graph_eif_terms - the parts of EIF, for acquisitions that combine them
 * differently (n entries each): f = the propagated {0,1} labels (fl at
 * labeled nodes), t0[k] = Σ_{i∈U\k}(1 - f⁺⁽ᵏ'⁰⁾_i) and
 * t1[k] = Σ_{i∈U\k} f⁺⁽ᵏ'¹⁾_i (0 at labeled nodes), so that
 * EIF = (1 - f)·t0 + f·t1. Same cost and cache as graph_eif.
 * Return: as graph_predict.
 */
enum hpod_status graph_eif_terms(struct graph *g, const size_t *lab,
                                 const double *y, size_t nl, double *f,
                                 double *t0, double *t1);

/*
 * graph_eif_spread - the label-free part of the EIF terms (n entries):
 * q[k] = Σ_{i∈U\k} G_ik/G_kk for unlabeled k (so that t0 + t1 = (u-1) + q
 * in graph_eif_terms, whatever the labels), 0 at labeled nodes. One G·1
 * on the cached G (same cache as graph_predict): a caller that needs only
 * q and its own propagation (core/sampler_graph.c's eif_scores) skips the
 * labels' walk, their propagation and the second product that
 * graph_eif_terms computes.
 * Return: as graph_predict.
 */
enum hpod_status graph_eif_spread(struct graph *g, const size_t *lab,
                                  const double *y, size_t nl, double *q);

/*
 * graph_eif_bruteforce - the same scores by definition: for every unlabeled
 * k, assembles and factors the Laplacian of U \ {k} and solves with k
 * clamped to 0 and to 1; the paper-mode labels come from one solve per
 * labeled node. O(u⁴); for tests on small graphs. Uses no cache.
 * Return: as graph_predict.
 */
enum hpod_status graph_eif_bruteforce(const struct graph *g, const size_t *lab,
                                      const double *y, size_t nl,
                                      double *score);

#endif
