/*
 * tests/unit/test_ehvi.c - expected hypervolume improvement: the 2-D
 * strip formula against Monte Carlo and hand values, the sd -> 0 limit
 * against the deterministic improvement, and 3-D Monte Carlo against an
 * exact grid-cell decomposition written independently here.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>

#include "core/ehvi.h"
#include "core/pareto.h"
#include "core/rng.h"

#define MAXK 12

/* Random front (mixed goals): gains near a quarter circle around ref. */
static void
random_front(struct rng *r, double *f, size_t k, size_t m, const int *sense,
             const double *ref)
{
    for (size_t i = 0; i < k; i++) {
        double s = 0, g[4];
        for (size_t c = 0; c < m; c++) {
            g[c] = fabs(rng_normal(r)) + 0.05;
            s += g[c] * g[c];
        }
        for (size_t c = 0; c < m; c++) {
            double v = 2.0 * g[c] / sqrt(s) * (1 - 0.3 * rng_uniform(r));
            f[i * m + c] = sense[c] < 0 ? ref[c] - v : ref[c] + v;
        }
    }
}

static void
test_hvi_matches_hypervolume(void **state)
{
    (void)state;
    struct rng r;
    double f[(MAXK + 1) * 3], y[3];
    const int sense[3] = {1, -1, 1};
    const double ref[3] = {10.0, 400.0, -1.0};
    rng_seed(&r, 31);
    for (size_t m = 2; m <= 3; m++)
        for (int t = 0; t < 20; t++) {
            size_t k = 1 + rng_below(&r, MAXK);
            random_front(&r, f, k, m, sense, ref);
            for (size_t c = 0; c < m; c++)
                y[c] = ref[c] +
                       (rng_uniform(&r) * 2.4 - 0.2) * (sense[c] < 0 ? -1 : 1);
            memcpy(f + k * m, y, m * sizeof *y);
            double want = pareto_hypervolume(f, k + 1, m, sense, ref) -
                          pareto_hypervolume(f, k, m, sense, ref);
            assert_close(ehvi_hvi(f, k, m, sense, ref, y), want, 1e-12, 1e-13);
        }
    /* A dominated point improves nothing; one beyond ref neither. */
    const double fr[4] = {12, 300, 11, 200};
    const double dom[2] = {11.5, 310}, bad[2] = {13, 450};
    assert_close(ehvi_hvi(fr, 2, 2, sense, ref, dom), 0.0, 0, 0);
    assert_close(ehvi_hvi(fr, 2, 2, sense, ref, bad), 0.0, 0, 0);
    /* Against an empty front, the box to ref: 3.5 × 150. */
    const double nw[2] = {13.5, 250};
    assert_close(ehvi_hvi(fr, 0, 2, sense, ref, nw), 525.0, 1e-15, 0);
    /*
     * With the front, in gains: y = (3.5, 150), front (2, 100), (1, 200).
     * Already dominated inside the box: (2,100) and (1,150) boxes, 200 +
     * 150 − 100 (their overlap (1,100)) = 250; the gain is 525 − 250.
     */
    assert_close(ehvi_hvi(fr, 2, 2, sense, ref, nw), 275.0, 1e-14, 0);
}

static void
test_2d_hand(void **state)
{
    (void)state;
    const int sense[2] = {1, 1};
    const double ref[2] = {0, 0}, mu[2] = {0, 0}, sd[2] = {1, 1};
    double f[2] = {5, 5};
    /* Empty front, mean at ref: E[U⁺]² = φ(0)² = 1/(2π). */
    assert_close(ehvi_2d(f, 0, sense, ref, mu, sd), 1 / (2 * M_PI), 1e-14, 0);
    /*
     * Front {(5,5)}, far above the N(0,1) mass: only the strips
     * [0,5)×[5,∞) and [5,∞)×[0,∞) count, each E[(U−5)⁺]·φ(0), where
     * E[(U−5)⁺] = φ(5) − 5(1 − Φ(5)) = 5.34617e-08, from φ(5) =
     * 1.48672e-06 and 1 − Φ(5) = 2.86652e-07 (python3: math.exp(-12.5) /
     * math.sqrt(2*math.pi) - 2.5*math.erfc(5/math.sqrt(2))).
     */
    double g5 = exp(-12.5) / sqrt(2 * M_PI) - 5 * 0.5 * erfc(5 / sqrt(2.0));
    assert_close(g5, 5.34617e-08, 1e-5, 0);
    double want = (1 / sqrt(2 * M_PI) - g5) * g5 + g5 / sqrt(2 * M_PI);
    assert_close(ehvi_2d(f, 1, sense, ref, mu, sd), want, 1e-9, 0);
    /* A deterministic mean inside the staircase gains exactly its box. */
    const double fr[6] = {1, 3, 2, 2, 3, 1}, sd0[2] = {0, 0};
    const double y1[2] = {2.5, 2.5};
    /*
     * [0,2.5]² minus the staircase under it, column by column:
     * 6.25 − (1·2.5 + 1·2 + 0.5·1) = 1.25.
     */
    assert_close(ehvi_2d(fr, 3, sense, ref, y1, sd0), 1.25, 1e-15, 0);
}

static void
test_2d_vs_monte_carlo(void **state)
{
    (void)state;
    struct rng r, mc;
    double f[MAXK * 2], mu[2], sd[2];
    const int senses[3][2] = {{1, -1}, {1, 1}, {-1, -1}};
    const double ref[2] = {1.0, 2.0};
    rng_seed(&r, 8675309);
    rng_seed(&mc, 309);
    for (int t = 0; t < 6; t++) {
        const int *sense = senses[t % 3];
        size_t k = 1 + rng_below(&r, 8);
        random_front(&r, f, k, 2, sense, ref);
        for (size_t c = 0; c < 2; c++) {
            /* Means from well inside to beyond the front. */
            double g = 0.3 + 1.8 * rng_uniform(&r);
            mu[c] = sense[c] < 0 ? ref[c] - g : ref[c] + g;
            sd[c] = 0.05 + 0.8 * rng_uniform(&r);
        }
        double se, exact = ehvi_2d(f, k, sense, ref, mu, sd);
        double est = ehvi_mc(f, k, 2, sense, ref, mu, sd, 100000, &mc, &se);
        assert_true(exact > 0 && se > 0);
        assert_true(se < 0.05 * exact); /* the test has teeth */
        assert_close(exact, est, 0, 4 * se);
    }
}

/* The reported standard error matches the spread of repeated estimates. */
static void
test_mc_standard_error(void **state)
{
    (void)state;
    struct rng r;
    const int sense[2] = {1, -1};
    const double ref[2] = {10, 400}, mu[2] = {13.0, 240}, sd[2] = {0.8, 50};
    const double f[6] = {14.66, 320, 14.1, 150, 12.9, 90};
    double est[100], se_sum = 0, mean = 0, var = 0;
    rng_seed(&r, 77);
    for (int t = 0; t < 100; t++) {
        double se;
        est[t] = ehvi_mc(f, 3, 2, sense, ref, mu, sd, 1000, &r, &se);
        se_sum += se;
        mean += est[t] / 100;
    }
    for (int t = 0; t < 100; t++)
        var += (est[t] - mean) * (est[t] - mean) / 99;
    /* The sample sd of 100 values is within ±21% of sigma at 3 sd. */
    double ratio = sqrt(var) / (se_sum / 100);
    assert_true(ratio > 0.79 && ratio < 1.21);
    assert_close(mean, ehvi_2d(f, 3, sense, ref, mu, sd), 0,
                 4 * sqrt(var / 100));
}

static void
test_sd_to_zero(void **state)
{
    (void)state;
    struct rng r, mc;
    double f[MAXK * 3], mu[3];
    const int sense[3] = {-1, 1, 1};
    const double ref[3] = {5.0, -2.0, 0.0}, sd0[3] = {0, 0, 0};
    const double tiny[3] = {1e-9, 1e-9, 1e-9};
    rng_seed(&r, 1234);
    rng_seed(&mc, 4321);
    for (int t = 0; t < 30; t++) {
        size_t k = rng_below(&r, MAXK);
        random_front(&r, f, k, 2, sense, ref);
        for (size_t c = 0; c < 2; c++) {
            double g = 2.2 * rng_uniform(&r) - 0.1;
            mu[c] = sense[c] < 0 ? ref[c] - g : ref[c] + g;
        }
        double hvi = ehvi_hvi(f, k, 2, sense, ref, mu);
        assert_close(ehvi_2d(f, k, sense, ref, mu, sd0), hvi, 1e-12, 1e-14);
        assert_close(ehvi_2d(f, k, sense, ref, mu, tiny), hvi, 1e-6, 1e-8);
    }
    /* Monte Carlo with sd = 0: every sample is the mean. */
    random_front(&r, f, 6, 3, sense, ref);
    for (size_t c = 0; c < 3; c++)
        mu[c] = sense[c] < 0 ? ref[c] - 1.3 : ref[c] + 1.3;
    double se = -1, hvi = ehvi_hvi(f, 6, 3, sense, ref, mu);
    assert_true(hvi > 0);
    assert_close(ehvi_mc(f, 6, 3, sense, ref, mu, sd0, 50, &mc, &se), hvi,
                 1e-12, 0);
    assert_close(se, 0.0, 0, 1e-15);
    assert_close(ehvi_mc(f, 6, 3, sense, ref, mu, sd0, 0, &mc, &se), 0.0, 0, 0);
}

static void
test_front_clutter_changes_nothing(void **state)
{
    (void)state;
    const int sense[2] = {1, -1};
    const double ref[2] = {10, 400}, mu[2] = {12.5, 260}, sd[2] = {0.7, 40};
    const double clean[6] = {14.66, 320, 14.1, 150, 12.9, 90};
    /* Plus a dominated point, a duplicate, and points outside ref. */
    const double messy[14] = {14.66, 320,  13.5, 200, 14.1, 150, 12.9,
                              90,    14.1, 150,  9.0, 50,   15,  500};
    assert_close(ehvi_2d(messy, 7, sense, ref, mu, sd),
                 ehvi_2d(clean, 3, sense, ref, mu, sd), 1e-13, 0);
}

/* E[(U − t)⁺], U ~ N(m, s²), written out independently of the module. */
static double
excess(double m, double s, double t)
{
    if (isinf(t))
        return 0;
    double z = (m - t) / s;
    double cdf = 0.5 * (1 + erf(z / sqrt(2.0)));
    return s * exp(-z * z / 2) / sqrt(2 * M_PI) + (m - t) * cdf;
}

/*
 * Exact EHVI in any m by a grid-cell decomposition of the non-dominated
 * region (gain coordinates): cells between consecutive distinct point
 * coordinates, a cell is dominated iff some point reaches its upper
 * corner; each free cell adds Π_j (G_j(lo_j) − G_j(hi_j)).
 */
static double
grid_ehvi(const double *f, size_t k, size_t m, const int *sense,
          const double *ref, const double *mu, const double *sd)
{
    double g[3][MAXK + 2], u[MAXK * 3], mm[3], total = 0;
    size_t len[3], at[3] = {0};
    for (size_t i = 0; i < k; i++)
        for (size_t c = 0; c < m; c++)
            u[i * m + c] =
                sense[c] < 0 ? ref[c] - f[i * m + c] : f[i * m + c] - ref[c];
    for (size_t c = 0; c < m; c++) {
        mm[c] = sense[c] < 0 ? ref[c] - mu[c] : mu[c] - ref[c];
        len[c] = 0;
        g[c][len[c]++] = 0;
        for (size_t i = 0; i < k; i++)
            if (u[i * m + c] > 0)
                g[c][len[c]++] = u[i * m + c];
        for (size_t a = 1; a < len[c]; a++)
            for (size_t b = a; b > 0 && g[c][b - 1] > g[c][b]; b--) {
                double t = g[c][b];
                g[c][b] = g[c][b - 1];
                g[c][b - 1] = t;
            }
        g[c][len[c]++] = INFINITY;
    }
    for (;;) {
        int dominated = 0;
        for (size_t i = 0; i < k && !dominated; i++) {
            size_t c = 0;
            while (c < m && u[i * m + c] >= g[c][at[c] + 1])
                c++;
            dominated = c == m;
        }
        if (!dominated) {
            double v = 1;
            for (size_t c = 0; c < m; c++)
                v *= excess(mm[c], sd[c], g[c][at[c]]) -
                     excess(mm[c], sd[c], g[c][at[c] + 1]);
            total += v;
        }
        size_t c = 0;
        while (c < m && ++at[c] == len[c] - 1)
            at[c++] = 0;
        if (c == m)
            break;
    }
    return total;
}

static void
test_3d_monte_carlo_vs_grid(void **state)
{
    (void)state;
    struct rng r, mc;
    double f[MAXK * 3], mu[3], sd[3];
    const int sense[3] = {1, -1, 1};
    const double ref[3] = {0.5, 3.0, -0.25};
    rng_seed(&r, 2718);
    rng_seed(&mc, 2818);
    for (int t = 0; t < 3; t++) {
        size_t k = 3 + rng_below(&r, 6);
        random_front(&r, f, k, 3, sense, ref);
        for (size_t c = 0; c < 3; c++) {
            double g = 0.4 + 1.2 * rng_uniform(&r);
            mu[c] = sense[c] < 0 ? ref[c] - g : ref[c] + g;
            sd[c] = 0.1 + 0.6 * rng_uniform(&r);
        }
        double se, exact = grid_ehvi(f, k, 3, sense, ref, mu, sd);
        double est = ehvi_mc(f, k, 3, sense, ref, mu, sd, 60000, &mc, &se);
        assert_true(exact > 0 && se < 0.05 * exact);
        assert_close(est, exact, 0, 4 * se);
    }
    /* The grid reference agrees with the 2-D strip formula. */
    const int s2[2] = {1, -1};
    const double r2[2] = {0.5, 3.0}, m2[2] = {1.4, 2.1}, d2[2] = {0.3, 0.5};
    random_front(&r, f, 7, 2, s2, r2);
    assert_close(grid_ehvi(f, 7, 2, s2, r2, m2, d2),
                 ehvi_2d(f, 7, s2, r2, m2, d2), 1e-12, 1e-15);
}

/*
 * Golovin & Zhang's identity: the hypervolume of a set is c_m times the
 * mean over directions λ of its best scalarized value. Against
 * pareto_hypervolume for m = 1..5, 100000 directions each.
 */
static void
test_hvs_hypervolume_identity(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 11);
    for (size_t m = 1; m <= 5; m++) {
        int sense[5];
        double ref[5], f[8 * 5], lambda[5], mean = 0;
        size_t k = 6, draws = 100000;
        for (size_t c = 0; c < m; c++) {
            sense[c] = c % 2 ? -1 : 1; /* mixed goals */
            ref[c] = c % 2 ? 3.0 : -1.0;
        }
        for (size_t i = 0; i < k * m; i++) {
            double v = 0.2 + rng_uniform(&r);
            f[i] = sense[i % m] < 0 ? ref[i % m] - v : ref[i % m] + v;
        }
        double hv = pareto_hypervolume(f, k, m, sense, ref);
        for (size_t d = 0; d < draws; d++) {
            ehvi_hvs_direction(&r, m, lambda);
            double norm = 0;
            for (size_t c = 0; c < m; c++) {
                assert_true(lambda[c] >= 0);
                norm += lambda[c] * lambda[c];
            }
            assert_true(fabs(norm - 1) < 1e-12);
            mean += ehvi_hvs_front(f, k, m, sense, ref, lambda);
        }
        mean /= (double)draws;
        double cm = pow(M_PI, (double)m / 2) /
                    (pow(2, (double)m) * tgamma((double)m / 2 + 1));
        print_message("m=%zu: hypervolume %.5f, c_m E[max s] %.5f\n", m, hv,
                      cm * mean);
        assert_true(fabs(cm * mean - hv) < 0.015 * hv);
    }
}

/* n directions (n×m) and the front's best scalarized value under each. */
static void
directions(struct rng *r, size_t n, size_t m, const double *f, size_t k,
           const int *sense, const double *ref, double *lambda, double *best)
{
    for (size_t d = 0; d < n; d++) {
        ehvi_hvs_direction(r, m, lambda + d * m);
        best[d] = ehvi_hvs_front(f, k, m, sense, ref, lambda + d * m);
    }
}

/*
 * EHVI through scalarizations against the exact-per-draw Monte Carlo
 * (ehvi_mc) for m = 3 and 4, against ehvi_hvi with sd = 0, and for one
 * objective (λ = 1, c_1 = 1) against EI's closed form.
 */
static void
test_hvs_mc_vs_exact(void **state)
{
    (void)state;
    enum { S = 200000 };
    struct rng r, q;
    double *lambda = malloc(S * 4 * sizeof *lambda);
    double *best = malloc(S * sizeof *best);
    assert_non_null(lambda);
    assert_non_null(best);
    rng_seed(&r, 21);
    for (size_t m = 3; m <= 4; m++) {
        const int sense[4] = {1, -1, 1, -1};
        const double ref[4] = {0, 4, 0, 4}, zero[4] = {0, 0, 0, 0};
        const double mu[4] = {1.3, 2.9, 1.1, 2.6}, sd[4] = {0.3, 0.4, 0.2, 0.5};
        double f[6 * 4];
        random_front(&r, f, 6, m, sense, ref);
        directions(&r, S, m, f, 6, sense, ref, lambda, best);
        rng_seed(&q, 5);
        double hvs = ehvi_hvs_mc(m, sense, ref, mu, sd, lambda, best, S, &q);
        rng_seed(&q, 6);
        double se, mc = ehvi_mc(f, 6, m, sense, ref, mu, sd, 20000, &q, &se);
        print_message("m=%zu: EHVI by scalarizations %.5f, exact per draw "
                      "%.5f ± %.5f\n",
                      m, hvs, mc, se);
        assert_true(mc > 0);
        assert_true(fabs(hvs - mc) < 0.03 * mc);
        double hvi = ehvi_hvi(f, 6, m, sense, ref, mu);
        rng_seed(&q, 7);
        double hvs0 = ehvi_hvs_mc(m, sense, ref, mu, zero, lambda, best, S, &q);
        print_message("m=%zu, sd 0: %.5f, ehvi_hvi %.5f\n", m, hvs0, hvi);
        assert_true(fabs(hvs0 - hvi) < 0.03 * hvi);
    }
    /* One objective: U = ref − Y ~ N(0.8, 0.6²) over the front's gain 0.5. */
    const int s1 = -1;
    const double ref1 = 5.0, mu1 = 4.2, sd1 = 0.6, f1 = 4.5, one = 1.0;
    double b1 = ehvi_hvs_front(&f1, 1, 1, &s1, &ref1, &one);
    for (size_t d = 0; d < S; d++) {
        lambda[d] = 1.0;
        best[d] = b1;
    }
    rng_seed(&q, 3);
    double e = ehvi_hvs_mc(1, &s1, &ref1, &mu1, &sd1, lambda, best, S, &q);
    double z = (0.8 - 0.5) / sd1;
    double want = sd1 * exp(-0.5 * z * z) / sqrt(2 * M_PI) +
                  (0.8 - 0.5) * 0.5 * erfc(-z / sqrt(2));
    print_message("m=1: %.6f, closed form %.6f\n", e, want);
    assert_true(fabs(b1 - 0.5) < 1e-12);
    assert_true(fabs(e - want) < 0.01 * want);
    free(lambda);
    free(best);
}

/* s_λ by hand: the minimum over objectives, to the power m. */
static void
test_hvs_by_hand(void **state)
{
    (void)state;
    const int s3[3] = {1, -1, 1};
    const double r3[3] = {0, 10, 0}, l3[3] = {0.6, 0.0, 0.8},
                 y3[3] = {1.2, 9.0, 2.0}, l3n[3] = {0.6, 0.48, 0.64};
    /* min(1.2/0.6, 1/0.48, 2/0.64) = 2, cubed. */
    assert_true(fabs(ehvi_hvs(y3, 3, s3, r3, l3n) - 8.0) < 1e-12);
    /* A zero entry of λ leaves that objective out of the minimum. */
    assert_true(fabs(ehvi_hvs(y3, 3, s3, r3, l3) - 8.0) < 1e-12);
    /* A point not better than ref in some objective scalarizes to 0. */
    const double worse[3] = {1.2, 10.5, 2.0};
    assert_true(ehvi_hvs(worse, 3, s3, r3, l3n) == 0.0);
    assert_true(ehvi_hvs_front(y3, 0, 3, s3, r3, l3n) == 0.0);
    const double two[6] = {1.2, 9.0, 2.0, 3.0, 5.0, 3.0};
    /* The second: min(5, 5/0.48, 3/0.64)^3 = 4.6875^3. */
    assert_true(fabs(ehvi_hvs_front(two, 2, 3, s3, r3, l3n) - pow(4.6875, 3)) <
                1e-9);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hvi_matches_hypervolume),
        cmocka_unit_test(test_2d_hand),
        cmocka_unit_test(test_2d_vs_monte_carlo),
        cmocka_unit_test(test_mc_standard_error),
        cmocka_unit_test(test_sd_to_zero),
        cmocka_unit_test(test_front_clutter_changes_nothing),
        cmocka_unit_test(test_3d_monte_carlo_vs_grid),
        cmocka_unit_test(test_hvs_hypervolume_identity),
        cmocka_unit_test(test_hvs_mc_vs_exact),
        cmocka_unit_test(test_hvs_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
