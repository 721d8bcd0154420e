/*
 * tests/unit/test_gp.c - GP regression against brute force: posterior
 * mean and variance and the log marginal likelihood from a Gauss-Jordan
 * inverse written here, the LML gradient against central differences,
 * and the fitting behaviour (improvement, ARD, determinism, degenerate
 * data, the kriging-believer conditioning, error paths).
 */
#include "tests/support/check.h"
#include "tests/support/budget.h"

#include <stdlib.h>
#include <string.h>

#include "core/gp.h"
#include "core/kernels.h"
#include "core/rng.h"
#include "core/space.h"

#define MAXN 40

static const enum kernel_kind kinds[2] = {KERNEL_MATERN52, KERNEL_RBF};

/*
 * Gauss-Jordan with partial pivoting: inv = a⁻¹ (n×n), returns log|det a|.
 * Deliberately independent of LAPACK.
 */
static double
gauss_jordan(const double *a, size_t n, double *inv)
{
    double *m = malloc(n * 2 * n * sizeof(double));
    double logdet = 0.0;
    size_t w = 2 * n;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < w; j++)
            m[i * w + j] = j < n ? a[i * n + j] : (j - n == i ? 1.0 : 0.0);
    for (size_t c = 0; c < n; c++) {
        size_t p = c;
        for (size_t i = c + 1; i < n; i++)
            if (fabs(m[i * w + c]) > fabs(m[p * w + c]))
                p = i;
        for (size_t j = 0; j < w; j++) {
            double t = m[c * w + j];
            m[c * w + j] = m[p * w + j];
            m[p * w + j] = t;
        }
        double piv = m[c * w + c];
        logdet += log(fabs(piv));
        for (size_t j = 0; j < w; j++)
            m[c * w + j] /= piv;
        for (size_t i = 0; i < n; i++) {
            if (i == c)
                continue;
            double f = m[i * w + c];
            for (size_t j = 0; j < w; j++)
                m[i * w + j] -= f * m[c * w + j];
        }
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            inv[i * n + j] = m[i * w + n + j];
    free(m);
    return logdet;
}

/* K_y = σ_f² corr(r²) + σ_n² I, entry by entry from kernel_corr. */
static void
brute_ky(enum kernel_kind kind, const double *x, size_t n, size_t dim,
         const double *ls, double sf2, double sn2, double *ky)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            ky[i * n + j] =
                sf2 * kernel_corr(kind, kernel_r2(x + i * dim, x + j * dim, ls,
                                                  dim, NULL)) +
                (i == j ? sn2 : 0.0);
}

static void
random_problem(struct rng *r, double *x, double *y, size_t n, size_t dim)
{
    for (size_t i = 0; i < n * dim; i++)
        x[i] = rng_uniform(r);
    for (size_t i = 0; i < n; i++) {
        const double *xi = x + i * dim;
        /* BLEU-like offset and scale, so standardization matters. */
        y[i] = 14.2 + 2.7 * sin(5.0 * xi[0]) + 1.1 * xi[1] * xi[1] +
               0.1 * rng_normal(r);
    }
}

static void
mean_std(const double *y, size_t n, double *m, double *s)
{
    double a = 0, v = 0;
    for (size_t i = 0; i < n; i++)
        a += y[i];
    a /= (double)n;
    for (size_t i = 0; i < n; i++)
        v += (y[i] - a) * (y[i] - a);
    *m = a;
    *s = sqrt(v / (double)n);
}

static void
test_predict_vs_dense(void **state)
{
    (void)state;
    enum { n = 12, dim = 3, m = 9 };
    struct rng r;
    double x[n * dim], y[n], ys[n], xq[m * dim], mean[m], var[m];
    double ky[n * n], inv[n * n], ls[dim] = {0.3, 0.55, 0.8};
    struct gp_hyper h = {ls, 1.3, 0.05};
    rng_seed(&r, 2385);
    random_problem(&r, x, y, n, dim);
    for (size_t i = 0; i < m * dim; i++)
        xq[i] = rng_uniform(&r) * 1.2 - 0.1;

    for (int t = 0; t < 2; t++) {
        struct gp *gp = gp_create(n, dim, kinds[t]);
        double ym, sy, gm, gs;
        assert_non_null(gp);
        assert_int_equal(gp_set_hyper(gp, &h), HPOD_OK);
        assert_int_equal(gp_condition(gp, x, y, n), HPOD_OK);
        assert_int_equal(gp_size(gp), n);
        mean_std(y, n, &ym, &sy);
        gp_get_standardization(gp, &gm, &gs);
        assert_close(gm, ym, 1e-14, 0);
        assert_close(gs, sy, 1e-13, 0);
        for (size_t i = 0; i < n; i++)
            ys[i] = (y[i] - ym) / sy;
        brute_ky(kinds[t], x, n, dim, ls, h.signal_var, h.noise_var, ky);
        double logdet = gauss_jordan(ky, n, inv);

        assert_int_equal(gp_predict(gp, xq, m, mean, var), HPOD_OK);
        for (size_t q = 0; q < m; q++) {
            double ks[n], mu = 0, quad = 0;
            for (size_t i = 0; i < n; i++)
                ks[i] =
                    h.signal_var *
                    kernel_corr(kinds[t], kernel_r2(xq + q * dim, x + i * dim,
                                                    ls, dim, NULL));
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++) {
                    mu += ks[i] * inv[i * n + j] * ys[j];
                    quad += ks[i] * inv[i * n + j] * ks[j];
                }
            assert_close(mean[q], ym + sy * mu, 1e-10, 1e-10);
            assert_close(var[q], sy * sy * (h.signal_var - quad), 1e-8, 1e-10);
        }
        /* Mean-only prediction gives the same means. */
        double mean2[m];
        assert_int_equal(gp_predict(gp, xq, m, mean2, NULL), HPOD_OK);
        for (size_t q = 0; q < m; q++)
            assert_close(mean2[q], mean[q], 0, 0);

        /* LML = -½ yᵀK⁻¹y - ½ log|K| - n/2 log 2π, by brute force. */
        double quad = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                quad += ys[i] * inv[i * n + j] * ys[j];
        double lml = -0.5 * quad - 0.5 * logdet - 0.5 * n * log(2 * M_PI);
        assert_close(gp_log_marginal_likelihood(gp), lml, 1e-11, 1e-11);

        double th[dim + 2], v, *work;
        for (size_t d = 0; d < dim; d++)
            th[d] = log(ls[d]);
        th[dim] = log(h.signal_var);
        th[dim + 1] = log(h.noise_var);
        work = malloc(gp_lml_work_size(n, dim) * sizeof(double));
        assert_int_equal(
            gp_lml(x, ys, n, dim, NULL, kinds[t], th, &v, NULL, work), HPOD_OK);
        assert_close(v, lml, 1e-11, 1e-11);
        free(work);
        gp_free(gp);
    }
}

/* Predictions spanning more than one GP_PREDICT_BLOCK agree with singles. */
static void
test_predict_blocks(void **state)
{
    (void)state;
    enum { n = 15, dim = 2, m = GP_PREDICT_BLOCK + 37 };
    struct rng r;
    double x[n * dim], y[n], ls[dim] = {0.4, 0.9};
    double *xq = malloc(m * dim * sizeof(double));
    double *mean = malloc(m * sizeof(double));
    double *var = malloc(m * sizeof(double));
    struct gp_hyper h = {ls, 0.9, 1e-3};
    struct gp *gp = gp_create(n, dim, KERNEL_MATERN52);
    rng_seed(&r, 11);
    random_problem(&r, x, y, n, dim);
    for (size_t i = 0; i < m * dim; i++)
        xq[i] = rng_uniform(&r);
    assert_int_equal(gp_set_hyper(gp, &h), HPOD_OK);
    assert_int_equal(gp_condition(gp, x, y, n), HPOD_OK);
    assert_int_equal(gp_predict(gp, xq, m, mean, var), HPOD_OK);
    for (size_t q = 0; q < m; q += 29) {
        double m1, v1;
        assert_int_equal(gp_predict(gp, xq + q * dim, 1, &m1, &v1), HPOD_OK);
        assert_close(mean[q], m1, 1e-12, 1e-12);
        assert_close(var[q], v1, 1e-10, 1e-14);
    }
    free(xq);
    free(mean);
    free(var);
    gp_free(gp);
}

/* The LML gradient at th (dim + 2 <= 8 entries; feature kinds fk or
 * NULL) against central differences. */
static void
check_lml_gradient(const double *x, const double *y, size_t n, size_t dim,
                   const unsigned char *fk, enum kernel_kind kind,
                   const double *th, double *work)
{
    double g[8], tp[8], tm[8], v, vp, vm, eps = 1e-5;
    assert_true(dim + 2 <= 8);
    assert_int_equal(gp_lml(x, y, n, dim, fk, kind, th, &v, g, work), HPOD_OK);
    for (size_t j = 0; j < dim + 2; j++) {
        memcpy(tp, th, (dim + 2) * sizeof *tp);
        memcpy(tm, th, (dim + 2) * sizeof *tm);
        tp[j] += eps;
        tm[j] -= eps;
        assert_int_equal(gp_lml(x, y, n, dim, fk, kind, tp, &vp, NULL, work),
                         HPOD_OK);
        assert_int_equal(gp_lml(x, y, n, dim, fk, kind, tm, &vm, NULL, work),
                         HPOD_OK);
        assert_close(g[j], (vp - vm) / (2 * eps), 1e-5, 1e-7);
    }
}

static void
test_lml_gradient_fd(void **state)
{
    (void)state;
    enum { n = 14, dim = 3 };
    struct rng r;
    double x[n * dim], y[n], ym, sy;
    double *work = malloc(gp_lml_work_size(n, dim) * sizeof(double));
    const double th0[dim + 2] = {log(0.3), log(0.9), log(2.1), log(1.4),
                                 log(0.02)};
    rng_seed(&r, 99);
    random_problem(&r, x, y, n, dim);
    mean_std(y, n, &ym, &sy);
    for (size_t i = 0; i < n; i++)
        y[i] = (y[i] - ym) / sy;
    for (int t = 0; t < 2; t++)
        check_lml_gradient(x, y, n, dim, NULL, kinds[t], th0, work);
    /* Bad arguments and a non-finite θ are reported, not crashed on. */
    double v, bad[dim + 2] = {NAN, 0, 0, 0, 0};
    assert_int_equal(
        gp_lml(x, y, 0, dim, NULL, KERNEL_RBF, th0, &v, NULL, work),
        HPOD_EINVAL);
    assert_int_equal(
        gp_lml(x, y, n, dim, NULL, KERNEL_RBF, bad, &v, NULL, work),
        HPOD_EINVAL);
    bad[0] = 0.0;
    bad[dim] = 800.0; /* σ_f² = e^800 overflows */
    assert_int_equal(
        gp_lml(x, y, n, dim, NULL, KERNEL_RBF, bad, &v, NULL, work),
        HPOD_EINVAL);
    free(work);
}

static void
test_variance_at_training_points(void **state)
{
    (void)state;
    enum { n = 4, dim = 2 };
    /* Corners of the square, ℓ = 0.1: practically independent points. */
    double x[n * dim] = {0, 0, 1, 0, 0, 1, 1, 1}, y[n] = {3.1, -0.4, 2.2, 7};
    double ls[dim] = {0.1, 0.1}, mean[n], var[n], ym, sy;
    struct gp_hyper h = {ls, 1.2, 1e-4};
    for (int t = 0; t < 2; t++) {
        struct gp *gp = gp_create(n, dim, kinds[t]);
        assert_int_equal(gp_set_hyper(gp, &h), HPOD_OK);
        assert_int_equal(gp_condition(gp, x, y, n), HPOD_OK);
        assert_int_equal(gp_predict(gp, x, n, mean, var), HPOD_OK);
        gp_get_standardization(gp, &ym, &sy);
        /* Isolated point: σ_f² σ_n² / (σ_f² + σ_n²) ≈ σ_n² (std units). */
        double iso = sy * sy * 1.2 * 1e-4 / (1.2 + 1e-4);
        for (size_t i = 0; i < n; i++) {
            assert_close(var[i], iso, 1e-6, 0);
            assert_close(mean[i], y[i], 0, 1e-3 * sy);
        }
        gp_free(gp);
    }

    /* Denser random data: 0 <= var <= noise at data, >= 0 everywhere. */
    enum { n2 = 30, d2 = 3, m2 = 500 };
    struct rng r;
    double x2[n2 * d2], y2[n2], ls2[d2] = {0.2, 0.4, 0.7};
    double xq[m2 * d2], mq[m2], vq[m2], v2[n2], m2v[n2];
    struct gp_hyper h2 = {ls2, 1.0, 1e-6};
    rng_seed(&r, 5);
    random_problem(&r, x2, y2, n2, d2);
    /* A duplicated point makes K_y as close to singular as σ_n² allows. */
    memcpy(x2 + d2, x2, d2 * sizeof(double));
    for (size_t i = 0; i < m2 * d2; i++)
        xq[i] = rng_uniform(&r);
    for (int t = 0; t < 2; t++) {
        struct gp *gp = gp_create(n2, d2, kinds[t]);
        assert_int_equal(gp_set_hyper(gp, &h2), HPOD_OK);
        assert_int_equal(gp_condition(gp, x2, y2, n2), HPOD_OK);
        gp_get_standardization(gp, &ym, &sy);
        assert_int_equal(gp_predict(gp, x2, n2, m2v, v2), HPOD_OK);
        for (size_t i = 0; i < n2; i++) {
            assert_true(v2[i] >= 0.0);
            /* Round-off of the near-singular solve allows a few 1e-9. */
            assert_true(v2[i] <= sy * sy * (1e-6 + 1e-8));
        }
        assert_int_equal(gp_predict(gp, xq, m2, mq, vq), HPOD_OK);
        for (size_t i = 0; i < m2; i++) {
            assert_true(vq[i] >= 0.0 && vq[i] <= sy * sy * 1.0 + 1e-12);
            assert_true(isfinite(mq[i]));
        }
        gp_free(gp);
    }
}

static double
lml_at(const double *x, const double *y, size_t n, size_t dim,
       enum kernel_kind kind, const double *th)
{
    double ym, sy, v = NAN, ys[MAXN];
    double *work = malloc(gp_lml_work_size(n, dim) * sizeof(double));
    mean_std(y, n, &ym, &sy);
    for (size_t i = 0; i < n; i++)
        ys[i] = (y[i] - ym) / sy;
    assert_int_equal(gp_lml(x, ys, n, dim, NULL, kind, th, &v, NULL, work),
                     HPOD_OK);
    free(work);
    return v;
}

/*
 * The fit must beat its own default start by a clear margin on data with
 * structure, and ARD must switch off the irrelevant inputs: y depends on
 * x_0 only, so ℓ_1 and ℓ_2 end far above ℓ_0.
 */
static void
test_fit_improves_and_ard(void **state)
{
    (void)state;
    enum { n = 30, dim = 3 };
    struct rng r;
    double x[n * dim], y[n], ls[dim];
    struct gp_hyper h = {ls, 0, 0};
    rng_seed(&r, 31);
    for (size_t i = 0; i < n * dim; i++)
        x[i] = rng_uniform(&r);
    for (size_t i = 0; i < n; i++)
        y[i] = 20.0 + 3.0 * sin(6.0 * x[i * dim]) + 0.01 * rng_normal(&r);
    for (int t = 0; t < 2; t++) {
        struct gp *gp = gp_create(n, dim, kinds[t]);
        struct gp_fit_stats st;
        /* The default start: ℓ = 0.25√3, σ_f² = 1, σ_n² = 0.01. */
        double th0[dim + 2];
        for (size_t d = 0; d < dim; d++)
            th0[d] = log(0.25 * sqrt(3.0));
        th0[dim] = 0.0;
        th0[dim + 1] = log(1e-2);
        double lml0 = lml_at(x, y, n, dim, kinds[t], th0);
        assert_int_equal(gp_fit(gp, x, y, n, &r), HPOD_OK);
        gp_get_fit_stats(gp, &st);
        assert_true(st.optimized);
        assert_false(st.used_fallback);
        assert_true(st.n_grad_evals > 0);
        double lml = gp_log_marginal_likelihood(gp);
        assert_close(st.lml, lml, 0, 0);
        assert_true(lml > lml0 + 5.0);
        gp_get_hyper(gp, &h);
        /* Recomputing the LML at the reported optimum gives the same. */
        double th[dim + 2];
        for (size_t d = 0; d < dim; d++)
            th[d] = log(ls[d]);
        th[dim] = log(h.signal_var);
        th[dim + 1] = log(h.noise_var);
        assert_close(lml_at(x, y, n, dim, kinds[t], th), lml, 1e-9, 1e-9);
        assert_true(ls[1] > 3.0 * ls[0]);
        assert_true(ls[2] > 3.0 * ls[0]);
        assert_true(h.noise_var < 0.01);
        /* Bounds are respected. */
        for (size_t d = 0; d < dim; d++)
            assert_true(ls[d] >= 1e-2 * (1 - 1e-12) &&
                        ls[d] <= 10 * (1 + 1e-12));
        gp_free(gp);
    }
}

static void
test_determinism(void **state)
{
    (void)state;
    enum { n = 25, dim = 4 };
    struct rng r, r1, r2;
    double x[n * dim], y[n], l1[dim], l2[dim];
    struct gp_hyper h1 = {l1, 0, 0}, h2 = {l2, 0, 0};
    rng_seed(&r, 8);
    random_problem(&r, x, y, n, dim);
    struct gp *a = gp_create(n, dim, KERNEL_MATERN52);
    struct gp *b = gp_create(n + 5, dim, KERNEL_MATERN52);
    rng_seed(&r1, 123);
    rng_seed(&r2, 123);
    assert_int_equal(gp_fit(a, x, y, n, &r1), HPOD_OK);
    assert_int_equal(gp_fit(b, x, y, n, &r2), HPOD_OK);
    gp_get_hyper(a, &h1);
    gp_get_hyper(b, &h2);
    assert_memory_equal(l1, l2, sizeof l1);
    assert_memory_equal(&h1.signal_var, &h2.signal_var, sizeof(double));
    assert_memory_equal(&h1.noise_var, &h2.noise_var, sizeof(double));
    /* Both rngs advanced identically. */
    assert_true(rng_next(&r1) == rng_next(&r2));
    gp_free(a);
    gp_free(b);
}

static void
test_degenerate_data(void **state)
{
    (void)state;
    enum { dim = 2 };
    struct rng r;
    double xq[3 * dim] = {0.2, 0.2, 0.5, 0.9, 0.77, 0.01}, mean[3], var[3];
    struct gp_fit_stats st;
    rng_seed(&r, 1);
    for (int t = 0; t < 2; t++) {
        struct gp *gp = gp_create(8, dim, kinds[t]);

        /* n = 1: no optimization, mean at the point equals its value. */
        double x1[dim] = {0.2, 0.2}, y1[1] = {14.66};
        assert_int_equal(gp_fit(gp, x1, y1, 1, &r), HPOD_OK);
        gp_get_fit_stats(gp, &st);
        assert_false(st.optimized);
        assert_int_equal(gp_predict(gp, xq, 3, mean, var), HPOD_OK);
        assert_close(mean[0], 14.66, 0, 0.02);
        for (int i = 0; i < 3; i++)
            assert_true(isfinite(mean[i]) && var[i] >= 0.0);

        /* n = 2. */
        double x2[2 * dim] = {0.1, 0.3, 0.8, 0.6}, y2[2] = {1.0, 3.5};
        assert_int_equal(gp_fit(gp, x2, y2, 2, &r), HPOD_OK);
        assert_int_equal(gp_predict(gp, xq, 3, mean, var), HPOD_OK);
        for (int i = 0; i < 3; i++)
            assert_true(isfinite(mean[i]) && var[i] >= 0.0);

        /* Constant y: the prediction is that constant everywhere. */
        double x5[5 * dim] = {0.1, 0.1, 0.3, 0.9, 0.5, 0.5, 0.9, 0.2, 0, 1};
        double y5[5] = {7.25, 7.25, 7.25, 7.25, 7.25};
        assert_int_equal(gp_fit(gp, x5, y5, 5, &r), HPOD_OK);
        gp_get_fit_stats(gp, &st);
        assert_false(st.optimized);
        assert_int_equal(gp_predict(gp, xq, 3, mean, var), HPOD_OK);
        for (int i = 0; i < 3; i++) {
            assert_close(mean[i], 7.25, 0, 1e-12);
            assert_true(var[i] >= 0.0 && isfinite(var[i]));
        }

        /* Duplicated inputs with different outputs (noise). */
        double x6[6 * dim] = {0.4, 0.4, 0.4, 0.4, 0.7, 0.1,
                              0.7, 0.1, 0.7, 0.1, 0.2, 0.95};
        double y6[6] = {10.0, 11.0, 3.0, 3.2, 2.9, 6.0};
        assert_int_equal(gp_fit(gp, x6, y6, 6, &r), HPOD_OK);
        gp_get_fit_stats(gp, &st);
        assert_true(st.optimized);
        assert_int_equal(gp_predict(gp, x6, 3, mean, var), HPOD_OK);
        /* At a duplicate pair the mean lies between its two values. */
        assert_true(mean[0] > 9.5 && mean[0] < 11.5);
        for (int i = 0; i < 3; i++)
            assert_true(isfinite(mean[i]) && var[i] >= 0.0);
        gp_free(gp);
    }
}

/*
 * Kriging believer: conditioning on the observed points plus pending ones
 * at their predicted means keeps those means (the residual is zero and the
 * standardization of the fit is reused) and shrinks their variance.
 */
static void
test_kriging_believer(void **state)
{
    (void)state;
    enum { n = 20, p = 3, dim = 3 };
    struct rng r;
    double x[(n + p) * dim], y[n + p], m0[p], v0[p], m1[p], v1[p];
    double gm0, gs0, gm1, gs1;
    rng_seed(&r, 64);
    random_problem(&r, x, y, n + p, dim);
    struct gp *gp = gp_create(n + p, dim, KERNEL_MATERN52);
    assert_int_equal(gp_fit(gp, x, y, n, &r), HPOD_OK);
    gp_get_standardization(gp, &gm0, &gs0);
    const double *xp = x + n * dim;
    assert_int_equal(gp_predict(gp, xp, p, m0, v0), HPOD_OK);
    for (size_t i = 0; i < p; i++)
        y[n + i] = m0[i];
    assert_int_equal(gp_condition(gp, x, y, n + p), HPOD_OK);
    assert_int_equal(gp_size(gp), n + p);
    gp_get_standardization(gp, &gm1, &gs1);
    assert_close(gm1, gm0, 0, 0);
    assert_close(gs1, gs0, 0, 0);
    assert_int_equal(gp_predict(gp, xp, p, m1, v1), HPOD_OK);
    for (size_t i = 0; i < p; i++) {
        assert_close(m1[i], m0[i], 1e-9, 1e-9);
        assert_true(v1[i] < v0[i]);
    }
    gp_free(gp);
}

static void
test_errors(void **state)
{
    (void)state;
    struct rng r;
    double x[4] = {0.1, 0.2, 0.3, 0.4}, y[2] = {1, 2}, m, v, ls[2] = {1, 1};
    struct gp_hyper h = {ls, 1, 0.1};
    rng_seed(&r, 3);
    assert_null(gp_create(0, 2, KERNEL_RBF));
    assert_null(gp_create(4, 0, KERNEL_RBF));
    assert_null(gp_create(4, 2, (enum kernel_kind)7));
    gp_free(NULL);
    assert_int_equal(gp_size(NULL), 0);

    struct gp *gp = gp_create(1, 2, KERNEL_RBF);
    assert_true(isnan(gp_log_marginal_likelihood(gp)));
    assert_int_equal(gp_predict(gp, x, 1, &m, &v), HPOD_EINVAL);
    assert_int_equal(gp_fit(gp, x, y, 2, &r), HPOD_EINVAL); /* > max_n */
    assert_int_equal(gp_fit(gp, x, y, 0, &r), HPOD_EINVAL);
    assert_int_equal(gp_fit(gp, x, y, 1, NULL), HPOD_EINVAL);
    assert_int_equal(gp_condition(gp, x, y, 2), HPOD_EINVAL);
    double ynan[1] = {NAN}, xinf[2] = {INFINITY, 0};
    assert_int_equal(gp_fit(gp, x, ynan, 1, &r), HPOD_EINVAL);
    assert_int_equal(gp_condition(gp, xinf, y, 1), HPOD_EINVAL);

    assert_int_equal(gp_fit(gp, x, y, 1, &r), HPOD_OK);
    assert_int_equal(gp_predict(gp, x, 0, NULL, NULL), HPOD_OK);
    assert_int_equal(gp_predict(gp, x, 1, NULL, &v), HPOD_EINVAL);
    assert_int_equal(gp_predict(gp, xinf, 1, &m, &v), HPOD_EINVAL);

    /* Invalid hyperparameters and options are refused; valid ones reset. */
    h.noise_var = -1;
    assert_int_equal(gp_set_hyper(gp, &h), HPOD_EINVAL);
    h.noise_var = 0.1;
    ls[1] = 0.0;
    assert_int_equal(gp_set_hyper(gp, &h), HPOD_EINVAL);
    ls[1] = 0.5;
    assert_int_equal(gp_set_hyper(gp, &h), HPOD_OK);
    assert_int_equal(gp_predict(gp, x, 1, &m, &v), HPOD_EINVAL);
    struct gp_fit_options o;
    gp_fit_options_default(&o);
    o.ls_min = 20.0; /* > ls_max */
    assert_int_equal(gp_set_fit_options(gp, &o), HPOD_EINVAL);
    o.ls_min = -1.0;
    assert_int_equal(gp_set_fit_options(gp, &o), HPOD_EINVAL);
    gp_fit_options_default(&o);
    o.n_starts = 2;
    o.n_local = 1;
    o.max_eval = 5;
    assert_int_equal(gp_set_fit_options(gp, &o), HPOD_OK);
    gp_free(gp);
}

/* Custom bounds are honoured, even when the defaults lie outside them. */
/* The MAP objective of a log-normal lengthscale prior (median m, log sd
 * s): the LML plus Σ_d -(θ_d - log m)² / 2s². */
static double
post_at(const double *x, const double *y, size_t n, size_t dim,
        enum kernel_kind kind, const double *th, double m, double s)
{
    double v = lml_at(x, y, n, dim, kind, th);
    for (size_t d = 0; d < dim; d++)
        v -= 0.5 * (th[d] - log(m)) * (th[d] - log(m)) / (s * s);
    return v;
}

/*
 * A lengthscale prior (gp_fit_options.ls_prior_*): the fit maximizes the
 * LML plus the prior's log density. Brute force: no random θ in the
 * bounds, and no step of ±0.01 from the fit in any coordinate, has a
 * larger value; the prior pulls the irrelevant inputs' lengthscales (ℓ_1,
 * ℓ_2 > 3ℓ_0 without it) down towards its median. Invalid priors are
 * refused.
 */
static void
test_fit_ls_prior(void **state)
{
    (void)state;
    enum { n = 30, dim = 3, P = dim + 2 };
    const double m = 0.5, s = 0.3;
    struct rng r;
    double x[n * dim], y[n], ls0[dim], ls[dim];
    struct gp_hyper h0 = {ls0, 0, 0}, h = {ls, 0, 0};
    struct gp_fit_options o;
    rng_seed(&r, 31);
    for (size_t i = 0; i < n * dim; i++)
        x[i] = rng_uniform(&r);
    for (size_t i = 0; i < n; i++)
        y[i] = 20.0 + 3.0 * sin(6.0 * x[i * dim]) + 0.01 * rng_normal(&r);
    struct gp *gp = gp_create(n, dim, KERNEL_MATERN52);
    assert_int_equal(gp_fit(gp, x, y, n, &r), HPOD_OK);
    gp_get_hyper(gp, &h0);
    gp_fit_options_default(&o);
    assert_close(o.ls_prior_sd, 0.0, 0, 0); /* no prior by default */
    o.ls_prior_median = m;
    o.ls_prior_sd = s;
    assert_int_equal(gp_set_fit_options(gp, &o), HPOD_OK);
    gp_reset_hyper(gp);
    assert_int_equal(gp_fit(gp, x, y, n, &r), HPOD_OK);
    gp_get_hyper(gp, &h);
    double th[P], lo[P], hi[P];
    for (size_t d = 0; d < dim; d++) {
        th[d] = log(ls[d]);
        lo[d] = log(o.ls_min);
        hi[d] = log(o.ls_max);
    }
    th[dim] = log(h.signal_var);
    th[dim + 1] = log(h.noise_var);
    lo[dim] = log(o.sf2_min);
    hi[dim] = log(o.sf2_max);
    lo[dim + 1] = log(o.sn2_min);
    hi[dim + 1] = log(o.sn2_max);
    double best = post_at(x, y, n, dim, KERNEL_MATERN52, th, m, s);
    for (int k = 0; k < 2000; k++) {
        double t[P];
        for (size_t j = 0; j < P; j++)
            t[j] = lo[j] + (hi[j] - lo[j]) * rng_uniform(&r);
        assert_true(post_at(x, y, n, dim, KERNEL_MATERN52, t, m, s) <=
                    best + 1e-6);
    }
    for (size_t j = 0; j < P; j++)
        for (int sg = -1; sg <= 1; sg += 2) {
            double t[P];
            memcpy(t, th, sizeof t);
            t[j] += 0.01 * sg;
            if (t[j] < lo[j] || t[j] > hi[j])
                continue;
            assert_true(post_at(x, y, n, dim, KERNEL_MATERN52, t, m, s) <=
                        best + 1e-6);
        }
    assert_true(ls0[1] > 3.0 * ls0[0] && ls0[2] > 3.0 * ls0[0]);
    assert_true(ls[1] < ls0[1] && ls[2] < ls0[2]);
    /* Refused: a negative sd, or a prior without a positive median. */
    o.ls_prior_sd = -1.0;
    assert_int_equal(gp_set_fit_options(gp, &o), HPOD_EINVAL);
    o.ls_prior_sd = 1.0;
    o.ls_prior_median = 0.0;
    assert_int_equal(gp_set_fit_options(gp, &o), HPOD_EINVAL);
    gp_free(gp);
}

static void
test_fit_options_bounds(void **state)
{
    (void)state;
    enum { n = 20, dim = 2 };
    struct rng r;
    double x[n * dim], y[n], ls[dim];
    struct gp_hyper h = {ls, 0, 0};
    struct gp_fit_options o;
    struct gp_fit_stats st;
    rng_seed(&r, 17);
    random_problem(&r, x, y, n, dim);
    struct gp *gp = gp_create(n, dim, KERNEL_RBF);
    gp_fit_options_default(&o);
    o.sn2_min = 0.05;
    o.sn2_max = 0.06;
    o.ls_min = 2.0;
    o.ls_max = 3.0;
    o.n_starts = 3;
    o.n_local = 1;
    o.max_eval = 10;
    assert_int_equal(gp_set_fit_options(gp, &o), HPOD_OK);
    assert_int_equal(gp_fit(gp, x, y, n, &r), HPOD_OK);
    gp_get_fit_stats(gp, &st);
    assert_int_equal(st.n_value_evals, 4); /* default + 3 random */
    assert_true(st.n_grad_evals <= 10);
    gp_get_hyper(gp, &h);
    assert_true(h.noise_var >= 0.05 * (1 - 1e-12) &&
                h.noise_var <= 0.06 * (1 + 1e-12));
    for (size_t d = 0; d < dim; d++)
        assert_true(ls[d] >= 2.0 * (1 - 1e-12) && ls[d] <= 3.0 * (1 + 1e-12));
    gp_free(gp);
}

/*
 * gp_condition_std reuses the factor of a shared prefix of rows (append,
 * truncate then append, same x with new y): every variant predicts like a
 * fresh GP factorized from scratch, and the LML agrees.
 */
static void
test_condition_incremental(void **state)
{
    (void)state;
    enum { N = 40, DIM = 3, Q = 9 };
    struct rng r;
    double x[N * DIM], y[N], xq[Q * DIM], ls[DIM] = {0.3, 0.5, 0.8};
    double m1[Q], v1[Q], m2[Q], v2[Q];
    struct gp_hyper h = {ls, 1.3, 1e-3};
    static const size_t steps[][2] = {{20, 0}, {21, 0}, {30, 0}, {30, 1},
                                      {25, 1}, {40, 2}, {12, 3}};
    rng_seed(&r, 4242);
    random_problem(&r, x, y, N, DIM);
    for (size_t i = 0; i < Q * DIM; i++)
        xq[i] = rng_uniform(&r);
    for (size_t t = 0; t < 2; t++) {
        struct gp *inc = gp_create(N, DIM, kinds[t]);
        assert_int_equal(gp_set_hyper(inc, &h), HPOD_OK);
        for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
            size_t n = steps[s][0];
            double yy[N], xx[N * DIM];
            memcpy(xx, x, sizeof x);
            /* Variant 1: new y for the same x; 2: row 10 moved (the
             * prefix ends there); 3: new y again. */
            for (size_t i = 0; i < n; i++)
                yy[i] = y[i] + (steps[s][1] == 1 ? 0.3 * (double)i : 0.0);
            if (steps[s][1] == 2)
                xx[10 * DIM] = 0.123;
            struct gp *fresh = gp_create(N, DIM, kinds[t]);
            assert_int_equal(gp_set_hyper(fresh, &h), HPOD_OK);
            assert_int_equal(gp_condition_std(inc, xx, yy, n, 0.5, 2.0),
                             HPOD_OK);
            assert_int_equal(gp_condition_std(fresh, xx, yy, n, 0.5, 2.0),
                             HPOD_OK);
            assert_int_equal(gp_size(inc), n);
            assert_int_equal(gp_predict(inc, xq, Q, m1, v1), HPOD_OK);
            assert_int_equal(gp_predict(fresh, xq, Q, m2, v2), HPOD_OK);
            for (size_t i = 0; i < Q; i++) {
                assert_close(m1[i], m2[i], 1e-9, 1e-10);
                assert_close(v1[i], v2[i], 1e-8, 1e-10);
            }
            assert_close(gp_log_marginal_likelihood(inc),
                         gp_log_marginal_likelihood(fresh), 1e-9, 1e-9);
            gp_free(fresh);
        }
        /* Reset: defaults again, unconditioned, no warm start. */
        gp_reset_hyper(inc);
        assert_int_equal(gp_predict(inc, xq, 1, m1, NULL), HPOD_EINVAL);
        double ls2[DIM];
        struct gp_hyper g = {ls2, 0, 0};
        gp_get_hyper(inc, &g);
        assert_close(g.signal_var, 1.0, 0, 0);
        assert_close(g.noise_var, 1e-2, 1e-15, 0);
        assert_close(ls2[0], 0.25 * sqrt(3.0), 1e-15, 0);
        assert_int_equal(gp_condition_std(inc, x, y, 3, 0.0, 0.0), HPOD_EINVAL);
        gp_free(inc);
    }
}

/*
 * The kept query block (V = L⁻¹K*, extended by rows) scores like one
 * gp_predict call per point, through appends, a truncation, new y, new
 * hyperparameters and a new query set.
 */
static void
test_queries_vs_per_point(void **state)
{
    (void)state;
    enum { N = 30, DIM = 2, Q = 11 };
    struct rng r;
    double x[N * DIM], y[N], xq[Q * DIM], m1[Q], v1[Q], m2, v2;
    double ls[DIM] = {0.4, 0.7};
    struct gp_hyper h = {ls, 0.9, 1e-4};
    static const size_t steps[] = {10, 11, 20, 15, 30, 30};
    rng_seed(&r, 515);
    random_problem(&r, x, y, N, DIM);
    for (size_t i = 0; i < Q * DIM; i++)
        xq[i] = rng_uniform(&r);
    struct gp *gp = gp_create(N, DIM, KERNEL_MATERN52);
    assert_int_equal(gp_set_hyper(gp, &h), HPOD_OK);
    assert_int_equal(gp_set_queries(gp, xq, Q), HPOD_OK);
    assert_int_equal(gp_predict_queries(gp, m1, v1), HPOD_EINVAL);
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        if (s == 5) {
            h.signal_var = 1.7; /* new θ: V must be rebuilt */
            assert_int_equal(gp_set_hyper(gp, &h), HPOD_OK);
            xq[0] = 0.5; /* and a changed query set */
            assert_int_equal(gp_set_queries(gp, xq, Q), HPOD_OK);
        }
        y[0] += 0.1 * (double)s;
        assert_int_equal(gp_condition(gp, x, y, steps[s]), HPOD_OK);
        assert_int_equal(gp_predict_queries(gp, m1, v1), HPOD_OK);
        for (size_t j = 0; j < Q; j++) {
            assert_int_equal(gp_predict(gp, xq + j * DIM, 1, &m2, &v2),
                             HPOD_OK);
            assert_close(m1[j], m2, 1e-9, 1e-10);
            assert_close(v1[j], v2, 1e-8, 1e-10);
        }
    }
    assert_int_equal(gp_set_queries(gp, xq, 0), HPOD_EINVAL);
    gp_free(gp);
}

/* The O(n) mean at the training points equals gp_predict's there. */
static void
test_predict_train(void **state)
{
    (void)state;
    enum { N = 25, DIM = 3 };
    struct rng r;
    double x[N * DIM], y[N], m1[N], m2[N];
    rng_seed(&r, 808);
    random_problem(&r, x, y, N, DIM);
    struct gp *gp = gp_create(N, DIM, KERNEL_RBF);
    assert_int_equal(gp_predict_train(gp, m1), HPOD_EINVAL);
    assert_int_equal(gp_fit(gp, x, y, N, &r), HPOD_OK);
    assert_int_equal(gp_predict_train(gp, m1), HPOD_OK);
    assert_int_equal(gp_predict(gp, x, N, m2, NULL), HPOD_OK);
    for (size_t i = 0; i < N; i++)
        assert_close(m1[i], m2[i], 1e-9, 1e-9);
    gp_free(gp);
}

/* gp_standardization: mean and population std; zero spread gives 1. */
static void
test_standardization(void **state)
{
    (void)state;
    double y[4] = {1, 2, 3, 6}, m, s;
    gp_standardization(y, 4, &m, &s);
    assert_close(m, 3.0, 0, 1e-15);
    assert_close(s, sqrt(3.5), 1e-15, 0);
    double c[3] = {2, 2, 2};
    gp_standardization(c, 3, &m, &s);
    assert_close(m, 2.0, 0, 0);
    assert_close(s, 1.0, 0, 0);
}

/* The refit schedule, decision by decision (gp.h, gp_refit_due). */
static void
test_refit_schedule(void **state)
{
    (void)state;
    assert_true(gp_refit_due(0, NAN, 5, NAN));     /* never fitted */
    assert_true(gp_refit_due(40, 1.0, 39, NAN));   /* history shrank */
    assert_false(gp_refit_due(40, 1.0, 40, NAN));  /* same n */
    assert_false(gp_refit_due(40, 1.0, 40, -9.0)); /* same n, even if worse */
    assert_true(gp_refit_due(20, 1.0, 21, NAN));   /* small n: always */
    assert_true(gp_refit_due(31, 1.0, GP_REFIT_ALWAYS_N, NAN));
    /* 10% growth: at 500, the next fit is due at 550. */
    assert_false(gp_refit_due(500, 1.0, 549, NAN));
    assert_true(gp_refit_due(500, 1.0, 550, NAN));
    assert_false(gp_refit_due(100, 1.0, 109, 0.95));
    assert_true(gp_refit_due(100, 1.0, 110, 2.0));
    /* A stale fit: LML per observation fell by more than the margin. */
    assert_true(gp_refit_due(100, 1.0, 101, 1.0 - GP_REFIT_LML_DROP - 0.01));
    assert_false(gp_refit_due(100, 1.0, 101, 1.0 - GP_REFIT_LML_DROP + 0.01));
    assert_false(gp_refit_due(100, NAN, 101, -5.0));
}

/*
 * A categorical feature (gp_set_kinds) of 1,000 choices: the LML gradient
 * holds against central differences, a query's prediction depends on
 * whether its choice equals a training point's, not on the index, and
 * setting other kinds drops the conditioning.
 */
static void
test_categorical_kinds(void **state)
{
    (void)state;
    enum { n = 12, dim = 2 };
    const unsigned char fk[dim] = {SPACE_FEATURE_REAL, SPACE_FEATURE_CATEGORY};
    struct rng r;
    double x[n * dim], y[n], ym, sy, mu[3], var[3];
    double *work = malloc(gp_lml_work_size(n, dim) * sizeof(double));
    const double th0[dim + 2] = {log(0.4), log(0.7), log(1.3), log(0.05)};
    rng_seed(&r, 17);
    for (size_t i = 0; i < n; i++) {
        x[i * dim] = rng_uniform(&r);
        x[i * dim + 1] = (double)rng_below(&r, 1000); /* choice index */
        y[i] = sin(4 * x[i * dim]) + (fmod(x[i * dim + 1], 2) ? 0.5 : 0.0);
    }
    mean_std(y, n, &ym, &sy);
    for (size_t i = 0; i < n; i++)
        y[i] = (y[i] - ym) / sy;
    check_lml_gradient(x, y, n, dim, fk, KERNEL_MATERN52, th0, work);
    /* Prediction: a query with the same choice as a training point is
     * close to it; the index's size does not matter, equality does. */
    struct gp *gp = gp_create(n, dim, KERNEL_MATERN52);
    double ls[dim] = {0.4, 0.7};
    struct gp_hyper h = {ls, 1.3, 0.05};
    assert_int_equal(gp_set_kinds(gp, fk), HPOD_OK);
    assert_int_equal(gp_set_hyper(gp, &h), HPOD_OK);
    assert_int_equal(gp_condition(gp, x, y, n), HPOD_OK);
    double q[3 * dim] = {x[0], x[1], x[0], x[1] + 1, x[0], x[1] + 500};
    assert_int_equal(gp_predict(gp, q, 3, mu, var), HPOD_OK);
    assert_true(var[1] > var[0]);
    assert_close(mu[1], mu[2], 1e-12, 1e-12); /* both: another choice */
    assert_close(var[1], var[2], 1e-12, 1e-12);
    /* Setting the kinds again keeps the conditioning; other kinds drop
     * it. */
    assert_int_equal(gp_set_kinds(gp, fk), HPOD_OK);
    assert_int_equal(gp_size(gp), n);
    assert_int_equal(gp_set_kinds(gp, NULL), HPOD_OK);
    assert_int_equal(gp_size(gp), 0);
    gp_free(gp);
    free(work);
}

/*
 * Brute force for the overlap: a categorical of C choices as one feature
 * gives the LML of its one-hot encoding scaled by 1/√2 (two differing
 * coordinates of 1/√2 each: r² += 1/ℓ²) with the categorical's lengthscale
 * shared by its C features; its gradient is the sum of theirs.
 */
static void
test_categorical_one_hot(void **state)
{
    (void)state;
    enum { n = 15, C = 4, dim = 2, doh = 1 + C };
    const unsigned char fk[dim] = {SPACE_FEATURE_REAL, SPACE_FEATURE_CATEGORY};
    struct rng r;
    double x[n * dim], xo[n * doh], y[n], ym, sy;
    double th[dim + 2] = {log(0.3), log(0.8), log(1.1), log(0.02)};
    double tho[doh + 2], g[dim + 2], go[doh + 2], v, vo;
    double *work = malloc(gp_lml_work_size(n, doh) * sizeof(double));
    rng_seed(&r, 23);
    for (size_t i = 0; i < n; i++) {
        size_t c = (size_t)rng_below(&r, C);
        x[i * dim] = xo[i * doh] = rng_uniform(&r);
        x[i * dim + 1] = (double)c;
        for (size_t k = 0; k < C; k++)
            xo[i * doh + 1 + k] = k == c ? sqrt(0.5) : 0.0;
        y[i] = cos(3 * x[i * dim]) + 0.3 * (double)c;
    }
    mean_std(y, n, &ym, &sy);
    for (size_t i = 0; i < n; i++)
        y[i] = (y[i] - ym) / sy;
    tho[0] = th[0];
    for (size_t k = 0; k < C; k++)
        tho[1 + k] = th[1];
    tho[doh] = th[dim];
    tho[doh + 1] = th[dim + 1];
    for (int t = 0; t < 2; t++) {
        enum kernel_kind kk = t ? KERNEL_RBF : KERNEL_MATERN52;
        assert_int_equal(gp_lml(x, y, n, dim, fk, kk, th, &v, g, work),
                         HPOD_OK);
        assert_int_equal(gp_lml(xo, y, n, doh, NULL, kk, tho, &vo, go, work),
                         HPOD_OK);
        assert_close(v, vo, 1e-12, 1e-12);
        double gsum = 0.0;
        for (size_t k = 0; k < C; k++)
            gsum += go[1 + k];
        assert_close(g[0], go[0], 1e-10, 1e-10);
        assert_close(g[1], gsum, 1e-10, 1e-10);
        assert_close(g[dim], go[doh], 1e-10, 1e-10);
        assert_close(g[dim + 1], go[doh + 1], 1e-10, 1e-10);
    }
    free(work);
}

/* gp fitted afresh (stream seed 9) under a budget spent after `left`
 * checks; st gets the fit's statistics. */
static void
budgeted_fit(struct gp *gp, const double *x, const double *y, size_t n,
             int left, struct gp_fit_stats *st)
{
    struct compute_budget b = {budget_spent_after, &left, 0};
    struct gp_fit_options o;
    struct rng r;
    gp_reset_hyper(gp);
    gp_fit_options_default(&o);
    o.budget = &b;
    assert_int_equal(gp_set_fit_options(gp, &o), HPOD_OK);
    rng_seed(&r, 9);
    assert_int_equal(gp_fit(gp, x, y, n, &r), HPOD_OK);
    gp_get_fit_stats(gp, st);
    o.budget = NULL; /* b ends here */
    assert_int_equal(gp_set_fit_options(gp, &o), HPOD_OK);
}

/*
 * A fit under a work budget: spent at once, only the default start is
 * scored and the GP is the defaults' conditioning (closed: gp_reset_hyper
 * then gp_condition); spent after k checks, k + 1 starts are scored, none
 * refined; never spent, the unbudgeted fit bit for bit.
 */
static void
test_fit_budget(void **state)
{
    (void)state;
    enum { n = 20, dim = 2 };
    struct rng r;
    double x[n * dim], y[n], q[dim] = {0.3, 0.6};
    double m0, v0, m1, v1;
    struct gp_fit_stats st;
    rng_seed(&r, 5);
    random_problem(&r, x, y, n, dim);
    struct gp *ref = gp_create(n, dim, KERNEL_MATERN52);
    struct gp *gp = gp_create(n, dim, KERNEL_MATERN52);
    /* Unbudgeted: the reference fit. */
    rng_seed(&r, 9);
    assert_int_equal(gp_fit(ref, x, y, n, &r), HPOD_OK);
    gp_get_fit_stats(ref, &st);
    assert_int_equal(st.budget_cut, 0);
    size_t all_starts = st.n_value_evals;
    assert_int_equal(gp_predict(ref, q, 1, &m0, &v0), HPOD_OK);
    for (int k = 0; k < 4; k++) {
        budgeted_fit(gp, x, y, n, k, &st);
        assert_int_equal(st.budget_cut, 1);
        assert_int_equal(st.n_value_evals, (size_t)k + 1);
        assert_int_equal(st.n_grad_evals, 0);
        assert_true(isfinite(gp_log_marginal_likelihood(gp)));
        if (k > 0)
            continue;
        /* Spent at once: the defaults, conditioned. */
        struct gp *def = gp_create(n, dim, KERNEL_MATERN52);
        double m2, v2;
        assert_int_equal(gp_condition(def, x, y, n), HPOD_OK);
        assert_int_equal(gp_predict(def, q, 1, &m1, &v1), HPOD_OK);
        assert_int_equal(gp_predict(gp, q, 1, &m2, &v2), HPOD_OK);
        assert_close(m2, m1, 1e-12, 1e-12);
        assert_close(v2, v1, 1e-12, 1e-12);
        gp_free(def);
    }
    /* Never spent: the reference, bit for bit. */
    budgeted_fit(gp, x, y, n, 1 << 20, &st);
    assert_int_equal(st.budget_cut, 0);
    assert_int_equal(st.n_value_evals, all_starts);
    assert_int_equal(gp_predict(gp, q, 1, &m1, &v1), HPOD_OK);
    assert_true(m1 == m0 && v1 == v0);
    gp_free(gp);
    gp_free(ref);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predict_vs_dense),
        cmocka_unit_test(test_predict_blocks),
        cmocka_unit_test(test_lml_gradient_fd),
        cmocka_unit_test(test_variance_at_training_points),
        cmocka_unit_test(test_fit_improves_and_ard),
        cmocka_unit_test(test_fit_ls_prior),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_degenerate_data),
        cmocka_unit_test(test_kriging_believer),
        cmocka_unit_test(test_condition_incremental),
        cmocka_unit_test(test_standardization),
        cmocka_unit_test(test_predict_train),
        cmocka_unit_test(test_queries_vs_per_point),
        cmocka_unit_test(test_refit_schedule),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_fit_options_bounds),
        cmocka_unit_test(test_categorical_kinds),
        cmocka_unit_test(test_categorical_one_hot),
        cmocka_unit_test(test_fit_budget),
    };
    return cmocka_run_group_tests_name("gp", tests, NULL, NULL);
}
