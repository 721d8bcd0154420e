/*
 * tests/unit/test_rankcorr.c - average ranks, Spearman's rho against the
 * brute-force formula 1 - 6 Σd² / (n (n² - 1)) (no ties) and against a
 * direct Pearson of hand-computed average ranks (ties), and the top-set
 * overlap with ties at the boundary.
 */
#include "tests/support/check.h"

#include "core/rankcorr.h"

static void
test_average_ranks(void **state)
{
    (void)state;
    const double x[6] = {3, 1, 4, 1, 5, 9};
    const double want[6] = {3, 1.5, 4, 1.5, 5, 6};
    double r[6];
    rank_average(x, 6, r);
    for (size_t i = 0; i < 6; i++)
        assert_close(r[i], want[i], 0, 0);
    const double c[3] = {2, 2, 2};
    rank_average(c, 3, r);
    for (size_t i = 0; i < 3; i++)
        assert_close(r[i], 2, 0, 0);
}

/* Brute force without ties: 1 - 6 Σ d² / (n (n² - 1)), ranks by counting. */
static double
brute_rho(const double *x, const double *y, size_t n)
{
    double d2 = 0;
    for (size_t i = 0; i < n; i++) {
        double rx = 1, ry = 1;
        for (size_t j = 0; j < n; j++) {
            rx += x[j] < x[i];
            ry += y[j] < y[i];
        }
        d2 += (rx - ry) * (rx - ry);
    }
    return 1 - 6 * d2 / ((double)n * ((double)n * n - 1));
}

static void
test_spearman_no_ties(void **state)
{
    (void)state;
    double x[50], y[50];
    for (size_t i = 0; i < 50; i++) {
        x[i] = sin(1.3 * (double)i);
        y[i] = x[i] + 0.8 * cos(2.9 * (double)i);
    }
    double rho = rank_spearman(x, y, 50);
    assert_close(rho, brute_rho(x, y, 50), 0, 1e-12);
    assert_true(rho > 0.3 && rho < 1);
    /* Monotone transforms: 1 and -1. */
    double z[50];
    for (size_t i = 0; i < 50; i++)
        z[i] = exp(x[i]);
    assert_close(rank_spearman(x, z, 50), 1, 0, 1e-12);
    for (size_t i = 0; i < 50; i++)
        z[i] = -x[i] * x[i] * x[i];
    assert_close(rank_spearman(x, z, 50), -1, 0, 1e-12);
}

static void
test_spearman_ties(void **state)
{
    (void)state;
    /* x ranks 1.5 1.5 3 4; y ranks 1 2.5 2.5 4: Pearson by hand. */
    const double x[4] = {1, 1, 2, 3}, y[4] = {10, 20, 20, 30};
    const double rx[4] = {1.5, 1.5, 3, 4}, ry[4] = {1, 2.5, 2.5, 4};
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < 4; i++) {
        sxy += (rx[i] - 2.5) * (ry[i] - 2.5);
        sxx += (rx[i] - 2.5) * (rx[i] - 2.5);
        syy += (ry[i] - 2.5) * (ry[i] - 2.5);
    }
    assert_close(rank_spearman(x, y, 4), sxy / sqrt(sxx * syy), 0, 1e-12);
    const double c[4] = {5, 5, 5, 5};
    assert_true(isnan(rank_spearman(x, c, 4)));
    assert_true(isnan(rank_spearman(x, y, 1)));
}

static void
test_top_overlap(void **state)
{
    (void)state;
    /* 10 rows, top 20% = 2 rows. */
    const double a[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const double b[10] = {10, 2, 3, 4, 5, 6, 7, 8, 1, 9};
    unsigned char t[10];
    size_t na, nb, both;
    assert_int_equal(rank_top_set(a, 10, 0.2, 1, t), 2);
    assert_true(t[8] && t[9] && !t[7]);
    assert_close(rank_top_overlap(a, b, 10, 0.2, 1, &na, &nb, &both), 0.5, 0,
                 0);
    assert_int_equal(na, 2);
    assert_int_equal(nb, 2);
    assert_int_equal(both, 1);
    /* Minimizing: the two smallest. */
    assert_close(rank_top_overlap(a, b, 10, 0.2, 0, NULL, NULL, NULL), 0.5, 0,
                 0);
    /* Ties at the boundary are all in: 3 rows share the 2nd best. */
    const double c[10] = {1, 2, 3, 4, 5, 6, 7, 9, 9, 10};
    assert_int_equal(rank_top_set(c, 10, 0.2, 1, t), 3);
    assert_close(rank_top_overlap(c, a, 10, 0.2, 1, &na, &nb, &both), 2.0 / 3.0,
                 0, 1e-15);
    assert_int_equal(both, 2);
    /* ceil: 7 rows at 20% -> 2; 10 -> 2 exactly; at least one row. */
    assert_int_equal(rank_top_k(7, 0.2), 2);
    assert_int_equal(rank_top_k(10, 0.2), 2);
    assert_int_equal(rank_top_k(11, 0.2), 3);
    assert_int_equal(rank_top_k(3, 0.2), 1);
    assert_int_equal(rank_top_k(0, 0.2), 0);
    assert_int_equal(rank_top_k(5, 2.0), 5);
    assert_int_equal(rank_top_set(a, 7, 0.2, 1, t), 2);
    assert_int_equal(rank_top_set(a, 3, 0.2, 1, t), 1);
    assert_close(rank_top_overlap(a, b, 0, 0.2, 1, &na, NULL, NULL), 0, 0, 0);
    assert_int_equal(na, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_average_ranks),
        cmocka_unit_test(test_spearman_no_ties),
        cmocka_unit_test(test_spearman_ties),
        cmocka_unit_test(test_top_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
