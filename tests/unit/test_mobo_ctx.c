/*
 * tests/unit/test_mobo_ctx.c - the models of a multi-objective choice
 * (core/mobo_ctx.h): constraint feasibility, plain and log-transformed,
 * and the input checks.
 */
#include "tests/support/mobo_grid.h"

#include "core/mobo_ctx.h"

static void
test_feasibility(void **state)
{
    (void)state;
    struct study s = {0};
    struct rng r;
    double obs_c[20], cmax = 0.1; /* 3(x - 0.5) + 0.2y <= 0.1 */
    double u[6] = {0.0, 0.5, 1.0, 0.5, 0.1, 0.2}, p[3];
    rng_seed(&r, 7);
    struct mobo_input in = study_input(&s, MOBO_SURROGATE_GP, 2);
    in.n_con = 1;
    in.obs_c = obs_c;
    in.con_max = &cmax;

    /* No report of the metric: nothing is known, P = 1. */
    assert_int_equal(mobo_feasibility(&in, u, 3, p), HPOD_OK);
    for (int i = 0; i < 3; i++)
        assert_close(p[i], 1.0, 0, 0);
    /* n_con = 0: P = 1 too. */
    in.n_con = 0;
    assert_int_equal(mobo_feasibility(&in, u, 3, p), HPOD_OK);
    assert_close(p[2], 1.0, 0, 0);
    in.n_con = 1;

    /* One report, at (0.1, 0.2), well feasible (-1.16): P there ~ 1. */
    study_add(&s, 1 * G + 2, 2);
    obs_c[0] = con_left(cand + 2 * (1 * G + 2));
    in = study_input(&s, MOBO_SURROGATE_GP, 2);
    in.n_con = 1;
    in.obs_c = obs_c;
    in.con_max = &cmax;
    assert_int_equal(mobo_feasibility(&in, u + 4, 1, p), HPOD_OK);
    assert_true(p[0] > 0.8);

    /* Twenty reports: P ~ 1 deep in the left half, ~ 0 deep in the right. */
    for (size_t t = 1; t < 20; t++) {
        size_t c = random_free(&r, s.used);
        study_add(&s, c, 2);
        obs_c[t] = con_left(cand + 2 * c);
    }
    in = study_input(&s, MOBO_SURROGATE_GP, 2);
    in.n_con = 1;
    in.obs_c = obs_c;
    in.con_max = &cmax;
    assert_int_equal(mobo_feasibility(&in, u, 3, p), HPOD_OK);
    print_message("P(feasible) at x = 0, 1, 0.1: %.3g %.3g %.3g\n", p[0], p[1],
                  p[2]);
    assert_true(p[0] > 0.99);
    assert_true(p[1] < 0.01);
    assert_true(p[2] > 0.99);

    /* An impossible bound on a log metric: P = 0 everywhere. */
    unsigned char lg = 1;
    for (size_t t = 0; t < 20; t++)
        obs_c[t] = exp(obs_c[t]);
    cmax = -1;
    in.con_log = &lg;
    assert_int_equal(mobo_feasibility(&in, u, 3, p), HPOD_OK);
    for (int i = 0; i < 3; i++)
        assert_close(p[i], 0.0, 0, 0);

    /* mobo_front keeps only the trials that meet the constraint. */
    size_t idx[N], nf;
    cmax = exp(0.1);
    in.con_log = NULL;
    assert_int_equal(mobo_front(&in, idx, &nf), HPOD_OK);
    assert_true(nf >= 1);
    for (size_t i = 0; i < nf; i++)
        assert_true(obs_c[idx[i]] <= cmax);
}

static void
test_log_constraint(void **state)
{
    (void)state;
    /* A positive "time" spanning three orders of magnitude: exp(8x + y). */
    struct study s = {0};
    struct rng r;
    double t_obs[16], l_obs[16], u[4] = {0.05, 0.5, 0.95, 0.5}, p[2], q[2];
    double tmax = exp(4.5), lmax = 4.5;
    unsigned char lg = 1;
    rng_seed(&r, 11);
    for (size_t t = 0; t < 16; t++) {
        size_t c = random_free(&r, s.used);
        study_add(&s, c, 2);
        l_obs[t] = 8 * cand[2 * c] + cand[2 * c + 1];
        t_obs[t] = exp(l_obs[t]);
    }
    struct mobo_input in = study_input(&s, MOBO_SURROGATE_GP, 9);
    in.n_con = 1;
    in.obs_c = t_obs;
    in.con_max = &tmax;
    in.con_log = &lg;
    assert_int_equal(mobo_feasibility(&in, u, 2, p), HPOD_OK);
    /* The same as a plain constraint on log(time) against log(max). */
    in.obs_c = l_obs;
    in.con_max = &lmax;
    in.con_log = NULL;
    assert_int_equal(mobo_feasibility(&in, u, 2, q), HPOD_OK);
    assert_close(p[0], q[0], 1e-12, 1e-300);
    assert_close(p[1], q[1], 1e-12, 1e-300);
    assert_true(p[0] > 0.99);
    assert_true(p[1] < 0.01);
    print_message("log time constraint: P = %.3g at x = 0.05, %.3g at 0.95\n",
                  p[0], p[1]);
}

/* The checks every entry point shares. */
static void
test_check(void **state)
{
    (void)state;
    double y[6] = {2.0, -3.0, 5.0, -1.0, 7.0, -0.5};
    double ref[2] = {0.0, -10.0};
    struct mobo_input in = {.space = &sp,
                            .kernel = KERNEL_MATERN52,
                            .m = 2,
                            .ref = ref,
                            .obs_y = y,
                            .n_obs = 3};
    assert_int_equal(mobo_ctx_check(&in), HPOD_OK);
    in.kernel = 7;
    assert_int_equal(mobo_ctx_check(&in), HPOD_EINVAL);
    assert_int_equal(mobo_ctx_check(NULL), HPOD_EINVAL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_feasibility),
        cmocka_unit_test(test_log_constraint),
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests_name("mobo_ctx", tests, setup, teardown);
}
