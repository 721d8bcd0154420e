/*
 * tests/unit/test_name.c - the name rule [A-Za-z0-9_.-]: every byte value
 * checked against the character classes, lengths at and past the limit,
 * and prefixes (hpod_name_ok_n) against whole strings (hpod_name_ok).
 */
#include "tests/support/check.h"

#include <string.h>

#include "common/name.h"

static int
is_name_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

/* Every non-NUL byte: a one-character name is legal exactly for the 65
 * name characters, and the span stops at the first other byte. */
static void
test_every_byte(void **state)
{
    (void)state;
    size_t legal = 0;
    for (int c = 1; c < 256; c++) {
        char s[3] = {(char)c, 0, 0};
        assert_int_equal(hpod_name_ok(s, 64), is_name_char(c));
        legal += (size_t)is_name_char(c);
        char t[4] = {'a', (char)c, 'b', 0};
        assert_int_equal(hpod_name_span(t), is_name_char(c) ? 3u : 1u);
    }
    assert_int_equal(legal, 26 + 26 + 10 + 3);
}

static void
test_lengths(void **state)
{
    (void)state;
    char s[70];
    memset(s, 'x', sizeof s);
    s[64] = '\0';
    assert_true(hpod_name_ok(s, 64));
    assert_false(hpod_name_ok(s, 63));
    assert_false(hpod_name_ok("", 64));
    assert_false(hpod_name_ok(NULL, 64));
    assert_int_equal(hpod_name_span(NULL), 0);
}

/* A prefix of n characters may be followed by anything; the whole-string
 * check refuses what follows if it is not a name character. */
static void
test_prefixes(void **state)
{
    (void)state;
    assert_true(hpod_name_ok_n("nmthpo/zh-en", 6, 64));
    assert_false(hpod_name_ok("nmthpo/zh-en", 64));
    assert_true(hpod_name_ok_n("zh-en", 5, 64));
    assert_false(hpod_name_ok_n("zh en", 5, 64));
    assert_false(hpod_name_ok_n("zh-en", 0, 64));
    assert_false(hpod_name_ok_n("zh-en", 5, 4));
    assert_false(hpod_name_ok("bleu\n", 64));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_byte),
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_prefixes),
    };
    return cmocka_run_group_tests_name("name", tests, NULL, NULL);
}
