/*
 * tests/unit/test_compute_budget.c - the budget callback: NULL is never
 * spent, a spent budget counts its cuts.
 */
#include "tests/support/check.h"

#include "core/compute_budget.h"

static int
after_two(void *ctx)
{
    int *n = ctx;
    return ++*n > 2;
}

static void
test_spent(void **state)
{
    (void)state;
    int n = 0;
    struct compute_budget b = {after_two, &n, 0};

    assert_int_equal(compute_budget_spent(NULL), 0);
    assert_int_equal(compute_budget_was_cut(NULL), 0);
    assert_int_equal(compute_budget_spent(&b), 0);
    assert_int_equal(compute_budget_spent(&b), 0);
    assert_int_equal(compute_budget_was_cut(&b), 0);
    assert_int_equal(compute_budget_spent(&b), 1);
    assert_int_equal(compute_budget_spent(&b), 1);
    assert_int_equal(b.cuts, 2);
    assert_int_equal(compute_budget_was_cut(&b), 1);
    struct compute_budget none = {NULL, NULL, 0};
    assert_int_equal(compute_budget_spent(&none), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spent),
    };
    return cmocka_run_group_tests_name("compute_budget", tests, NULL, NULL);
}
