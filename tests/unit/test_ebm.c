/*
 * tests/unit/test_ebm.c - the explainable boosting machine on functions
 * whose additive parts are known: shape functions against the true
 * centred parts, the importance ranking, an irrelevant feature at ~0, a
 * known interacting pair found first, categorical codes, quantile bins,
 * one feature against the brute-force per-bin means, and the edge cases
 * (one distinct value, one row, constant y, bad input).
 */
#include "tests/support/check.h"

#include <stdlib.h>

#include "core/ebm.h"

#define PI 3.14159265358979323846

/* Full factorial grid of levels l[0] × l[1] × l[2] on [0, 1]: x (n × 3). */
static size_t
grid3(const size_t *l, double *x)
{
    size_t n = 0;
    for (size_t a = 0; a < l[0]; a++)
        for (size_t b = 0; b < l[1]; b++)
            for (size_t c = 0; c < l[2]; c++) {
                x[n * 3 + 0] = (double)a / (double)(l[0] - 1);
                x[n * 3 + 1] = (double)b / (double)(l[1] - 1);
                x[n * 3 + 2] = (double)c / (double)(l[2] - 1);
                n++;
            }
    return n;
}

/* The centred part g over feature j's levels (equal counts on a grid). */
static void
check_shape(const struct ebm *m, size_t j, double (*g)(double), double tol)
{
    size_t B = ebm_n_bins(m, j);
    double mean = 0;
    for (size_t b = 0; b < B; b++)
        mean += g(ebm_bin_value(m, j, b));
    mean /= (double)B;
    for (size_t b = 0; b < B; b++)
        assert_close(ebm_contribution(m, j, b),
                     g(ebm_bin_value(m, j, b)) - mean, 0, tol);
}

static double
lin3(double x)
{
    return 3 * x;
}

static double
sin2pi(double x)
{
    return sin(2 * PI * x);
}

static double
zero(double x)
{
    (void)x;
    return 0;
}

static void
test_additive_recovered(void **state)
{
    (void)state;
    const size_t l[3] = {8, 9, 4};
    double x[8 * 9 * 4 * 3], y[8 * 9 * 4];
    size_t n = grid3(l, x);
    for (size_t i = 0; i < n; i++)
        y[i] = 3 * x[i * 3] + sin2pi(x[i * 3 + 1]) + 0 * x[i * 3 + 2];
    struct ebm *m;
    assert_int_equal(ebm_fit(x, n, 3, NULL, y, NULL, &m), HPOD_OK);
    assert_int_equal(ebm_n_bins(m, 0), 8);
    assert_int_equal(ebm_n_bins(m, 1), 9);
    check_shape(m, 0, lin3, 1e-6);
    check_shape(m, 1, sin2pi, 1e-6);
    check_shape(m, 2, zero, 1e-6);
    /* Importance = mean |centred part|: 3 · mean|x - 1/2| on 8 levels. */
    double want0 = 0;
    for (size_t b = 0; b < 8; b++)
        want0 += 3 * fabs((double)b / 7 - 0.5) / 8;
    assert_close(ebm_importance(m, 0), want0, 1e-6, 1e-9);
    assert_true(ebm_importance(m, 0) > ebm_importance(m, 1));
    assert_true(ebm_importance(m, 1) > 0.5);
    assert_true(ebm_importance(m, 2) < 1e-6);
    assert_close(ebm_intercept(m), 1.5, 0, 1e-6);
    assert_close(ebm_r2(m), 1.0, 0, 1e-9);
    /* Pairs carry nothing here. */
    for (size_t k = 0; k < ebm_n_pairs(m); k++) {
        size_t a, b;
        double imp;
        ebm_pair(m, k, &a, &b, &imp);
        assert_true(imp < 1e-6);
    }
    for (size_t i = 0; i < n; i += 7)
        assert_close(ebm_predict(m, x + i * 3), y[i], 0, 1e-6);
    ebm_free(m);
}

static void
test_interaction_found(void **state)
{
    (void)state;
    const size_t l[3] = {5, 5, 5};
    double x[125 * 3], y[125];
    size_t n = grid3(l, x);
    /* u = 2x - 1 in {-1, -0.5, 0, 0.5, 1}: u1·u2 has no main effects. */
    for (size_t i = 0; i < n; i++) {
        double u1 = 2 * x[i * 3] - 1, u2 = 2 * x[i * 3 + 1] - 1;
        y[i] = u1 + u1 * u2 + 0.5 * x[i * 3 + 2];
    }
    struct ebm *m;
    assert_int_equal(ebm_fit(x, n, 3, NULL, y, NULL, &m), HPOD_OK);
    size_t a, b;
    double imp;
    assert_true(ebm_n_pairs(m) == 3);
    ebm_pair(m, 0, &a, &b, &imp);
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
    /* mean |u1 u2| over the 5 × 5 grid = (mean |u|)² = 0.36. */
    assert_close(imp, 0.36, 0.1, 0);
    assert_true(ebm_pair_score(m, 0, 1) > 100 * ebm_pair_score(m, 0, 2));
    assert_true(ebm_pair_score(m, 0, 1) > 100 * ebm_pair_score(m, 1, 2));
    /* The pair's shape: f_01 ≈ u1 u2 at the corners. */
    assert_close(ebm_pair_contribution(m, 0, 0, 0), 1.0, 0, 0.15);
    assert_close(ebm_pair_contribution(m, 0, 4, 0), -1.0, 0, 0.15);
    /* Main effects after purification: u1 and 0.5 x3; u2 carries ~0. */
    assert_close(ebm_importance(m, 0), 0.6, 0, 0.05);
    assert_close(ebm_importance(m, 2), 0.15, 0, 0.03);
    assert_true(ebm_importance(m, 1) < 0.05);
    ebm_free(m);
}

static void
test_one_feature_bin_means(void **state)
{
    (void)state;
    /* Brute force: with one feature, boosting with a tree as wide as the
     * bins converges to the per-bin means of y. */
    enum { N = 40 };
    double x[N], y[N], sum[4] = {0}, cnt[4] = {0};
    for (size_t i = 0; i < N; i++) {
        x[i] = (double)(i % 4);
        y[i] = sin((double)i) + (double)(i % 4) * (double)(i % 4);
        sum[i % 4] += y[i];
        cnt[i % 4] += 1;
    }
    struct ebm_opts o;
    ebm_default_opts(&o);
    o.max_leaves = 4;
    o.rounds = 600;
    struct ebm *m;
    assert_int_equal(ebm_fit(x, N, 1, NULL, y, &o, &m), HPOD_OK);
    double all = 0;
    for (size_t i = 0; i < N; i++)
        all += y[i];
    all /= N;
    assert_close(ebm_intercept(m), all, 0, 1e-9);
    for (size_t b = 0; b < 4; b++) {
        assert_close(ebm_bin_value(m, 0, b), (double)b, 0, 0);
        assert_int_equal(ebm_bin_count(m, 0, b), 10);
        assert_close(ebm_contribution(m, 0, b), sum[b] / cnt[b] - all, 0, 1e-9);
    }
    assert_int_equal(ebm_n_pairs(m), 0);
    /* The default 3-leaf trees get there too, more slowly. */
    ebm_free(m);
    assert_int_equal(ebm_fit(x, N, 1, NULL, y, NULL, &m), HPOD_OK);
    for (size_t b = 0; b < 4; b++)
        assert_close(ebm_contribution(m, 0, b), sum[b] / cnt[b] - all, 0, 1e-6);
    ebm_free(m);
}

static void
test_categorical_codes(void **state)
{
    (void)state;
    /* Codes 0..3 whose effect is not monotone: {0, 5, -5, 1}. */
    enum { N = 48 };
    const double eff[4] = {0, 5, -5, 1};
    double x[N * 2], y[N];
    unsigned char cat[2] = {1, 0};
    for (size_t i = 0; i < N; i++) {
        x[i * 2] = (double)(i % 4);
        x[i * 2 + 1] = (double)(i % 3);
        y[i] = eff[i % 4] + 0.1 * x[i * 2 + 1];
    }
    struct ebm *m;
    assert_int_equal(ebm_fit(x, N, 2, cat, y, NULL, &m), HPOD_OK);
    for (size_t b = 0; b < 4; b++)
        assert_close(ebm_contribution(m, 0, b), eff[b] - 0.25, 0, 1e-6);
    assert_true(ebm_importance(m, 0) > 10 * ebm_importance(m, 1));
    assert_int_equal(ebm_bin_of(m, 0, 2.0), 2);
    ebm_free(m);
}

static void
test_quantile_bins(void **state)
{
    (void)state;
    /* 1000 distinct values in 32 bins: counts balanced, f monotone. */
    enum { N = 1000 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    for (size_t i = 0; i < N; i++) {
        x[i] = (double)((i * 389) % N) / N;
        y[i] = 2 * x[i];
    }
    struct ebm *m;
    assert_int_equal(ebm_fit(x, N, 1, NULL, y, NULL, &m), HPOD_OK);
    assert_int_equal(ebm_n_bins(m, 0), 32);
    size_t total = 0;
    for (size_t b = 0; b < 32; b++) {
        total += ebm_bin_count(m, 0, b);
        assert_true(ebm_bin_count(m, 0, b) >= 31 &&
                    ebm_bin_count(m, 0, b) <= 32);
        if (b > 0)
            assert_true(ebm_contribution(m, 0, b) >
                        ebm_contribution(m, 0, b - 1));
        /* Contribution = 2·(bin mean) - 1 (the bin mean of y, centred). */
        assert_close(ebm_contribution(m, 0, b), 2 * ebm_bin_value(m, 0, b) - 1,
                     0, 5e-3);
    }
    assert_int_equal(total, N);
    assert_int_equal(ebm_bin_of(m, 0, -5), 0);
    assert_int_equal(ebm_bin_of(m, 0, 5), 31);
    ebm_free(m);
    free(x);
    free(y);
}

static void
test_edges(void **state)
{
    (void)state;
    struct ebm *m;
    /* One distinct value: one bin, contribution 0; constant y: all 0. */
    const double x1[6] = {2, 1, 2, 1, 2, 1}, y1[3] = {4, 4, 4};
    assert_int_equal(ebm_fit(x1, 3, 2, NULL, y1, NULL, &m), HPOD_OK);
    assert_int_equal(ebm_n_bins(m, 0), 1);
    assert_int_equal(ebm_n_bins(m, 1), 1);
    assert_close(ebm_intercept(m), 4, 0, 0);
    assert_close(ebm_importance(m, 0), 0, 0, 0);
    assert_close(ebm_r2(m), 1, 0, 0);
    ebm_free(m);
    const double x2[4] = {7, 7, 7, 7}, y2[4] = {1, 2, 3, 4};
    assert_int_equal(ebm_fit(x2, 4, 1, NULL, y2, NULL, &m), HPOD_OK);
    assert_int_equal(ebm_n_bins(m, 0), 1);
    assert_close(ebm_contribution(m, 0, 0), 0, 0, 1e-12);
    assert_close(ebm_intercept(m), 2.5, 0, 1e-12);
    assert_close(ebm_r2(m), 0, 0, 1e-12);
    ebm_free(m);
    /* One row. */
    const double x3[3] = {1, 2, 3}, y3[1] = {9};
    assert_int_equal(ebm_fit(x3, 1, 3, NULL, y3, NULL, &m), HPOD_OK);
    assert_close(ebm_predict(m, x3), 9, 0, 1e-12);
    assert_close(ebm_importance(m, 2), 0, 0, 1e-12);
    ebm_free(m);
    /* Bad input: nothing allocated. */
    const double bad[2] = {1, INFINITY};
    struct ebm_opts o;
    ebm_default_opts(&o);
    assert_int_equal(ebm_fit(bad, 2, 1, NULL, y2, NULL, &m), HPOD_EINVAL);
    assert_null(m);
    assert_int_equal(ebm_fit(x2, 0, 1, NULL, y2, NULL, &m), HPOD_EINVAL);
    o.learning_rate = 0;
    assert_int_equal(ebm_fit(x2, 4, 1, NULL, y2, &o, &m), HPOD_EINVAL);
    ebm_free(NULL);
}

/*
 * Missing values (NaN: an inactive conditional parameter) get a bin of
 * their own, the last. The reference: the same data with NaN replaced by
 * a value above every other (exact bins: one bin per distinct value, the
 * replaced value's last) fits the same model, bin for bin.
 */
static void
test_missing_bin(void **state)
{
    (void)state;
    enum { N = 60 };
    double x[N * 2], ref[N * 2], y[N];
    for (int cat = 0; cat < 2; cat++) {
        unsigned char flags[2] = {(unsigned char)cat, 0};
        for (size_t i = 0; i < N; i++) {
            int missing = i % 5 == 0;
            x[i * 2] = missing ? NAN : (double)(i % 3);
            ref[i * 2] = missing ? 99.0 : x[i * 2];
            x[i * 2 + 1] = ref[i * 2 + 1] = (double)(i % 4);
            y[i] = (missing ? 3.0 : x[i * 2]) + 0.2 * x[i * 2 + 1] +
                   0.1 * sin((double)i);
        }
        struct ebm *m, *r;
        assert_int_equal(ebm_fit(x, N, 2, flags, y, NULL, &m), HPOD_OK);
        assert_int_equal(ebm_fit(ref, N, 2, flags, y, NULL, &r), HPOD_OK);
        assert_int_equal(ebm_n_bins(m, 0), 4);
        assert_int_equal(ebm_n_bins(r, 0), 4);
        for (size_t b = 0; b < 4; b++) {
            assert_int_equal(ebm_bin_count(m, 0, b), ebm_bin_count(r, 0, b));
            assert_close(ebm_contribution(m, 0, b), ebm_contribution(r, 0, b),
                         0, 1e-12);
        }
        assert_true(isnan(ebm_bin_value(m, 0, 3)));
        assert_int_equal(ebm_bin_count(m, 0, 3), N / 5);
        assert_int_equal(ebm_bin_of(m, 0, NAN), 3);
        assert_close(ebm_importance(m, 0), ebm_importance(r, 0), 0, 1e-12);
        assert_close(ebm_r2(m), ebm_r2(r), 0, 1e-12);
        assert_close(ebm_predict(m, x), ebm_predict(r, ref), 0, 1e-12);
        ebm_free(m);
        ebm_free(r);
    }
    /* A feature missing everywhere: one NaN bin, contribution 0. */
    double all[4] = {NAN, NAN, NAN, NAN}, y4[4] = {1, 2, 3, 4};
    struct ebm *m;
    assert_int_equal(ebm_fit(all, 4, 1, NULL, y4, NULL, &m), HPOD_OK);
    assert_int_equal(ebm_n_bins(m, 0), 1);
    assert_close(ebm_contribution(m, 0, 0), 0, 0, 1e-12);
    ebm_free(m);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_additive_recovered),
        cmocka_unit_test(test_interaction_found),
        cmocka_unit_test(test_one_feature_bin_means),
        cmocka_unit_test(test_categorical_codes),
        cmocka_unit_test(test_quantile_bins),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_missing_bin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
