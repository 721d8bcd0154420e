/*
 * tests/unit/test_histogram.c - common/histogram.c: values counted in the
 * bucket of their first upper bound at or above them (a bound itself
 * included), the text's cumulative buckets, sum and count against the
 * values observed, NaN and negative values, labels, and label escaping.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>

#include "common/histogram.h"

static const struct histogram_bounds b3 = {3, {0.1, 1.0, 10.0}};

static char *
text_of(const struct histogram *h, const char *labels)
{
    struct strbuf s = {0};
    strbuf_put(&s, "", 0);
    histogram_text(&s, "x_seconds", labels, h, &b3);
    return s.p;
}

static void
test_buckets(void **state)
{
    (void)state;
    static struct histogram h;
    const double v[] = {0.05, 0.1, 0.5, 1.0, 2.0, 50.0, 0.2};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        histogram_observe(&h, &b3, v[i]);
    assert_int_equal(histogram_total(&h, &b3), 7);
    char *t = text_of(&h, "");
    /* <= 0.1: 0.05, 0.1; <= 1: + 0.5, 1.0, 0.2; <= 10: + 2.0; all 7. */
    assert_string_equal(t, "x_seconds_bucket{le=\"0.1\"} 2\n"
                           "x_seconds_bucket{le=\"1\"} 5\n"
                           "x_seconds_bucket{le=\"10\"} 6\n"
                           "x_seconds_bucket{le=\"+Inf\"} 7\n"
                           "x_seconds_sum 53.850000\n"
                           "x_seconds_count 7\n");
    free(t);
}

static void
test_odd_values_and_labels(void **state)
{
    (void)state;
    static struct histogram h;
    histogram_observe(&h, &b3, NAN);
    histogram_observe(&h, &b3, -1.0);
    histogram_observe(&h, &b3, INFINITY);
    char *t = text_of(&h, "algorithm=\"gp\"");
    assert_string_equal(t, "x_seconds_bucket{algorithm=\"gp\",le=\"0.1\"} 2\n"
                           "x_seconds_bucket{algorithm=\"gp\",le=\"1\"} 2\n"
                           "x_seconds_bucket{algorithm=\"gp\",le=\"10\"} 2\n"
                           "x_seconds_bucket{algorithm=\"gp\",le=\"+Inf\"} 3\n"
                           "x_seconds_sum{algorithm=\"gp\"} 0.000000\n"
                           "x_seconds_count{algorithm=\"gp\"} 3\n");
    free(t);
}

static void
test_escape(void **state)
{
    (void)state;
    char out[16];
    assert_string_equal(histogram_escape("(other)", out, sizeof out),
                        "(other)");
    assert_string_equal(histogram_escape("a\"b\\c\nd", out, sizeof out),
                        "a\\\"b\\\\c\\nd");
    /* Cut short before an escape would overflow. */
    assert_string_equal(histogram_escape("abc\"", out, 5), "abc");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buckets),
        cmocka_unit_test(test_odd_values_and_labels),
        cmocka_unit_test(test_escape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
