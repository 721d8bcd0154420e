/*
 * tests/unit/test_graph_cache.c - a graph kept between choices
 * (core/graph_cache.h): the same points, kernel and tag give the cached
 * graph without a build; any change builds anew; a failed build leaves
 * the cache empty.
 */
#include "tests/support/check.h"

#include <string.h>

#include "core/graph.h"
#include "core/graph_cache.h"

struct counter {
    int builds;
    int fail;
};

static enum hpod_status
build(const double *x, size_t n, size_t dim, void *ctx, struct graph **out)
{
    struct counter *c = ctx;
    c->builds++;
    if (c->fail)
        return HPOD_EINVAL;
    return graph_create(x, n, dim, NULL, out);
}

static void
test_graph_cache(void **state)
{
    (void)state;
    double x[12] = {0, 0, 0, 1, 1, 0, 1, 1, 0.5, 0.5, 0.2, 0.9};
    double y[12];
    struct graph_cache c = {0};
    struct counter k = {0, 0};
    struct graph *g = NULL, *h = NULL;

    assert_int_equal(graph_cache_get(&c, x, 6, 2, 0, 0, build, &k, &g),
                     HPOD_OK);
    assert_non_null(g);
    assert_int_equal(graph_size(g), 6);
    assert_int_equal(graph_cache_get(&c, x, 6, 2, 0, 0, build, &k, &h),
                     HPOD_OK);
    assert_ptr_equal(g, h);
    assert_int_equal(k.builds, 1);
    /* Another tag, kernel, size or point: a new build each time. */
    assert_int_equal(graph_cache_get(&c, x, 6, 2, 0, 1, build, &k, &h),
                     HPOD_OK);
    assert_int_equal(graph_cache_get(&c, x, 6, 2, 1, 1, build, &k, &h),
                     HPOD_OK);
    assert_int_equal(graph_cache_get(&c, x, 5, 2, 1, 1, build, &k, &h),
                     HPOD_OK);
    memcpy(y, x, sizeof y);
    y[11] = 0.8;
    assert_int_equal(graph_cache_get(&c, y, 6, 2, 1, 1, build, &k, &h),
                     HPOD_OK);
    assert_int_equal(k.builds, 5);
    assert_int_equal(graph_cache_get(&c, y, 6, 2, 1, 1, build, &k, &h),
                     HPOD_OK);
    assert_int_equal(k.builds, 5);
    /* A failed build: nothing cached, the next call builds again. */
    k.fail = 1;
    assert_int_equal(graph_cache_get(&c, x, 6, 2, 0, 0, build, &k, &h),
                     HPOD_EINVAL);
    assert_null(h);
    assert_null(c.graph);
    k.fail = 0;
    assert_int_equal(graph_cache_get(&c, x, 6, 2, 0, 0, build, &k, &h),
                     HPOD_OK);
    assert_int_equal(k.builds, 7);
    graph_cache_clear(&c);
    assert_null(c.graph);
    assert_null(c.x);
    graph_cache_clear(&c); /* zero-safe */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_cache),
    };
    return cmocka_run_group_tests_name("graph_cache", tests, NULL, NULL);
}
