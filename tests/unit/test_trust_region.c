/*
 * tests/unit/test_trust_region.c - the trust regions on a candidate list
 * (core/trust_region.h) against brute force: the k nearest of several
 * centres, one step from a centre, and the single-objective region around
 * the best observation.
 */
#include "tests/support/mobo_grid.h"

#include "core/trust_region.h"

static void
test_trust_region_knn(void **state)
{
    (void)state;
    struct rng r;
    unsigned char used[N], mask[N];
    size_t centre[4] = {5, 77, 140, 20};
    rng_seed(&r, 3);
    for (size_t i = 0; i < N; i++)
        used[i] = rng_below(&r, 4) == 0;
    for (size_t k = 1; k <= 13; k += 4) {
        size_t marked =
            trust_region_nearest(cand, N, 2, NULL, used, centre, 4, k, mask);
        size_t cnt = 0;
        for (size_t i = 0; i < N; i++) {
            int want = 0;
            for (int f = 0; f < 4; f++)
                want |= knn_member(cand, N, used, centre[f], i, k);
            assert_int_equal(mask[i], want);
            cnt += want;
        }
        assert_int_equal(marked, cnt);
        /* The grid has ties: every centre still gets exactly k. */
        assert_true(cnt >= k && cnt <= 4 * k);
    }
}

/*
 * trust_region_steps against brute force on random candidates of a space
 * with a value list, an integer range and a categorical (repeated rows
 * and used candidates included), and on the grid: there one step is the
 * same row or the same column.
 */
static void
test_step_region_brute(void **state)
{
    (void)state;
    struct space s3;
    struct rng r;
    enum { NC = 90 };
    double raw[NC * 3], vals[4] = {1e-4, 3e-4, 1e-3, 3e-3};
    unsigned char used[NC], mask[NC];
    size_t centre[5], total = 0;
    space_init(&s3);
    assert_int_equal(space_add_values(&s3, PARAM_FLOAT, vals, 4, 1), HPOD_OK);
    assert_int_equal(space_add_range(&s3, PARAM_INT, 1, 6, 0), HPOD_OK);
    assert_int_equal(space_add_categorical(&s3, 3), HPOD_OK);
    rng_seed(&r, 11);
    for (int rep = 0; rep < 20; rep++) {
        for (size_t i = 0; i < NC; i++) {
            raw[3 * i] = vals[rng_below(&r, 4)];
            raw[3 * i + 1] = (double)(1 + rng_below(&r, 6));
            raw[3 * i + 2] = (double)rng_below(&r, 3);
            used[i] = rng_below(&r, 3) == 0;
        }
        size_t nf = 1 + (size_t)rep % 5, cnt = 0;
        for (size_t f = 0; f < nf; f++)
            centre[f] = rng_below(&r, NC);
        size_t marked =
            trust_region_steps(&s3, raw, NC, used, centre, nf, mask);
        for (size_t i = 0; i < NC; i++) {
            int want = 0;
            for (size_t f = 0; f < nf; f++)
                want |= one_step(raw, 3, used, centre[f], i);
            assert_int_equal(mask[i], want);
            cnt += want;
        }
        assert_int_equal(marked, cnt);
        total += cnt;
    }
    assert_true(total > 0);
    space_clear(&s3);
    /* The grid: candidate c = row·G + column. */
    unsigned char gused[N], gmask[N];
    memset(gused, 0, sizeof gused);
    gused[5 * G + 7] = 1; /* a used neighbour of the centre */
    centre[0] = 5 * G + 5;
    size_t gm = trust_region_steps(&sp, cand, N, gused, centre, 1, gmask);
    assert_int_equal(gm, 2 * (G - 1) - 1);
    for (size_t c = 0; c < N; c++)
        assert_int_equal(gmask[c], c != centre[0] && !gused[c] &&
                                       (c / G == 5 || c % G == 5));
}

/*
 * trust_region_best against brute force: the k = n/div candidates nearest
 * the best observation's candidate (used ones count; ties to the lower
 * index), k doubled for every tau observations after the best; the
 * scores outside become NaN unless the region has no free candidate with
 * a score, or covers everything.
 */
static void
test_trust_region_best(void **state)
{
    (void)state;
    enum { NO = 12 };
    size_t obs_cand[NO];
    double y[NO], sc[N], want[N];
    unsigned char used[N] = {0};
    struct rng r;

    rng_seed(&r, 5);
    for (size_t i = 0; i < NO; i++) {
        obs_cand[i] = (size_t)rng_below(&r, N);
        used[obs_cand[i]] = 1;
        y[i] = rng_uniform(&r);
    }
    for (size_t fails = 0; fails < NO; fails++) {
        size_t bo = NO - 1 - fails;
        y[bo] = 2.0 + (double)fails; /* the best, fails observations ago */
        for (size_t i = bo + 1; i < NO; i++)
            y[i] = rng_uniform(&r);
        for (size_t i = 0; i < N; i++)
            sc[i] = want[i] = (double)(i % 7);
        size_t k = (N / 8) << (fails / 4), c = obs_cand[bo], nfree = 0;
        for (size_t i = 0; k < N && i < N; i++) {
            /* i is in the region iff fewer than k candidates come before
             * it in (distance, index). */
            double a = cand[2 * i] - cand[2 * c];
            double b = cand[2 * i + 1] - cand[2 * c + 1];
            double di = a * a + b * b;
            size_t before = 0;
            for (size_t j = 0; j < N; j++) {
                a = cand[2 * j] - cand[2 * c];
                b = cand[2 * j + 1] - cand[2 * c + 1];
                before += a * a + b * b < di || (a * a + b * b == di && j < i);
            }
            if (before >= k)
                want[i] = NAN;
            else
                nfree += !used[i];
        }
        if (nfree == 0)
            for (size_t i = 0; i < N; i++)
                want[i] = (double)(i % 7);
        trust_region_best(cand, N, 2, NULL, used, obs_cand, y, NO, 8, 4, sc);
        for (size_t i = 0; i < N; i++)
            assert_true(isnan(want[i]) ? isnan(sc[i]) : sc[i] == want[i]);
        y[bo] = rng_uniform(&r);
    }
    /* A region without a free candidate leaves every score. */
    unsigned char all[N];
    memset(all, 1, sizeof all);
    for (size_t i = 0; i < N; i++)
        sc[i] = 1.0;
    y[0] = 5.0;
    trust_region_best(cand, N, 2, NULL, all, obs_cand, y, NO, 8, 4, sc);
    for (size_t i = 0; i < N; i++)
        assert_true(sc[i] == 1.0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trust_region_knn),
        cmocka_unit_test(test_step_region_brute),
        cmocka_unit_test(test_trust_region_best),
    };
    return cmocka_run_group_tests_name("trust_region", tests, setup, teardown);
}
