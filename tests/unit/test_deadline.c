/*
 * tests/unit/test_deadline.c - a suggest's compute budget as a deadline
 * (study/deadline.h): 0 is unbounded, a short budget runs out, a long one
 * does not.
 */
#include "tests/support/check.h"

#include <time.h>

#include "study/deadline.h"

static void
test_deadline(void **state)
{
    (void)state;
    struct deadline d;
    struct compute_budget b;
    struct timespec ms5 = {0, 5 * 1000 * 1000};

    deadline_set_suggest_ms(0);
    deadline_start(&d, &b);
    assert_null(b.expired);
    assert_int_equal(compute_budget_spent(&b), 0);
    deadline_set_suggest_ms(1);
    deadline_start(&d, &b);
    nanosleep(&ms5, NULL);
    assert_int_equal(compute_budget_spent(&b), 1);
    assert_int_equal(compute_budget_was_cut(&b), 1);
    deadline_set_suggest_ms(3600000);
    deadline_start(&d, &b);
    assert_int_equal(compute_budget_spent(&b), 0);
    assert_int_equal(b.cuts, 0);
    deadline_set_suggest_ms(DEADLINE_SUGGEST_MS);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deadline),
    };
    return cmocka_run_group_tests_name("deadline", tests, NULL, NULL);
}
