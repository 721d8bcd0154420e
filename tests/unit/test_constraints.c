/*
 * tests/unit/test_constraints.c - study/constraints without a database:
 * reported values oriented as "<= bound", the bounds and log flags of the
 * constraint GPs, the probability that a constraint holds (none below
 * CONSTRAINT_MIN_REPORTS reports; high where the reports are well inside
 * the bound, low where they are past it), and feasibility as observed.
 */
#include "tests/support/check.h"

#include <string.h>

#include "study/constraints.h"
#include "tests/support/studydef.h"

static const char *TWO = "[{\"metric\":\"time\",\"max\":5},"
                         "{\"metric\":\"speed\",\"min\":2}]";

static void
test_value_and_feasibility(void **state)
{
    (void)state;
    struct study_def d;
    struct metric_set v = {0};

    def_with_constraints(TWO, &d);
    assert_int_equal(d.n_constraints, 2);
    metric_set_add(&v, "time", 4);
    /* speed not reported: NaN, and not feasible (only what was seen). */
    assert_close(constraints_value(&d, 0, &v), 4, 0, 0);
    assert_true(isnan(constraints_value(&d, 1, &v)));
    assert_false(def_trial_feasible(&d, &v));
    metric_set_add(&v, "speed", 3);
    assert_close(constraints_value(&d, 1, &v), -3, 0, 0); /* min: negated */
    assert_true(def_trial_feasible(&d, &v));
    metric_set_clear(&v);
    metric_set_add(&v, "time", 6);
    metric_set_add(&v, "speed", 3);
    assert_false(def_trial_feasible(&d, &v));
    metric_set_clear(&v);
    metric_set_add(&v, "time", 5); /* on the bound: met */
    metric_set_add(&v, "speed", 2);
    assert_true(def_trial_feasible(&d, &v));
    metric_set_clear(&v);
    def_clear(&d);
}

static void
test_bounds_and_log(void **state)
{
    (void)state;
    struct study_def d;
    double con_max[2];
    unsigned char con_log[2];
    /* obs_c rows: (time, -speed), NaN = not reported */
    double pos[] = {1, -3, 2, NAN, NAN, -4};
    double zero[] = {1, -3, 0, -2};

    def_with_constraints(TWO, &d);
    constraints_bounds(&d, pos, 3, con_max, con_log);
    assert_close(con_max[0], 5, 0, 0);
    assert_close(con_max[1], -2, 0, 0);
    assert_int_equal(con_log[0], 1); /* max bound > 0, every report > 0 */
    assert_int_equal(con_log[1], 0); /* a "min" bound: never log */
    constraints_bounds(&d, zero, 2, con_max, con_log);
    assert_int_equal(con_log[0], 0); /* a report of 0: no log */
    def_clear(&d);
}

static void
test_probability(void **state)
{
    (void)state;
    struct study_def d;
    double raw[12], c[12], q[2] = {0.05, 0.95}, p[2] = {-1, -1};

    def_with_constraints("[{\"metric\":\"time\",\"max\":5}]", &d);
    for (int i = 0; i < 12; i++) {
        raw[i] = i / 11.0;
        c[i] = 10 * raw[i] + 0.5; /* time = 10 x + 0.5, <= 5 for x < .45 */
    }
    /* Too few reports: vouches for nothing. */
    assert_int_equal(
        constraints_prob(&d, 0, raw, c, CONSTRAINT_MIN_REPORTS - 1, q, 2, 0, p),
        HPOD_OK);
    assert_true(p[0] == 0 && p[1] == 0);
    assert_int_equal(constraints_prob(&d, 0, raw, c, 12, q, 2, 0, p), HPOD_OK);
    assert_true(p[0] > 0.9);
    assert_true(p[1] < 0.1);
    /* The same inputs give the same answer. */
    double again[2];
    assert_int_equal(constraints_prob(&d, 0, raw, c, 12, q, 2, 0, again),
                     HPOD_OK);
    assert_true(again[0] == p[0] && again[1] == p[1]);
    assert_int_equal(constraints_prob(&d, 1, raw, c, 12, q, 2, 0, p),
                     HPOD_EINVAL);
    def_clear(&d);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_and_feasibility),
        cmocka_unit_test(test_bounds_and_log),
        cmocka_unit_test(test_probability),
    };
    return cmocka_run_group_tests_name("constraints", tests, NULL, NULL);
}
