/*
 * core/graph.c - kNN graph, harmonic label propagation, Gaussian-field
 * variance and expected influence (EIF) with the rank-one look-ahead
 * (see graph.h for the contracts and the modelling choices).
 *
 * Pure numerics: no I/O, no globals; all state is in struct graph. Dense
 * linear algebra goes through core/linalg.h. The references are Zhu,
 * Ghahramani & Lafferty (ICML 2003) for the harmonic solution and the
 * look-ahead, Zhu's thesis (2005, ch. 4) for the Gaussian field, and Zhang &
 * Duh (TACL 2020) for graph-based SMBO with EIF.
 */
#include "core/graph.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/linalg.h"
#include "core/space.h"
#include "common/mem.h"

#define SYM_TILE 32

struct graph {
    size_t n, dim, k, ncomp;
    double ell;  /* lengthscale used */
    double dbar; /* mean weighted degree, > 0 */
    double eps;  /* relative ε (options) */
    enum kernel_kind kernel;
    int eif_mode;
    double *w;   /* n×n symmetric weights, 0 on the diagonal */
    double *deg; /* n weighted degrees d_i = Σ_j w_ij */
    size_t *nnb; /* n neighbour counts */
    /* Row i's nonzero weights are adj_w[e] at columns adj[e], e in
     * [adj_off[i], adj_off[i+1]), ascending (rhs walks them instead of the
     * whole row). */
    size_t *adj_off, *adj;
    double *adj_w;
    size_t *comp; /* n component ids (edges with w > 0) */

    /*
     * Cache: G = (Δ_UU + E)⁻¹ (cu×cu, row-major) for the labeled mask clab,
     * U = cuidx[0..cu) in ascending node order. gm and work are allocated
     * (n×n each) by the first call that needs them.
     */
    int cvalid;
    unsigned char *clab;
    size_t cu;
    size_t *cuidx;
    double *gm;
    double *work;
    enum graph_path last;

    /* Per-call scratch. */
    unsigned char *mark; /* n: labeled mask of the current call */
    unsigned char *chas; /* ncomp: component holds a label (current call) */
    unsigned char *ohas; /* ncomp: the same for the cached set */
    size_t *pos;         /* n */
    size_t *inv;         /* n: position in cuidx, or SIZE_MAX (rhs) */
    double *v[5];        /* n each */
};

void
graph_options_default(struct graph_options *o)
{
    o->kernel = KERNEL_RBF;
    o->kinds = NULL;
    o->k = 0;
    o->avg_degree_frac = 1.0 / 7.0;
    o->lengthscale = 0.0;
    o->eps = 1e-3;
    o->eif_labels = GRAPH_EIF_PAPER;
}

/* ---------------------------------------------------------------------- */
/* Construction                                                           */
/* ---------------------------------------------------------------------- */

struct nbr {
    double d2;
    size_t j;
};

static int
nbr_cmp(const void *a, const void *b)
{
    const struct nbr *p = a, *q = b;
    if (p->d2 < q->d2)
        return -1;
    if (p->d2 > q->d2)
        return 1;
    return (p->j > q->j) - (p->j < q->j);
}

static void
nbr_swap(struct nbr *a, size_t i, size_t j)
{
    struct nbr t = a[i];
    a[i] = a[j];
    a[j] = t;
}

/*
 * Quickselect (median-of-three pivot): afterwards a[0..k) hold the k
 * smallest entries in the total order of nbr_cmp, in no particular order.
 * O(len) expected, against O(len log len) for a full sort.
 */
static void
nbr_select(struct nbr *a, size_t len, size_t k)
{
    size_t lo = 0, hi = len;
    if (k == 0 || k >= len)
        return;
    while (lo + 1 < hi) {
        size_t mid = lo + (hi - lo) / 2, store = lo;
        if (nbr_cmp(&a[mid], &a[lo]) < 0)
            nbr_swap(a, mid, lo);
        if (nbr_cmp(&a[hi - 1], &a[lo]) < 0)
            nbr_swap(a, hi - 1, lo);
        if (nbr_cmp(&a[hi - 1], &a[mid]) < 0)
            nbr_swap(a, hi - 1, mid);
        nbr_swap(a, mid, hi - 1);
        for (size_t i = lo; i < hi - 1; i++)
            if (nbr_cmp(&a[i], &a[hi - 1]) < 0)
                nbr_swap(a, i, store++);
        nbr_swap(a, store, hi - 1);
        if (store == k)
            return;
        if (k < store)
            hi = store;
        else
            lo = store + 1;
    }
}

static int
dbl_cmp(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

static enum hpod_status
check_options(const double *x, size_t n, size_t dim,
              const struct graph_options *o)
{
    if (x == NULL || n == 0 || dim == 0)
        return HPOD_EINVAL;
    if (o->kernel != KERNEL_RBF && o->kernel != KERNEL_MATERN52)
        return HPOD_EINVAL;
    if (o->eif_labels != GRAPH_EIF_PAPER &&
        o->eif_labels != GRAPH_EIF_REFERENCE)
        return HPOD_EINVAL;
    if (o->k == 0 && !(o->avg_degree_frac > 0.0 && o->avg_degree_frac <= 1.0))
        return HPOD_EINVAL;
    if (!(o->lengthscale >= 0.0) || !isfinite(o->lengthscale))
        return HPOD_EINVAL;
    if (!(o->eps >= 0.0) || !isfinite(o->eps))
        return HPOD_EINVAL;
    for (size_t i = 0; i < n * dim; i++)
        if (!isfinite(x[i]))
            return HPOD_EINVAL;
    return HPOD_OK;
}

/*
 * Picks k from the histogram of m_ij = min(rank of j around i, rank of i
 * around j) over pairs i < j: the symmetrized kNN graph has an edge i~j iff
 * m_ij < k, so its edge count is the cumulative histogram, and its average
 * degree 2E(k)/n is monotone in k.
 */
static size_t
choose_k(const size_t *hist, size_t kmax, size_t n, double target)
{
    size_t best_k = 1, edges = 0;
    double best_gap = INFINITY;
    for (size_t k = 1; k <= kmax; k++) {
        edges += hist[k - 1];
        double gap = fabs(2.0 * (double)edges / (double)n - target);
        if (gap < best_gap) {
            best_gap = gap;
            best_k = k;
        }
    }
    return best_k;
}

static double
auto_lengthscale(const double *d2, const unsigned char *edge, size_t n)
{
    size_t ne = 0, npos = 0;
    double *len, ell, sum = 0.0;

    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            ne += edge[i * n + j];
    if (ne == 0)
        return 1.0;
    len = xmalloc(ne * sizeof *len);
    ne = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (edge[i * n + j])
                len[ne++] = sqrt(d2[i * n + j]);
    qsort(len, ne, sizeof *len, dbl_cmp);
    ell = ne % 2 ? len[ne / 2] : 0.5 * (len[ne / 2 - 1] + len[ne / 2]);
    if (!(ell > 0.0)) {
        for (size_t e = 0; e < ne; e++)
            if (len[e] > 0.0) {
                sum += len[e];
                npos++;
            }
        ell = npos ? sum / (double)npos : 1.0;
    }
    free(len);
    return ell;
}

/* Labels connected components over edges with positive weight (DFS). */
static size_t
label_components(const double *w, size_t n, size_t *comp, size_t *stack)
{
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        comp[i] = (size_t)-1;
    for (size_t s = 0; s < n; s++) {
        size_t top = 0;
        if (comp[s] != (size_t)-1)
            continue;
        comp[s] = nc;
        stack[top++] = s;
        while (top > 0) {
            size_t i = stack[--top];
            for (size_t j = 0; j < n; j++)
                if (w[i * n + j] > 0.0 && comp[j] == (size_t)-1) {
                    comp[j] = nc;
                    stack[top++] = j;
                }
        }
        nc++;
    }
    return nc;
}

/*
 * A graph of n nodes with every array allocated and w holding the squared
 * Euclidean distances between the rows of x (n × dim), which
 * graph_create replaces by the weights.
 */
static struct graph *
graph_alloc(const double *x, size_t n, size_t dim,
            const struct graph_options *o)
{
    struct graph *g = xcalloc(1, sizeof *g);
    g->n = n;
    g->dim = dim;
    g->eps = o->eps;
    g->kernel = o->kernel;
    g->eif_mode = o->eif_labels;
    g->w = xcalloc(n * n, sizeof *g->w);
    g->deg = xcalloc(n, sizeof *g->deg);
    g->nnb = xcalloc(n, sizeof *g->nnb);
    g->comp = xcalloc(n, sizeof *g->comp);
    g->clab = xcalloc(n, 1);
    g->cuidx = xcalloc(n, sizeof *g->cuidx);
    g->mark = xcalloc(n, 1);
    g->pos = xcalloc(n, sizeof *g->pos);
    g->inv = xcalloc(n, sizeof *g->inv);
    g->adj_off = xcalloc(n + 1, sizeof *g->adj_off);
    for (int v = 0; v < 5; v++)
        g->v[v] = xcalloc(n, sizeof(double));

    /* Squared distances, kept in w until the weights replace them. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            g->w[i * n + j] = g->w[j * n + i] =
                space_d2(o->kinds, x + i * dim, x + j * dim, dim);
    return g;
}

enum hpod_status
graph_create(const double *x, size_t n, size_t dim,
             const struct graph_options *opt, struct graph **out)
{
    struct graph_options defaults;
    const struct graph_options *o = opt;
    struct graph *g = NULL;
    uint32_t *rank = NULL;
    size_t *hist = NULL, kmax;
    struct nbr *nb = NULL;
    unsigned char *edge = NULL;
    enum hpod_status st;

    if (out == NULL)
        return HPOD_EINVAL;
    *out = NULL;
    if (n > GRAPH_MAX_NODES)
        return HPOD_EUNPROC;
    if (o == NULL) {
        graph_options_default(&defaults);
        o = &defaults;
    }
    if ((st = check_options(x, n, dim, o)) != HPOD_OK)
        return st;

    g = graph_alloc(x, n, dim, o);

    /*
     * Only ranks below kmax matter: every node keeps its own k nearest, so
     * the symmetrized average degree is >= k and, being non-decreasing in
     * k, is no closer to the target D than at floor(D) + 1 for any larger
     * k. Ranks >= kmax are stored as the sentinel kmax.
     */
    if (n == 1)
        kmax = 0;
    else if (o->k == 0)
        kmax = (size_t)floor((double)n * o->avg_degree_frac) + 1;
    else
        kmax = o->k;
    if (kmax > n - 1)
        kmax = n - 1;
    rank = xmalloc(n * n * sizeof *rank);
    hist = xcalloc(n, sizeof *hist);
    nb = xmalloc(n * sizeof *nb);
    edge = xcalloc(n * n, 1);
    for (size_t i = 0; i < n * n; i++)
        rank[i] = (uint32_t)kmax;
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        for (size_t j = 0; j < n; j++)
            if (j != i) {
                nb[c].d2 = g->w[i * n + j];
                nb[c++].j = j;
            }
        nbr_select(nb, c, kmax);
        qsort(nb, kmax, sizeof *nb, nbr_cmp);
        for (size_t r = 0; r < kmax; r++)
            rank[i * n + nb[r].j] = (uint32_t)r;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            uint32_t ra = rank[i * n + j], rb = rank[j * n + i];
            hist[ra < rb ? ra : rb]++;
        }
    if (n == 1)
        g->k = 0;
    else if (o->k == 0)
        g->k = choose_k(hist, kmax, n, (double)n * o->avg_degree_frac);
    else
        g->k = kmax;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (j != i && (rank[i * n + j] < g->k || rank[j * n + i] < g->k))
                edge[i * n + j] = 1;

    g->ell =
        o->lengthscale > 0.0 ? o->lengthscale : auto_lengthscale(g->w, edge, n);
    for (size_t i = 0; i < n * n; i++)
        g->w[i] =
            edge[i] ? kernel_corr(g->kernel, g->w[i] / (g->ell * g->ell)) : 0.0;

    double total = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = 0.0;
        size_t c = 0;
        for (size_t j = 0; j < n; j++) {
            d += g->w[i * n + j];
            c += edge[i * n + j];
        }
        g->deg[i] = d;
        g->nnb[i] = c;
        total += d;
    }
    g->dbar = total > 0.0 ? total / (double)n : 1.0;
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        for (size_t j = 0; j < n; j++)
            c += g->w[i * n + j] != 0.0;
        g->adj_off[i + 1] = g->adj_off[i] + c;
    }
    g->adj = xmalloc((g->adj_off[n] ? g->adj_off[n] : 1) * sizeof *g->adj);
    g->adj_w = xmalloc((g->adj_off[n] ? g->adj_off[n] : 1) * sizeof *g->adj_w);
    for (size_t i = 0, e = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (g->w[i * n + j] != 0.0) {
                g->adj_w[e] = g->w[i * n + j];
                g->adj[e++] = j;
            }
    g->ncomp = label_components(g->w, n, g->comp, g->pos);
    g->chas = xcalloc(g->ncomp, 1);
    g->ohas = xcalloc(g->ncomp, 1);
    g->last = GRAPH_PATH_NONE;

    *out = g;
    free(rank);
    free(hist);
    free(nb);
    free(edge);
    return HPOD_OK;
}

void
graph_free(struct graph *g)
{
    if (g == NULL)
        return;
    free(g->w);
    free(g->deg);
    free(g->nnb);
    free(g->comp);
    free(g->clab);
    free(g->cuidx);
    free(g->gm);
    free(g->work);
    free(g->mark);
    free(g->chas);
    free(g->ohas);
    free(g->pos);
    free(g->inv);
    free(g->adj_off);
    free(g->adj);
    free(g->adj_w);
    for (int v = 0; v < 5; v++)
        free(g->v[v]);
    free(g);
}

size_t
graph_size(const struct graph *g)
{
    return g->n;
}

size_t
graph_k(const struct graph *g)
{
    return g->k;
}

double
graph_lengthscale(const struct graph *g)
{
    return g->ell;
}

size_t
graph_degree(const struct graph *g, size_t i)
{
    return g->nnb[i];
}

double
graph_avg_degree(const struct graph *g)
{
    double s = 0.0;
    for (size_t i = 0; i < g->n; i++)
        s += (double)g->nnb[i];
    return s / (double)g->n;
}

double
graph_wdegree(const struct graph *g, size_t i)
{
    return g->deg[i];
}

double
graph_mean_wdegree(const struct graph *g)
{
    return g->dbar;
}

double
graph_weight(const struct graph *g, size_t i, size_t j)
{
    return g->w[i * g->n + j];
}

size_t
graph_components(const struct graph *g)
{
    return g->ncomp;
}

void
graph_laplacian(const struct graph *g, double *out)
{
    size_t n = g->n;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            out[i * n + j] = (i == j ? g->deg[i] : 0.0) - g->w[i * n + j];
}

enum graph_path
graph_last_path(const struct graph *g)
{
    return g->last;
}

void
graph_forget(struct graph *g)
{
    g->cvalid = 0;
    g->last = GRAPH_PATH_NONE;
}

/* ---------------------------------------------------------------------- */
/* Shared by the fast path and the brute force                            */
/* ---------------------------------------------------------------------- */

static enum hpod_status
check_labels(const struct graph *g, const size_t *lab, const double *y,
             size_t nl, unsigned char *mark)
{
    if (lab == NULL || y == NULL || nl == 0)
        return HPOD_EINVAL;
    memset(mark, 0, g->n);
    for (size_t j = 0; j < nl; j++) {
        if (lab[j] >= g->n || mark[lab[j]] || !isfinite(y[j]))
            return HPOD_EINVAL;
        mark[lab[j]] = 1;
    }
    return HPOD_OK;
}

/*
 * has[c] = 1 if component c holds a labeled node. Returns 0 if some
 * component holds none (Δ_UU is then singular without ε).
 */
static int
mark_components(const struct graph *g, const unsigned char *mark,
                unsigned char *has)
{
    int all = 1;
    memset(has, 0, g->ncomp);
    for (size_t i = 0; i < g->n; i++)
        if (mark[i])
            has[g->comp[i]] = 1;
    for (size_t c = 0; c < g->ncomp; c++)
        all &= has[c];
    return all;
}

static size_t
list_unlabeled(size_t n, const unsigned char *mark, size_t *uidx)
{
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!mark[i])
            uidx[u++] = i;
    return u;
}

/*
 * a (u×u) = Δ_UU + E, E = ε·d̄ on the diagonal of nodes whose component
 * holds no label (has[]), so that the regularization never touches a
 * component where the harmonic solution exists.
 */
static void
assemble(const struct graph *g, const size_t *uidx, size_t u,
         const unsigned char *has, double *a)
{
    size_t n = g->n;
    for (size_t p = 0; p < u; p++) {
        const double *wi = g->w + uidx[p] * n;
        for (size_t q = 0; q < u; q++)
            a[p * u + q] = -wi[uidx[q]];
        a[p * u + p] =
            g->deg[uidx[p]] + (has[g->comp[uidx[p]]] ? 0.0 : g->eps * g->dbar);
    }
}

/* Index of the best (first maximal) label. */
static size_t
best_label(const double *y, size_t nl)
{
    size_t b = 0;
    for (size_t j = 1; j < nl; j++)
        if (y[j] > y[b])
            b = j;
    return b;
}

/* ---------------------------------------------------------------------- */
/* The cache of G = (Δ_UU + E)⁻¹                                         */
/* ---------------------------------------------------------------------- */

static enum hpod_status
cold(struct graph *g, size_t u)
{
    enum hpod_status st;

    g->cvalid = 0;
    g->last = GRAPH_PATH_NONE;
    list_unlabeled(g->n, g->mark, g->cuidx);
    if (u > 0) {
        assemble(g, g->cuidx, u, g->chas, g->gm);
        if ((st = linalg_cholesky(g->gm, u, g->work, NULL)) != HPOD_OK)
            return st;
        if ((st = linalg_chol_inverse(g->gm, u)) != HPOD_OK)
            return st;
    }
    memcpy(g->clab, g->mark, g->n);
    g->cu = u;
    g->cvalid = 1;
    g->last = u > 0 ? GRAPH_PATH_COLD : GRAPH_PATH_EMPTY;
    return HPOD_OK;
}

/*
 * Removes the m newly labeled nodes K from the cached G (size cu) leaving
 * R = U \ K (size r): the inverse of a principal submatrix is the Schur
 * complement of the inverse, (M_RR)⁻¹ = G_RR - G_RK G_KK⁻¹ G_KR (e.g. Golub
 * & Van Loan §3.2.2 / the block-inverse formula). With G_KK = L Lᵀ and
 * C = L⁻¹ G_KR this is G_RR - CᵀC: O(m³ + m²r + mr²) instead of O(r³).
 * Fails (leaving the cache to be rebuilt) if G_KK is not numerically SPD.
 */
static enum hpod_status
downdate(struct graph *g, size_t r)
{
    size_t cu = g->cu, m = cu - r, nk = 0, nr = 0;
    size_t *kp = g->pos, *rp = g->pos + m;
    double *gm = g->gm, *a = g->work, *c = a + m * m, *s = c + m * r;
    double jit = 0.0;

    for (size_t p = 0; p < cu; p++) {
        if (g->mark[g->cuidx[p]])
            kp[nk++] = p;
        else
            rp[nr++] = p;
    }
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < m; j++)
            a[i * m + j] = gm[kp[i] * cu + kp[j]];
        for (size_t j = 0; j < r; j++)
            c[i * r + j] = gm[kp[i] * cu + rp[j]];
    }
    if (linalg_cholesky(a, m, s, &jit) != HPOD_OK || jit > 0.0)
        return HPOD_ENUMERIC;

    /*
     * Compact G_RR in place to leading dimension r: the source index
     * rp[i]·cu + rp[j] is never below the destination i·r + j, and
     * destinations are written in increasing order, so no source is
     * overwritten before it is read. Each row goes by runs of consecutive
     * source columns (memmove: a run may overlap its own source), at most
     * m + 1 runs.
     */
    for (size_t i = 0; i < r; i++)
        for (size_t j = 0, e; j < r; j = e) {
            for (e = j + 1; e < r && rp[e] == rp[e - 1] + 1;)
                e++;
            memmove(gm + i * r + j, gm + rp[i] * cu + rp[j],
                    (e - j) * sizeof *gm);
        }
    linalg_trsm_lower(a, m, c, r, 0);
    linalg_gemm(1, 0, r, r, m, -1.0, c, c, 1.0, gm);
    /* Symmetrize by tiles: each pair is set once from its two entries, so
     * the order is free; tiles keep the column side in cache. */
    for (size_t ib = 0; ib < r; ib += SYM_TILE)
        for (size_t jb = ib; jb < r; jb += SYM_TILE)
            for (size_t i = ib; i < ib + SYM_TILE && i < r; i++)
                for (size_t j = jb > i + 1 ? jb : i + 1;
                     j < jb + SYM_TILE && j < r; j++) {
                    double t = 0.5 * (gm[i * r + j] + gm[j * r + i]);
                    gm[i * r + j] = gm[j * r + i] = t;
                }
    for (size_t i = 0; i < r; i++)
        g->cuidx[i] = g->cuidx[rp[i]];
    memcpy(g->clab, g->mark, g->n);
    g->cu = r;
    g->last = GRAPH_PATH_WARM;
    return HPOD_OK;
}

/*
 * Validates the labels and makes g->gm hold G for their set: reuse if the
 * set is the cached one, downdate if it is a superset with the same ε
 * pattern and few enough new labels that the downdate is cheaper, else
 * refactor.
 */
static enum hpod_status
prepare(struct graph *g, const size_t *lab, const double *y, size_t nl)
{
    size_t n = g->n, u = 0;
    enum hpod_status st;
    int all;

    if ((st = check_labels(g, lab, y, nl, g->mark)) != HPOD_OK)
        return st;
    all = mark_components(g, g->mark, g->chas);
    if (!all && !(g->eps > 0.0))
        return HPOD_ENUMERIC;
    for (size_t i = 0; i < n; i++)
        u += !g->mark[i];
    if (g->gm == NULL) {
        g->gm = xmalloc(n * n * sizeof *g->gm);
        g->work = xmalloc(n * n * sizeof *g->work);
    }

    if (g->cvalid) {
        int superset = 1, same_eps = 1;
        for (size_t i = 0; i < n && superset; i++)
            superset = !g->clab[i] || g->mark[i];
        if (superset && u == g->cu) {
            g->last = u > 0 ? GRAPH_PATH_REUSE : GRAPH_PATH_EMPTY;
            return HPOD_OK;
        }
        if (superset) {
            /*
             * The Schur complement keeps E on the remaining nodes, so it is
             * the right G only if no new label lands in a component that
             * had none (whose ε must then vanish).
             */
            mark_components(g, g->clab, g->ohas);
            for (size_t i = 0; i < n && same_eps; i++)
                if (g->mark[i] && !g->clab[i] && !g->ohas[g->comp[i]])
                    same_eps = 0;
            /* Downdate ≈ 2m·r² flops against ≈ r³ for Cholesky+inverse. */
            if (same_eps && u > 0 && 2 * (g->cu - u) <= u &&
                downdate(g, u) == HPOD_OK)
                return HPOD_OK;
        }
    }
    return cold(g, u);
}

/* ---------------------------------------------------------------------- */
/* Predict, labels, EIF                                                   */
/* ---------------------------------------------------------------------- */

/*
 * b[p] = Σ_j w(U_p, lab_j)·z_j = (W_UL z)_p = (-Δ_UL z)_p. W is symmetric,
 * so it walks the labeled nodes' rows, each once and in order, instead of
 * one scattered entry of every unlabeled row per label; and only their
 * nonzero entries (adj), which leaves out terms w·z_j = ±0 only: each b[p]
 * gets the same nonzero terms in the same order, and adding ±0 to a sum
 * that started at +0 changes no bit. O(nl·degree) instead of O(nl·u).
 */
static void
rhs(struct graph *g, const size_t *uidx, size_t u, const size_t *lab,
    const double *z, size_t nl, double *b)
{
    size_t n = g->n, *inv = g->inv;

    for (size_t i = 0; i < n; i++)
        inv[i] = SIZE_MAX;
    for (size_t p = 0; p < u; p++) {
        b[p] = 0.0;
        inv[uidx[p]] = p;
    }
    for (size_t j = 0; j < nl; j++) {
        double zj = z[j];
        for (size_t e = g->adj_off[lab[j]]; e < g->adj_off[lab[j] + 1]; e++) {
            size_t p = inv[g->adj[e]];
            if (p != SIZE_MAX)
                b[p] += g->adj_w[e] * zj;
        }
    }
}

enum hpod_status
graph_predict(struct graph *g, const size_t *lab, const double *y, size_t nl,
              double *mean, double *var)
{
    enum hpod_status st;
    double ybar = 0.0, s2 = 0.0, *z, *b, *f;
    size_t u;

    if (g == NULL || mean == NULL || var == NULL)
        return HPOD_EINVAL;
    if ((st = prepare(g, lab, y, nl)) != HPOD_OK)
        return st;
    u = g->cu;
    z = g->v[0];
    b = g->v[1];
    f = g->v[2];

    for (size_t j = 0; j < nl; j++)
        ybar += y[j];
    ybar /= (double)nl;
    for (size_t j = 0; j < nl; j++) {
        z[j] = y[j] - ybar;
        s2 += z[j] * z[j];
    }
    s2 = nl > 1 ? s2 / (double)(nl - 1) : 0.0;
    if (!(s2 > 0.0))
        s2 = 1.0;

    for (size_t j = 0; j < nl; j++) {
        mean[lab[j]] = y[j];
        var[lab[j]] = 0.0;
    }
    if (u == 0)
        return HPOD_OK;
    /* f_U = ȳ + G W_UL (y - ȳ): the harmonic solution, ZGL 2003 eq. 5. */
    rhs(g, g->cuidx, u, lab, z, nl, b);
    linalg_gemv(0, u, u, 1.0, g->gm, b, 0.0, f);
    for (size_t p = 0; p < u; p++) {
        double v = s2 * g->dbar * g->gm[p * u + p];
        mean[g->cuidx[p]] = ybar + f[p];
        var[g->cuidx[p]] = v > 0.0 ? v : 0.0;
    }
    return HPOD_OK;
}

/* The {0,1} labels, given a prepared cache; hit may not be NULL. */
static void
eif_labels(struct graph *g, const size_t *lab, const double *y, size_t nl,
           double *fl, double *hit)
{
    size_t n = g->n, u = g->cu, b = best_label(y, nl), nb = lab[b];
    double *wb = g->v[3], *vb = g->v[4], db = g->deg[nb];

    /*
     * Absorption probabilities of the walk from b: first step to m with
     * probability w_bm/d_b; from an unlabeled m the probability of being
     * absorbed at labeled j is (G W_{U,j})_m (the harmonic function that is
     * 1 at j, 0 at the other labeled nodes). Summing over m with one
     * vector vb = G w_{U,b} (G symmetric) costs O(u² + u·nl).
     */
    for (size_t p = 0; p < u; p++)
        wb[p] = g->w[nb * n + g->cuidx[p]];
    if (u > 0)
        linalg_gemv(0, u, u, 1.0, g->gm, wb, 0.0, vb);
    for (size_t j = 0; j < nl; j++) {
        /* Row lab[j] of the symmetric W, read in order. */
        const double *wj = g->w + lab[j] * n;
        double s = g->w[nb * n + lab[j]];
        for (size_t p = 0; p < u; p++)
            s += vb[p] * wj[g->cuidx[p]];
        hit[j] = db > 0.0 ? s / db : 0.0;
        fl[j] = 0.0;
        if (g->eif_mode == GRAPH_EIF_PAPER && j != b && hit[j] > 0.5)
            fl[j] = 1.0;
    }
    fl[b] = 1.0;
}

enum hpod_status
graph_eif_labels(struct graph *g, const size_t *lab, const double *y, size_t nl,
                 double *fl, double *hit)
{
    enum hpod_status st;

    if (g == NULL || fl == NULL)
        return HPOD_EINVAL;
    if ((st = prepare(g, lab, y, nl)) != HPOD_OK)
        return st;
    eif_labels(g, lab, y, nl, fl, hit ? hit : g->v[2]);
    return HPOD_OK;
}

/*
 * The EIF computation behind graph_eif and graph_eif_terms; every output
 * (n entries) may be NULL.
 */
static enum hpod_status
eif_run(struct graph *g, const size_t *lab, const double *y, size_t nl,
        double *score, double *fo, double *t0, double *t1)
{
    enum hpod_status st;
    double *fl, *hit, *f, *s, *one, sf = 0.0;
    size_t u;

    if ((st = prepare(g, lab, y, nl)) != HPOD_OK)
        return st;
    u = g->cu;
    fl = g->v[0];
    hit = g->v[1];
    eif_labels(g, lab, y, nl, fl, hit);
    for (size_t j = 0; j < nl; j++) {
        if (score)
            score[lab[j]] = -INFINITY;
        if (fo)
            fo[lab[j]] = fl[j];
        if (t0)
            t0[lab[j]] = 0.0;
        if (t1)
            t1[lab[j]] = 0.0;
    }
    if (u == 0)
        return HPOD_OK;

    f = g->v[2];
    s = g->v[3];
    one = g->v[4];
    rhs(g, g->cuidx, u, lab, fl, nl, one);
    linalg_gemv(0, u, u, 1.0, g->gm, one, 0.0, f);
    for (size_t p = 0; p < u; p++)
        one[p] = 1.0;
    linalg_gemv(0, u, u, 1.0, g->gm, one, 0.0, s);
    for (size_t p = 0; p < u; p++)
        sf += f[p];

    /*
     * Clamping k to y moves f by (y - f_k)·G[:,k]/G_kk (ZLG 2003 §4), so
     * with R = Σ_{i≠k} f_i and A = Σ_{i≠k} G_ik / G_kk = s_k/G_kk - 1:
     *   Σ_{i≠k}(1 - f⁺⁽⁰⁾_i) = (u-1) - R + f_k·A,
     *   Σ_{i≠k} f⁺⁽¹⁾_i     = R + (1-f_k)·A,
     * and EIF = (1-f_k)(u-1-R) + f_k·R + 2·f_k(1-f_k)·A.
     */
    for (size_t p = 0; p < u; p++) {
        size_t k = g->cuidx[p];
        double fk = f[p], gkk = g->gm[p * u + p];
        double a = s[p] / gkk - 1.0, rr = sf - fk;
        if (score)
            score[k] = (1.0 - fk) * ((double)(u - 1) - rr) + fk * rr +
                       2.0 * fk * (1.0 - fk) * a;
        if (fo)
            fo[k] = fk;
        if (t0)
            t0[k] = (double)(u - 1) - rr + fk * a;
        if (t1)
            t1[k] = rr + (1.0 - fk) * a;
    }
    return HPOD_OK;
}

enum hpod_status
graph_eif(struct graph *g, const size_t *lab, const double *y, size_t nl,
          double *score)
{
    if (g == NULL || score == NULL)
        return HPOD_EINVAL;
    return eif_run(g, lab, y, nl, score, NULL, NULL, NULL);
}

enum hpod_status
graph_eif_terms(struct graph *g, const size_t *lab, const double *y, size_t nl,
                double *f, double *t0, double *t1)
{
    if (g == NULL || f == NULL || t0 == NULL || t1 == NULL)
        return HPOD_EINVAL;
    return eif_run(g, lab, y, nl, NULL, f, t0, t1);
}

enum hpod_status
graph_eif_spread(struct graph *g, const size_t *lab, const double *y, size_t nl,
                 double *q)
{
    enum hpod_status st;
    double *s, *one;
    size_t u;

    if (g == NULL || q == NULL)
        return HPOD_EINVAL;
    if ((st = prepare(g, lab, y, nl)) != HPOD_OK)
        return st;
    u = g->cu;
    for (size_t j = 0; j < nl; j++)
        q[lab[j]] = 0.0;
    if (u == 0)
        return HPOD_OK;
    s = g->v[3];
    one = g->v[4];
    for (size_t p = 0; p < u; p++)
        one[p] = 1.0;
    linalg_gemv(0, u, u, 1.0, g->gm, one, 0.0, s);
    for (size_t p = 0; p < u; p++)
        q[g->cuidx[p]] = s[p] / g->gm[p * u + p] - 1.0;
    return HPOD_OK;
}

/* ---------------------------------------------------------------------- */
/* Brute force (tests)                                                    */
/* ---------------------------------------------------------------------- */

/* rhs by the whole rows (the reference for the sparse walk). */
static void
rhs_dense(const struct graph *g, const size_t *uidx, size_t u,
          const size_t *lab, const double *z, size_t nl, double *b)
{
    for (size_t p = 0; p < u; p++)
        b[p] = 0.0;
    for (size_t j = 0; j < nl; j++) {
        const double *wj = g->w + lab[j] * g->n;
        double zj = z[j];
        for (size_t p = 0; p < u; p++)
            b[p] += wj[uidx[p]] * zj;
    }
}

/* Assembles Δ_UU + E for uidx[0..u) and factors it into a; work u×u. */
static enum hpod_status
factor(const struct graph *g, const size_t *uidx, size_t u,
       const unsigned char *has, double *a, double *work)
{
    assemble(g, uidx, u, has, a);
    return linalg_cholesky(a, u, work, NULL);
}

enum hpod_status
graph_eif_bruteforce(const struct graph *g, const size_t *lab, const double *y,
                     size_t nl, double *score)
{
    enum hpod_status st;
    size_t n, u, b, *uidx = NULL, *uidx2 = NULL;
    unsigned char *mark = NULL, *has = NULL;
    double *a = NULL, *work = NULL, *fl = NULL, *x = NULL, *f = NULL;

    if (g == NULL || score == NULL)
        return HPOD_EINVAL;
    n = g->n;
    mark = xcalloc(n, 1);
    has = xcalloc(g->ncomp, 1);
    uidx = xcalloc(n, sizeof *uidx);
    uidx2 = xcalloc(n, sizeof *uidx2);
    a = xcalloc(n * n, sizeof *a);
    work = xcalloc(n * n, sizeof *work);
    fl = xcalloc(nl ? nl : 1, sizeof *fl);
    x = xcalloc(n, sizeof *x);
    f = xcalloc(n, sizeof *f);

    if ((st = check_labels(g, lab, y, nl, mark)) != HPOD_OK)
        goto out;
    if (!mark_components(g, mark, has) && !(g->eps > 0.0)) {
        st = HPOD_ENUMERIC;
        goto out;
    }
    u = list_unlabeled(n, mark, uidx);
    for (size_t j = 0; j < nl; j++)
        score[lab[j]] = -INFINITY;
    if (u == 0) {
        st = HPOD_OK;
        goto out;
    }
    if ((st = factor(g, uidx, u, has, a, work)) != HPOD_OK)
        goto out;

    /* Labels: one absorbing-walk solve Δ_UU x = W_{U,j} per labeled j. */
    b = best_label(y, nl);
    fl[b] = 1.0;
    if (g->eif_mode == GRAPH_EIF_PAPER && g->deg[lab[b]] > 0.0) {
        for (size_t j = 0; j < nl; j++) {
            double h;
            if (j == b)
                continue;
            for (size_t p = 0; p < u; p++)
                x[p] = g->w[uidx[p] * n + lab[j]];
            linalg_chol_solve(a, u, x);
            h = g->w[lab[b] * n + lab[j]];
            for (size_t p = 0; p < u; p++)
                h += g->w[lab[b] * n + uidx[p]] * x[p];
            fl[j] = h / g->deg[lab[b]] > 0.5 ? 1.0 : 0.0;
        }
    }
    rhs_dense(g, uidx, u, lab, fl, nl, f);
    linalg_chol_solve(a, u, f);

    /* Every candidate: clamp, refactor the (u-1)-node problem, re-solve. */
    for (size_t p = 0; p < u; p++) {
        size_t k = uidx[p], u2 = 0;
        double sum0 = 0.0, sum1 = 0.0;
        for (size_t q = 0; q < u; q++)
            if (q != p)
                uidx2[u2++] = uidx[q];
        if (u2 > 0) {
            if ((st = factor(g, uidx2, u2, has, a, work)) != HPOD_OK)
                goto out;
            for (int yk = 0; yk <= 1; yk++) {
                rhs_dense(g, uidx2, u2, lab, fl, nl, x);
                for (size_t q = 0; q < u2; q++)
                    x[q] += g->w[uidx2[q] * n + k] * (double)yk;
                linalg_chol_solve(a, u2, x);
                for (size_t q = 0; q < u2; q++) {
                    if (yk == 0)
                        sum0 += 1.0 - x[q];
                    else
                        sum1 += x[q];
                }
            }
        }
        score[k] = (1.0 - f[p]) * sum0 + f[p] * sum1;
    }
    st = HPOD_OK;
out:
    free(mark);
    free(has);
    free(uidx);
    free(uidx2);
    free(a);
    free(work);
    free(fl);
    free(x);
    free(f);
    return st;
}
