/*
 * tests/unit/test_standby.c - the standby's arithmetic (store/standby.h):
 * WAL positions read from their text, how far behind a replayed position
 * is against the primary's positions over time, and the check period.
 */
#include "tests/support/check.h"

#include "store/standby.h"

static void
test_standby_parse_lsn(void **state)
{
    (void)state;
    assert_true(standby_parse_lsn("0/0") == 0);
    assert_true(standby_parse_lsn("0/16B3748") == 0x16B3748ULL);
    assert_true(standby_parse_lsn("16/B374D848") == 0x16B374D848ULL);
    assert_true(standby_parse_lsn("FFFFFFFF/FFFFFFFF") == ~0ULL);
    assert_true(standby_parse_lsn(NULL) == 0);
    assert_true(standby_parse_lsn("") == 0);
    assert_true(standby_parse_lsn("16") == 0);
    assert_true(standby_parse_lsn("16/B374D848x") == 0);
}

static void
test_standby_lag(void **state)
{
    (void)state;
    /* The primary at 100, 200, 300 ms wrote up to 10, 20, 30. */
    const long long at[] = {100, 200, 300};
    const unsigned long long lsn[] = {10, 20, 30};
    /* Everything replayed: behind by the age of the newest sample. */
    assert_int_equal(standby_lag_ms(at, lsn, 3, 30, 310), 10);
    assert_int_equal(standby_lag_ms(at, lsn, 3, ~0ULL, 300), 0);
    /* Between samples: the newest one it has. */
    assert_int_equal(standby_lag_ms(at, lsn, 3, 25, 310), 110);
    assert_int_equal(standby_lag_ms(at, lsn, 3, 20, 310), 110);
    assert_int_equal(standby_lag_ms(at, lsn, 3, 10, 1000), 900);
    /* Older than every sample kept: -1, at least 1000 - 100 behind. */
    assert_int_equal(standby_lag_ms(at, lsn, 3, 9, 1000), -1);
    assert_int_equal(standby_lag_ms(at, lsn, 0, 9, 1000), -1);
    /* An idle primary: the same position again and again. */
    const long long at2[] = {100, 200, 300};
    const unsigned long long lsn2[] = {50, 50, 50};
    assert_int_equal(standby_lag_ms(at2, lsn2, 3, 50, 320), 20);
}

static void
test_standby_period(void **state)
{
    (void)state;
    assert_int_equal(standby_period_ms(1000), 200);
    assert_int_equal(standby_period_ms(10), 20);
    assert_int_equal(standby_period_ms(3600000), 250);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standby_parse_lsn),
        cmocka_unit_test(test_standby_lag),
        cmocka_unit_test(test_standby_period),
    };
    return cmocka_run_group_tests_name("standby", tests, NULL, NULL);
}
