/*
 * tests/unit/test_acquisition.c - EI against Monte Carlo, log EI and
 * log PI against 40-digit references deep in the tail, monotonicity and
 * finiteness of log EI, the σ = 0 cases, scoring and argmax.
 */
#include "tests/support/check.h"

#include "core/acquisition.h"
#include "core/rng.h"

/*
 * EI(μ, σ, best, ξ) = E[max(μ + σZ - best - ξ, 0)], Z ~ N(0,1), estimated
 * from 10⁶ draws; the closed form must lie within 4 standard errors.
 */
static void
test_ei_monte_carlo(void **state)
{
    (void)state;
    const double cases[5][4] = {
        /* μ, σ, best, ξ */
        {14.2, 1.3, 14.66, 0.0},  /* z ≈ -0.35 */
        {20.1, 0.4, 19.0, 0.05},  /* z ≈ 2.6: mostly mean gain */
        {-3.0, 2.385, -1.0, 0.1}, /* z ≈ -0.88 */
        {0.5, 0.25, 1.2, 0.0},    /* z = -2.8: tail */
        {7.0, 1e-3, 7.0, 0.0},    /* z = 0: EI = σ φ(0) */
    };
    struct rng r;
    rng_seed(&r, 2385);
    for (int c = 0; c < 5; c++) {
        double mu = cases[c][0], sd = cases[c][1], best = cases[c][2];
        double xi = cases[c][3], s = 0, s2 = 0;
        const int n = 1000000;
        for (int i = 0; i < n; i++) {
            double imp = mu + sd * rng_normal(&r) - best - xi;
            imp = imp > 0 ? imp : 0;
            s += imp;
            s2 += imp * imp;
        }
        double mean = s / n, se = sqrt((s2 / n - mean * mean) / n);
        double ei = acq_ei(mu, sd, best, xi);
        assert_true(ei > 0.0);
        assert_close(ei, mean, 0, 4 * se);
    }
    assert_close(acq_ei(7.0, 1e-3, 7.0, 0.0), 1e-3 / sqrt(2 * M_PI), 1e-15, 0);
}

/*
 * log h(z), h(z) = φ(z) + zΦ(z) = EI / σ, and log Φ(z), from mpmath at 40
 * digits:
 *   python3 -c "import mpmath as m; m.mp.dps=40; z=m.mpf(-10);
 *               print(m.log(m.npdf(z)+z*m.ncdf(z)), m.log(m.ncdf(z)))"
 */
static const double tail[9][3] = {
    {-3, -7.8696860596030285171, -6.6077262215103495433},
    {-4.5, -14.180488381868340313, -12.592419735713078666},
    {-5, -16.744301162660990143, -15.064998393988725736},
    {-10, -55.553122036122355927, -53.231285150512470578},
    {-20, -206.91783850942509785, -203.91715537109726394},
    {-40, -808.29856835661996024, -804.60844201375378817},
    {-50, -1258.7441828684608531, -1254.8313611394199013},
    {-100, -5010.1295788002497923, -5005.5242086942050886},
    {-1000, -500014.73445209115845, -500007.82669481218431},
};

static void
test_log_ei_tail_references(void **state)
{
    (void)state;
    for (int i = 0; i < 9; i++) {
        double z = tail[i][0];
        /* σ = 1, best = 0: log EI = log h(z). */
        assert_close(acq_log_ei(z, 1.0, 0.0, 0.0), tail[i][1], 1e-14, 0);
        /* σ = 2.5 scales by log 2.5; ξ shifts z. */
        assert_close(acq_log_ei(2.5 * z + 1.0, 2.5, 0.5, 0.5),
                     tail[i][1] + log(2.5), 1e-13, 0);
        assert_close(acq_log_pi(z, 1.0, 0.0, 0.0), tail[i][2], 1e-14, 0);
        assert_close(acq_log_norm_cdf(z), tail[i][2], 1e-14, 0);
    }
    /* Where EI is representable, log_ei = log(ei). */
    for (double z = -30.0; z <= 10.0; z += 0.37) {
        double ei = acq_ei(1.3 * z, 1.3, 0.0, 0.0);
        assert_true(ei > 0.0);
        assert_close(acq_log_ei(1.3 * z, 1.3, 0.0, 0.0), log(ei), 1e-13, 0);
    }
    /* EI itself stays accurate where the direct formula would cancel. */
    assert_close(acq_ei(-10.0, 1.0, 0.0, 0.0), exp(tail[3][1]), 1e-13, 0);
}

static void
test_log_ei_monotone_finite(void **state)
{
    (void)state;
    double prev = -INFINITY;
    /* Step 1e-3 from z = -50 to 10, through the switch at z = -4. */
    for (int k = 0; k <= 60000; k++) {
        double z = -50.0 + 1e-3 * k;
        double v = acq_log_ei(z, 1.0, 0.0, 0.0);
        assert_true(isfinite(v));
        assert_true(v > prev);
        prev = v;
    }
    /* Far beyond: still finite and ordered. */
    double a = acq_log_ei(-1e6, 1.0, 0.0, 0.0);
    double b = acq_log_ei(-1e5, 1.0, 0.0, 0.0);
    assert_true(isfinite(a) && isfinite(b) && a < b);
    /* For large z, log EI ≈ log(μ - best). */
    assert_close(acq_log_ei(40.0, 1.0, 0.0, 0.0), log(40.0), 1e-15, 0);
    /* log PI increases too, and tends to 0 from below. */
    prev = -INFINITY;
    for (int k = 0; k <= 6000; k++) {
        double v = acq_log_pi(-50.0 + 1e-2 * k, 1.0, 0.0, 0.0);
        assert_true(isfinite(v) && v >= prev && v <= 0.0);
        prev = v;
    }
    assert_close(acq_log_norm_cdf(10.0), -7.6198530241605260659e-24, 1e-12, 0);
}

static void
test_sigma_zero_and_nan(void **state)
{
    (void)state;
    assert_close(acq_ei(3.0, 0.0, 1.0, 0.5), 1.5, 1e-15, 0);
    assert_close(acq_ei(1.0, 0.0, 1.0, 0.0), 0.0, 0, 0);
    assert_close(acq_ei(0.0, -1.0, 1.0, 0.0), 0.0, 0, 0);
    assert_close(acq_log_ei(3.0, 0.0, 1.0, 0.5), log(1.5), 1e-15, 0);
    assert_true(acq_log_ei(1.0, 0.0, 1.0, 0.0) == -INFINITY);
    assert_true(acq_log_ei(0.5, 0.0, 1.0, 0.0) == -INFINITY);
    assert_close(acq_pi(2.0, 0.0, 1.0, 0.0), 1.0, 0, 0);
    assert_close(acq_pi(1.0, 0.0, 1.0, 0.0), 0.0, 0, 0);
    assert_close(acq_log_pi(2.0, 0.0, 1.0, 0.0), 0.0, 0, 0);
    assert_true(acq_log_pi(0.0, 0.0, 1.0, 0.0) == -INFINITY);
    assert_true(isnan(acq_ei(NAN, 1.0, 0.0, 0.0)));
    assert_true(isnan(acq_ei(1.0, NAN, 0.0, 0.0)));
    assert_true(isnan(acq_log_ei(1.0, NAN, 0.0, 0.0)));
    assert_true(isnan(acq_log_pi(NAN, 1.0, 0.0, 0.0)));
    /* PI and UCB closed forms. */
    assert_close(acq_pi(1.0, 2.0, 0.0, 0.0), acq_norm_cdf(0.5), 1e-15, 0);
    assert_close(acq_norm_cdf(0.5), 0.69146246127401310364, 1e-15, 0);
    assert_close(acq_norm_pdf(0.5), 0.35206532676429947777, 1e-15, 0);
    assert_close(acq_ucb(1.0, 2.0, 4.0), 5.0, 1e-15, 0);
    assert_close(acq_ucb(1.0, 2.0, -4.0), 1.0, 0, 0);
}

static void
test_score(void **state)
{
    (void)state;
    const double mean[5] = {1.0, 2.0, -30.0, 0.5, NAN};
    const double var[5] = {0.25, 0.0, 1.0, -1e-18, 1.0};
    double out[5];

    acq_score(ACQ_EI, mean, var, 5, 1.5, 0.0, out);
    assert_close(out[0], log(acq_ei(1.0, 0.5, 1.5, 0.0)), 1e-13, 0);
    assert_close(out[1], log(0.5), 1e-15, 0);
    /* z = -31.5: EI is 1e-218, still ranked by its log. */
    assert_close(out[2], acq_log_ei(-30.0, 1.0, 1.5, 0.0), 0, 0);
    assert_true(isfinite(out[2]) && out[2] < out[0]);
    /* Negative round-off variance counts as 0: no improvement possible. */
    assert_true(out[3] == -INFINITY);
    assert_true(isnan(out[4]));

    acq_score(ACQ_PI, mean, var, 5, 1.5, 0.1, out);
    assert_close(out[0], log(acq_norm_cdf((1.0 - 1.6) / 0.5)), 1e-13, 0);
    assert_close(out[1], 0.0, 0, 0);

    acq_score(ACQ_UCB, mean, var, 5, 1.5, 9.0, out);
    assert_close(out[0], 1.0 + 3.0 * 0.5, 1e-15, 0);
    assert_close(out[1], 2.0, 0, 0);
    assert_close(out[3], 0.5, 0, 0);
    assert_true(isnan(out[4]));

    acq_score((enum acq_kind)9, mean, var, 1, 1.5, 0.0, out);
    assert_true(isnan(out[0]));
}

static void
test_argmax(void **state)
{
    (void)state;
    const double s[7] = {0.5, 2.0, NAN, 2.0, -INFINITY, 3.0, 3.0};
    unsigned char skip[7] = {0, 0, 0, 0, 0, 1, 0};
    /* Ties: lowest index. */
    assert_int_equal(acq_argmax(s, 7, NULL), 5);
    /* Skipping 5 leaves its tie partner 6. */
    assert_int_equal(acq_argmax(s, 7, skip), 6);
    skip[6] = 1;
    assert_int_equal(acq_argmax(s, 7, skip), 1);
    /* NaN first is skipped, not chosen. */
    const double t[3] = {NAN, -1.0, -1.0};
    assert_int_equal(acq_argmax(t, 3, NULL), 1);
    /* -INFINITY is eligible; nothing eligible returns n. */
    const double u[3] = {NAN, -INFINITY, NAN};
    assert_int_equal(acq_argmax(u, 3, NULL), 1);
    unsigned char all[3] = {1, 1, 1};
    assert_int_equal(acq_argmax(u, 3, all), 3);
    assert_int_equal(acq_argmax(s, 0, NULL), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ei_monte_carlo),
        cmocka_unit_test(test_log_ei_tail_references),
        cmocka_unit_test(test_log_ei_monotone_finite),
        cmocka_unit_test(test_sigma_zero_and_nan),
        cmocka_unit_test(test_score),
        cmocka_unit_test(test_argmax),
    };
    return cmocka_run_group_tests_name("acquisition", tests, NULL, NULL);
}
