/*
 * tests/unit/test_metrics.c - the TACL 2020 metrics on hand-made sequences:
 * targets among the initial points, tied maxima, budgets longer than the
 * sequence, targets never reached, the last Pareto row at the very end,
 * aggregation, and the needed sequence length.
 */
#include "tests/support/check.h"

#include "core/metrics.h"

/*
 * A 12-row miniature of nmthpo/zh-en's bleu column: rows 6, 8 and 10 tie
 * at 14.66 as ids 75, 77 and 105 do there (the oracle best is id 75, the
 * first); row 0 is 14.15 (id 34), just outside best − 0.5 = 14.16.
 */
static const double zh[12] = {14.15, 14.12, 14.36, 13.93, 14.36, 12.0,
                              14.66, 13.44, 14.66, 14.31, 14.66, 9.5};

static void
test_oracle_best_ties(void **state)
{
    (void)state;
    const double nan_first[3] = {NAN, 2.5, 2.5};
    assert_int_equal(metric_oracle_best(zh, 12), 6);
    assert_int_equal(metric_oracle_best(nan_first, 3), 1);
    assert_int_equal(metric_oracle_best(zh, 0), 0);
}

static void
test_ftb(void **state)
{
    (void)state;
    /* Row 8 ties the maximum but is not the oracle best (row 6 is). */
    const size_t a[] = {3, 1, 5, 8, 10, 2, 6, 0};
    assert_int_equal(metric_ftb(a, 8, zh, 12, 3), 7);
    /* Best among the initial points: counts as ninit. */
    const size_t b[] = {4, 6, 1, 0};
    assert_int_equal(metric_ftb(b, 4, zh, 12, 3), 3);
    assert_int_equal(metric_ftb(b, 4, zh, 12, 5), 5);
    /* Best as the first point after the initial ones. */
    const size_t c[] = {4, 3, 1, 6};
    assert_int_equal(metric_ftb(c, 4, zh, 12, 3), 4);
    /* Never sampled (ties do not count): 0. */
    assert_int_equal(metric_ftb(a, 6, zh, 12, 3), 0);
    assert_int_equal(metric_ftb(a, 0, zh, 12, 3), 0);
    /* Ids outside the table never hit. */
    const size_t d[] = {99, 12, 6};
    assert_int_equal(metric_ftb(d, 3, zh, 12, 1), 3);
}

static void
test_ftc(void **state)
{
    (void)state;
    /* 14.15 (row 0) and 14.12 (row 1) miss 14.16; 14.36 (row 2) hits. */
    const size_t a[] = {11, 5, 3, 0, 1, 7, 2, 6};
    assert_int_equal(metric_ftc(a, 8, zh, 12, 3, 0.5), 7);
    /* A wider tolerance reaches row 0 at position 4. */
    assert_int_equal(metric_ftc(a, 8, zh, 12, 3, 0.6), 4);
    /* Hit among the initial points. */
    const size_t b[] = {5, 4, 11, 6};
    assert_int_equal(metric_ftc(b, 4, zh, 12, 3, 0.5), 3);
    /* Never close. */
    assert_int_equal(metric_ftc(a, 6, zh, 12, 3, 0.5), 0);
    /* tol = 0: the first row at the maximum, tied rows included. */
    const size_t c[] = {3, 1, 5, 8, 6};
    assert_int_equal(metric_ftc(c, 5, zh, 12, 3, 0.0), 4);
    /*
     * The threshold is max − tol in doubles, as numpy computes it:
     * 0.8 − 0.5 = 0.30000000000000004 > 0.3, so 0.3 is NOT close, while
     * 14.66 − 0.5 == 14.16 exactly, so 14.16 is.
     */
    const double y1[2] = {0.3, 0.8}, y2[2] = {14.16, 14.66};
    const size_t s[2] = {0, 1};
    assert_int_equal(metric_ftc(s, 2, y1, 2, 1, 0.5), 2);
    assert_int_equal(metric_ftc(s, 2, y2, 2, 1, 0.5), 1);
}

static void
test_fb(void **state)
{
    (void)state;
    const size_t a[] = {11, 5, 3, 0, 1, 7, 2, 6};
    assert_close(metric_fb(a, 8, zh, 12, 3), 14.66 - 13.93, 1e-15, 0);
    assert_close(metric_fb(a, 8, zh, 12, 5), 14.66 - 14.15, 1e-15, 0);
    assert_close(metric_fb(a, 8, zh, 12, 7), 14.66 - 14.36, 1e-15, 0);
    /* Budget longer than the sequence: the whole sequence counts. */
    assert_close(metric_fb(a, 8, zh, 12, 20), 0.0, 0, 0);
    /* A tie with the best (row 8) is as good as the best. */
    const size_t b[] = {8, 0};
    assert_close(metric_fb(b, 2, zh, 12, 20), 0.0, 0, 0);
    /* Empty prefix. */
    assert_true(isinf(metric_fb(a, 8, zh, 12, 0)));
}

/* Pareto flags of a 10-row table: rows 2, 5 and 9 are optimal. */
static const unsigned char par[10] = {0, 0, 1, 0, 0, 1, 0, 0, 0, 1};

static void
test_fto_fta(void **state)
{
    (void)state;
    /* The last Pareto row at the very end of a full permutation. */
    const size_t a[10] = {0, 1, 3, 5, 4, 2, 6, 7, 8, 9};
    assert_int_equal(metric_fto(a, 10, par, 10, 3), 4);
    assert_int_equal(metric_fta(a, 10, par, 10, 3), 10);
    /* One short of the end: row 9 never seen. */
    assert_int_equal(metric_fta(a, 9, par, 10, 3), 0);
    /* Among the initial points. */
    const size_t b[] = {9, 5, 2, 0};
    assert_int_equal(metric_fto(b, 4, par, 10, 3), 3);
    assert_int_equal(metric_fta(b, 4, par, 10, 3), 3);
    assert_int_equal(metric_fta(b, 4, par, 10, 2), 3);
    /* No Pareto row sampled. */
    const size_t c[] = {0, 1, 3, 4};
    assert_int_equal(metric_fto(c, 4, par, 10, 3), 0);
    assert_int_equal(metric_fta(c, 4, par, 10, 3), 0);
    /* A table without Pareto rows has no fta target. */
    const unsigned char none[10] = {0};
    assert_int_equal(metric_fta(a, 10, none, 10, 3), 0);
    /* A repeated Pareto row is found once. */
    const size_t d[] = {2, 2, 5, 5, 9};
    assert_int_equal(metric_fta(d, 4, par, 10, 1), 0);
    assert_int_equal(metric_fta(d, 5, par, 10, 1), 5);
}

static void
test_fbp(void **state)
{
    (void)state;
    const size_t a[10] = {0, 1, 3, 5, 4, 2, 6, 7, 8, 9};
    assert_int_equal(metric_fbp(a, 10, par, 10, 3), 0);
    assert_int_equal(metric_fbp(a, 10, par, 10, 4), 1);
    assert_int_equal(metric_fbp(a, 10, par, 10, 9), 2);
    /* Budget longer than the sequence. */
    assert_int_equal(metric_fbp(a, 10, par, 10, 50), 3);
    assert_int_equal(metric_fbp(a, 5, par, 10, 200), 1);
    /* Repeats count once. */
    const size_t d[] = {2, 2, 5};
    assert_int_equal(metric_fbp(d, 3, par, 10, 50), 2);
}

static void
test_mean_std(void **state)
{
    (void)state;
    /* 2,4,4,4,5,5,7,9: mean 5, population std 2 (sample std would be
     * 2.138). */
    const double v[8] = {2, 4, 4, 4, 5, 5, 7, 9};
    double mean, std;
    metric_mean_std(v, 8, &mean, &std);
    assert_close(mean, 5.0, 1e-15, 0);
    assert_close(std, 2.0, 1e-15, 0);
    /* A large offset must not cost precision (two passes). */
    double w[3] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    metric_mean_std(w, 3, &mean, &std);
    assert_close(mean, 1e9 + 2, 1e-15, 0);
    assert_close(std, sqrt(2.0 / 3.0), 1e-9, 0);
    metric_mean_std(v, 1, &mean, &std);
    assert_close(mean, 2.0, 0, 0);
    assert_close(std, 0.0, 0, 0);
    metric_mean_std(v, 0, &mean, &std);
    assert_true(isnan(mean) && isnan(std));
}

static void
test_needed_length(void **state)
{
    (void)state;
    /* Single objective on zh: ftb at 8, ftc at 7, fb budget 5. */
    const size_t a[] = {11, 5, 3, 0, 1, 7, 2, 6, 4, 8, 9, 10};
    struct metric_spec s = {.y = zh,
                            .pareto = NULL,
                            .n = 12,
                            .ninit = 3,
                            .tol = 0.5,
                            .fb_budget = 5,
                            .fbp_budget = 0};
    assert_int_equal(metric_needed_length(&s, a, 6), 0); /* best missing */
    assert_int_equal(metric_needed_length(&s, a, 7), 0);
    assert_int_equal(metric_needed_length(&s, a, 8), 8);
    assert_int_equal(metric_needed_length(&s, a, 12), 8);
    /* The budget dominates: 10 models for fb. */
    s.fb_budget = 10;
    assert_int_equal(metric_needed_length(&s, a, 8), 0);
    assert_int_equal(metric_needed_length(&s, a, 10), 10);
    /* A budget beyond the table is capped at n. */
    s.fb_budget = 20;
    assert_int_equal(metric_needed_length(&s, a, 12), 12);
    /* The metrics of the prefix equal those of the whole sequence. */
    s.fb_budget = 5;
    size_t len = metric_needed_length(&s, a, 12);
    assert_int_equal(metric_ftb(a, len, zh, 12, 3),
                     metric_ftb(a, 12, zh, 12, 3));
    assert_int_equal(metric_ftc(a, len, zh, 12, 3, 0.5),
                     metric_ftc(a, 12, zh, 12, 3, 0.5));
    assert_close(metric_fb(a, len, zh, 12, 5), metric_fb(a, 12, zh, 12, 5), 0,
                 0);
    /* Best among the initial points: ninit is still needed. */
    const size_t b[] = {6, 1, 3};
    s.fb_budget = 1;
    assert_int_equal(metric_needed_length(&s, b, 3), 3);
    assert_int_equal(metric_needed_length(&s, b, 2), 0);

    /* Multi-objective on par: fta at 10, fbp budget 4. */
    const size_t c[10] = {0, 1, 3, 5, 4, 2, 6, 7, 8, 9};
    struct metric_spec p = {.y = NULL,
                            .pareto = par,
                            .n = 10,
                            .ninit = 3,
                            .tol = 0,
                            .fb_budget = 0,
                            .fbp_budget = 4};
    assert_int_equal(metric_needed_length(&p, c, 9), 0);
    assert_int_equal(metric_needed_length(&p, c, 10), 10);
    const size_t d[] = {9, 5, 2, 0, 1, 3};
    assert_int_equal(metric_needed_length(&p, d, 3), 0); /* fbp budget */
    assert_int_equal(metric_needed_length(&p, d, 4), 4);
    assert_int_equal(metric_needed_length(&p, d, 6), 4);
}

static void
test_needed_length_skip(void **state)
{
    (void)state;
    /* As above: ftb at 8, ftc at 7, fb budget 5; only what is asked. */
    const size_t a[] = {11, 5, 3, 0, 1, 7, 2, 6, 4, 8, 9, 10};
    struct metric_spec s = {.y = zh,
                            .n = 12,
                            .ninit = 3,
                            .tol = 0.5,
                            .fb_budget = 5,
                            .skip = METRIC_BIT(METRIC_FTB)};
    assert_int_equal(metric_needed_length(&s, a, 6), 0);
    assert_int_equal(metric_needed_length(&s, a, 7), 7);
    s.skip |= METRIC_BIT(METRIC_FTC);
    assert_int_equal(metric_needed_length(&s, a, 4), 0);
    assert_int_equal(metric_needed_length(&s, a, 5), 5);
    s.skip = METRIC_BIT(METRIC_FTC) | METRIC_BIT(METRIC_FB);
    assert_int_equal(metric_needed_length(&s, a, 8), 8);
    assert_true(metric_spec_measures(&s, METRIC_FTB));
    assert_false(metric_spec_measures(&s, METRIC_FTC));
    assert_false(metric_spec_measures(&s, METRIC_FTO)); /* no pareto */

    /* fto alone does not wait for the whole front (fta at 10). */
    const size_t c[10] = {0, 1, 3, 5, 4, 2, 6, 7, 8, 9};
    struct metric_spec p = {.pareto = par,
                            .n = 10,
                            .ninit = 3,
                            .fbp_budget = 4,
                            .skip = METRIC_BIT(METRIC_FTA) |
                                    METRIC_BIT(METRIC_FBP)};
    size_t fto = metric_fto(c, 10, par, 10, 3);
    assert_true(fto < 10);
    assert_int_equal(metric_needed_length(&p, c, fto), fto);
    if (fto > 3)
        assert_int_equal(metric_needed_length(&p, c, fto - 1), 0);

    /* Names both ways. */
    for (int k = 0; k < METRIC_COUNT; k++)
        assert_int_equal(metric_from_name(metric_name((enum metric_id)k)), k);
    assert_int_equal(metric_from_name("gap"), METRIC_COUNT);
    assert_null(metric_name(METRIC_COUNT));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oracle_best_ties),
        cmocka_unit_test(test_ftb),
        cmocka_unit_test(test_ftc),
        cmocka_unit_test(test_fb),
        cmocka_unit_test(test_fto_fta),
        cmocka_unit_test(test_fbp),
        cmocka_unit_test(test_mean_std),
        cmocka_unit_test(test_needed_length),
        cmocka_unit_test(test_needed_length_skip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
