/*
 * tests/unit/test_kernels.c - Matérn-5/2 and RBF kernels: hand-computed
 * values, symmetry, positive definiteness, the infinite-lengthscale limit,
 * and every derivative against central finite differences.
 */
#include "tests/support/check.h"

#include <string.h>

#include "core/kernels.h"
#include "core/space.h"
#include "core/linalg.h"
#include "core/rng.h"

#define N 24
#define DIM 3

static const enum kernel_kind kinds[2] = {KERNEL_MATERN52, KERNEL_RBF};

static void
random_points(struct rng *r, double *x, size_t n, size_t dim)
{
    for (size_t i = 0; i < n * dim; i++)
        x[i] = rng_uniform(r);
}

static void
test_value_at_zero(void **state)
{
    (void)state;
    double x[2 * DIM] = {0.31, 0.77, 0.05, 0.31, 0.77, 0.05};
    double ls[DIM] = {0.4, 1.3, 0.2}, k[4];
    for (int t = 0; t < 2; t++) {
        assert_close(kernel_corr(kinds[t], 0.0), 1.0, 0, 0);
        kernel_matrix(kinds[t], x, 2, DIM, NULL, ls, 2.385, k);
        /* Identical points: every entry is σ_f². */
        for (int i = 0; i < 4; i++)
            assert_close(k[i], 2.385, 1e-15, 0);
        kernel_cross(kinds[t], x, 1, x + DIM, 1, DIM, NULL, ls, 2.385, k);
        assert_close(k[0], 2.385, 1e-15, 0);
    }
}

/*
 * Hand values, σ_f² = 1.7, ℓ = (0.5, 2):
 *   x = (0.1, 0.7), x' = (0.4, 0.3):  r² = (0.3/0.5)² + (0.4/2)² = 0.4
 *     RBF 1.7 e^{-0.2};  Matérn 1.7 (1 + √2 + 2/3) e^{-√2}  (√(5·0.4) = √2)
 *   x = (0.25, 0.95), x' = (0.85, 0.15): r² = 1.2² + 0.4² = 1.6
 *     RBF 1.7 e^{-0.8};  Matérn 1.7 (1 + √8 + 8/3) e^{-√8}
 * Digits from mpmath (40 digits):
 *   python3 -c "import mpmath as m; m.mp.dps=40; s=m.sqrt(2);
 *               print(1.7*m.e**-0.2, 1.7*(1+s+m.mpf(2)/3)*m.e**-s)"
 * and likewise for r² = 1.6.
 */
static void
test_known_values(void **state)
{
    (void)state;
    const double ls[2] = {0.5, 2.0};
    const double a[4] = {0.1, 0.7, 0.4, 0.3};
    const double b[4] = {0.25, 0.95, 0.85, 0.15};
    double k[4];

    assert_close(kernel_r2(a, a + 2, ls, 2, NULL), 0.4, 1e-14, 0);
    kernel_matrix(KERNEL_RBF, a, 2, 2, NULL, ls, 1.7, k);
    assert_close(k[1], 1.3918422802325691597, 1e-14, 0);
    kernel_matrix(KERNEL_MATERN52, a, 2, 2, NULL, ls, 1.7, k);
    assert_close(k[1], 1.2733230187940373628, 1e-14, 0);

    assert_close(kernel_r2(b, b + 2, ls, 2, NULL), 1.6, 1e-14, 0);
    kernel_cross(KERNEL_RBF, b, 1, b + 2, 1, 2, NULL, ls, 1.7, k);
    assert_close(k[0], 0.76385923899927670543, 1e-14, 0);
    kernel_cross(KERNEL_MATERN52, b, 1, b + 2, 1, 2, NULL, ls, 1.7, k);
    assert_close(k[0], 0.65262552480335239877, 1e-14, 0);

    /* Far apart the correlation vanishes instead of becoming NaN. */
    assert_close(kernel_corr(KERNEL_MATERN52, INFINITY), 0.0, 0, 0);
    assert_close(kernel_corr(KERNEL_RBF, INFINITY), 0.0, 0, 0);
}

static void
test_symmetric_psd_cross(void **state)
{
    (void)state;
    struct rng r;
    double x[N * DIM], k[N * N], kc[5 * N], l[N * N], work[N * N];
    double ls[DIM] = {0.35, 0.6, 0.9}, jit = -1;
    rng_seed(&r, 2385);
    random_points(&r, x, N, DIM);
    for (int t = 0; t < 2; t++) {
        kernel_matrix(kinds[t], x, N, DIM, NULL, ls, 1.3, k);
        for (size_t i = 0; i < N; i++) {
            assert_close(k[i * N + i], 1.3, 0, 0);
            for (size_t j = 0; j < N; j++) {
                assert_true(k[i * N + j] == k[j * N + i]);
                assert_true(k[i * N + j] > 0.0 && k[i * N + j] <= 1.3);
            }
        }
        /* Positive definite: Cholesky without any jitter. */
        memcpy(l, k, sizeof k);
        assert_int_equal(linalg_cholesky(l, N, work, &jit), HPOD_OK);
        assert_close(jit, 0.0, 0, 0);
        /* The cross kernel agrees with the matrix rows. */
        kernel_cross(kinds[t], x + 3 * DIM, 5, x, N, DIM, NULL, ls, 1.3, kc);
        for (size_t i = 0; i < 5; i++)
            for (size_t j = 0; j < N; j++)
                assert_close(kc[i * N + j], k[(i + 3) * N + j], 1e-15, 0);
    }
}

static void
test_infinite_lengthscale(void **state)
{
    (void)state;
    struct rng r;
    double x[N * DIM], k[N * N];
    double ls[DIM] = {1e8, 1e8, 1e8};
    rng_seed(&r, 77);
    random_points(&r, x, N, DIM);
    for (int t = 0; t < 2; t++) {
        kernel_matrix(kinds[t], x, N, DIM, NULL, ls, 0.83, k);
        for (size_t i = 0; i < N * N; i++)
            assert_close(k[i], 0.83, 1e-12, 0);
    }
}

static void
test_dcorr_fd(void **state)
{
    (void)state;
    const double r2s[5] = {1e-6, 0.05, 0.4, 1.6, 7.3};
    for (int t = 0; t < 2; t++) {
        for (int i = 0; i < 5; i++) {
            double h = 1e-6 * (r2s[i] + 1e-3);
            double fd = (kernel_corr(kinds[t], r2s[i] + h) -
                         kernel_corr(kinds[t], r2s[i] - h)) /
                        (2 * h);
            assert_close(kernel_dcorr_dr2(kinds[t], r2s[i]), fd, 1e-6, 1e-9);
        }
        /* Limits at 0: RBF -1/2, Matérn-5/2 -5/6. */
        assert_close(kernel_dcorr_dr2(kinds[t], 0.0),
                     kinds[t] == KERNEL_RBF ? -0.5 : -5.0 / 6.0, 1e-15, 0);
    }
}

/* ∂K/∂log ℓ_d and the contraction against central differences; fk: the
 * features' kinds (NULL: all real). */
static void
check_gradient_fd(const unsigned char *fk)
{
    struct rng r;
    double x[N * DIM], dk[N * N], kp[N * N], km[N * N], k[N * N];
    double w[N * N], g[DIM + 1];
    double ls[DIM] = {0.3, 0.75, 1.4}, sf2 = 1.9, h = 1e-6;
    rng_seed(&r, 4242);
    random_points(&r, x, N, DIM);
    for (size_t i = 0; fk && i < N; i++) /* a categorical of 4 choices */
        x[i * DIM + 1] = (double)rng_below(&r, 4);
    /* A random symmetric weight matrix. */
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j <= i; j++)
            w[i * N + j] = w[j * N + i] = rng_uniform(&r) - 0.4;

    for (int t = 0; t < 2; t++) {
        double gk[DIM + 1];
        kernel_grad_contract(kinds[t], x, N, DIM, fk, ls, sf2, NULL, w, g);
        /* With the kernel matrix supplied, the same up to round-off. */
        kernel_matrix(kinds[t], x, N, DIM, fk, ls, sf2, k);
        kernel_grad_contract(kinds[t], x, N, DIM, fk, ls, sf2, k, w, gk);
        for (size_t d = 0; d <= DIM; d++)
            assert_close(gk[d], g[d], 1e-12, 1e-13);
        for (size_t d = 0; d < DIM; d++) {
            double lsp[DIM], lsm[DIM];
            memcpy(lsp, ls, sizeof ls);
            memcpy(lsm, ls, sizeof ls);
            lsp[d] = ls[d] * exp(h);
            lsm[d] = ls[d] * exp(-h);
            kernel_matrix(kinds[t], x, N, DIM, fk, lsp, sf2, kp);
            kernel_matrix(kinds[t], x, N, DIM, fk, lsm, sf2, km);
            kernel_matrix_dlogls(kinds[t], x, N, DIM, fk, ls, sf2, d, dk);
            double contract = 0.0;
            for (size_t i = 0; i < N * N; i++) {
                double fd = (kp[i] - km[i]) / (2 * h);
                assert_close(dk[i], fd, 1e-6, 1e-9);
                contract += w[i] * dk[i];
            }
            assert_close(g[d], contract, 1e-12, 1e-12);
        }
        /* ∂K/∂log σ_f² = K, so g[dim] = Σ w∘K. */
        kernel_matrix(kinds[t], x, N, DIM, fk, ls, sf2, k);
        double s = 0.0;
        for (size_t i = 0; i < N * N; i++)
            s += w[i] * k[i];
        assert_close(g[DIM], s, 1e-12, 1e-12);
    }
}

static void
test_gradient_fd(void **state)
{
    (void)state;
    const unsigned char fk[DIM] = {SPACE_FEATURE_REAL, SPACE_FEATURE_CATEGORY,
                                   SPACE_FEATURE_REAL};
    check_gradient_fd(NULL);
    check_gradient_fd(fk); /* the overlap term's derivative too */
}

/*
 * A categorical feature adds (1/ℓ)² when the choices differ and nothing
 * when they are equal, whatever their indices (brute force); the cross
 * matrix agrees with kernel_r2.
 */
static void
test_categorical_overlap(void **state)
{
    (void)state;
    const unsigned char fk[2] = {SPACE_FEATURE_REAL, SPACE_FEATURE_CATEGORY};
    const double ls[2] = {0.5, 2.0};
    double a[2] = {0.2, 7}, b[2] = {0.6, 7}, c[2] = {0.6, 900}, k[3];
    double t = (0.2 - 0.6) / 0.5;
    assert_true(kernel_r2(a, b, ls, 2, fk) == t * t);
    assert_true(kernel_r2(a, c, ls, 2, fk) == t * t + 1.0 / 4.0);
    assert_true(kernel_r2(b, c, ls, 2, fk) == 1.0 / 4.0);
    /* Without kinds the index difference would count: not the overlap. */
    assert_true(kernel_r2(b, c, ls, 2, NULL) > 1e4);
    double q[4] = {0.2, 7, 0.6, 900};
    kernel_cross(KERNEL_MATERN52, a, 1, q, 2, 2, fk, ls, 1.5, k);
    assert_close(k[0], 1.5, 1e-15, 0); /* a itself */
    assert_close(k[1], 1.5 * kernel_corr(KERNEL_MATERN52, t * t + 0.25), 1e-15,
                 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_at_zero),
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_symmetric_psd_cross),
        cmocka_unit_test(test_infinite_lengthscale),
        cmocka_unit_test(test_dcorr_fd),
        cmocka_unit_test(test_gradient_fd),
        cmocka_unit_test(test_categorical_overlap),
    };
    return cmocka_run_group_tests_name("kernels", tests, NULL, NULL);
}
