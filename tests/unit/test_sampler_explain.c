/*
 * tests/unit/test_sampler_explain.c - the ranking of scored points into a
 * pick and its runners-up (core/sampler_explain.h) against a brute-force
 * argsort, duplicate points, and the decoded runners-up of a continuous
 * choice.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>

#include "core/sampler_explain.h"
#include "core/space.h"
#include "tests/support/explain_check.h"

/* sampler_explain_rank on scores with ties, NaN and skipped entries. */
static void
test_explain_rank(void **state)
{
    (void)state;
    double sc[] = {1.0, NAN, 3.0, 3.0, 0.5, 2.0, 7.0, 2.0, -INFINITY};
    double mu[9], var[9];
    unsigned char skip[9] = {0, 0, 0, 0, 0, 0, 1, 0, 0};
    struct sampler_explain ex = {0};
    for (int i = 0; i < 9; i++) {
        mu[i] = 0.1 * i;
        var[i] = 0.04 * i;
    }
    sampler_explain_clear(&ex);
    assert_int_equal(sampler_explain_rank(&ex, sc, mu, var, 9, skip), 2);
    check_explain_ranking(&ex, sc, mu, var, 9, skip, 2);
    /* 2, then its tie 3, then 5 and 7 (tied), then 0. */
    assert_int_equal(ex.runner[0].cand, 3);
    assert_int_equal(ex.runner[1].cand, 5);
    assert_int_equal(ex.runner[2].cand, 7);
    assert_int_equal(ex.runner[3].cand, 0);
    /* Nothing eligible: n, no runners. */
    unsigned char all[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    assert_int_equal(sampler_explain_rank(&ex, sc, NULL, NULL, 9, all), 9);
    assert_int_equal(ex.n_runners, 0);
    sampler_explain_clear(&ex);
}

/*
 * sampler_explain_rank_points skips a point equal to one already ranked,
 * and sampler_explain_decode turns the runners-up into configurations and
 * every index into (size_t)-1.
 */
static void
test_explain_points(void **state)
{
    (void)state;
    struct space s;
    /* Seven points of a 1-D unit range; 1 and 3 repeat 0, 5 repeats 4. */
    double u[7] = {0.5, 0.5, 0.25, 0.5, 0.75, 0.75, 1.0};
    double sc[7] = {9, 8, 7, 6, 5, 4, 3};
    struct sampler_explain ex = {0};

    space_init(&s);
    assert_int_equal(space_add_range(&s, PARAM_FLOAT, 10.0, 20.0, 0), HPOD_OK);
    assert_int_equal(
        sampler_explain_rank_points(&ex, sc, NULL, NULL, 7, NULL, u, 1), 0);
    assert_int_equal(ex.n_runners, 3);
    assert_int_equal(ex.runner[0].cand, 2);
    assert_int_equal(ex.runner[1].cand, 4);
    assert_int_equal(ex.runner[2].cand, 6);
    assert_true(isnan(ex.pick.mean) && isnan(ex.pick.sd));
    sampler_explain_decode(&ex, &s, u);
    assert_int_equal(ex.pick.cand, (size_t)-1);
    for (size_t j = 0; j < ex.n_runners; j++)
        assert_int_equal(ex.runner[j].cand, (size_t)-1);
    assert_close(ex.runner_raw[0], 12.5, 1e-15, 0);
    assert_close(ex.runner_raw[1], 17.5, 1e-15, 0);
    assert_close(ex.runner_raw[2], 20.0, 1e-15, 0);
    /* Without points, equal scores are distinct runners. */
    sampler_explain_clear(&ex);
    assert_null(ex.runner_raw);
    assert_int_equal(sampler_explain_rank(&ex, sc, NULL, NULL, 7, NULL), 0);
    assert_int_equal(ex.n_runners, SAMPLER_EXPLAIN_RUNNERS);
    sampler_explain_reset(&ex, SAMPLER_CHOSE_FALLBACK);
    assert_int_equal(ex.chooser, SAMPLER_CHOSE_FALLBACK);
    assert_int_equal(ex.n_runners, 0);
    assert_int_equal(ex.pick.cand, (size_t)-1);
    sampler_explain_clear(&ex);
    space_clear(&s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_explain_rank),
        cmocka_unit_test(test_explain_points),
    };
    return cmocka_run_group_tests_name("sampler_explain", tests, NULL, NULL);
}
