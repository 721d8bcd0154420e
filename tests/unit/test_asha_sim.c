/*
 * tests/unit/test_asha_sim.c - ASHA replayed on hand-made learning curves:
 * a traced two-config run (closed form), a clearly best config that
 * survives, a slow starter that is lost and ranked, stops only at rungs,
 * determinism, and argument checks.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>

#include "core/asha_sim.h"
#include "core/rng.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

static struct asha_sim_curve
curve(const double *y, size_t len)
{
    struct asha_sim_curve c;
    double b = y[0];
    for (size_t i = 1; i < len; i++)
        if (y[i] < b)
            b = y[i];
    c.ppl = y;
    c.len = len;
    c.optimal = b;
    return c;
}

static struct asha_params
params(size_t r, size_t u, size_t R, size_t p, size_t keep)
{
    struct asha_params prm;
    memset(&prm, 0, sizeof prm);
    prm.r = r;
    prm.u = u;
    prm.R = R;
    prm.p = p;
    prm.keep = keep;
    return prm;
}

/*
 * One worker, A = {10, 9, 8}, B = {5, 4, 3}; rungs 1, 2, 3 (R = 3),
 * p = 2, keep = 1. Drawn A first: A step 1 is alone at rung 1 (limit
 * ⌊1/2⌋ = 0, not exhausted) -> paused; B starts (exhausted: limit 1), is
 * first at rung 1 and alone at the top rung 2 -> trained to 3; A (second
 * at rung 1) is never promoted. Drawn B first: B paused at step 1, A
 * starts, is second at rung 1 -> paused, B is promoted and trained to 3.
 * Either way 1 + 3 = 4 steps of 6, 4 ticks, B kept (rank 1).
 */
static void
test_two_configs_closed_form(void **state)
{
    (void)state;
    static const double yA[] = {10, 9, 8}, yB[] = {5, 4, 3};
    struct asha_sim_curve cv[2] = {curve(yA, 3), curve(yB, 3)};
    struct asha_params prm = params(1, 1, 3, 2, 1);
    for (uint64_t seed = 0; seed < 8; seed++) {
        struct rng r;
        struct asha_sim_result res;
        size_t drawn[2], trained[2];
        rng_seed(&r, seed);
        assert_int_equal(
            asha_sim_trace(cv, 2, &prm, 1, 2, &r, &res, drawn, trained),
            HPOD_OK);
        assert_int_equal(res.steps, 4);
        assert_int_equal(res.steps_full, 6);
        assert_int_equal(res.elapsed, 4);
        assert_int_equal(res.n_full, 1);
        assert_int_equal(res.best_rank, 1);
        assert_int_equal(res.best_full, 1);
        for (size_t j = 0; j < 2; j++)
            assert_int_equal(trained[j], drawn[j] == 0 ? 1 : 3);
    }
}

/* Curves of 8 configs: i = 5 is below every other at every step. */
static double ys[8][12];

static void
fill_ladder(void)
{
    for (size_t i = 0; i < 8; i++)
        for (size_t t = 0; t < 12; t++)
            ys[i][t] = (i == 5 ? 2.0 : 10.0 + (double)((i * 7) % 8)) +
                       20.0 / (double)(t + 1);
}

static void
test_clear_best_survives(void **state)
{
    (void)state;
    fill_ladder();
    struct asha_sim_curve cv[8];
    for (size_t i = 0; i < 8; i++)
        cv[i] = curve(ys[i], 12);
    struct asha_params prm = params(2, 2, 10, 2, 2);
    for (uint64_t seed = 0; seed < 20; seed++) {
        for (size_t workers = 1; workers <= 4; workers++) {
            struct rng r;
            struct asha_sim_result res;
            rng_seed(&r, seed);
            assert_int_equal(asha_sim_run(cv, 8, &prm, workers, 8, &r, &res),
                             HPOD_OK);
            assert_int_equal(res.best_full, 1);
            assert_int_equal(res.best_rank, 1);
            assert_int_equal(res.steps_full, 80);
            assert_true(res.steps < res.steps_full); /* something saved */
            assert_true(res.n_full >= 2);            /* keep */
            assert_true(res.steps >= 8 * 2);         /* all reach rung r */
            /* Workers overlap: the ticks are at least steps / workers. */
            assert_true(res.elapsed * workers >= res.steps);
        }
    }
}

/*
 * The truly best (A, optimal 1) starts worst: with every config drawn,
 * one worker, rungs 1..4, p = 2, keep = 1, rung 1 has limit
 * max(⌊4/2⌋, 1) = 2 once exhausted and A is 4th there, so it is never
 * trained to R; B (BSF 7) is kept, rank 2 by optimal.
 */
static void
test_slow_starter_lost(void **state)
{
    (void)state;
    static const double yA[] = {20, 18, 1, 1}, yB[] = {10, 9, 8, 7},
                        yC[] = {11, 10, 9, 8.5}, yD[] = {12, 11, 10, 9};
    struct asha_sim_curve cv[4] = {curve(yA, 4), curve(yB, 4), curve(yC, 4),
                                   curve(yD, 4)};
    struct asha_params prm = params(1, 1, 4, 2, 1);
    for (uint64_t seed = 0; seed < 10; seed++) {
        struct rng r;
        struct asha_sim_result res;
        size_t drawn[4], trained[4];
        rng_seed(&r, seed);
        assert_int_equal(
            asha_sim_trace(cv, 4, &prm, 1, 4, &r, &res, drawn, trained),
            HPOD_OK);
        assert_int_equal(res.best_full, 0);
        assert_int_equal(res.best_rank, 2);
        for (size_t j = 0; j < 4; j++)
            if (drawn[j] == 0)
                assert_int_equal(trained[j], 1);
    }
}

/* Random noisy curves of varied lengths, some shorter than R. */
static void
random_curves(struct rng *r, double *y, size_t n, size_t maxlen,
              struct asha_sim_curve *cv)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = 3 + (size_t)rng_below(r, maxlen - 2);
        double base = 5 + 5 * rng_uniform(r);
        for (size_t t = 0; t < len; t++)
            y[i * maxlen + t] =
                base + 30.0 / (double)(t + 1) + 0.5 * rng_normal(r);
        cv[i] = curve(&y[i * maxlen], len);
    }
}

static void
test_stops_only_at_rungs(void **state)
{
    (void)state;
    enum { N = 30, MAXLEN = 30, CONFIGS = 20 };
    double *y = malloc(N * MAXLEN * sizeof *y);
    struct asha_sim_curve cv[N];
    struct rng g;
    rng_seed(&g, 42);
    random_curves(&g, y, N, MAXLEN, cv);
    struct asha_params prm = params(3, 2, 17, 2, 2);
    size_t rungs[16], nr = asha_rungs(3, 2, 17, rungs);
    assert_int_equal(nr, 8);
    for (uint64_t seed = 0; seed < 10; seed++) {
        struct rng r;
        struct asha_sim_result res;
        size_t drawn[CONFIGS], trained[CONFIGS], sum = 0, full = 0, fin = 0;
        rng_seed(&r, seed);
        assert_int_equal(
            asha_sim_trace(cv, N, &prm, 3, CONFIGS, &r, &res, drawn, trained),
            HPOD_OK);
        for (size_t j = 0; j < CONFIGS; j++) {
            size_t lim = cv[drawn[j]].len < 17 ? cv[drawn[j]].len : 17;
            int at_rung = 0;
            for (size_t i = 0; i < nr; i++)
                at_rung |= trained[j] == rungs[i];
            assert_true(trained[j] >= 1 && trained[j] <= lim);
            assert_true(at_rung || trained[j] == lim);
            /* Everyone reaches the first rung or its end. */
            assert_true(trained[j] >= (lim < 3 ? lim : 3));
            sum += trained[j];
            full += lim;
            fin += trained[j] == lim;
            for (size_t k = 0; k < j; k++)
                assert_true(drawn[k] != drawn[j]);
        }
        assert_int_equal(res.steps, sum);
        assert_int_equal(res.steps_full, full);
        assert_int_equal(res.n_full, fin);
        assert_true(res.best_rank >= 1 && res.best_rank <= CONFIGS);
    }
    free(y);
}

static void
test_deterministic(void **state)
{
    (void)state;
    enum { N = 40, MAXLEN = 40, CONFIGS = 25 };
    double *y = malloc(N * MAXLEN * sizeof *y);
    struct asha_sim_curve cv[N];
    struct rng g;
    rng_seed(&g, 7);
    random_curves(&g, y, N, MAXLEN, cv);
    struct asha_params prm = params(5, 2, 25, 2, 2);
    int differ = 0;
    size_t prev_steps = 0;
    for (uint64_t seed = 0; seed < 6; seed++) {
        struct asha_sim_result a, b;
        size_t da[CONFIGS], db[CONFIGS], ta[CONFIGS], tb[CONFIGS];
        struct rng r1, r2;
        rng_seed(&r1, seed);
        rng_seed(&r2, seed);
        assert_int_equal(
            asha_sim_trace(cv, N, &prm, 4, CONFIGS, &r1, &a, da, ta), HPOD_OK);
        assert_int_equal(
            asha_sim_trace(cv, N, &prm, 4, CONFIGS, &r2, &b, db, tb), HPOD_OK);
        assert_int_equal(a.steps, b.steps);
        assert_int_equal(a.steps_full, b.steps_full);
        assert_int_equal(a.n_full, b.n_full);
        assert_int_equal(a.best_rank, b.best_rank);
        assert_int_equal(a.best_full, b.best_full);
        assert_int_equal(a.elapsed, b.elapsed);
        assert_memory_equal(da, db, sizeof da);
        assert_memory_equal(ta, tb, sizeof ta);
        /* Both consumed the same draws. */
        assert_true(rng_next(&r1) == rng_next(&r2));
        if (seed > 0 && a.steps != prev_steps)
            differ = 1;
        prev_steps = a.steps;
    }
    assert_true(differ); /* seeds matter */
    free(y);
}

static void
test_invalid(void **state)
{
    (void)state;
    static const double y[] = {1, 2, 3};
    struct asha_sim_curve cv[2] = {curve(y, 3), curve(y, 3)};
    struct asha_params prm = params(1, 1, 3, 2, 1);
    struct asha_sim_result res;
    struct rng r;
    rng_seed(&r, 1);
    assert_int_equal(asha_sim_run(NULL, 2, &prm, 1, 2, &r, &res), HPOD_EINVAL);
    assert_int_equal(asha_sim_run(cv, 2, &prm, 0, 2, &r, &res), HPOD_EINVAL);
    assert_int_equal(asha_sim_run(cv, 2, &prm, 1, 3, &r, &res), HPOD_EINVAL);
    assert_int_equal(asha_sim_run(cv, 2, &prm, 1, 0, &r, &res), HPOD_EINVAL);
    struct asha_params bad = params(1, 1, 3, 1, 1); /* p < 2 */
    assert_int_equal(asha_sim_run(cv, 2, &bad, 1, 2, &r, &res), HPOD_EINVAL);
    cv[1].len = 0;
    assert_int_equal(asha_sim_run(cv, 2, &prm, 1, 2, &r, &res), HPOD_EINVAL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_configs_closed_form),
        cmocka_unit_test(test_clear_best_survives),
        cmocka_unit_test(test_slow_starter_lost),
        cmocka_unit_test(test_stops_only_at_rungs),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
