/*
 * tests/unit/test_ratelimit.c - the token buckets of server/ratelimit.c
 * against the arithmetic of a bucket (burst, refill, Retry-After), keys
 * apart, and a table that many keys neither grow nor use to free a key
 * being held back.
 */
#include "tests/support/check.h"

#include <stdio.h>
#include <string.h>

#include "server/ratelimit.h"

static void
test_burst_then_refill(void **state)
{
    (void)state;
    struct ratelimit *rl = ratelimit_create(8, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(ratelimit_take(rl, "t1", 100.0), 0);
    /* Empty: one token comes back after 1/8 s, so retry in 1 s. */
    assert_int_equal(ratelimit_take(rl, "t1", 100.0), 1);
    assert_int_equal(ratelimit_take(rl, "t1", 100.0625), 1);
    assert_int_equal(ratelimit_take(rl, "t1", 100.125), 0);
    assert_int_equal(ratelimit_take(rl, "t1", 100.125), 1);
    /* A second later eight came back, but the bucket holds five. */
    for (int i = 0; i < 5; i++)
        assert_int_equal(ratelimit_take(rl, "t1", 101.25), 0);
    assert_int_equal(ratelimit_take(rl, "t1", 101.25), 1);
    ratelimit_free(rl);
}

static void
test_keys_apart_and_retry_after(void **state)
{
    (void)state;
    struct ratelimit *rl = ratelimit_create(0.25, 1);
    assert_int_equal(ratelimit_take(rl, "t1", 0), 0);
    /* One request per 4 s: the next one in 4 s, then 2 s after 2 s. */
    assert_int_equal(ratelimit_take(rl, "t1", 0), 4);
    assert_int_equal(ratelimit_take(rl, "t1", 2), 2);
    assert_int_equal(ratelimit_take(rl, "t2", 2), 0);
    assert_int_equal(ratelimit_take(rl, "a127.0.0.1", 2), 0);
    assert_int_equal(ratelimit_take(rl, "t1", 4), 0);
    ratelimit_free(rl);
}

static void
test_off(void **state)
{
    (void)state;
    struct ratelimit *rl = ratelimit_create(0, 1);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(ratelimit_take(rl, "t1", 0), 0);
    ratelimit_free(rl);
    assert_int_equal(ratelimit_take(NULL, "t1", 0), 0);
}

static void
test_many_keys(void **state)
{
    (void)state;
    struct ratelimit *rl = ratelimit_create(1, 3);
    char key[32];
    for (int i = 0; i < 3; i++)
        assert_int_equal(ratelimit_take(rl, "hot", 0), 0);
    assert_int_equal(ratelimit_take(rl, "hot", 0), 1);
    /* Five times the table's slots in new keys, each allowed at once:
     * none takes the slot of the key held back (its bucket is the
     * emptiest of any window). */
    for (int i = 0; i < 5 * RATELIMIT_SLOTS; i++) {
        snprintf(key, sizeof key, "k%d", i);
        assert_int_equal(ratelimit_take(rl, key, 0.5), 0);
    }
    assert_int_equal(ratelimit_take(rl, "hot", 0.5), 1);
    /* Keys longer than RATELIMIT_KEY_MAX are told apart by their start. */
    char a[100], b[100];
    memset(a, 'x', sizeof a - 1);
    a[sizeof a - 1] = '\0';
    memcpy(b, a, sizeof b);
    b[sizeof b - 2] = 'y';
    assert_int_equal(ratelimit_take(rl, a, 10), 0);
    assert_int_equal(ratelimit_take(rl, a, 10), 0);
    assert_int_equal(ratelimit_take(rl, b, 10), 0);
    assert_int_equal(ratelimit_take(rl, a, 10), 1);
    ratelimit_free(rl);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_then_refill),
        cmocka_unit_test(test_keys_apart_and_retry_after),
        cmocka_unit_test(test_off),
        cmocka_unit_test(test_many_keys),
    };
    return cmocka_run_group_tests_name("ratelimit", tests, NULL, NULL);
}
