/*
 * tests/unit/test_etag.c - If-None-Match against an entity tag: exact
 * tags in a list, the weak prefix, "*", and near misses.
 */
#include "tests/support/check.h"

#include "common/etag.h"

static void
test_listed(void **unused)
{
    (void)unused;
    const char *t = "\"abc\"";
    assert_true(etag_listed("\"abc\"", t));
    assert_true(etag_listed("W/\"abc\"", t));
    assert_true(etag_listed("\"x\", \"abc\"", t));
    assert_true(etag_listed(" \"x\",\t\"abc\" ,", t));
    assert_true(etag_listed("*", t));
    assert_false(etag_listed(NULL, t));
    assert_false(etag_listed("", t));
    assert_false(etag_listed("\"abcd\"", t));
    assert_false(etag_listed("\"ab\"", t));
    assert_false(etag_listed("abc", t));
    assert_false(etag_listed("\"x\" \"y\"", t));
    assert_false(etag_listed("**", t));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listed),
    };
    return cmocka_run_group_tests_name("etag", tests, NULL, NULL);
}
