/*
 * tests/unit/test_normal_scores.c - normal scores (core/normal_scores.h)
 * against Φ⁻¹ of the mid-ranks: closed values and a brute-force count.
 */
#include "tests/support/check.h"

#include "core/normal_scores.h"
#include "core/rng.h"

/* Normal scores against Φ⁻¹ of the mid-ranks (values from Python's
 * statistics.NormalDist().inv_cdf). */
static void
test_normal_scores(void **state)
{
    (void)state;
    double y[4] = {3.0, 1.0, 2.0, 5.0}, z[4];
    normal_scores(y, 4, z);
    assert_close(z[0], 0.31863936396437514, 1e-12, 1e-14);
    assert_close(z[1], -1.1503493803760079, 1e-12, 1e-14);
    assert_close(z[2], -0.31863936396437514, 1e-12, 1e-14);
    assert_close(z[3], 1.1503493803760079, 1e-12, 1e-14);
    double t[3] = {1.0, 1.0, 2.0}, zt[3];
    normal_scores(t, 3, zt);
    assert_close(zt[0], -0.43072729929545744, 1e-12, 1e-14);
    assert_true(zt[1] == zt[0]);
    assert_close(zt[2], 0.9674215661017014, 1e-12, 1e-14);
    normal_scores(y, 1, z);
    assert_close(z[0], 0.0, 0, 1e-14);

    /* Brute force: mid-ranks by counting (O(n²)) and 100 halvings, as the
     * scores were computed before the sort; the sort gives the same bits. */
    enum { M = 200 };
    double v[M], zs[M];
    struct rng r;
    rng_seed(&r, 31);
    for (size_t i = 0; i < M; i++)
        v[i] = floor(rng_uniform(&r) * 60.0); /* many ties */
    normal_scores(v, M, zs);
    for (size_t i = 0; i < M; i++) {
        double lt = 0.0, eq = 0.0, lo = -40.0, hi = 40.0;
        for (size_t j = 0; j < M; j++) {
            lt += v[j] < v[i];
            eq += v[j] == v[i];
        }
        double p = (lt + 0.5 * eq) / (double)M;
        for (int it = 0; it < 100; it++) {
            double mid = 0.5 * (lo + hi);
            if (0.5 * erfc(-mid / sqrt(2.0)) < p)
                lo = mid;
            else
                hi = mid;
        }
        assert_true(zs[i] == 0.5 * (lo + hi));
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normal_scores),
    };
    return cmocka_run_group_tests_name("normal_scores", tests, NULL, NULL);
}
