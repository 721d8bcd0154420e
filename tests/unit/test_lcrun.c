/*
 * tests/unit/test_lcrun.c - bench/lcrun on a synthetic learning-curve set:
 * the curve preparation (lengths, distinct settings), the SH draws
 * against core/sh's results, and the ASHA means against asha_sim_run run
 * by hand with the same seeds.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>

#include "bench/lcrun.h"
#include "common/status.h"
#include "core/rng.h"

#define N 24
#define LEN_MAX 30

static double hyper[N][2];
static double ppl[N][LEN_MAX];
static struct bench_curve curves[N];
static struct bench_lc_set set;

/* Curve i decays towards 10 + i % 7 over 10 + i checkpoints (capped);
 * curves i and i + 12 share their hyperparameters when i < 3. */
static void
make_set(void)
{
    memset(&set, 0, sizeof set);
    snprintf(set.name, sizeof set.name, "nmtlc/synthetic");
    set.n_hyper = 2;
    set.n = N;
    set.curves = curves;
    for (size_t i = 0; i < N; i++) {
        size_t len = 10 + i < LEN_MAX ? 10 + i : LEN_MAX;
        double floor_ = 10.0 + (double)(i % 7);
        hyper[i][0] = (double)(i < 15 && i >= 12 ? i - 12 : i);
        hyper[i][1] = 0.5;
        for (size_t s = 0; s < len; s++)
            ppl[i][s] = floor_ + 50.0 / (double)(s + 1 + i % 5);
        curves[i].hyper = hyper[i];
        curves[i].ppl = ppl[i];
        curves[i].len = len;
        curves[i].ppl_optimal = ppl[i][len - 1];
    }
}

static void
test_curves(void **state)
{
    (void)state;
    struct lcrun_curves c;
    make_set();
    lcrun_curves_init(&c, &set);
    assert_int_equal(c.n, N);
    assert_int_equal(c.n_settings, N - 3);
    assert_int_equal(c.len_min, 10);
    assert_int_equal(c.len_med, 22);
    assert_int_equal(c.len_max, LEN_MAX);
    assert_ptr_equal(c.sh[5].y, ppl[5]);
    assert_ptr_equal(c.as[5].ppl, ppl[5]);
    lcrun_curves_free(&c);
}

static void
test_sh_draws(void **state)
{
    (void)state;
    struct lcrun_curves c;
    struct sh_params prm = {2, 3, 0, SH_RANK_BSF, 0};
    struct sh_result per[5], ref_per[5];
    struct sh_summary sum, ref_sum;
    size_t draws[5 * 8];
    struct hpod_err err = {0};

    make_set();
    lcrun_curves_init(&c, &set);
    assert_int_equal(lcrun_sh(&c, 0, &prm, 8, 5, 7, per, &sum, draws, &err),
                     HPOD_OK);
    assert_int_equal(
        sh_simulate_many(c.sh, c.n, &prm, 8, 5, 7, ref_per, &ref_sum), HPOD_OK);
    assert_close(sum.acc, ref_sum.acc, 0, 0);
    for (size_t k = 0; k < 5; k++) {
        assert_int_equal(per[k].final, ref_per[k].final);
        for (size_t j = 0; j < 8; j++)
            assert_true(draws[k * 8 + j] < N);
    }
    /* More configs than curves: SH cannot run. */
    assert_int_equal(lcrun_sh(&c, 1, &prm, N, 1, 0, NULL, &sum, NULL, &err),
                     HPOD_EUNPROC);
    lcrun_curves_free(&c);
}

static void
test_asha_means(void **state)
{
    (void)state;
    struct lcrun_curves c;
    struct asha_params prm;
    struct lcrun_asha_summary sum;
    struct asha_sim_result res[4];
    struct hpod_err err = {0};
    double steps = 0, saved = 0;

    make_set();
    lcrun_curves_init(&c, &set);
    memset(&prm, 0, sizeof prm);
    prm.r = 2;
    prm.u = 2;
    prm.R = 10;
    prm.p = 2;
    prm.keep = 2;
    assert_int_equal(
        lcrun_asha(&c, &prm, 3, 9, 4, 11, res, NULL, NULL, &sum, &err),
        HPOD_OK);
    for (size_t k = 0; k < 4; k++) {
        struct rng r;
        struct asha_sim_result one;
        rng_seed(&r, 11 + k);
        assert_int_equal(asha_sim_run(c.as, c.n, &prm, 3, 9, &r, &one),
                         HPOD_OK);
        assert_int_equal(one.steps, res[k].steps);
        steps += (double)one.steps;
        saved += 100.0 * (1.0 - (double)one.steps / (double)one.steps_full);
    }
    assert_close(sum.steps, steps / 4, 0, 0);
    assert_close(sum.saved, saved / 4, 0, 0);
    prm.R = 1; /* R < r: asha_create refuses */
    assert_int_equal(
        lcrun_asha(&c, &prm, 3, 9, 1, 0, NULL, NULL, NULL, &sum, &err),
        HPOD_EUNPROC);
    lcrun_curves_free(&c);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_curves),
        cmocka_unit_test(test_sh_draws),
        cmocka_unit_test(test_asha_means),
    };
    return cmocka_run_group_tests_name("lcrun", tests, NULL, NULL);
}
