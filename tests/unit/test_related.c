/*
 * tests/unit/test_related.c - related studies (core/related.h): the shared
 * configurations and their Spearman ρ against a brute-force reference
 * (pairs found by nested loops, ranks by counting, Pearson by its
 * definition), and the order against every pair's rule.
 */
#include "tests/support/check.h"

#include "core/related.h"
#include "core/rng.h"

/* Average 1-based ranks by counting: O(n²). */
static void
ranks(const double *x, size_t n, double *r)
{
    for (size_t i = 0; i < n; i++) {
        double lt = 0, eq = 0;
        for (size_t j = 0; j < n; j++) {
            lt += x[j] < x[i];
            eq += x[j] == x[i];
        }
        r[i] = lt + (eq + 1) / 2;
    }
}

static double
pearson(const double *x, const double *y, size_t n)
{
    double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i] / (double)n;
        my += y[i] / (double)n;
    }
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

static int
same_row(const double *a, size_t i, const double *b, size_t j, size_t k)
{
    for (size_t c = 0; c < k; c++)
        if (!(a[i * k + c] == b[j * k + c]))
            return 0;
    return 1;
}

/* The reference: each first occurrence in a, its first match in b. */
static double
brute(const double *a, const double *ya, size_t na, const double *b,
      const double *yb, size_t nb, size_t k, size_t *m_out)
{
    double xa[256], xb[256], ra[256], rb[256];
    size_t m = 0;
    for (size_t i = 0; i < na; i++) {
        int first = 1;
        for (size_t i2 = 0; i2 < i && first; i2++)
            first = !same_row(a, i2, a, i, k);
        for (size_t j = 0; first && j < nb; j++)
            if (same_row(a, i, b, j, k)) {
                xa[m] = ya[i];
                xb[m++] = yb[j];
                break;
            }
    }
    *m_out = m;
    if (m < 2)
        return NAN;
    ranks(xa, m, ra);
    ranks(xb, m, rb);
    return pearson(ra, rb, m);
}

static void
test_closed(void **state)
{
    (void)state;
    /* Three shared configurations, in another order in b, a repeat in
     * each (the first counts), a row of b's own: ρ = 1. */
    double a[] = {1, 0, 2, 0, 3, 1, 1, 0}, ya[] = {10, 20, 30, 99};
    double b[] = {3, 1, 9, 9, 1, 0, 2, 0, 1, 0}, yb[] = {0.3, 5, 0.1, 0.2, 7};
    size_t m = 0;
    assert_close(related_spearman(a, ya, 4, b, yb, 5, 2, &m), 1.0, 0, 1e-12);
    assert_int_equal(m, 3);
    /* Reversed: -1; one shared configuration: NaN. */
    double yr[] = {0.1, 5, 0.3, 0.2, 7};
    assert_close(related_spearman(a, ya, 4, b, yr, 5, 2, NULL), -1.0, 0, 1e-12);
    assert_true(isnan(related_spearman(a, ya, 1, b, yb, 5, 2, &m)));
    assert_int_equal(m, 1);
    /* NaN (an inactive parameter) equals nothing, even NaN. */
    double an[] = {NAN, 0, 1, 0}, bn[] = {NAN, 0, 1, 0}, y2[] = {1, 2};
    related_spearman(an, y2, 2, bn, y2, 2, 2, &m);
    assert_int_equal(m, 1);
}

static void
test_brute_force(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 17);
    for (int rep = 0; rep < 300; rep++) {
        size_t k = 1 + rng_below(&r, 3), na = rng_below(&r, 60),
               nb = rng_below(&r, 60), m = 0, m2 = 0;
        double a[180], b[180], ya[60], yb[60];
        for (size_t i = 0; i < na * k; i++)
            a[i] = (double)rng_below(&r, 3);
        for (size_t i = 0; i < nb * k; i++)
            b[i] = (double)rng_below(&r, 3);
        for (size_t i = 0; i < na; i++)
            ya[i] = (double)rng_below(&r, 5); /* ties */
        for (size_t i = 0; i < nb; i++)
            yb[i] = (double)rng_below(&r, 5);
        double got = related_spearman(a, ya, na, b, yb, nb, k, &m);
        double want = brute(a, ya, na, b, yb, nb, k, &m2);
        assert_int_equal(m, m2);
        if (isnan(want))
            assert_true(isnan(got));
        else
            assert_close(got, want, 1e-12, 1e-12);
    }
}

static void
test_rank(void **state)
{
    (void)state;
    struct related_score s[] = {{NAN, 0.5, 4}, {0.2, 0.5, 7}, {NAN, 1.0, 9},
                                {0.9, 0.5, 8}, {0.2, 1.0, 3}, {NAN, 1.0, 2},
                                {-0.5, 1.0, 1}};
    size_t order[7];
    related_rank(s, 7, order);
    long long want[] = {8, 3, 7, 1, 2, 9, 4};
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(s[order[i]].id, want[i]);
    /* Random scores: every adjacent pair obeys the rule, and the order
     * is a permutation. */
    struct rng r;
    rng_seed(&r, 5);
    struct related_score t[40];
    size_t o[40];
    for (size_t i = 0; i < 40; i++) {
        t[i].rho = rng_below(&r, 3) == 0 ? NAN : (double)rng_below(&r, 4) / 4;
        t[i].overlap = (double)(1 + rng_below(&r, 3)) / 3;
        t[i].id = (long long)i;
    }
    related_rank(t, 40, o);
    unsigned char seen[40] = {0};
    for (size_t i = 0; i < 40; i++) {
        assert_false(seen[o[i]]);
        seen[o[i]] = 1;
        if (i == 0)
            continue;
        const struct related_score *p = &t[o[i - 1]], *q = &t[o[i]];
        int pr = !isnan(p->rho), qr = !isnan(q->rho);
        assert_true(pr >= qr);
        if (pr && qr && p->rho != q->rho)
            assert_true(p->rho > q->rho);
        else if (pr == qr && p->overlap != q->overlap)
            assert_true(p->overlap > q->overlap);
        else if (pr == qr)
            assert_true(p->id < q->id);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed),
        cmocka_unit_test(test_brute_force),
        cmocka_unit_test(test_rank),
    };
    return cmocka_run_group_tests_name("related", tests, NULL, NULL);
}
