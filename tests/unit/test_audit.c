/*
 * tests/unit/test_audit.c - the pure rules of study/audit.c: the closed
 * list of actions and the RFC 3339 timestamps `since` accepts (every day
 * of four years, leap rules included, against the C library's calendar).
 */
#include "tests/support/check.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "study/audit.h"

static void
test_actions(void **state)
{
    char list[512], *save = NULL;
    int n = 0;
    (void)state;
    snprintf(list, sizeof list, "%s", audit_actions_text());
    /* Every action the text names is accepted: the list in messages is
     * the list that is checked. */
    for (char *a = strtok_r(list, ", ", &save); a;
         a = strtok_r(NULL, ", ", &save)) {
        assert_true(audit_action_ok(a));
        n++;
    }
    assert_int_equal(n, 15);
    assert_false(audit_action_ok("study.read"));
    assert_false(audit_action_ok("study.create "));
    assert_false(audit_action_ok("Study.create"));
    assert_false(audit_action_ok(""));
    assert_false(audit_action_ok(NULL));
}

/* Whether y-m-d is a day of the proleptic Gregorian calendar, by the C
 * library: timegm normalizes a day the month lacks into the next month. */
static int
real_day(int y, int m, int d)
{
    struct tm t = {0};
    t.tm_year = y - 1900;
    t.tm_mon = m - 1;
    t.tm_mday = d;
    t.tm_hour = 12;
    time_t s = timegm(&t);
    struct tm back;
    gmtime_r(&s, &back);
    return back.tm_year == y - 1900 && back.tm_mon == m - 1 &&
           back.tm_mday == d;
}

static void
test_since_days(void **state)
{
    static const int years[] = {1900, 2000, 2023, 2024};
    char s[64];
    (void)state;
    for (size_t k = 0; k < sizeof years / sizeof years[0]; k++)
        for (int m = 1; m <= 12; m++)
            for (int d = 1; d <= 32; d++) {
                snprintf(s, sizeof s, "%04d-%02d-%02dT23:59:59Z", years[k], m,
                         d);
                assert_int_equal(audit_since_ok(s), real_day(years[k], m, d));
            }
}

static void
test_since_forms(void **state)
{
    static const char *const good[] = {
        "2025-01-31T12:00:00Z",          "2025-01-31t12:00:00z",
        "2025-01-31T12:00:00.5Z",        "2025-01-31T12:00:00.123456789Z",
        "2025-01-31T12:00:00+02:00",     "2025-01-31T12:00:00-11:30",
        "2025-01-31T00:00:00.000+00:00",
    };
    static const char *const bad[] = {
        "2025-01-31",
        "2025-01-31T12:00Z",
        "2025-01-31 12:00:00Z",
        "2025-13-01T00:00:00Z",
        "2025-00-10T00:00:00Z",
        "2025-01-00T00:00:00Z",
        "2025-01-31T24:00:00Z",
        "2025-01-31T12:60:00Z",
        "2025-01-31T12:00:60Z",
        "2025-01-31T12:00:00",
        "2025-01-31T12:00:00.Z",
        "2025-01-31T12:00:00.1234567890Z",
        "2025-01-31T12:00:00+2:00",
        "2025-01-31T12:00:00+24:00",
        "2025-01-31T12:00:00Z ",
        "0000-01-01T00:00:00Z",
        "yesterday",
        "",
        "2025-01-31T12:00:00+02:00x",
        "+2025-01-31T12:00:00Z",
    };
    (void)state;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(audit_since_ok(good[i]));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(audit_since_ok(bad[i]));
    assert_false(audit_since_ok(NULL));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_actions),
        cmocka_unit_test(test_since_days),
        cmocka_unit_test(test_since_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
