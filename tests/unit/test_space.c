/*
 * tests/unit/test_space.c - validation rules, encode/decode round trips,
 * sampling ranges and distribution.
 */
#include "tests/support/check.h"

#include "core/space.h"

static void
build(struct space *sp)
{
    double bpe[] = {50000, 10000, 30000};
    space_init(sp);
    assert_int_equal(space_add_range(sp, PARAM_FLOAT, 1e-4, 1e-2, 1), 0);
    assert_int_equal(space_add_range(sp, PARAM_INT, 1, 6, 0), 0);
    assert_int_equal(space_add_values(sp, PARAM_INT, bpe, 3, 0), 0);
    assert_int_equal(space_add_categorical(sp, 3), 0);
}

static void
test_rules(void **state)
{
    (void)state;
    struct space sp;
    double dup[] = {1, 2, 1}, frac[] = {1.5, 2};
    space_init(&sp);
    assert_int_equal(space_add_range(&sp, PARAM_FLOAT, 1, 1, 0), HPOD_EUNPROC);
    assert_int_equal(space_add_range(&sp, PARAM_FLOAT, 2, 1, 0), HPOD_EUNPROC);
    assert_int_equal(space_add_range(&sp, PARAM_FLOAT, 0, 1, 1), HPOD_EUNPROC);
    assert_int_equal(space_add_range(&sp, PARAM_INT, 0.5, 3, 0), HPOD_EUNPROC);
    assert_int_equal(space_add_range(&sp, PARAM_FLOAT, -INFINITY, 1, 0),
                     HPOD_EUNPROC);
    assert_int_equal(space_add_values(&sp, PARAM_FLOAT, dup, 3, 0),
                     HPOD_EUNPROC);
    assert_int_equal(space_add_values(&sp, PARAM_INT, frac, 2, 0),
                     HPOD_EUNPROC);
    assert_int_equal(space_add_values(&sp, PARAM_INT, frac, 0, 0),
                     HPOD_EUNPROC);
    assert_int_equal(space_add_categorical(&sp, 0), HPOD_EUNPROC);
    assert_int_equal(sp.n_params, 0);
    space_clear(&sp);
}

static void
test_encode_known(void **state)
{
    (void)state;
    struct space sp;
    build(&sp);
    /* One feature per parameter; the categorical is its choice index. */
    assert_int_equal(sp.dim, 4);
    assert_non_null(sp.kinds);
    assert_int_equal(sp.kinds[0], SPACE_FEATURE_REAL);
    assert_int_equal(sp.kinds[2], SPACE_FEATURE_REAL);
    assert_int_equal(sp.kinds[3], SPACE_FEATURE_CATEGORY);
    double raw[4] = {1e-3, 6, 30000, 2}, u[4];
    space_encode(&sp, raw, u);
    assert_close(u[0], 0.5, 1e-12, 1e-12); /* log midpoint */
    assert_close(u[1], 1.0, 0, 0);
    assert_close(u[2], 0.5, 1e-12, 0); /* (30000-10000)/(50000-10000) */
    assert_true(u[3] == 2.0);
    assert_true(space_contains(&sp, 2, 30000));
    assert_false(space_contains(&sp, 2, 30001));
    assert_false(space_contains(&sp, 1, 2.5));
    assert_false(space_contains(&sp, 1, 7));
    assert_false(space_contains(&sp, 3, 3));
    assert_false(space_contains(&sp, 0, NAN));
    assert_false(space_is_finite(&sp));
    space_clear(&sp);
}

static void
test_widest_values(void **state)
{
    (void)state;
    /* From -DBL_MAX to DBL_MAX: high - low overflows, the encoding must
     * not (it was NaN, clamped to 0, for the top value). */
    double v[] = {1.7976931348623157e308, -1.7976931348623157e308, 0, 1e19};
    double raw[1], u[1];
    struct space sp;
    space_init(&sp);
    assert_int_equal(space_add_values(&sp, PARAM_FLOAT, v, 4, 0), 0);
    double want[] = {1.0, 0.0, 0.5, 0.5};
    for (size_t k = 0; k < 4; k++) {
        raw[0] = v[k];
        space_encode(&sp, raw, u);
        assert_true(isfinite(u[0]));
        assert_close(u[0], want[k], 1e-12, 0);
        space_decode(&sp, u, raw);
        if (k != 3) /* 1e19 and 0 encode alike at this scale */
            assert_true(raw[0] == v[k]);
    }
    space_clear(&sp);

    /* The widest range: samples and decodings are finite and in it, the
     * ends decode to the ends exactly. */
    struct rng r;
    rng_seed(&r, 11);
    space_init(&sp);
    assert_int_equal(space_add_range(&sp, PARAM_FLOAT, -v[0], v[0], 0), 0);
    for (int i = 0; i < 1000; i++) {
        space_sample(&sp, &r, raw);
        assert_true(isfinite(raw[0]));
        space_encode(&sp, raw, u);
        assert_true(u[0] >= 0 && u[0] <= 1);
        u[0] = i / 999.0;
        space_decode(&sp, u, raw);
        assert_true(isfinite(raw[0]) && raw[0] >= -v[0] && raw[0] <= v[0]);
        if (i == 0 || i == 999)
            assert_true(raw[0] == (i ? v[0] : -v[0]));
    }
    space_clear(&sp);
}

static void
test_round_trip_and_sampling(void **state)
{
    (void)state;
    struct space sp;
    struct rng r;
    build(&sp);
    rng_seed(&r, 2385);
    int cat_counts[3] = {0};
    double lr_log_sum = 0;
    int n = 20000;
    for (int i = 0; i < n; i++) {
        double raw[4], back[4], u[4];
        space_sample(&sp, &r, raw);
        for (size_t k = 0; k < 4; k++)
            assert_true(space_contains(&sp, k, raw[k]));
        space_encode(&sp, raw, u);
        space_decode(&sp, u, back);
        assert_close(back[0], raw[0], 1e-12, 0);
        for (size_t k = 1; k < 4; k++)
            assert_true(back[k] == raw[k]);
        cat_counts[(int)raw[3]]++;
        lr_log_sum += u[0];
    }
    for (int c = 0; c < 3; c++)
        assert_true(cat_counts[c] > n / 3 - 400 && cat_counts[c] < n / 3 + 400);
    /* log-uniform: the encoded value is uniform, mean 1/2 */
    assert_close(lr_log_sum / n, 0.5, 0, 5 * sqrt(1.0 / 12 / n));
    /* decode snaps and clamps (a categorical's index rounded, clamped) */
    double u[4] = {1.7, -3, 0.3, 1.4}, raw[4];
    space_decode(&sp, u, raw);
    assert_close(raw[0], 1e-2, 1e-12, 0);
    assert_true(raw[1] == 1);
    assert_true(raw[2] == 30000); /* 0.3 is nearer 0.5 than 0 */
    assert_true(raw[3] == 1);
    u[3] = 7.0;
    space_decode(&sp, u, raw);
    assert_true(raw[3] == 2);
    u[3] = NAN;
    space_decode(&sp, u, raw);
    assert_true(raw[3] == 0);
    space_clear(&sp);
}

static void
test_find_duplicate(void **state)
{
    (void)state;
    double rows[] = {1, 2, 3, 4, 5, 6, 3, 4, 0, 0};
    size_t a = 99, b = 99;
    assert_true(space_find_duplicate(rows, 5, 2, &a, &b));
    assert_int_equal(a, 1);
    assert_int_equal(b, 3);
    rows[6] = 3.5;
    assert_false(space_find_duplicate(rows, 5, 2, &a, &b));
    assert_false(space_find_duplicate(rows, 1, 2, &a, &b));
    /* Against brute force on random rows with many repeats. */
    struct rng r;
    rng_seed(&r, 2385);
    for (int trial = 0; trial < 200; trial++) {
        double m[40];
        size_t n = 1 + (size_t)rng_below(&r, 20);
        for (size_t i = 0; i < 2 * n; i++)
            m[i] = (double)rng_below(&r, 4);
        int brute = 0;
        for (size_t i = 0; i < n && !brute; i++)
            for (size_t j = i + 1; j < n && !brute; j++)
                brute = m[2 * i] == m[2 * j] && m[2 * i + 1] == m[2 * j + 1];
        int got = space_find_duplicate(m, n, 2, &a, &b);
        assert_int_equal(got, brute);
        if (got) {
            assert_true(a < b && b < n);
            assert_true(m[2 * a] == m[2 * b] && m[2 * a + 1] == m[2 * b + 1]);
        }
    }
}

/*
 * The one distance: space_diff is a - b on a real feature and the overlap
 * 0/1 on a categorical one; space_d2 sums their squares (brute force),
 * and equals the Euclidean distance of the unit cube without categoricals.
 */
static void
test_distance(void **state)
{
    (void)state;
    struct space sp, real;
    struct rng r;
    build(&sp);
    space_init(&real);
    assert_int_equal(space_add_range(&real, PARAM_FLOAT, 0, 1, 0), 0);
    assert_int_equal(space_add_range(&real, PARAM_INT, 1, 9, 0), 0);
    assert_null(real.kinds);
    rng_seed(&r, 4);
    for (int i = 0; i < 200; i++) {
        double a[4], b[4], ua[4], ub[4], want = 0;
        space_sample(&sp, &r, a);
        space_sample(&sp, &r, b);
        space_encode(&sp, a, ua);
        space_encode(&sp, b, ub);
        for (size_t d = 0; d < 3; d++)
            want += (ua[d] - ub[d]) * (ua[d] - ub[d]);
        want += a[3] != b[3];
        assert_true(space_d2(sp.kinds, ua, ub, 4) == want);
        assert_true(space_diff(sp.kinds, 3, ua[3], ub[3]) ==
                    (a[3] != b[3] ? 1.0 : 0.0));
        /* Without categoricals: the plain Euclidean distance. */
        double e = (ua[0] - ub[0]) * (ua[0] - ub[0]) +
                   (ua[1] - ub[1]) * (ua[1] - ub[1]);
        assert_true(space_d2(real.kinds, ua, ub, 2) == e);
    }
    space_clear(&sp);
    space_clear(&real);
}

/*
 * space_perturb on a categorical: it keeps its choice with probability
 * 1 - step and otherwise switches to one of the others, uniformly; the
 * real features move as before (one normal each).
 */
static void
test_perturb_categorical(void **state)
{
    (void)state;
    struct space sp;
    struct rng r;
    enum { N = 20000 };
    double center[2] = {0.5, 3.0}, out[2], rawbuf[2];
    int counts[5] = {0};
    space_init(&sp);
    assert_int_equal(space_add_range(&sp, PARAM_FLOAT, 0, 1, 0), 0);
    assert_int_equal(space_add_categorical(&sp, 5), 0);
    rng_seed(&r, 8);
    for (int i = 0; i < N; i++) {
        space_perturb(&sp, center, 0.2, &r, out, rawbuf);
        assert_true(out[0] >= 0 && out[0] <= 1);
        assert_true(out[1] == floor(out[1]) && out[1] >= 0 && out[1] < 5);
        counts[(int)out[1]]++;
    }
    /* Kept 80%, each other choice 5% (binomial sd < 0.3%). */
    assert_close(counts[3] / (double)N, 0.8, 0, 0.012);
    for (int c = 0; c < 5; c++)
        if (c != 3)
            assert_close(counts[c] / (double)N, 0.05, 0, 0.006);
    space_clear(&sp);
}

/* space_init_subset: the subset's encoding is the space's at those
 * parameters, with its own (deep) copies. */
static void
test_subset(void **state)
{
    (void)state;
    struct space sp, sub;
    size_t idx[2] = {3, 2};
    double raw[4] = {1e-3, 6, 30000, 2}, u[4], sraw[2] = {2, 30000}, su[2];
    build(&sp);
    space_init_subset(&sub, &sp, idx, 2);
    assert_int_equal(sub.n_params, 2);
    assert_int_equal(sub.dim, 2);
    assert_non_null(sub.kinds);
    assert_int_equal(sub.kinds[0], SPACE_FEATURE_CATEGORY);
    assert_int_equal(sub.kinds[1], SPACE_FEATURE_REAL);
    assert_true(sub.params[1].values != sp.params[2].values);
    space_encode(&sp, raw, u);
    space_encode(&sub, sraw, su);
    assert_true(su[0] == u[3] && su[1] == u[2]);
    space_clear(&sp);
    space_encode(&sub, sraw, su); /* still valid: nothing borrowed */
    assert_true(su[1] == 0.5);
    space_clear(&sub);
}

/*
 * A conditional space: p0 categorical (3 choices); p1 float, only for
 * p0 = 0; p2 values {1, 2, 3}, only for p0 in {1, 2}; p3 float, only where
 * p2 is active and in {2, 3} (a chain); p4 categorical, always.
 */
static void
build_conditional(struct space *sp)
{
    double v123[] = {1, 2, 3}, c0[] = {0}, c12[] = {1, 2}, c23[] = {2, 3};
    space_init(sp);
    assert_int_equal(space_add_categorical(sp, 3), 0);
    assert_int_equal(space_add_range(sp, PARAM_FLOAT, 0, 1, 0), 0);
    assert_int_equal(space_add_values(sp, PARAM_INT, v123, 3, 0), 0);
    assert_int_equal(space_add_range(sp, PARAM_FLOAT, 1e-3, 1, 1), 0);
    assert_int_equal(space_add_categorical(sp, 2), 0);
    assert_false(space_has_conditions(sp));
    assert_int_equal(space_set_condition(sp, 1, 0, c0, 1), 0);
    assert_int_equal(space_set_condition(sp, 2, 0, c12, 2), 0);
    assert_int_equal(space_set_condition(sp, 3, 2, c23, 2), 0);
    assert_true(space_has_conditions(sp));
}

/* The conditions' rules, and space_active against the definition written
 * out for every parent value (NaN: an inactive parent). */
static void
test_conditions(void **state)
{
    (void)state;
    struct space sp;
    double one[] = {1}, half[] = {0.5}, four[] = {4};
    build_conditional(&sp);
    /* A range parent, itself, no values, a value not the parent's. */
    assert_int_equal(space_set_condition(&sp, 4, 1, half, 1), HPOD_EUNPROC);
    assert_int_equal(space_set_condition(&sp, 4, 4, one, 1), HPOD_EUNPROC);
    assert_int_equal(space_set_condition(&sp, 4, 0, one, 0), HPOD_EUNPROC);
    assert_int_equal(space_set_condition(&sp, 4, 2, four, 1), HPOD_EUNPROC);
    assert_int_equal(space_set_condition(&sp, 4, 0, four, 1), HPOD_EUNPROC);
    const double p2s[] = {1, 2, 3, NAN};
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 4; k++) {
            double raw[5] = {(double)c, 0.5, p2s[k], 0.1, 1};
            unsigned char got[5];
            int a2 = c == 1 || c == 2;
            int want[5] = {1, c == 0, a2, a2 && (p2s[k] == 2 || p2s[k] == 3),
                           1};
            space_active(&sp, raw, got);
            for (int i = 0; i < 5; i++)
                assert_int_equal(got[i], want[i]);
            /* Inactive ones become NaN; p2 given as NaN stays so. */
            space_deactivate(&sp, raw);
            for (int i = 0; i < 5; i++)
                assert_int_equal(isnan(raw[i]) != 0,
                                 !want[i] || (i == 2 && k == 3));
        }
    space_clear(&sp);
}

/*
 * Inactive parameters encode as a value no active one has: a categorical
 * as -1, differing by 1 from every choice and by 0 from another inactive
 * one; a range as 0. space_d2 checked by brute force over every pair of
 * choices of a conditional categorical; a subset's parameters are
 * unconditional (its conditions would name the full space's indices).
 */
static void
test_encode_inactive(void **state)
{
    (void)state;
    struct space sp, sub;
    double c0[] = {0};
    size_t idx[] = {1, 2};
    space_init(&sp);
    assert_int_equal(space_add_categorical(&sp, 2), 0);
    assert_int_equal(space_add_categorical(&sp, 3), 0);
    assert_int_equal(space_add_range(&sp, PARAM_FLOAT, 1, 2, 0), 0);
    assert_int_equal(space_set_condition(&sp, 1, 0, c0, 1), 0);
    assert_int_equal(space_set_condition(&sp, 2, 0, c0, 1), 0);
    for (int a = -1; a < 3; a++)
        for (int b = -1; b < 3; b++) {
            double ra[3] = {a < 0, a < 0 ? NAN : a, a < 0 ? NAN : 1.5};
            double rb[3] = {b < 0, b < 0 ? NAN : b, b < 0 ? NAN : 1.5};
            double ua[3], ub[3];
            space_encode(&sp, ra, ua);
            space_encode(&sp, rb, ub);
            assert_true(ua[1] == (a < 0 ? -1.0 : a));
            assert_true(ua[2] == (a < 0 ? 0.0 : 0.5));
            int moved = (a < 0) != (b < 0); /* p0 differs, p2 0 vs 0.5 */
            double want = moved + (a != b) + moved * 0.25; /* p2: 0 vs 0.5 */
            assert_true(space_d2(sp.kinds, ua, ub, 3) == want);
        }
    space_init_subset(&sub, &sp, idx, 2);
    assert_false(space_has_conditions(&sub));
    space_clear(&sp);
    space_clear(&sub);
}

/* Inactive parameters (NaN) are equal to each other and to no number. */
static void
test_find_duplicate_inactive(void **state)
{
    (void)state;
    size_t a = 99, b = 99;
    double rows[] = {0, NAN, 1, 0, 2, 1, 0, NAN, 1};
    assert_true(space_find_duplicate(rows, 3, 3, &a, &b));
    assert_int_equal(a, 0);
    assert_int_equal(b, 2);
    rows[7] = 2;
    assert_true(space_find_duplicate(rows, 3, 3, &a, &b));
    assert_int_equal(a, 1);
    assert_int_equal(b, 2);
    rows[7] = 3;
    assert_false(space_find_duplicate(rows, 3, 3, &a, &b));
    /* Against brute force on random rows of 0, 1 and NaN. */
    struct rng r;
    rng_seed(&r, 77);
    for (int trial = 0; trial < 200; trial++) {
        double m[40];
        size_t n = 1 + (size_t)rng_below(&r, 20);
        for (size_t i = 0; i < 2 * n; i++) {
            uint64_t x = rng_below(&r, 3);
            m[i] = x == 2 ? NAN : (double)x;
        }
        int brute = 0;
        for (size_t i = 0; i < n && !brute; i++)
            for (size_t j = i + 1; j < n && !brute; j++) {
                int same = 1;
                for (size_t k = 0; k < 2; k++) {
                    double x = m[2 * i + k], y = m[2 * j + k];
                    same &= (isnan(x) && isnan(y)) || x == y;
                }
                brute = same;
            }
        assert_int_equal(space_find_duplicate(m, n, 2, &a, &b), brute);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_encode_known),
        cmocka_unit_test(test_widest_values),
        cmocka_unit_test(test_round_trip_and_sampling),
        cmocka_unit_test(test_find_duplicate),
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_perturb_categorical),
        cmocka_unit_test(test_subset),
        cmocka_unit_test(test_conditions),
        cmocka_unit_test(test_find_duplicate_inactive),
        cmocka_unit_test(test_encode_inactive),
    };
    return cmocka_run_group_tests_name("space", tests, NULL, NULL);
}
