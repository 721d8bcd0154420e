/*
 * tests/unit/test_graph.c - the kNN graph, harmonic propagation, the
 * Gaussian-field variance and EIF (core/graph.c) against brute-force
 * references written here: a sorted-distance kNN, Gauss-Jordan solves of the
 * Laplacian blocks, and graph_eif_bruteforce (one refactorization per
 * candidate) for the rank-one look-ahead.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>

#include "core/graph.h"
#include "core/rng.h"

/* ---------------------------------------------------------------------- */
/* Helpers                                                                */
/* ---------------------------------------------------------------------- */

static double *
random_points(struct rng *r, size_t n, size_t dim)
{
    double *x = malloc(n * dim * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n * dim; i++)
        x[i] = rng_uniform(r);
    return x;
}

/* A random labeled set of nl distinct nodes (first nl of a permutation). */
static void
random_labels(struct rng *r, size_t n, size_t nl, size_t *lab, double *y)
{
    size_t *perm = malloc(n * sizeof *perm);
    assert_non_null(perm);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    rng_shuffle(r, perm, n);
    for (size_t j = 0; j < nl; j++) {
        lab[j] = perm[j];
        y[j] = 10.0 + 7.3 * rng_uniform(r);
    }
    free(perm);
}

/*
 * Solves A X = B by Gauss-Jordan with partial pivoting; A m×m and B m×c
 * row-major are overwritten (X in B).
 */
static void
gauss_jordan(double *a, double *b, size_t m, size_t c)
{
    for (size_t col = 0; col < m; col++) {
        size_t piv = col;
        for (size_t i = col + 1; i < m; i++)
            if (fabs(a[i * m + col]) > fabs(a[piv * m + col]))
                piv = i;
        assert_true(fabs(a[piv * m + col]) > 1e-300);
        if (piv != col) {
            for (size_t j = 0; j < m; j++) {
                double t = a[col * m + j];
                a[col * m + j] = a[piv * m + j];
                a[piv * m + j] = t;
            }
            for (size_t j = 0; j < c; j++) {
                double t = b[col * c + j];
                b[col * c + j] = b[piv * c + j];
                b[piv * c + j] = t;
            }
        }
        double d = a[col * m + col];
        for (size_t j = 0; j < m; j++)
            a[col * m + j] /= d;
        for (size_t j = 0; j < c; j++)
            b[col * c + j] /= d;
        for (size_t i = 0; i < m; i++) {
            double fct = a[i * m + col];
            if (i == col || fct == 0.0)
                continue;
            for (size_t j = 0; j < m; j++)
                a[i * m + j] -= fct * a[col * m + j];
            for (size_t j = 0; j < c; j++)
                b[i * c + j] -= fct * b[col * c + j];
        }
    }
}

/*
 * Reference propagation: with the labeled mask, returns f (n entries,
 * labels at labeled nodes) solving Δ_UU f_U = -Δ_UL f_L densely, and, if
 * ginv is not NULL, (Δ_UU)⁻¹ (u×u, unlabeled nodes in ascending order).
 */
static void
ref_harmonic(const struct graph *g, const unsigned char *mark,
             const double *fl_node, double *f, double *ginv)
{
    size_t n = graph_size(g), u = 0;
    double *lap = malloc(n * n * sizeof *lap);
    size_t *ui = malloc(n * sizeof *ui);
    assert_non_null(lap);
    assert_non_null(ui);
    graph_laplacian(g, lap);
    for (size_t i = 0; i < n; i++)
        if (!mark[i])
            ui[u++] = i;
    double *a = calloc(u * u + 1, sizeof *a);
    double *b = calloc(u * (u + 1) + 1, sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    /* B = [ -Δ_UL f_L | I ] so that one elimination gives f_U and Δ_UU⁻¹. */
    for (size_t p = 0; p < u; p++) {
        double s = 0.0;
        for (size_t q = 0; q < u; q++)
            a[p * u + q] = lap[ui[p] * n + ui[q]];
        for (size_t j = 0; j < n; j++)
            if (mark[j])
                s -= lap[ui[p] * n + j] * fl_node[j];
        b[p * (u + 1)] = s;
        b[p * (u + 1) + 1 + p] = 1.0;
    }
    gauss_jordan(a, b, u, u + 1);
    for (size_t i = 0; i < n; i++)
        if (mark[i])
            f[i] = fl_node[i];
    for (size_t p = 0; p < u; p++) {
        f[ui[p]] = b[p * (u + 1)];
        if (ginv)
            for (size_t q = 0; q < u; q++)
                ginv[p * u + q] = b[p * (u + 1) + 1 + q];
    }
    free(lap);
    free(ui);
    free(a);
    free(b);
}

static struct graph *
make_graph(const double *x, size_t n, size_t dim, size_t k,
           enum kernel_kind kernel, int mode)
{
    struct graph_options o;
    struct graph *g = NULL;
    graph_options_default(&o);
    o.k = k;
    o.kernel = kernel;
    o.eif_labels = mode;
    assert_int_equal(graph_create(x, n, dim, &o, &g), HPOD_OK);
    assert_non_null(g);
    return g;
}

/* ---------------------------------------------------------------------- */
/* Graph construction                                                     */
/* ---------------------------------------------------------------------- */

struct dj {
    double d;
    size_t j;
};

static int
dj_cmp(const void *a, const void *b)
{
    const struct dj *p = a, *q = b;
    if (p->d != q->d)
        return p->d < q->d ? -1 : 1;
    return p->j < q->j ? -1 : (p->j > q->j);
}

static int
dbl_cmp(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

static double
dist2(const double *x, size_t i, size_t j, size_t dim)
{
    double s = 0.0;
    for (size_t d = 0; d < dim; d++)
        s += (x[i * dim + d] - x[j * dim + d]) *
             (x[i * dim + d] - x[j * dim + d]);
    return s;
}

/* in_knn[i*n+j] = 1 if j is among the k nearest of i (ties: lower index). */
static unsigned char *
ref_knn(const double *x, size_t n, size_t dim, size_t k)
{
    unsigned char *in = calloc(n * n, 1);
    struct dj *v = malloc(n * sizeof *v);
    assert_non_null(in);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        for (size_t j = 0; j < n; j++)
            if (j != i) {
                v[c].d = dist2(x, i, j, dim);
                v[c++].j = j;
            }
        qsort(v, c, sizeof *v, dj_cmp);
        for (size_t r = 0; r < k && r < c; r++)
            in[i * n + v[r].j] = 1;
    }
    free(v);
    return in;
}

static void
test_graph_structure(void **state)
{
    (void)state;
    struct rng r;
    size_t n = 140, dim = 3;
    rng_seed(&r, 2385);
    double *x = random_points(&r, n, dim);
    struct graph *g = make_graph(x, n, dim, 0, KERNEL_RBF, GRAPH_EIF_PAPER);
    size_t k = graph_k(g);
    double ell = graph_lengthscale(g);
    unsigned char *in = ref_knn(x, n, dim, k);
    double *lap = malloc(n * n * sizeof *lap);
    double *len = malloc(n * n * sizeof *len);
    size_t ne = 0;
    assert_non_null(lap);
    assert_non_null(len);

    assert_int_equal(graph_size(g), n);
    assert_true(k >= 1 && k < n);
    for (size_t i = 0; i < n; i++) {
        size_t deg = 0;
        assert_true(graph_weight(g, i, i) == 0.0);
        for (size_t j = 0; j < n; j++) {
            double w = graph_weight(g, i, j);
            int edge = j != i && (in[i * n + j] || in[j * n + i]);
            assert_true(w == graph_weight(g, j, i));
            if (edge) {
                double want = exp(-0.5 * dist2(x, i, j, dim) / (ell * ell));
                assert_true(w > 0.0 && w <= 1.0);
                assert_close(w, want, 1e-14, 0);
                deg++;
                if (i < j)
                    len[ne++] = sqrt(dist2(x, i, j, dim));
            } else {
                assert_true(w == 0.0);
            }
        }
        assert_int_equal(graph_degree(g, i), deg);
    }
    /* Automatic lengthscale: median edge length. */
    qsort(len, ne, sizeof *len, dbl_cmp);
    assert_close(ell,
                 ne % 2 ? len[ne / 2] : 0.5 * (len[ne / 2 - 1] + len[ne / 2]),
                 1e-15, 0);
    /* Average degree ≈ n/7 = 20, and k is the best choice for that. */
    double target = (double)n / 7.0, avg = graph_avg_degree(g);
    assert_close(avg, 2.0 * (double)ne / (double)n, 1e-15, 0);
    assert_true(fabs(avg - target) < 0.15 * target);
    for (int dk = -1; dk <= 1; dk += 2) {
        struct graph *h =
            make_graph(x, n, dim, k + (size_t)dk, KERNEL_RBF, GRAPH_EIF_PAPER);
        assert_int_equal(graph_k(h), k + (size_t)dk);
        assert_true(fabs(graph_avg_degree(h) - target) >= fabs(avg - target));
        graph_free(h);
    }
    /* Laplacian: symmetric, rows sum to 0, diagonal = weighted degree. */
    graph_laplacian(g, lap);
    for (size_t i = 0; i < n; i++) {
        double s = 0.0, d = 0.0;
        for (size_t j = 0; j < n; j++) {
            s += lap[i * n + j];
            if (j != i)
                d += graph_weight(g, i, j);
            assert_true(lap[i * n + j] == lap[j * n + i]);
        }
        assert_close(s, 0.0, 0, 1e-12);
        assert_close(lap[i * n + i], d, 1e-14, 0);
    }
    assert_int_equal(graph_components(g), 1);
    free(lap);
    free(len);
    free(in);
    free(x);
    graph_free(g);
}

static void
test_graph_options(void **state)
{
    (void)state;
    struct rng r;
    struct graph_options o;
    struct graph *g;
    size_t n = 30, dim = 2;
    rng_seed(&r, 77);
    double *x = random_points(&r, n, dim);

    /* Matérn weights and a fixed lengthscale. */
    graph_options_default(&o);
    o.kernel = KERNEL_MATERN52;
    o.k = 4;
    o.lengthscale = 0.237;
    assert_int_equal(graph_create(x, n, dim, &o, &g), HPOD_OK);
    assert_int_equal(graph_k(g), 4);
    assert_close(graph_lengthscale(g), 0.237, 0, 0);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (graph_weight(g, i, j) > 0.0) {
                double r2 = dist2(x, i, j, dim) / (0.237 * 0.237);
                double s = sqrt(5.0 * r2);
                assert_close(graph_weight(g, i, j),
                             (1.0 + s + 5.0 * r2 / 3.0) * exp(-s), 1e-13, 0);
            }
    graph_free(g);

    /* k >= n clamps to the complete graph. */
    o.k = 1000;
    assert_int_equal(graph_create(x, n, dim, &o, &g), HPOD_OK);
    assert_int_equal(graph_k(g), n - 1);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(graph_degree(g, i), n - 1);
    graph_free(g);

    /* NULL options = defaults; one node is a valid (edgeless) graph. */
    assert_int_equal(graph_create(x, n, dim, NULL, &g), HPOD_OK);
    assert_true(graph_k(g) >= 1);
    graph_free(g);
    assert_int_equal(graph_create(x, 1, dim, NULL, &g), HPOD_OK);
    assert_int_equal(graph_degree(g, 0), 0);
    {
        size_t lab = 0;
        double y = 3.5, mean, var, sc;
        assert_int_equal(graph_predict(g, &lab, &y, 1, &mean, &var), HPOD_OK);
        assert_close(mean, 3.5, 0, 0);
        assert_close(var, 0.0, 0, 0);
        assert_int_equal(graph_eif(g, &lab, &y, 1, &sc), HPOD_OK);
        assert_true(isinf(sc) && sc < 0);
        assert_int_equal(graph_last_path(g), GRAPH_PATH_EMPTY);
    }
    graph_free(g);
    graph_free(NULL);
    free(x);
}

/*
 * Grids (like the NMT tables) have many equal distances: the k nearest are
 * then taken in index order, as ref_knn does.
 */
static void
test_graph_grid_ties(void **state)
{
    (void)state;
    size_t side = 5, n = 25, dim = 2;
    double x[50];
    for (size_t i = 0; i < n; i++) {
        x[2 * i] = 0.25 * (double)(i % side);
        x[2 * i + 1] = 0.25 * (double)(i / side);
    }
    for (size_t k = 1; k <= 3; k++) {
        struct graph *g = make_graph(x, n, dim, k, KERNEL_RBF, GRAPH_EIF_PAPER);
        unsigned char *in = ref_knn(x, n, dim, k);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                int edge = j != i && (in[i * n + j] || in[j * n + i]);
                assert_int_equal(graph_weight(g, i, j) > 0.0, edge);
            }
        if (k == 1) {
            /* Each node keeps its lowest-index neighbour: row 0 is linked. */
            assert_true(graph_weight(g, 1, 2) > 0.0);
            assert_true(graph_weight(g, 21, 22) == 0.0);
        }
        free(in);
        graph_free(g);
    }
}

/* ---------------------------------------------------------------------- */
/* Harmonic solution and variance                                         */
/* ---------------------------------------------------------------------- */

static void
test_harmonic_against_dense(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 4242);
    for (int trial = 0; trial < 6; trial++) {
        size_t n = 25 + (size_t)trial * 3, dim = 2 + (size_t)trial % 3;
        size_t nl = 3 + (size_t)trial * 2;
        double *x = random_points(&r, n, dim);
        struct graph *g =
            make_graph(x, n, dim, 6, trial % 2 ? KERNEL_MATERN52 : KERNEL_RBF,
                       GRAPH_EIF_PAPER);
        size_t lab[20];
        double y[20], mean[40], var[40], fref[40], fnode[40] = {0};
        unsigned char mark[40] = {0};
        double ymin = INFINITY, ymax = -INFINITY;

        assert_int_equal(graph_components(g), 1);
        random_labels(&r, n, nl, lab, y);
        for (size_t j = 0; j < nl; j++) {
            mark[lab[j]] = 1;
            fnode[lab[j]] = y[j];
            ymin = fmin(ymin, y[j]);
            ymax = fmax(ymax, y[j]);
        }
        assert_int_equal(graph_predict(g, lab, y, nl, mean, var), HPOD_OK);
        ref_harmonic(g, mark, fnode, fref, NULL);
        for (size_t i = 0; i < n; i++) {
            assert_close(mean[i], fref[i], 1e-11, 1e-11);
            /* Maximum principle. */
            assert_true(mean[i] >= ymin - 1e-12 && mean[i] <= ymax + 1e-12);
            if (mark[i]) {
                assert_true(mean[i] == fnode[i]);
                continue;
            }
            /* Harmonic: f_i is the weighted mean of its neighbours. */
            double s = 0.0, d = 0.0;
            for (size_t j = 0; j < n; j++) {
                s += graph_weight(g, i, j) * mean[j];
                d += graph_weight(g, i, j);
            }
            assert_close(mean[i], s / d, 1e-12, 1e-12);
        }
        graph_free(g);
        free(x);
    }
}

static void
test_variance(void **state)
{
    (void)state;
    struct rng r;
    size_t n = 36, dim = 3, nl = 7, u = n - nl;
    size_t lab[7];
    double y[7], mean[36], var[36], fnode[36] = {0}, fref[36];
    double ginv[36 * 36];
    unsigned char mark[36] = {0};
    rng_seed(&r, 99);
    double *x = random_points(&r, n, dim);
    struct graph *g = make_graph(x, n, dim, 5, KERNEL_RBF, GRAPH_EIF_PAPER);
    random_labels(&r, n, nl, lab, y);
    for (size_t j = 0; j < nl; j++)
        mark[lab[j]] = 1;
    assert_int_equal(graph_predict(g, lab, y, nl, mean, var), HPOD_OK);
    ref_harmonic(g, mark, fnode, fref, ginv);

    /* var_i = s²·d̄·[Δ_UU⁻¹]_ii, s² the sample variance, d̄ mean degree. */
    double ybar = 0.0, s2 = 0.0, dbar = 0.0;
    for (size_t j = 0; j < nl; j++)
        ybar += y[j] / (double)nl;
    for (size_t j = 0; j < nl; j++)
        s2 += (y[j] - ybar) * (y[j] - ybar) / (double)(nl - 1);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            dbar += graph_weight(g, i, j) / (double)n;
    size_t p = 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(var[i] >= 0.0);
        if (mark[i]) {
            assert_true(var[i] == 0.0);
            continue;
        }
        assert_close(var[i], s2 * dbar * ginv[p * u + p], 1e-10, 0);
        assert_true(var[i] > 0.0);
        p++;
    }
    assert_int_equal(p, u);
    /* Scale invariance: labels ×3 + 1 -> mean ×3 + 1, var ×9. */
    double y2[7], mean2[36], var2[36];
    for (size_t j = 0; j < nl; j++)
        y2[j] = 3.0 * y[j] + 1.0;
    assert_int_equal(graph_predict(g, lab, y2, nl, mean2, var2), HPOD_OK);
    for (size_t i = 0; i < n; i++) {
        assert_close(mean2[i], 3.0 * mean[i] + 1.0, 1e-12, 1e-12);
        assert_close(var2[i], 9.0 * var[i], 1e-12, 1e-300);
    }
    graph_free(g);
    free(x);
}

/* ---------------------------------------------------------------------- */
/* EIF                                                                    */
/* ---------------------------------------------------------------------- */

/* Path 0-1-2-3 (k = 1, positions 0, .2, .5, .9): walk probabilities. */
/*
 * The weighted degrees, and graph_predict's variance rescaled by d_i/d̄
 * (what core/sampler.c's graph EI uses) against the random-walk form
 * s²·[(I - P_UU)⁻¹]_ii, P = D⁻¹W, inverted densely here; and = s² exactly
 * at a node whose neighbours are all labeled.
 */
static void
test_wdegree_variance(void **state)
{
    (void)state;
    struct rng r;
    size_t n = 30, dim = 2;
    rng_seed(&r, 1717);
    double *x = random_points(&r, n, dim);
    struct graph *g =
        make_graph(x, n, dim, 4, KERNEL_MATERN52, GRAPH_EIF_PAPER);
    double dsum = 0.0;

    for (size_t i = 0; i < n; i++) {
        double d = 0.0;
        for (size_t j = 0; j < n; j++)
            d += graph_weight(g, i, j);
        assert_close(graph_wdegree(g, i), d, 1e-14, 0);
        assert_true(d > 0.0);
        dsum += d;
    }
    assert_close(graph_mean_wdegree(g), dsum / (double)n, 1e-14, 0);

    /* Label node 0's neighbours and a few more; node 0 stays unlabeled. */
    size_t lab[30], nl = 0;
    double y[30], mean[30], var[30];
    unsigned char mark[30] = {0};
    for (size_t j = 1; j < n; j++)
        if (graph_weight(g, 0, j) > 0.0 || j % 5 == 0) {
            lab[nl] = j;
            y[nl] = 3.0 + 2.0 * rng_uniform(&r) + (double)(j % 3);
            mark[j] = 1;
            nl++;
        }
    assert_true(nl >= 4 && nl < n - 5);
    assert_int_equal(graph_predict(g, lab, y, nl, mean, var), HPOD_OK);

    double ybar = 0.0, s2 = 0.0;
    for (size_t j = 0; j < nl; j++)
        ybar += y[j] / (double)nl;
    for (size_t j = 0; j < nl; j++)
        s2 += (y[j] - ybar) * (y[j] - ybar) / (double)(nl - 1);

    size_t ui[30], u = 0;
    for (size_t i = 0; i < n; i++)
        if (!mark[i])
            ui[u++] = i;
    double *a = calloc(u * u, sizeof *a), *b = calloc(u * u, sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    for (size_t p = 0; p < u; p++) {
        for (size_t q = 0; q < u; q++)
            a[p * u + q] =
                (p == q ? 1.0 : 0.0) -
                graph_weight(g, ui[p], ui[q]) / graph_wdegree(g, ui[p]);
        b[p * u + p] = 1.0;
    }
    gauss_jordan(a, b, u, u);
    double dbar = graph_mean_wdegree(g);
    for (size_t p = 0; p < u; p++) {
        double v = var[ui[p]] * graph_wdegree(g, ui[p]) / dbar;
        assert_close(v, s2 * b[p * u + p], 1e-10, 0);
        assert_true(b[p * u + p] >= 1.0 - 1e-12); /* visits, i itself too */
    }
    assert_int_equal(ui[0], 0);
    assert_close(var[0] * graph_wdegree(g, 0) / dbar, s2, 1e-12, 0);
    free(a);
    free(b);
    graph_free(g);
    free(x);
}

static void
test_eif_labels_path(void **state)
{
    (void)state;
    double x[4] = {0.0, 0.2, 0.5, 0.9};
    struct graph_options o;
    struct graph *g;
    size_t lab[3] = {0, 1, 3};
    double y[3] = {2.0, 5.0, 1.0}, fl[3], hit[3];

    graph_options_default(&o);
    o.k = 1;
    o.lengthscale = 0.5;
    assert_int_equal(graph_create(x, 4, 1, &o, &g), HPOD_OK);
    double w01 = exp(-0.5 * 0.04 / 0.25), w12 = exp(-0.5 * 0.09 / 0.25);
    double w23 = exp(-0.5 * 0.16 / 0.25);
    assert_close(graph_weight(g, 0, 1), w01, 1e-15, 0);
    assert_close(graph_weight(g, 1, 2), w12, 1e-15, 0);
    assert_close(graph_weight(g, 2, 3), w23, 1e-15, 0);
    assert_true(graph_weight(g, 0, 2) == 0.0 && graph_weight(g, 1, 3) == 0.0);

    /*
     * From b = 1: to 0 with w10/d1 (absorbed); to 2 with w12/d1, then back
     * to 1 with w21/d2 or on to 3 with w23/d2.
     */
    double d1 = w01 + w12, d2 = w12 + w23;
    assert_int_equal(graph_eif_labels(g, lab, y, 3, fl, hit), HPOD_OK);
    assert_close(hit[0], w01 / d1, 1e-14, 0);
    assert_close(hit[1], (w12 / d1) * (w12 / d2), 1e-14, 0);
    assert_close(hit[2], (w12 / d1) * (w23 / d2), 1e-14, 0);
    assert_close(hit[0] + hit[1] + hit[2], 1.0, 1e-14, 0);
    assert_true(w01 / d1 > 0.5);
    assert_true(fl[0] == 1.0 && fl[1] == 1.0 && fl[2] == 0.0);
    graph_free(g);

    o.eif_labels = GRAPH_EIF_REFERENCE;
    assert_int_equal(graph_create(x, 4, 1, &o, &g), HPOD_OK);
    assert_int_equal(graph_eif_labels(g, lab, y, 3, fl, NULL), HPOD_OK);
    assert_true(fl[0] == 0.0 && fl[1] == 1.0 && fl[2] == 0.0);
    /* Tied best labels: the first one in lab order is the best. */
    {
        double yt[3] = {5.0, 2.0, 5.0};
        assert_int_equal(graph_eif_labels(g, lab, yt, 3, fl, NULL), HPOD_OK);
        assert_true(fl[0] == 1.0 && fl[1] == 0.0 && fl[2] == 0.0);
    }
    graph_free(g);
}

/*
 * EIF by its definition, entirely with this file's Gauss-Jordan: clamp k to
 * 0 and to 1, propagate, sum over the other unlabeled nodes.
 */
static void
ref_eif(const struct graph *g, const unsigned char *mark, const double *fnode,
        double *score, double *fref, double *t0, double *t1)
{
    size_t n = graph_size(g);
    double *f = malloc(n * sizeof *f), *f0 = malloc(n * sizeof *f0);
    double *f1 = malloc(n * sizeof *f1), *fk = malloc(n * sizeof *fk);
    unsigned char *mk = malloc(n);
    assert_true(f && f0 && f1 && fk && mk);
    ref_harmonic(g, mark, fnode, f, NULL);
    for (size_t k = 0; k < n; k++) {
        double s0 = 0.0, s1 = 0.0;
        if (mark[k]) {
            score[k] = -INFINITY;
            t0[k] = t1[k] = 0.0;
            continue;
        }
        memcpy(mk, mark, n);
        mk[k] = 1;
        memcpy(fk, fnode, n * sizeof *fk);
        fk[k] = 0.0;
        ref_harmonic(g, mk, fk, f0, NULL);
        fk[k] = 1.0;
        ref_harmonic(g, mk, fk, f1, NULL);
        for (size_t i = 0; i < n; i++)
            if (!mk[i]) {
                s0 += 1.0 - f0[i];
                s1 += f1[i];
            }
        score[k] = (1.0 - f[k]) * s0 + f[k] * s1;
        t0[k] = s0;
        t1[k] = s1;
    }
    memcpy(fref, f, n * sizeof *f);
    free(f);
    free(f0);
    free(f1);
    free(fk);
    free(mk);
}

static void
test_eif_definition(void **state)
{
    (void)state;
    struct rng r;
    size_t n = 24, dim = 2, nl = 5, lab[5];
    double y[5], fl[5], fnode[24] = {0}, want[24], fast[24], brute[24];
    double fref[24], t0ref[24], t1ref[24], f[24], t0[24], t1[24];
    unsigned char mark[24] = {0};
    rng_seed(&r, 31337);
    double *x = random_points(&r, n, dim);
    for (int mode = 0; mode <= 1; mode++) {
        struct graph *g = make_graph(x, n, dim, 4, KERNEL_RBF, mode);
        random_labels(&r, n, nl, lab, y);
        assert_int_equal(graph_eif_labels(g, lab, y, nl, fl, NULL), HPOD_OK);
        memset(mark, 0, sizeof mark);
        memset(fnode, 0, sizeof fnode);
        for (size_t j = 0; j < nl; j++) {
            mark[lab[j]] = 1;
            fnode[lab[j]] = fl[j];
        }
        ref_eif(g, mark, fnode, want, fref, t0ref, t1ref);
        assert_int_equal(graph_eif(g, lab, y, nl, fast), HPOD_OK);
        assert_int_equal(graph_eif_terms(g, lab, y, nl, f, t0, t1), HPOD_OK);
        for (size_t i = 0; i < n; i++) {
            assert_close(f[i], fref[i], 1e-12, 1e-12);
            assert_close(t0[i], t0ref[i], 1e-10, 1e-10);
            assert_close(t1[i], t1ref[i], 1e-10, 1e-10);
            if (!mark[i])
                assert_close(fast[i], (1.0 - f[i]) * t0[i] + f[i] * t1[i],
                             1e-12, 1e-12);
        }
        assert_int_equal(graph_eif_bruteforce(g, lab, y, nl, brute), HPOD_OK);
        for (size_t i = 0; i < n; i++) {
            if (mark[i]) {
                assert_true(isinf(fast[i]) && fast[i] < 0);
                assert_true(isinf(brute[i]) && brute[i] < 0);
                continue;
            }
            assert_close(fast[i], want[i], 1e-10, 1e-10);
            assert_close(brute[i], want[i], 1e-10, 1e-10);
            assert_true(fast[i] >= 0.0 && fast[i] <= (double)(n - nl));
        }
        graph_free(g);
    }
    free(x);
}

/*
 * graph_eif_spread against the clamped solves of ref_eif: q = t0 + t1 -
 * (u-1) at unlabeled nodes, 0 at labeled ones; cold, then warm after one
 * more label (the downdated G) and on a reused set, in both label modes
 * (q does not depend on the labels' values).
 */
static void
test_eif_spread(void **state)
{
    (void)state;
    struct rng r;
    size_t n = 24, dim = 2, nl = 6, lab[6];
    double y[6], fnode[24], want[24], fref[24], t0[24], t1[24], q[24];
    unsigned char mark[24];
    rng_seed(&r, 4242);
    double *x = random_points(&r, n, dim);
    for (int mode = 0; mode <= 1; mode++) {
        struct graph *g = make_graph(x, n, dim, 4, KERNEL_RBF, mode);
        random_labels(&r, n, nl, lab, y);
        for (size_t m = nl - 1; m <= nl; m++) {
            for (int again = 0; again < 2; again++) {
                for (size_t i = 0; i < n; i++)
                    q[i] = NAN;
                assert_int_equal(graph_eif_spread(g, lab, y, m, q), HPOD_OK);
                memset(mark, 0, sizeof mark);
                memset(fnode, 0, sizeof fnode);
                for (size_t j = 0; j < m; j++) {
                    mark[lab[j]] = 1;
                    fnode[lab[j]] = y[j] > 0.5 ? 1.0 : 0.0;
                }
                ref_eif(g, mark, fnode, want, fref, t0, t1);
                double u1 = (double)(n - m) - 1.0;
                for (size_t i = 0; i < n; i++) {
                    if (mark[i]) {
                        assert_true(q[i] == 0.0);
                        continue;
                    }
                    assert_close(q[i], t0[i] + t1[i] - u1, 1e-10, 1e-10);
                    assert_true(q[i] >= 0.0);
                }
            }
        }
        assert_int_equal(graph_eif_spread(NULL, lab, y, nl, q), HPOD_EINVAL);
        assert_int_equal(graph_eif_spread(g, lab, y, nl, NULL), HPOD_EINVAL);
        assert_int_equal(graph_eif_spread(g, lab, y, 0, q), HPOD_EINVAL);
        graph_free(g);
    }
    free(x);
}

static void
check_eif(struct graph *g, const size_t *lab, const double *y, size_t nl)
{
    size_t n = graph_size(g);
    double *fast = malloc(n * sizeof *fast), *brute = malloc(n * sizeof *brute);
    assert_true(fast && brute);
    assert_int_equal(graph_eif(g, lab, y, nl, fast), HPOD_OK);
    assert_int_equal(graph_eif_bruteforce(g, lab, y, nl, brute), HPOD_OK);
    for (size_t i = 0; i < n; i++) {
        if (isinf(brute[i])) {
            assert_true(isinf(fast[i]) && fast[i] < 0);
            continue;
        }
        assert_close(fast[i], brute[i], 1e-9, 1e-9);
    }
    free(fast);
    free(brute);
}

static void
test_eif_against_bruteforce(void **state)
{
    (void)state;
    struct rng r;
    int cases = 0;
    rng_seed(&r, 8675309);
    for (int trial = 0; trial < 5; trial++) {
        size_t n = 30 + (size_t)trial * 4, dim = 2 + (size_t)trial % 4;
        double *x = random_points(&r, n, dim);
        for (int mode = 0; mode <= 1; mode++) {
            struct graph *g = make_graph(
                x, n, dim, 0, trial % 2 ? KERNEL_MATERN52 : KERNEL_RBF, mode);
            size_t nls[4] = {1, 2, 5, 11};
            for (int s = 0; s < 4; s++) {
                size_t nl = nls[s], lab[11];
                double y[11];
                random_labels(&r, n, nl, lab, y);
                check_eif(g, lab, y, nl);
                cases++;
            }
            graph_free(g);
        }
        free(x);
    }
    assert_int_equal(cases, 40);

    /*
     * Random labeled sets rarely give a non-best node a walk probability
     * above 0.5, so make one: node 1 is a near-duplicate of the best node
     * 0, and the walk from 0 is then absorbed at 1 more often than not.
     * Both modes must then still agree with the brute force, and differ.
     */
    {
        size_t n = 30, dim = 2, lab[4] = {0, 1, 2, 2};
        double y[4] = {9.5, 3.25, 4.0, 1.0}, fl[4], hit[4], s0[30], s1[30];
        double *x = random_points(&r, n, dim);
        x[2] = x[0] + 0.002;
        x[3] = x[1] - 0.001;
        /* The other two labels: the two nodes farthest from node 0. */
        for (size_t i = 2; i < n; i++)
            if (dist2(x, 0, i, dim) > dist2(x, 0, lab[2], dim))
                lab[2] = i;
        lab[3] = lab[2] == 2 ? 3 : 2;
        for (size_t i = 2; i < n; i++)
            if (i != lab[2] && dist2(x, 0, i, dim) > dist2(x, 0, lab[3], dim))
                lab[3] = i;
        struct graph *gp =
            make_graph(x, n, dim, 3, KERNEL_RBF, GRAPH_EIF_PAPER);
        struct graph *gr =
            make_graph(x, n, dim, 3, KERNEL_RBF, GRAPH_EIF_REFERENCE);
        assert_int_equal(graph_eif_labels(gp, lab, y, 4, fl, hit), HPOD_OK);
        assert_true(hit[1] > 0.5);
        assert_true(fl[0] == 1.0 && fl[1] == 1.0 && fl[2] == 0.0 &&
                    fl[3] == 0.0);
        assert_close(hit[0] + hit[1] + hit[2] + hit[3], 1.0, 1e-12, 0);
        check_eif(gp, lab, y, 4);
        check_eif(gr, lab, y, 4);
        assert_int_equal(graph_eif(gp, lab, y, 4, s0), HPOD_OK);
        assert_int_equal(graph_eif(gr, lab, y, 4, s1), HPOD_OK);
        double diff = 0.0;
        for (size_t i = 0; i < n; i++)
            if (!isinf(s0[i]))
                diff += fabs(s0[i] - s1[i]);
        assert_true(diff > 1e-3);
        graph_free(gp);
        graph_free(gr);
        free(x);
    }
}

/* ---------------------------------------------------------------------- */
/* Cache: warm (downdated) equals cold                                    */
/* ---------------------------------------------------------------------- */

static void
compare_cold(struct graph *warm, struct graph *cold, const size_t *lab,
             const double *y, size_t nl, enum graph_path want)
{
    size_t n = graph_size(warm);
    double *mw = malloc(n * sizeof(double)), *vw = malloc(n * sizeof(double));
    double *mc = malloc(n * sizeof(double)), *vc = malloc(n * sizeof(double));
    double *sw = malloc(n * sizeof(double)), *sc = malloc(n * sizeof(double));
    assert_true(mw && vw && mc && vc && sw && sc);

    int empty = want == GRAPH_PATH_EMPTY;
    assert_int_equal(graph_predict(warm, lab, y, nl, mw, vw), HPOD_OK);
    assert_int_equal(graph_last_path(warm), want);
    assert_int_equal(graph_eif(warm, lab, y, nl, sw), HPOD_OK);
    assert_int_equal(graph_last_path(warm),
                     empty ? GRAPH_PATH_EMPTY : GRAPH_PATH_REUSE);
    graph_forget(cold);
    assert_int_equal(graph_predict(cold, lab, y, nl, mc, vc), HPOD_OK);
    assert_int_equal(graph_last_path(cold),
                     empty ? GRAPH_PATH_EMPTY : GRAPH_PATH_COLD);
    assert_int_equal(graph_eif(cold, lab, y, nl, sc), HPOD_OK);
    for (size_t i = 0; i < n; i++) {
        assert_close(mw[i], mc[i], 1e-9, 1e-9);
        assert_close(vw[i], vc[i], 1e-9, 1e-9);
        if (isinf(sc[i]))
            assert_true(isinf(sw[i]));
        else
            assert_close(sw[i], sc[i], 1e-9, 1e-9);
    }
    free(mw);
    free(vw);
    free(mc);
    free(vc);
    free(sw);
    free(sc);
}

static void
test_warm_equals_cold(void **state)
{
    (void)state;
    struct rng r;
    size_t n = 150, dim = 4, lab[150];
    double y[150];
    rng_seed(&r, 555);
    double *x = random_points(&r, n, dim);
    struct graph *warm = make_graph(x, n, dim, 0, KERNEL_RBF, GRAPH_EIF_PAPER);
    struct graph *cold = make_graph(x, n, dim, 0, KERNEL_RBF, GRAPH_EIF_PAPER);
    random_labels(&r, n, n, lab, y);

    /* First call: cold on both. */
    compare_cold(warm, cold, lab, y, 5, GRAPH_PATH_COLD);
    /* One label at a time, then a few at once. */
    for (size_t nl = 6; nl <= 60; nl++)
        compare_cold(warm, cold, lab, y, nl, GRAPH_PATH_WARM);
    compare_cold(warm, cold, lab, y, 75, GRAPH_PATH_WARM);
    /* Same set, new values and another order: reuse. */
    {
        size_t lab2[75];
        double y2[75];
        for (size_t j = 0; j < 75; j++) {
            lab2[j] = lab[74 - j];
            y2[j] = y[74 - j] * 0.5 - 3.0;
        }
        compare_cold(warm, cold, lab2, y2, 75, GRAPH_PATH_REUSE);
    }
    /* Too many new labels at once: refactor. */
    compare_cold(warm, cold, lab, y, 130, GRAPH_PATH_COLD);
    /* Not a superset: refactor. */
    compare_cold(warm, cold, lab + 1, y + 1, 20, GRAPH_PATH_COLD);
    compare_cold(warm, cold, lab + 1, y + 1, 21, GRAPH_PATH_WARM);
    /* Every node labeled. */
    compare_cold(warm, cold, lab, y, n, GRAPH_PATH_EMPTY);
    graph_free(warm);
    graph_free(cold);
    free(x);
}

/* ---------------------------------------------------------------------- */
/* Components without a label (the ε path)                                */
/* ---------------------------------------------------------------------- */

static void
test_unlabeled_component(void **state)
{
    (void)state;
    struct rng r;
    size_t n = 24, dim = 2;
    double x[48];
    struct graph_options o;
    struct graph *g, *g0, *fresh;
    rng_seed(&r, 1234);
    /* Two clusters, 12 points each, far apart; k = 3 keeps them apart. */
    for (size_t i = 0; i < n; i++) {
        double c = i < 12 ? 0.1 : 0.9;
        x[2 * i] = c + 0.05 * rng_uniform(&r);
        x[2 * i + 1] = c + 0.05 * rng_uniform(&r);
    }
    graph_options_default(&o);
    o.k = 3;
    assert_int_equal(graph_create(x, n, dim, &o, &g), HPOD_OK);
    assert_int_equal(graph_create(x, n, dim, &o, &fresh), HPOD_OK);
    assert_int_equal(graph_components(g), 2);
    size_t lab[6] = {0, 3, 7, 15, 5, 9};
    double y[6] = {1.5, 4.25, 2.0, 3.0, 0.5, 2.5};
    double mean[24], var[24], fast[24], brute[24];
    double ybar = (1.5 + 4.25 + 2.0) / 3.0;

    /* Labels in the first cluster only. */
    assert_int_equal(graph_predict(g, lab, y, 3, mean, var), HPOD_OK);
    double vmax_a = 0.0;
    for (size_t i = 0; i < 12; i++) {
        double s = 0.0, d = 0.0;
        vmax_a = fmax(vmax_a, var[i]);
        if (i == 0 || i == 3 || i == 7)
            continue;
        for (size_t j = 0; j < n; j++) {
            s += graph_weight(g, i, j) * mean[j];
            d += graph_weight(g, i, j);
        }
        /* No ε in a labeled component: still exactly harmonic. */
        assert_close(mean[i], s / d, 1e-12, 1e-12);
    }
    for (size_t i = 12; i < n; i++) {
        assert_close(mean[i], ybar, 1e-12, 1e-12); /* prior mean */
        assert_true(var[i] > 10.0 * vmax_a);       /* unexplored */
    }
    for (int mode = 0; mode <= 1; mode++) {
        struct graph *gm;
        o.eif_labels = mode;
        assert_int_equal(graph_create(x, n, dim, &o, &gm), HPOD_OK);
        for (size_t nl = 2; nl <= 6; nl++) {
            assert_int_equal(graph_eif(gm, lab, y, nl, fast), HPOD_OK);
            assert_int_equal(graph_eif_bruteforce(gm, lab, y, nl, brute),
                             HPOD_OK);
            for (size_t i = 0; i < n; i++)
                if (!isinf(brute[i]))
                    assert_close(fast[i], brute[i], 1e-9, 1e-9);
        }
        graph_free(gm);
    }

    /* A label in the second cluster removes its ε: must refactor. */
    compare_cold(g, fresh, lab, y, 3, GRAPH_PATH_REUSE);
    compare_cold(g, fresh, lab, y, 4, GRAPH_PATH_COLD);
    compare_cold(g, fresh, lab, y, 5, GRAPH_PATH_WARM);
    /* With ε = 0 an unlabeled component is a numeric error. */
    o.eps = 0.0;
    o.eif_labels = GRAPH_EIF_PAPER;
    assert_int_equal(graph_create(x, n, dim, &o, &g0), HPOD_OK);
    assert_int_equal(graph_predict(g0, lab, y, 3, mean, var), HPOD_ENUMERIC);
    assert_int_equal(graph_eif(g0, lab, y, 3, fast), HPOD_ENUMERIC);
    assert_int_equal(graph_eif_bruteforce(g0, lab, y, 3, brute), HPOD_ENUMERIC);
    assert_int_equal(graph_predict(g0, lab, y, 4, mean, var), HPOD_OK);
    graph_free(g0);
    graph_free(g);
    graph_free(fresh);
}

/* ---------------------------------------------------------------------- */
/* Determinism and bad inputs                                             */
/* ---------------------------------------------------------------------- */

static void
test_determinism(void **state)
{
    (void)state;
    struct rng r;
    size_t n = 80, dim = 5, nl = 9, lab[9];
    double y[9], m1[80], v1[80], s1[80], m2[80], v2[80], s2[80];
    rng_seed(&r, 2024);
    double *x = random_points(&r, n, dim);
    random_labels(&r, n, nl, lab, y);
    struct graph *a = make_graph(x, n, dim, 0, KERNEL_RBF, GRAPH_EIF_PAPER);
    struct graph *b = make_graph(x, n, dim, 0, KERNEL_RBF, GRAPH_EIF_PAPER);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            assert_true(graph_weight(a, i, j) == graph_weight(b, i, j));
    assert_int_equal(graph_predict(a, lab, y, nl, m1, v1), HPOD_OK);
    assert_int_equal(graph_eif(a, lab, y, nl, s1), HPOD_OK);
    assert_int_equal(graph_predict(b, lab, y, nl, m2, v2), HPOD_OK);
    assert_int_equal(graph_eif(b, lab, y, nl, s2), HPOD_OK);
    assert_memory_equal(m1, m2, sizeof m1);
    assert_memory_equal(v1, v2, sizeof v1);
    assert_memory_equal(s1, s2, sizeof s1);
    graph_free(a);
    graph_free(b);
    free(x);
}

/* Above GRAPH_MAX_NODES graph_create refuses without allocating the n×n
 * matrices (a study's candidates could otherwise ask for tens of GB). */
static void
test_node_limit(void **state)
{
    (void)state;
    size_t n = GRAPH_MAX_NODES + 1;
    double *x = malloc(n * sizeof *x);
    struct graph *g = (struct graph *)x; /* must be reset to NULL */
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = (double)i / (double)n;
    assert_int_equal(graph_create(x, n, 1, NULL, &g), HPOD_EUNPROC);
    assert_null(g);
    free(x);
}

static void
test_bad_inputs(void **state)
{
    (void)state;
    struct rng r;
    struct graph_options o;
    struct graph *g = NULL;
    size_t n = 20, dim = 2;
    rng_seed(&r, 3);
    double *x = random_points(&r, n, dim);
    double mean[20], var[20], sc[20], fl[3];

    graph_options_default(&o);
    assert_int_equal(graph_create(NULL, n, dim, &o, &g), HPOD_EINVAL);
    assert_int_equal(graph_create(x, 0, dim, &o, &g), HPOD_EINVAL);
    assert_int_equal(graph_create(x, n, 0, &o, &g), HPOD_EINVAL);
    assert_int_equal(graph_create(x, n, dim, &o, NULL), HPOD_EINVAL);
    o.avg_degree_frac = 0.0;
    assert_int_equal(graph_create(x, n, dim, &o, &g), HPOD_EINVAL);
    o.avg_degree_frac = 1.5;
    assert_int_equal(graph_create(x, n, dim, &o, &g), HPOD_EINVAL);
    o.k = 3; /* the fraction is ignored when k is given */
    assert_int_equal(graph_create(x, n, dim, &o, &g), HPOD_OK);
    graph_free(g);
    graph_options_default(&o);
    o.lengthscale = -1.0;
    assert_int_equal(graph_create(x, n, dim, &o, &g), HPOD_EINVAL);
    graph_options_default(&o);
    o.eps = -1e-3;
    assert_int_equal(graph_create(x, n, dim, &o, &g), HPOD_EINVAL);
    graph_options_default(&o);
    o.eps = NAN;
    assert_int_equal(graph_create(x, n, dim, &o, &g), HPOD_EINVAL);
    graph_options_default(&o);
    o.eif_labels = 2;
    assert_int_equal(graph_create(x, n, dim, &o, &g), HPOD_EINVAL);
    graph_options_default(&o);
    o.kernel = (enum kernel_kind)7;
    assert_int_equal(graph_create(x, n, dim, &o, &g), HPOD_EINVAL);
    x[5] = NAN;
    assert_int_equal(graph_create(x, n, dim, NULL, &g), HPOD_EINVAL);
    assert_null(g);
    x[5] = 0.31;

    assert_int_equal(graph_create(x, n, dim, NULL, &g), HPOD_OK);
    size_t ok[3] = {1, 4, 9}, dup[3] = {1, 4, 1}, big[3] = {1, 4, 20};
    double y[3] = {1.0, 2.0, 3.0}, ynan[3] = {1.0, NAN, 3.0};
    assert_int_equal(graph_predict(g, ok, y, 3, mean, var), HPOD_OK);
    assert_int_equal(graph_predict(g, ok, y, 0, mean, var), HPOD_EINVAL);
    assert_int_equal(graph_predict(g, dup, y, 3, mean, var), HPOD_EINVAL);
    assert_int_equal(graph_predict(g, big, y, 3, mean, var), HPOD_EINVAL);
    assert_int_equal(graph_predict(g, ok, ynan, 3, mean, var), HPOD_EINVAL);
    assert_int_equal(graph_predict(g, NULL, y, 3, mean, var), HPOD_EINVAL);
    assert_int_equal(graph_predict(g, ok, y, 3, NULL, var), HPOD_EINVAL);
    assert_int_equal(graph_eif(g, ok, y, 0, sc), HPOD_EINVAL);
    assert_int_equal(graph_eif(g, dup, y, 3, sc), HPOD_EINVAL);
    assert_int_equal(graph_eif(g, big, y, 3, sc), HPOD_EINVAL);
    assert_int_equal(graph_eif(g, ok, y, 3, NULL), HPOD_EINVAL);
    assert_int_equal(graph_eif_bruteforce(g, ok, y, 0, sc), HPOD_EINVAL);
    assert_int_equal(graph_eif_bruteforce(g, dup, y, 3, sc), HPOD_EINVAL);
    assert_int_equal(graph_eif_bruteforce(g, big, y, 3, sc), HPOD_EINVAL);
    assert_int_equal(graph_eif_labels(g, dup, y, 3, fl, NULL), HPOD_EINVAL);
    assert_int_equal(graph_eif_labels(g, ok, y, 3, NULL, NULL), HPOD_EINVAL);
    assert_int_equal(graph_eif_terms(g, ok, y, 3, sc, NULL, sc), HPOD_EINVAL);
    assert_int_equal(graph_eif_terms(g, big, y, 3, sc, mean, var), HPOD_EINVAL);
    /* A rejected call leaves the cache usable. */
    assert_int_equal(graph_predict(g, ok, y, 3, mean, var), HPOD_OK);
    assert_int_equal(graph_last_path(g), GRAPH_PATH_REUSE);
    graph_free(g);
    free(x);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_structure),
        cmocka_unit_test(test_graph_options),
        cmocka_unit_test(test_graph_grid_ties),
        cmocka_unit_test(test_harmonic_against_dense),
        cmocka_unit_test(test_variance),
        cmocka_unit_test(test_wdegree_variance),
        cmocka_unit_test(test_eif_labels_path),
        cmocka_unit_test(test_eif_definition),
        cmocka_unit_test(test_eif_spread),
        cmocka_unit_test(test_eif_against_bruteforce),
        cmocka_unit_test(test_warm_equals_cold),
        cmocka_unit_test(test_unlabeled_component),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_node_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
