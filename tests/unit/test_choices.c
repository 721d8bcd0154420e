/*
 * tests/unit/test_choices.c - a categorical's choices (study/choices.h):
 * the first duplicate against the pairwise reference, and the checks'
 * statuses and fields.
 */
#include "tests/support/check.h"

#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "core/rng.h"
#include "study/choices.h"

/*
 * choices_first_duplicate against the pairwise reference: the first
 * string equal to an earlier one (n if none), over random arrays of short
 * strings from a small alphabet (so duplicates are frequent, and strings
 * of different lengths share prefixes).
 */
static void
test_first_duplicate(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 31);
    for (int t = 0; t < 300; t++) {
        size_t n = (size_t)rng_below(&r, 40), want = n;
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            char s[4] = {0};
            size_t len = 1 + (size_t)rng_below(&r, 3);
            for (size_t k = 0; k < len; k++)
                s[k] = (char)('a' + rng_below(&r, t % 2 ? 3 : 12));
            json_array_append_new(a, json_string(s));
        }
        for (size_t i = 0; i < n && want == n; i++)
            for (size_t j = 0; j < i; j++)
                if (json_equal(json_array_get(a, i), json_array_get(a, j)))
                    want = i;
        assert_int_equal(choices_first_duplicate(a, n), want);
        json_decref(a);
    }
}

/* choices_check: OK, a duplicate, a number, an empty and a long string,
 * each with its status, field and message. */
static void
test_check(void **state)
{
    (void)state;
    char long_choice[202];
    memset(long_choice, 'y', 201);
    long_choice[201] = 0;
    json_t *ok = json_pack("[s,s,s]", "a", "b", "ab");
    json_t *dup = json_pack("[s,s,s,s]", "a", "b", "ab", "b");
    json_t *num = json_pack("[s,s,i]", "a", "a", 3);
    json_t *empty = json_pack("[s,s]", "a", "");
    json_t *lng = json_pack("[s,s]", "a", long_choice);
    struct hpod_err err = {0};

    assert_int_equal(choices_check(ok, "space[1].choices", &err), HPOD_OK);
    assert_int_equal(choices_check(dup, "space[1].choices", &err),
                     HPOD_EUNPROC);
    assert_string_equal(err.field, "space[1].choices[3]");
    assert_non_null(strstr(err.msg, "duplicate choice \"b\""));
    assert_int_equal(choices_check(num, "c", &err), HPOD_EINVAL);
    assert_string_equal(err.field, "c[2]");
    assert_int_equal(choices_check(empty, "c", &err), HPOD_EUNPROC);
    assert_string_equal(err.field, "c[1]");
    assert_int_equal(choices_check(lng, "c", &err), HPOD_EUNPROC);
    assert_string_equal(err.field, "c[1]");
    json_decref(ok);
    json_decref(dup);
    json_decref(num);
    json_decref(empty);
    json_decref(lng);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_duplicate),
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests_name("choices", tests, NULL, NULL);
}
