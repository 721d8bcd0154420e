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
 * choice equal to an earlier one (n if none), over random arrays of short
 * strings from a small alphabet (so duplicates are frequent, and strings
 * of different lengths share prefixes), of numbers (integers and reals,
 * 2 equal to 2.0) and of booleans.
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
            int v = (int)rng_below(&r, t % 2 ? 4 : 40);
            for (size_t k = 0; k < len; k++)
                s[k] = (char)('a' + rng_below(&r, t % 2 ? 3 : 12));
            json_array_append_new(
                a, t % 3 == 0 ? json_string(s)
                   : t % 3 == 1
                       ? (v % 2 ? json_integer(v / 2)
                                : json_real(v / 2 + 0.5 * (v % 4 == 0)))
                       : json_boolean(v % 2));
        }
        for (size_t i = 0; i < n && want == n; i++)
            for (size_t j = 0; j < i; j++)
                if (choices_same(json_array_get(a, i), json_array_get(a, j)))
                    want = i;
        assert_int_equal(choices_first_duplicate(a, n), want);
        json_decref(a);
    }
}

/* choices_check: OK, a duplicate, a number among strings, an object, an
 * empty and a long string, a duplicate number (2 and 2.0), each with its
 * status, field and message. */
static void
test_check(void **state)
{
    (void)state;
    char long_choice[202];
    memset(long_choice, 'y', 201);
    long_choice[201] = 0;
    json_t *ok = json_pack("[s,s,s]", "a", "b", "ab");
    json_t *dup = json_pack("[s,s,s,s]", "a", "b", "ab", "b");
    json_t *num = json_pack("[s,s,i]", "a", "b", 3);
    json_t *obj = json_pack("[s,{}]", "a");
    json_t *dupnum = json_pack("[i,f,i,f]", 1, 2.5, 2, 2.0);
    json_t *empty = json_pack("[s,s]", "a", "");
    json_t *lng = json_pack("[s,s]", "a", long_choice);
    struct hpod_err err = {0};

    assert_int_equal(choices_check(ok, "space[1].choices", &err), HPOD_OK);
    assert_int_equal(choices_check(dup, "space[1].choices", &err),
                     HPOD_EUNPROC);
    assert_string_equal(err.field, "space[1].choices[3]");
    assert_non_null(strstr(err.msg, "duplicate choice \"b\""));
    assert_int_equal(choices_check(num, "c", &err), HPOD_EUNPROC);
    assert_string_equal(err.field, "c[2]");
    assert_non_null(strstr(err.msg, "all strings, all numbers"));
    assert_int_equal(choices_check(obj, "c", &err), HPOD_EINVAL);
    assert_string_equal(err.field, "c[1]");
    assert_int_equal(choices_check(dupnum, "c", &err), HPOD_EUNPROC);
    assert_string_equal(err.field, "c[3]");
    assert_non_null(strstr(err.msg, "duplicate choice 2"));
    assert_int_equal(choices_check(empty, "c", &err), HPOD_EUNPROC);
    assert_string_equal(err.field, "c[1]");
    assert_int_equal(choices_check(lng, "c", &err), HPOD_EUNPROC);
    assert_string_equal(err.field, "c[1]");
    json_decref(ok);
    json_decref(dup);
    json_decref(num);
    json_decref(obj);
    json_decref(dupnum);
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
