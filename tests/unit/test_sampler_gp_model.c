/*
 * tests/unit/test_sampler_gp_model.c - a study's kept GP hyperparameters
 * (core/sampler_gp_model.h): set copies and validates, clear frees and
 * zeroes.
 */
#include "tests/support/check.h"

#include <math.h>

#include "core/sampler_gp_model.h"

static void
test_set_clear(void **state)
{
    (void)state;
    struct sampler_gp_model m = {0};
    double h[4] = {0.5, 2.0, 1.5, 0.01};

    assert_int_equal(sampler_gp_model_set(&m, 1, 12, -0.7, h, 4), HPOD_OK);
    h[0] = 9.0; /* copied, not borrowed */
    assert_true(m.valid && m.kernel == 1 && m.n_fit == 12 && m.n_hyper == 4);
    assert_true(m.hyper[0] == 0.5 && m.hyper[3] == 0.01 && m.lml_fit == -0.7);
    assert_int_equal(m.changed, 0);
    /* Refused: a value not finite and positive, too few, a NaN LML. */
    h[1] = 0.0;
    assert_int_equal(sampler_gp_model_set(&m, 1, 12, -0.7, h, 4), HPOD_EINVAL);
    h[1] = INFINITY;
    assert_int_equal(sampler_gp_model_set(&m, 1, 12, -0.7, h, 4), HPOD_EINVAL);
    h[1] = 2.0;
    assert_int_equal(sampler_gp_model_set(&m, 1, 12, -0.7, h, 2), HPOD_EINVAL);
    assert_int_equal(sampler_gp_model_set(&m, 1, 12, NAN, h, 4), HPOD_EINVAL);
    assert_true(m.hyper[0] == 0.5); /* unchanged by a refusal */
    sampler_gp_model_clear(&m);
    assert_true(!m.valid && !m.hyper && m.n_hyper == 0);
    sampler_gp_model_clear(NULL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_clear),
    };
    return cmocka_run_group_tests_name("sampler_gp_model", tests, NULL, NULL);
}
