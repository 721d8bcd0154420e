/*
 * tests/unit/test_decoupled.c - the probe-first rule (core/decoupled.h)
 * against a brute-force enumeration of its two outcomes.
 */
#include "tests/support/check.h"

#include <math.h>

#include "core/decoupled.h"

/*
 * Brute force: the two outcomes (the probe passes with probability q or
 * fails) of each policy, their expected gain and cost (a training at an
 * infeasible point still yields an objective observation, valued at g);
 * probing first must be chosen exactly when its gain per unit cost is the
 * larger.
 */
static void
test_probe_rule_brute_force(void **state)
{
    (void)state;
    const double g = 0.7; /* any gain of a feasible training */
    for (int a = 0; a <= 40; a++) {
        for (int b = 1; b <= 40; b++) {
            double q = a / 40.0 + 1e-9 * (a == 20), cost = b / 40.0;
            double gain_train = 0, cost_train = 0, gain_probe = 0,
                   cost_probe = 0;
            for (int pass = 0; pass <= 1; pass++) {
                double w = pass ? q : 1 - q;
                /* Infeasible: the objective observation, worth the
                 * step's expected constrained improvement q·g. */
                gain_train += w * (pass ? g : q * g);
                cost_train += w * 1;
                gain_probe += w * (pass ? g : 0);
                cost_probe += w * (cost + (pass ? 1 : 0));
            }
            double rt = gain_train / cost_train, rp = gain_probe / cost_probe;
            if (fabs(rt - rp) < 1e-12)
                continue; /* a tie: either answer */
            assert_int_equal(decoupled_probe_first(q, cost), rp > rt);
        }
    }
    assert_int_equal(decoupled_probe_first(NAN, 0.1), 1);
    assert_int_equal(decoupled_probe_first(NAN, 0.2), 0);
    assert_int_equal(decoupled_probe_first(0.6, 0.1), 1);
    assert_int_equal(decoupled_probe_first(0.7, 0.1), 0);
    assert_int_equal(decoupled_probe_first(0.2, 0), 0);
    assert_int_equal(decoupled_probe_first(0.2, 1.5), 0);
    assert_int_equal(decoupled_probe_first(-1, 0.4), 1);
    assert_int_equal(decoupled_probe_first(2, 0.01), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe_rule_brute_force),
    };
    return cmocka_run_group_tests_name("decoupled", tests, NULL, NULL);
}
