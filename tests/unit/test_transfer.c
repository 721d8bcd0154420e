/*
 * tests/unit/test_transfer.c - core/transfer: Kendall's τ against a
 * brute-force count of concordant pairs by their definition, the weight
 * rules against their closed forms, the prior at matched rows against the
 * mean of the matched scores and elsewhere against a GP fitted the same
 * way by hand, and the sampler's use of a prior (initial design by the
 * prior; a prior that agrees with the data leads the choice).
 */
#include "tests/support/check.h"

#include <math.h>
#include <stdlib.h>

#include "core/gp.h"
#include "core/kernels.h"
#include "core/rankcorr.h"
#include "core/rng.h"
#include "core/normal_scores.h"
#include "core/sampler.h"
#include "core/transfer.h"

/* τ_a by enumerating ordered pairs (i < j) and their signs. */
static double
brute_tau(const double *p, const double *y, size_t n)
{
    double c = 0, dsc = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double a = (p[i] - p[j]) * (y[i] - y[j]);
            c += a > 0;
            dsc += a < 0;
        }
    return (c - dsc) / ((double)n * (double)(n - 1) / 2);
}

static void
test_kendall(void **state)
{
    (void)state;
    double p[30], y[30], r[30];
    for (size_t i = 0; i < 30; i++) {
        p[i] = sin(1.7 * (double)i);
        y[i] = p[i] + 0.9 * cos(3.1 * (double)i);
        r[i] = -p[i];
    }
    assert_close(transfer_kendall_tau(p, y, 30), brute_tau(p, y, 30), 0, 1e-15);
    assert_close(transfer_kendall_tau(p, p, 30), 1, 0, 0);
    assert_close(transfer_kendall_tau(p, r, 30), -1, 0, 0);
    /* Ties count 0: (1,1),(2,2),(2,3): pairs (0,1)+, (0,2)+, (1,2) tie. */
    const double a[3] = {1, 2, 2}, b[3] = {1, 2, 3};
    assert_close(transfer_kendall_tau(a, b, 3), 2.0 / 3.0, 0, 1e-15);
    assert_close(transfer_kendall_tau(a, b, 1), 0, 0, 0);
}

static void
test_weight_rules(void **state)
{
    (void)state;
    double p[12], y[12], r[12], noise[12];
    for (size_t i = 0; i < 12; i++) {
        p[i] = (double)i;
        y[i] = (double)i + 4 * sin(2.3 * (double)i);
        r[i] = -(double)i;
        noise[i] = cos(5.0 * (double)i * (double)i);
    }
    /* Fixed: always 1. Init: always 0. */
    assert_close(transfer_weight(TRANSFER_FIXED, p, r, 12), 1, 0, 0);
    assert_close(transfer_weight(TRANSFER_INIT, p, y, 12), 0, 0, 0);
    /* Spearman: 1 below 3 observations, else max(0, ρ). */
    assert_close(transfer_weight(TRANSFER_SPEARMAN, p, r, 2), 1, 0, 0);
    double rho = rank_spearman(p, y, 12);
    assert_true(rho > 0 && rho < 1);
    assert_close(transfer_weight(TRANSFER_SPEARMAN, p, y, 12), rho, 0, 1e-15);
    assert_close(transfer_weight(TRANSFER_SPEARMAN, p, r, 12), 0, 0, 0);
    /* Kendall: dropped only when τ < -z·se, se = √(2(2n+5)/(9n(n-1))). */
    assert_close(transfer_weight(TRANSFER_KENDALL, p, r, 12), 0, 0, 0);
    assert_close(transfer_weight(TRANSFER_KENDALL, p, y, 12), 1, 0, 0);
    double tau = transfer_kendall_tau(p, noise, 12);
    double se = sqrt(2.0 * 29.0 / (9.0 * 12.0 * 11.0));
    assert_close(transfer_weight(TRANSFER_KENDALL, p, noise, 12),
                 tau < -TRANSFER_KENDALL_Z * se ? 0 : 1, 0, 0);
    assert_close(transfer_weight(TRANSFER_KENDALL, p, r, 2), 1, 0, 0);
    /* Shrunk: (c + nρ)/(c + n), floored at 0. */
    assert_close(transfer_weight(TRANSFER_SHRUNK, p, y, 12),
                 (TRANSFER_SHRINK_N + 12 * rho) / (TRANSFER_SHRINK_N + 12), 0,
                 1e-15);
    assert_close(transfer_weight(TRANSFER_SHRUNK, p, r, 12), 0, 0, 0);
    assert_close(transfer_weight(TRANSFER_SHRUNK, p, r, 3),
                 (TRANSFER_SHRINK_N - 3) / (TRANSFER_SHRINK_N + 3), 0, 1e-15);
    assert_close(transfer_weight(TRANSFER_SHRUNK, p, r, 2), 1, 0, 0);
}

/* Ranking loss: without ties, (1 - τ)/2 of the pairs; LOO nearest
 * neighbours by hand; the RGPE weight at its extremes. */
static void
test_rank_loss(void **state)
{
    (void)state;
    double f[25], y[25], u[25], t[25];
    size_t idx[25];
    for (size_t i = 0; i < 25; i++) {
        f[i] = sin(1.1 * (double)i);
        y[i] = f[i] + cos(2.7 * (double)i);
        u[i] = (double)i;
        idx[i] = i;
    }
    double pairs = 25.0 * 24.0 / 2.0;
    assert_close(transfer_rank_loss(f, y, idx, 25),
                 (1 - transfer_kendall_tau(f, y, 25)) / 2 * pairs, 0, 1e-9);
    /* Repeated indices are separate pairs; a pair with itself is a y tie. */
    const size_t rep[3] = {0, 0, 1};
    double exp_loss = (f[0] - f[1]) * (y[0] - y[1]) < 0 ? 2 : 0;
    assert_close(transfer_rank_loss(f, y, rep, 3), exp_loss, 0, 0);
    /* A constant f ties every pair: 1/2 each. */
    double c[25] = {0};
    assert_close(transfer_rank_loss(c, y, idx, 25), pairs / 2, 0, 0);
    /* LOO NN on a line: the ends take their one neighbour, inner points
     * the mean of two equidistant ones. */
    const double lu[4] = {0, 1, 2, 4}, ly[4] = {1, 2, 5, 7};
    transfer_loo_nn(lu, ly, 4, 1, NULL, t);
    assert_close(t[0], 2, 0, 0);
    assert_close(t[1], 3, 0, 0);
    assert_close(t[2], 2, 0, 0);
    assert_close(t[3], 5, 0, 0);
    /* A prior that ranks y exactly beats a noisy NN model in every
     * resample with untied y; the reversed prior loses every one. */
    double neg[25];
    for (size_t i = 0; i < 25; i++)
        neg[i] = -y[i];
    assert_close(transfer_weight_rankloss(y, y, u, 25, 1, NULL, 3), 1, 0, 0);
    assert_close(transfer_weight_rankloss(neg, y, u, 25, 1, NULL, 3), 0, 0, 0);
    assert_close(transfer_weight_rankloss(neg, y, u, 2, 1, NULL, 3), 1, 0, 0);
    double w = transfer_weight_rankloss(f, y, u, 25, 1, NULL, 3);
    assert_true(w >= 0 && w <= 1);
    assert_close(transfer_weight_rankloss(f, y, u, 25, 1, NULL, 3), w, 0, 0);
}

/* Matched queries get the (mean) score of their rows; others the
 * prediction of a GP fitted on the source's scores with the same seed. */
static void
test_prior(void **state)
{
    (void)state;
    enum { NS = 20, NQ = 4 };
    double sraw[NS], su[NS], z[NS], y[NS];
    for (size_t i = 0; i < NS; i++) {
        sraw[i] = (double)(i % 10); /* every value twice */
        su[i] = sraw[i] / 10.0;
        y[i] = sin(sraw[i]) + 0.01 * (double)i;
    }
    normal_scores(y, NS, z);
    const double qraw[NQ] = {3, 7, 12.5, 20};
    double qu[NQ], mu[NQ];
    unsigned char ex[NQ];
    size_t n_exact = 99;
    for (size_t i = 0; i < NQ; i++)
        qu[i] = qraw[i] / 10.0;
    assert_int_equal(transfer_prior(sraw, su, z, NS, 1, 1, NULL, qraw, qu, NQ,
                                    KERNEL_RBF, 7, mu, ex, &n_exact),
                     HPOD_OK);
    assert_int_equal(n_exact, 2);
    assert_true(ex[0] && ex[1] && !ex[2] && !ex[3]);
    assert_close(mu[0], (z[3] + z[13]) / 2, 0, 1e-15);
    assert_close(mu[1], (z[7] + z[17]) / 2, 0, 1e-15);
    /* The reference GP: all 20 rows (under TRANSFER_GP_MAX), same seed. */
    struct gp *gp = gp_create(NS, 1, KERNEL_RBF);
    struct rng r;
    double ref[2];
    size_t idx[NS];
    double xs[NS], zs[NS];
    /* transfer_prior feeds the rows in rank order of their scores. */
    for (size_t i = 0; i < NS; i++)
        idx[i] = i;
    for (size_t i = 1; i < NS; i++)
        for (size_t j = i; j > 0 && z[idx[j - 1]] > z[idx[j]]; j--) {
            size_t t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    for (size_t i = 0; i < NS; i++) {
        xs[i] = su[idx[i]];
        zs[i] = z[idx[i]];
    }
    rng_seed(&r, 7);
    assert_int_equal(gp_fit(gp, xs, zs, NS, &r), HPOD_OK);
    assert_int_equal(gp_predict(gp, qu + 2, 2, ref, NULL), HPOD_OK);
    gp_free(gp);
    assert_close(mu[2], ref[0], 0, 1e-12);
    assert_close(mu[3], ref[1], 0, 1e-12);
    /* Bad input. */
    assert_int_equal(transfer_prior(sraw, su, z, 0, 1, 1, NULL, qraw, qu, NQ,
                                    KERNEL_RBF, 7, mu, NULL, NULL),
                     HPOD_EINVAL);
}

/* More rows than TRANSFER_GP_MAX: a subset is fitted; answers finite. */
static void
test_prior_subset(void **state)
{
    (void)state;
    enum { NS = TRANSFER_GP_MAX + 100 };
    double *sraw = malloc(NS * sizeof *sraw), *z = malloc(NS * sizeof *z);
    for (size_t i = 0; i < NS; i++) {
        sraw[i] = (double)i / NS;
        z[i] = sraw[i];
    }
    const double q[2] = {0.25 + 0.5 / NS, 0.75 + 0.5 / NS};
    double mu[2];
    assert_int_equal(transfer_prior(sraw, sraw, z, NS, 1, 1, NULL, q, q, 2,
                                    KERNEL_MATERN52, 1, mu, NULL, NULL),
                     HPOD_OK);
    /* A smooth increasing source: the predictions keep its order. */
    assert_true(isfinite(mu[0]) && isfinite(mu[1]) && mu[0] < mu[1]);
    assert_close(mu[0], 0.25, 0, 0.05);
    free(sraw);
    free(z);
}

/* A one-parameter finite space of n values 0..n-1. */
static void
make_space(struct space *sp, size_t n)
{
    double v[40];
    for (size_t i = 0; i < n; i++)
        v[i] = (double)i;
    space_init(sp);
    assert_int_equal(space_add_values(sp, PARAM_INT, v, n, 0), HPOD_OK);
}

static void
test_sampler_prior(void **state)
{
    (void)state;
    enum { N = 40 };
    struct space sp;
    double cand[N], prior[N], obs_raw[N], obs_y[N], raw[1];
    unsigned char used[N] = {0};
    size_t obs_cand[N], c;
    make_space(&sp, N);
    for (size_t i = 0; i < N; i++) {
        cand[i] = (double)i;
        prior[i] = -fabs((double)i - 31.0); /* the source's best: 31 */
    }
    struct sampler_input in = {0};
    in.space = &sp;
    in.kind = SAMPLER_GP;
    in.seed = 5;
    in.init = 3;
    in.kernel = KERNEL_RBF;
    in.cand_raw = cand;
    in.cand_used = used;
    in.n_cand = N;
    in.obs_raw = obs_raw;
    in.obs_y = obs_y;
    in.obs_cand = obs_cand;
    in.prior_cand = prior;
    in.prior_rule = TRANSFER_SPEARMAN;
    /* The initial design: the prior's best free candidates in order. */
    const size_t want[3] = {31, 30, 32};
    for (size_t k = 0; k < 3; k++) {
        in.seq = (int)k;
        in.n_obs = k;
        assert_int_equal(sampler_next(&in, raw, &c), HPOD_OK);
        assert_int_equal(c, want[k]);
        used[c] = 1;
        obs_raw[k] = (double)c;
        obs_cand[k] = c;
        obs_y[k] = -fabs((double)c - 31.0);
    }
    /* Data agreeing with the prior (ρ = 1 once 29 is in): the model keeps
     * to the prior's neighbourhood (29..33), not the far end. */
    used[29] = 1;
    obs_raw[3] = 29;
    obs_cand[3] = 29;
    obs_y[3] = -2;
    in.seq = 4;
    in.n_obs = 4;
    assert_int_equal(sampler_next(&in, raw, &c), HPOD_OK);
    assert_true(c >= 27 && c <= 35);
    /* Without the prior the same history does not pin that down as
     * tightly; with a prior that the data contradict (ρ < 0: weight 0)
     * the choice equals the plain GP's. */
    for (size_t i = 0; i < N; i++)
        prior[i] = fabs((double)i - 31.0);
    size_t c_contra, c_plain;
    assert_int_equal(sampler_next(&in, raw, &c_contra), HPOD_OK);
    in.prior_cand = NULL;
    assert_int_equal(sampler_next(&in, raw, &c_plain), HPOD_OK);
    assert_int_equal(c_contra, c_plain);
    space_clear(&sp);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kendall),
        cmocka_unit_test(test_weight_rules),
        cmocka_unit_test(test_rank_loss),
        cmocka_unit_test(test_prior),
        cmocka_unit_test(test_prior_subset),
        cmocka_unit_test(test_sampler_prior),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
