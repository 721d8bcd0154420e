/*
 * tests/unit/test_json.c - the JSON encoder: string escaping, nesting,
 * key order, reals in their shortest form that stay reals, and random
 * documents that read back equal; the one field reader (hj_get_*): its
 * defaults, types, bounds and the paths its errors name.
 */
#include "tests/support/check.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "common/err.h"
#include "common/json.h"

/* Dumps v (consumed) with flags and compares with want. */
static void
dump_is(json_t *v, size_t flags, const char *want)
{
    char *t = hj_dump(v, flags);
    assert_non_null(t);
    if (strcmp(t, want) != 0)
        fail_msg("dumped %s, expected %s", t, want);
    free(t);
    json_decref(v);
}

static void
test_scalars(void **state)
{
    (void)state;
    dump_is(json_null(), 0, "null");
    dump_is(json_true(), 0, "true");
    dump_is(json_false(), 0, "false");
    dump_is(json_integer(0), 0, "0");
    dump_is(json_integer(-9223372036854775807LL - 1), 0,
            "-9223372036854775808");
    dump_is(json_integer(9223372036854775807LL), 0, "9223372036854775807");
    dump_is(json_real(14.2), 0, "14.2");
    dump_is(json_real(0.1), 0, "0.1");
    dump_is(json_real(3.0), 0, "3.0");
    dump_is(json_real(-0.0), 0, "-0.0");
    dump_is(json_real(0.0), 0, "0.0");
    dump_is(json_real(1e19), 0, "1e+19");
    dump_is(json_real(5e-324), 0, "5e-324");
    dump_is(json_real(-DBL_MAX), 0, "-1.7976931348623157e+308");
    dump_is(json_real(123456789012345.0), 0, "123456789012345.0");
    dump_is(json_real(1e15), 0, "1e+15");
    dump_is(json_string(""), 0, "\"\"");
    assert_null(hj_dump(NULL, 0));
}

static void
test_per_value_precision(void **state)
{
    (void)state;
    /* One value needing 17 digits no longer drags the others along. */
    dump_is(json_pack("{s:f, s:f, s:f, s:i}", "bleu", 14.2, "loss", 0.1 + 0.2,
                      "tiny", 1e-300, "n", 3),
            0,
            "{\"bleu\":14.2,\"loss\":0.30000000000000004,\"tiny\":1e-300,"
            "\"n\":3}");
}

static void
test_escaping(void **state)
{
    (void)state;
    static const char raw[] = "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f"
                              "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
    dump_is(json_string(raw), 0,
            "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001F\x7f"
            "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    /* An embedded NUL, in a value and in a key. */
    dump_is(json_stringn("a\0b", 3), 0, "\"a\\u0000b\"");
    json_t *o = json_object();
    json_object_setn_new(o, "k\0y", 3, json_integer(1));
    dump_is(o, 0, "{\"k\\u0000y\":1}");
    /* Escapes inside keys; text that is all escapes; a long plain run. */
    dump_is(json_pack("{s:s}", "a\"b\n", "\n\n"), 0,
            "{\"a\\\"b\\n\":\"\\n\\n\"}");
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    json_t *s = json_string(big);
    char *t = hj_dump(s, 0);
    assert_int_equal(strlen(t), sizeof big + 1);
    free(t);
    json_decref(s);
}

static void
test_bad_utf8(void **state)
{
    (void)state;
    static const char *bad[] = {
        "\x80",             /* lone continuation */
        "\xc3",             /* truncated */
        "\xc0\xaf",         /* overlong '/' */
        "\xe0\x80\xaf",     /* overlong */
        "\xed\xa0\x80",     /* surrogate U+D800 */
        "\xf4\x90\x80\x80", /* past U+10FFFF */
        "\xf5\x80\x80\x80",
        "\xff",
        "ok\xe2\x82", /* truncated at the end */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *s = json_string_nocheck(bad[i]);
        json_t *a = json_pack("[o]", json_string_nocheck(bad[i]));
        assert_null(hj_dump(s, 0));
        assert_null(hj_dump(a, 0));
        json_decref(s);
        json_decref(a);
    }
}

static void
test_nesting_and_order(void **state)
{
    (void)state;
    json_t *v = json_loads(
        "{\"z\":[1,2.5,{\"b\":null,\"a\":true,\"c\":false}],\"a\":{},"
        "\"m\":[[],[[]]],\"\\u00e9\":\"x\",\"B\":-1}",
        0, NULL);
    assert_non_null(v);
    json_incref(v);
    dump_is(v, 0,
            "{\"z\":[1,2.5,{\"b\":null,\"a\":true,\"c\":false}],\"a\":{},"
            "\"m\":[[],[[]]],\"\xc3\xa9\":\"x\",\"B\":-1}");
    dump_is(v, JSON_SORT_KEYS,
            "{\"B\":-1,\"a\":{},\"m\":[[],[[]]],\"z\":[1,2.5,{\"a\":true,"
            "\"b\":null,\"c\":false}],\"\xc3\xa9\":\"x\"}");
    /* A key that is a prefix of another sorts first. */
    dump_is(json_pack("{s:i, s:i, s:i}", "ab", 1, "a", 2, "", 3),
            JSON_SORT_KEYS, "{\"\":3,\"a\":2,\"ab\":1}");
    /* A non-finite real cannot be built with json_real, but a cycle can
     * be: both end in NULL, never in a crash. */
    json_t *arr = json_array(), *inner = json_array();
    json_array_append(arr, inner);
    json_array_append(inner, arr);
    assert_null(hj_dump(arr, 0));
    json_array_clear(inner);
    json_decref(inner);
    json_decref(arr);
}

/* A random document of depth up to d. */
static json_t *
random_value(struct rng *r, int d)
{
    uint64_t u;
    double x;
    switch (rng_below(r, d > 0 ? 8 : 6)) {
    case 0:
        return json_null();
    case 1:
        return json_boolean(rng_below(r, 2));
    case 2:
        return json_integer((json_int_t)rng_next(r));
    case 3:
        do {
            u = rng_next(r);
            memcpy(&x, &u, sizeof x);
        } while (!isfinite(x));
        return json_real(x);
    case 4:
        return json_real((double)(int64_t)(rng_next(r) >> 20));
    case 5: {
        char s[16];
        size_t n = rng_below(r, sizeof s);
        for (size_t i = 0; i < n; i++)
            s[i] = (char)rng_below(r, 128);
        return json_stringn(s, n);
    }
    case 6: {
        json_t *a = json_array();
        for (uint64_t i = rng_below(r, 5); i > 0; i--)
            json_array_append_new(a, random_value(r, d - 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (uint64_t i = rng_below(r, 5); i > 0; i--) {
            char k[8];
            snprintf(k, sizeof k, "k%u", (unsigned)rng_below(r, 100));
            json_object_set_new(o, k, random_value(r, d - 1));
        }
        return o;
    }
    }
}

/* Reals read back as reals, bit for bit (json_equal treats -0 as 0). */
static void
same_reals(const json_t *a, const json_t *b)
{
    assert_int_equal(json_typeof(a), json_typeof(b));
    if (json_is_real(a)) {
        double x = json_real_value(a), y = json_real_value(b);
        assert_memory_equal(&x, &y, sizeof x);
    } else if (json_is_array(a)) {
        for (size_t i = 0; i < json_array_size(a); i++)
            same_reals(json_array_get(a, i), json_array_get(b, i));
    } else if (json_is_object(a)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)a, k, v)
            same_reals(v, json_object_get(b, k));
    }
}

static void
test_random_round_trip(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 424242);
    for (int i = 0; i < 2000; i++) {
        json_t *v = random_value(&r, 4);
        char *t = hj_dump(v, i & 1 ? JSON_SORT_KEYS : 0);
        assert_non_null(t);
        json_t *back = json_loads(t, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        if (!back || !json_equal(back, v))
            fail_msg("did not read back equal: %s", t);
        same_reals(v, back);
        /* Without reals, the text is jansson's own compact text. */
        if (!strpbrk(t, ".e") || !json_is_real(v)) {
            char *j = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY |
                                        (i & 1 ? JSON_SORT_KEYS : 0));
            if (j && !strpbrk(j, ".eE") && strcmp(j, t) != 0)
                fail_msg("jansson wrote %s, we wrote %s", j, t);
            free(j);
        }
        free(t);
        json_decref(back);
        json_decref(v);
    }
}

static void
test_field_reader(void **state)
{
    (void)state;
    json_t *o =
        json_loads("{\"n\": 7, \"big\": 99, \"s\": \"x\", \"z\": null,"
                   " \"f\": 0.5, \"r\": 2.5, \"huge\": 9007199254740993}",
                   0, NULL);
    struct hpod_err err = {0};
    long long i = -1;
    double x = -1;
    const char *str = "unset";
    int has = -1;

    assert_non_null(o);
    /* Present and legal. */
    assert_int_equal(hj_get_int(o, "", "n", 0, 10, &i, &has, &err), HPOD_OK);
    assert_int_equal(i, 7);
    assert_int_equal(has, 1);
    /* Absent and null leave the default; present may be NULL. */
    i = 42;
    assert_int_equal(hj_get_int(o, "", "none", 0, 10, &i, &has, &err), HPOD_OK);
    assert_int_equal(i, 42);
    assert_int_equal(has, 0);
    assert_int_equal(hj_get_int(o, "a", "z", 0, 10, &i, NULL, &err), HPOD_OK);
    assert_int_equal(i, 42);
    /* Bounds are 422 naming path.key; a wrong type is 400. */
    assert_int_equal(hj_get_int(o, "algorithm", "big", 0, 10, &i, NULL, &err),
                     HPOD_EUNPROC);
    assert_string_equal(err.field, "algorithm.big");
    assert_string_equal(err.msg, "algorithm.big must be between 0 and 10");
    assert_int_equal(i, 42);
    assert_int_equal(hj_get_int(o, "", "s", 0, 10, &i, NULL, &err),
                     HPOD_EINVAL);
    assert_string_equal(err.field, "s");
    assert_string_equal(err.msg, "s must be an integer");
    /* Numbers: exact only; null is given and is not a number. */
    assert_int_equal(hj_get_number(o, "", "f", &x, &has, &err), HPOD_OK);
    assert_true(x == 0.5 && has == 1);
    assert_int_equal(hj_get_number(o, "p", "z", &x, &has, &err), HPOD_EINVAL);
    assert_true(has == 1 && x == 0.5);
    assert_string_equal(err.field, "p.z");
    assert_int_equal(hj_get_number(o, "", "huge", &x, NULL, &err),
                     HPOD_EUNPROC);
    assert_int_equal(hj_get_number(o, "", "none", &x, &has, &err), HPOD_OK);
    assert_true(x == 0.5 && has == 0);
    /* Strings: borrowed; required or not. */
    assert_int_equal(hj_get_string(o, "", "s", 1, &str, &err), HPOD_OK);
    assert_string_equal(str, "x");
    str = "dflt";
    assert_int_equal(hj_get_string(o, "", "z", 0, &str, &err), HPOD_OK);
    assert_string_equal(str, "dflt");
    assert_int_equal(hj_get_string(o, "space[2]", "z", 1, &str, &err),
                     HPOD_EINVAL);
    assert_string_equal(err.msg, "space[2].z is required");
    assert_int_equal(hj_get_string(o, "", "n", 0, &str, &err), HPOD_EINVAL);
    assert_string_equal(err.msg, "n must be a string");
    json_decref(o);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_per_value_precision),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_bad_utf8),
        cmocka_unit_test(test_nesting_and_order),
        cmocka_unit_test(test_random_round_trip),
        cmocka_unit_test(test_field_reader),
    };
    return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
