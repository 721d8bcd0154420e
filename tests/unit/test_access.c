/*
 * tests/unit/test_access.c - the pure rules of study/access.c: role names,
 * lab names, which tables and labs a principal sees, and durations.
 */
#include "tests/support/check.h"

#include <string.h>

#include "study/access.h"

static void
test_roles(void **state)
{
    (void)state;
    assert_int_equal(access_role_parse("read"), ROLE_READ);
    assert_int_equal(access_role_parse("write"), ROLE_WRITE);
    assert_int_equal(access_role_parse("admin"), ROLE_ADMIN);
    assert_int_equal(access_role_parse("none"), ROLE_NONE);
    assert_int_equal(access_role_parse("Admin"), ROLE_NONE);
    assert_int_equal(access_role_parse(NULL), ROLE_NONE);
    for (int r = ROLE_READ; r <= ROLE_ADMIN; r++)
        assert_int_equal(access_role_parse(access_role_name(r)), r);
    /* The order is the order of powers: auth compares with <. */
    assert_true(ROLE_NONE < ROLE_READ && ROLE_READ < ROLE_WRITE &&
                ROLE_WRITE < ROLE_ADMIN);
}

static void
test_lab_names(void **state)
{
    (void)state;
    char long_name[70];
    memset(long_name, 'a', sizeof long_name);
    long_name[64] = '\0';
    assert_true(access_lab_name_ok("mt"));
    assert_true(access_lab_name_ok("lab_1.x-y"));
    assert_true(access_lab_name_ok(long_name));
    long_name[64] = 'a';
    long_name[65] = '\0';
    assert_false(access_lab_name_ok(long_name));
    assert_false(access_lab_name_ok(""));
    assert_false(access_lab_name_ok("a/b"));
    assert_false(access_lab_name_ok("nmthpo"));
    assert_false(access_lab_name_ok("nmtlc"));
    assert_true(access_lab_name_ok("nmthpo2"));
}

static void
test_visibility(void **state)
{
    (void)state;
    struct principal all = {ROLE_READ, "", 1}, mt = {ROLE_ADMIN, "mt", 2};
    assert_true(access_sees_lab(&all, "mt"));
    assert_true(access_sees_lab(&mt, "mt"));
    assert_false(access_sees_lab(&mt, "mtx"));
    assert_false(access_sees_lab(&mt, NULL));
    assert_true(access_sees_table(&mt, "nmthpo/zh-en"));
    assert_true(access_sees_table(&mt, "nmtlc/sw-en"));
    assert_true(access_sees_table(&mt, "mt/x"));
    assert_false(access_sees_table(&mt, "m/x"));
    assert_false(access_sees_table(&mt, "mtx/x"));
    assert_false(access_sees_table(&mt, "nlp/x"));
    assert_true(access_sees_table(&mt, "x")); /* no namespace: 404 later */
    assert_true(access_sees_table(&all, "nlp/x"));
}

static void
test_durations(void **state)
{
    (void)state;
    long long s = 0;
    assert_int_equal(access_parse_duration("90", &s), 0);
    assert_int_equal(s, 90);
    assert_int_equal(access_parse_duration("90s", &s), 0);
    assert_int_equal(s, 90);
    assert_int_equal(access_parse_duration("15m", &s), 0);
    assert_int_equal(s, 900);
    assert_int_equal(access_parse_duration("12h", &s), 0);
    assert_int_equal(s, 43200);
    assert_int_equal(access_parse_duration("30d", &s), 0);
    assert_int_equal(s, 2592000);
    assert_int_equal(access_parse_duration("3650d", &s), 0);
    assert_int_equal(s, ACCESS_MAX_EXPIRES);
    s = -7;
    static const char *const bad[] = {
        "0", "0d", "3651d", "-1", "1w",   "1dd",
        "d", "",   " 1",    "1 ", "1.5h", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(access_parse_duration(bad[i], &s), -1);
    assert_int_equal(access_parse_duration(NULL, &s), -1);
    assert_int_equal(s, -7); /* untouched on failure */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roles),
        cmocka_unit_test(test_lab_names),
        cmocka_unit_test(test_visibility),
        cmocka_unit_test(test_durations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
