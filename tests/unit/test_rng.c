/*
 * tests/unit/test_rng.c - determinism and basic distribution checks.
 */
#include "tests/support/check.h"

#include "core/rng.h"

static void
test_same_seed_same_stream(void **state)
{
    (void)state;
    struct rng a, b, c;
    rng_seed(&a, 7);
    rng_seed(&b, 7);
    rng_seed(&c, 8);
    int differ = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = rng_next(&a), y = rng_next(&b), z = rng_next(&c);
        assert_true(x == y);
        differ += x != z;
    }
    assert_true(differ > 95);
}

static void
test_uniform_moments(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 2385);
    double s = 0, s2 = 0;
    int n = 200000;
    for (int i = 0; i < n; i++) {
        double u = rng_uniform(&r);
        assert_true(u >= 0.0 && u < 1.0);
        s += u;
        s2 += u * u;
    }
    /* mean 1/2, var 1/12; 5 standard errors */
    assert_close(s / n, 0.5, 0, 5 * sqrt(1.0 / 12 / n));
    assert_close(s2 / n - (s / n) * (s / n), 1.0 / 12, 0, 0.002);
}

static void
test_below_and_shuffle(void **state)
{
    (void)state;
    struct rng r;
    int counts[5] = {0};
    rng_seed(&r, 99);
    for (int i = 0; i < 50000; i++) {
        uint64_t k = rng_below(&r, 5);
        assert_true(k < 5);
        counts[k]++;
    }
    for (int k = 0; k < 5; k++)
        assert_true(counts[k] > 9500 && counts[k] < 10500);
    size_t idx[10], seen[10] = {0};
    for (size_t i = 0; i < 10; i++)
        idx[i] = i;
    rng_shuffle(&r, idx, 10);
    for (size_t i = 0; i < 10; i++)
        seen[idx[i]]++;
    for (size_t i = 0; i < 10; i++)
        assert_int_equal(seen[i], 1);
}

/*
 * rng_draw: a permutation whose first k are the draw; the same stream as
 * the explicit partial Fisher-Yates (j swaps with j + rng_below(n - j));
 * every k-subset position uniform: over 40000 draws of 3 of 8, each value
 * lands first with frequency 1/8.
 */
static void
test_draw(void **state)
{
    (void)state;
    struct rng a, b;
    size_t perm[8], ref[8], first[8] = {0};
    rng_seed(&a, 11);
    rng_seed(&b, 11);
    for (int rep = 0; rep < 40000; rep++) {
        rng_draw(&a, perm, 8, 3);
        for (size_t i = 0; i < 8; i++)
            ref[i] = i;
        for (size_t j = 0; j < 3; j++) {
            size_t pick = j + (size_t)rng_below(&b, 8 - j), t = ref[j];
            ref[j] = ref[pick];
            ref[pick] = t;
        }
        size_t seen[8] = {0};
        for (size_t i = 0; i < 8; i++) {
            assert_int_equal(perm[i], ref[i]);
            seen[perm[i]]++;
        }
        for (size_t i = 0; i < 8; i++)
            assert_int_equal(seen[i], 1);
        first[perm[0]]++;
    }
    for (size_t i = 0; i < 8; i++)
        assert_close((double)first[i] / 40000, 1.0 / 8, 0, 0.01);
    /* k > n draws everything; k = 0 leaves the identity. */
    rng_draw(&a, perm, 3, 0);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(perm[i], i);
    rng_draw(&a, perm, 3, 7);
    assert_int_equal(perm[0] + perm[1] + perm[2], 3);
}

static void
test_normal_moments(void **state)
{
    (void)state;
    struct rng r;
    rng_seed2(&r, 1, 2);
    double s = 0, s2 = 0;
    int n = 100000;
    for (int i = 0; i < n; i++) {
        double z = rng_normal(&r);
        s += z;
        s2 += z * z;
    }
    assert_close(s / n, 0.0, 0, 5 / sqrt(n));
    assert_close(s2 / n, 1.0, 0, 0.03);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_seed_same_stream),
        cmocka_unit_test(test_uniform_moments),
        cmocka_unit_test(test_below_and_shuffle),
        cmocka_unit_test(test_draw),
        cmocka_unit_test(test_normal_moments),
    };
    return cmocka_run_group_tests_name("rng", tests, NULL, NULL);
}
