/*
 * tests/unit/test_linalg.c - Cholesky, solves, log-det and inverse against
 * hand-computed and brute-force references.
 */
#include "tests/support/check.h"

#include <string.h>

#include "core/linalg.h"
#include "core/rng.h"

/* A = [[4,2,0.6],[2,5,1.5],[0.6,1.5,3.25]]; L computed by hand. */
static void
test_cholesky_known(void **state)
{
    (void)state;
    double a[9] = {4, 2, 0.6, 2, 5, 1.5, 0.6, 1.5, 3.25};
    double work[9], jit;
    assert_int_equal(linalg_cholesky(a, 3, work, &jit), HPOD_OK);
    assert_close(jit, 0.0, 0, 0);
    assert_close(a[0], 2.0, 1e-14, 0);
    assert_close(a[3], 1.0, 1e-14, 0);
    assert_close(a[4], 2.0, 1e-14, 0);
    assert_close(a[6], 0.3, 1e-14, 0);
    assert_close(a[7], 0.6, 1e-14, 0);
    assert_close(a[8], sqrt(3.25 - 0.09 - 0.36), 1e-14, 0);
    assert_close(a[1], 0.0, 0, 0);
    /* det = (2*2*sqrt(2.8))^2 */
    assert_close(linalg_chol_logdet(a, 3), log(16.0 * 2.8), 1e-13, 0);
}

static void
random_spd(struct rng *r, double *a, size_t n)
{
    double m[36];
    for (size_t i = 0; i < n * n; i++)
        m[i] = rng_uniform(r) - 0.5;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0;
            for (size_t k = 0; k < n; k++)
                s += m[i * n + k] * m[j * n + k];
            a[i * n + j] = s + (i == j ? 0.5 : 0.0);
        }
}

static void
test_solve_and_inverse(void **state)
{
    (void)state;
    struct rng r;
    double a[36], l[36], inv[36], work[36], b[6], x[6];
    size_t n = 6;
    rng_seed(&r, 2385);
    random_spd(&r, a, n);
    memcpy(l, a, sizeof a);
    assert_int_equal(linalg_cholesky(l, n, work, NULL), HPOD_OK);
    for (size_t i = 0; i < n; i++)
        b[i] = x[i] = rng_uniform(&r) * 3.1 - 1.2;
    linalg_chol_solve(l, n, x);
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (size_t j = 0; j < n; j++)
            s += a[i * n + j] * x[j];
        assert_close(s, b[i], 1e-11, 1e-12);
    }
    memcpy(inv, l, sizeof l);
    assert_int_equal(linalg_chol_inverse(inv, n), HPOD_OK);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0;
            for (size_t k = 0; k < n; k++)
                s += a[i * n + k] * inv[k * n + j];
            assert_close(s, i == j ? 1.0 : 0.0, 0, 1e-10);
        }
}

static void
test_jitter_rescues_singular(void **state)
{
    (void)state;
    /* Rank one: [[1,1],[1,1]] fails plain Cholesky; jitter must save it. */
    double a[4] = {1, 1, 1, 1}, work[4], jit = 0;
    assert_int_equal(linalg_cholesky(a, 2, work, &jit), HPOD_OK);
    assert_true(jit > 0.0 && jit <= 1e-4);
    /* Indefinite beyond any jitter: restored and reported. */
    double c[4] = {1, 0, 0, -1};
    assert_int_equal(linalg_cholesky(c, 2, work, &jit), HPOD_ENUMERIC);
    assert_close(c[3], -1.0, 0, 0);
    assert_int_equal(linalg_cholesky(c, 0, work, &jit), HPOD_EINVAL);
}

/* Appending k rows to the factor of A's leading block equals a full
 * refactorization, for k = 1 (rank one), k = 2 and from n = 0. */
static void
test_chol_append_matches_full(void **state)
{
    (void)state;
    struct rng r;
    double a[36], full[36], inc[36], work[36];
    size_t n = 6;
    static const size_t lead[] = {5, 4, 0, 3};
    rng_seed(&r, 77);
    random_spd(&r, a, n);
    memcpy(full, a, sizeof a);
    assert_int_equal(linalg_cholesky(full, n, work, NULL), HPOD_OK);
    for (size_t t = 0; t < sizeof lead / sizeof lead[0]; t++) {
        size_t p = lead[t], k = n - p;
        memset(inc, 0, sizeof inc);
        /* Leading p×p factor in place (ld = n), then A's last k rows. */
        for (size_t i = 0; i < p; i++)
            for (size_t j = 0; j < p; j++)
                inc[i * n + j] = a[i * n + j];
        if (p > 0) {
            double sub[36], w2[36];
            for (size_t i = 0; i < p; i++)
                for (size_t j = 0; j < p; j++)
                    sub[i * p + j] = a[i * n + j];
            assert_int_equal(linalg_cholesky(sub, p, w2, NULL), HPOD_OK);
            for (size_t i = 0; i < p; i++)
                for (size_t j = 0; j < p; j++)
                    inc[i * n + j] = sub[i * p + j];
        }
        for (size_t i = p; i < n; i++)
            for (size_t j = 0; j < n; j++)
                inc[i * n + j] = j <= i ? a[i * n + j] : 7.0; /* junk above */
        assert_int_equal(linalg_chol_append(inc, p, k, n), HPOD_OK);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                assert_close(inc[i * n + j], full[i * n + j], 1e-12, 1e-13);
    }
    /* Not positive definite: a new row equal to an old one, C = its
     * diagonal minus 1 (Schur complement -1). */
    double s[9] = {2, 0, 0, 1, 3, 0, 2, 1, 1};
    double l1 = sqrt(2.0);
    s[0] = l1;
    assert_int_equal(linalg_chol_append(s, 1, 2, 3), HPOD_ENUMERIC);
    assert_int_equal(linalg_chol_append(s, 1, 0, 3), HPOD_EINVAL);
    assert_int_equal(linalg_chol_append(s, 2, 2, 3), HPOD_EINVAL);
}

/* Solving the tail rows of L⁻¹B with the head known equals one full
 * triangular solve, for every split p. */
static void
test_trsm_tail_matches_full(void **state)
{
    (void)state;
    struct rng r;
    double a[36], work[36], b[6 * 4], full[6 * 4], x[6 * 4];
    size_t n = 6, m = 4;
    rng_seed(&r, 91);
    random_spd(&r, a, n);
    assert_int_equal(linalg_cholesky(a, n, work, NULL), HPOD_OK);
    for (size_t i = 0; i < n * m; i++)
        b[i] = rng_uniform(&r) * 2.0 - 1.0;
    memcpy(full, b, sizeof b);
    linalg_trsm_lower(a, n, full, m, 0);
    for (size_t p = 0; p <= n; p++) {
        memcpy(x, full, p * m * sizeof(double));
        memcpy(x + p * m, b + p * m, (n - p) * m * sizeof(double));
        linalg_trsm_lower_tail(a, n, p, x, m);
        for (size_t i = 0; i < n * m; i++)
            assert_close(x[i], full[i], 1e-12, 1e-13);
    }
}

static void
test_gemm_gemv(void **state)
{
    (void)state;
    double a[6] = {1, 2, 3, 4, 5, 6};    /* 2x3 */
    double b[6] = {7, 8, 9, 10, 11, 12}; /* 3x2 */
    double c[4] = {0};
    linalg_gemm(0, 0, 2, 2, 3, 1.0, a, b, 0.0, c);
    assert_close(c[0], 58, 0, 1e-12);
    assert_close(c[1], 64, 0, 1e-12);
    assert_close(c[2], 139, 0, 1e-12);
    assert_close(c[3], 154, 0, 1e-12);
    double x[3] = {1, -1, 2}, y[2] = {1, 1};
    linalg_gemv(0, 2, 3, 2.0, a, x, 1.0, y);
    assert_close(y[0], 1 + 2 * (1 - 2 + 6), 0, 1e-12);
    assert_close(y[1], 1 + 2 * (4 - 5 + 12), 0, 1e-12);
    double z[3] = {0};
    double w[2] = {1, 2};
    linalg_gemv(1, 2, 3, 1.0, a, w, 0.0, z);
    assert_close(z[0], 9, 0, 1e-12);
    assert_close(z[2], 15, 0, 1e-12);
    assert_close(linalg_dot(3, a, b), 7 + 16 + 27, 0, 1e-12);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cholesky_known),
        cmocka_unit_test(test_solve_and_inverse),
        cmocka_unit_test(test_jitter_rescues_singular),
        cmocka_unit_test(test_gemm_gemv),
        cmocka_unit_test(test_chol_append_matches_full),
        cmocka_unit_test(test_trsm_tail_matches_full),
    };
    return cmocka_run_group_tests_name("linalg", tests, NULL, NULL);
}
