/*
 * tests/unit/test_modelcache.c - the byte budget over the model caches:
 * least recently used entries go first, pinned ones never, an entry that
 * alone does not fit is dropped when put back, exclusive entries have
 * one holder and shared ones many, a replaced entry lives until its last
 * holder puts it back, and a build that cannot fit is refused (503 with
 * Retry-After) at once when it never could, after waiting when pinned
 * entries hold the room, and admitted when one is put back meanwhile.
 */
#include "tests/support/check.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "study/modelcache.h"

static int freed[16];

static void
free_obj(void *p)
{
    freed[(int)(long)p]++;
}

#define OBJ(i) ((void *)(long)(i))

static void
reset(size_t budget)
{
    modelcache_clear();
    modelcache_configure(budget);
    memset(freed, 0, sizeof freed);
}

static int
cached(enum modelcache_kind kind, long long id)
{
    void *obj;
    struct modelcache_entry *e = modelcache_get(kind, id, "", &obj);
    modelcache_put(e, 1);
    return e != NULL;
}

static void
test_lru_eviction(void **unused)
{
    (void)unused;
    struct modelcache_stats st;

    reset(1000);
    for (int i = 1; i <= 3; i++)
        modelcache_put(
            modelcache_add(MODELCACHE_SAMPLER, i, "", OBJ(i), 300, free_obj),
            1);
    modelcache_stats(&st);
    assert_int_equal(st.used, 900);
    assert_int_equal(st.entries, 3);
    /* 1 is the least recently used: a fourth entry evicts it. */
    modelcache_put(
        modelcache_add(MODELCACHE_SAMPLER, 4, "", OBJ(4), 300, free_obj), 1);
    assert_false(cached(MODELCACHE_SAMPLER, 1));
    assert_int_equal(freed[1], 1);
    /* Using 2 makes 3 the least recent. */
    assert_true(cached(MODELCACHE_SAMPLER, 2));
    modelcache_put(
        modelcache_add(MODELCACHE_SAMPLER, 5, "", OBJ(5), 300, free_obj), 1);
    assert_false(cached(MODELCACHE_SAMPLER, 3));
    assert_true(cached(MODELCACHE_SAMPLER, 2));
    modelcache_stats(&st);
    assert_int_equal(st.used, 900);
    assert_int_equal(st.evictions, 2);
    assert_int_equal(st.kind_bytes[MODELCACHE_SAMPLER], 900);
}

static void
test_pinned_and_too_big(void **unused)
{
    (void)unused;
    void *obj;
    struct modelcache_stats st;

    reset(1000);
    struct modelcache_entry *a =
        modelcache_add(MODELCACHE_HISTORY, 1, "", OBJ(1), 400, free_obj);
    modelcache_put(
        modelcache_add(MODELCACHE_HISTORY, 2, "", OBJ(2), 400, free_obj), 1);
    /* 1 is pinned: a big entry evicts 2 only, and counts beyond the
     * budget while it is held. */
    struct modelcache_entry *b =
        modelcache_add(MODELCACHE_HISTORY, 3, "", OBJ(3), 900, free_obj);
    assert_int_equal(freed[2], 1);
    assert_int_equal(freed[1], 0);
    modelcache_stats(&st);
    assert_int_equal(st.used, 1300);
    assert_int_equal(st.pinned, 1300);
    /* Put back, 3 does not fit beside pinned 1: dropped. */
    modelcache_put(b, 1);
    assert_int_equal(freed[3], 1);
    modelcache_stats(&st);
    assert_int_equal(st.used, 400);
    /* Exclusive: one holder at a time. */
    assert_null(modelcache_get(MODELCACHE_HISTORY, 1, "", &obj));
    assert_null(obj);
    modelcache_set_size(a, 500);
    modelcache_put(a, 1);
    modelcache_stats(&st);
    assert_int_equal(st.used, 500);
    assert_int_equal(st.pinned, 0);
    /* keep = 0 drops it. */
    a = modelcache_get(MODELCACHE_HISTORY, 1, "", &obj);
    assert_ptr_equal(obj, OBJ(1));
    modelcache_put(a, 0);
    assert_int_equal(freed[1], 1);
    modelcache_stats(&st);
    assert_int_equal(st.used, 0);
    assert_int_equal(st.entries, 0);
}

static void
test_shared_and_replaced(void **unused)
{
    (void)unused;
    void *o1, *o2;

    reset(1000);
    struct modelcache_entry *e =
        modelcache_add(MODELCACHE_DEF, 7, "", OBJ(1), 100, free_obj);
    struct modelcache_entry *x = modelcache_get(MODELCACHE_DEF, 7, "", &o1);
    assert_ptr_equal(x, e);
    assert_ptr_equal(o1, OBJ(1));
    /* A new version of the same key replaces it for new readers; the old
     * one lives while held. Keys tell entries of one study apart. */
    struct modelcache_entry *n =
        modelcache_add(MODELCACHE_DEF, 7, "", OBJ(2), 100, free_obj);
    struct modelcache_entry *m =
        modelcache_add(MODELCACHE_IMPORTANCE, 7, "loss", OBJ(3), 50, free_obj);
    assert_ptr_equal(modelcache_get(MODELCACHE_DEF, 7, "", &o2), n);
    assert_ptr_equal(o2, OBJ(2));
    modelcache_put(n, 1);
    modelcache_put(e, 1);
    assert_int_equal(freed[1], 0);
    modelcache_put(x, 1);
    assert_int_equal(freed[1], 1);
    modelcache_put(n, 1);
    modelcache_put(m, 1);
    assert_null(modelcache_get(MODELCACHE_IMPORTANCE, 7, "bleu", &o1));
    assert_non_null(x = modelcache_get(MODELCACHE_IMPORTANCE, 7, "loss", &o1));
    modelcache_put(x, 1);
    modelcache_clear();
    assert_int_equal(freed[2], 1);
    assert_int_equal(freed[3], 1);
}

/* Holds the entry given for 200 ms, then drops it. */
static void *
holder(void *arg)
{
    usleep(200000);
    modelcache_put(arg, 0);
    return NULL;
}

static void
test_reserve(void **unused)
{
    (void)unused;
    struct hpod_err err = {0};
    struct modelcache_stats st;
    pthread_t th;

    reset(1000);
    struct modelcache_entry *x =
        modelcache_add(MODELCACHE_SAMPLER, 1, "", OBJ(1), 100, free_obj);
    modelcache_put(
        modelcache_add(MODELCACHE_SAMPLER, 2, "", OBJ(2), 300, free_obj), 1);
    /* Never fits: refused at once, with the long Retry-After. */
    assert_int_equal(modelcache_reserve(x, 2000, &err), HPOD_EBUSY);
    assert_int_equal(err.retry_after, MODELCACHE_RETRY_NEVER_SECONDS);
    assert_non_null(strstr(err.msg, "HPOD_MODEL_CACHE_MB"));
    /* Fits by evicting the unpinned 2. */
    assert_int_equal(modelcache_reserve(x, 900, &err), HPOD_OK);
    assert_int_equal(freed[2], 1);
    modelcache_stats(&st);
    assert_int_equal(st.used, 900);
    modelcache_set_size(x, 100);
    /* Pinned entries hold the room: the reservation waits for one to be
     * put back by another thread. */
    struct modelcache_entry *y =
        modelcache_add(MODELCACHE_SAMPLER, 3, "", OBJ(3), 800, free_obj);
    pthread_create(&th, NULL, holder, y);
    assert_int_equal(modelcache_reserve(x, 600, &err), HPOD_OK);
    pthread_join(th, NULL);
    assert_int_equal(freed[3], 1);
    /* ... and is refused when none is within MODELCACHE_WAIT_MS. */
    y = modelcache_add(MODELCACHE_SAMPLER, 4, "", OBJ(4), 400, free_obj);
    assert_int_equal(modelcache_reserve(x, 700, &err), HPOD_EBUSY);
    assert_int_equal(err.retry_after, MODELCACHE_RETRY_SECONDS);
    modelcache_stats(&st);
    assert_int_equal(st.refused, 2);
    assert_int_equal(st.used, 1000);
    modelcache_put(y, 1);
    modelcache_put(x, 1);
    modelcache_clear();
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lru_eviction),
        cmocka_unit_test(test_pinned_and_too_big),
        cmocka_unit_test(test_shared_and_replaced),
        cmocka_unit_test(test_reserve),
    };
    return cmocka_run_group_tests_name("modelcache", tests, NULL, NULL);
}
