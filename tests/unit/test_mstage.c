/*
 * tests/unit/test_mstage.c - multi-stage BO bookkeeping on hand-made
 * studies: the value at a fidelity (BSF up to the first report at or past
 * it, completed trials), decisions at stage boundaries, advancing with the
 * top k as seeds and the rest pruned, ties and NaNs, failed members
 * replaced, exhaustion, the end, and independence from the call order
 * (against a brute-force reference on random studies).
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>

#include "core/mstage.h"
#include "core/rng.h"

static const size_t STEPS[3] = {4, 10, 25};
static const size_t TRIALS[3] = {6, 4, 2};

static struct mstage *
make(int sense, int exhausted, size_t k)
{
    struct mstage_params prm = {3, STEPS, TRIALS, k, sense, exhausted};
    struct mstage *ms = NULL;
    assert_int_equal(mstage_create(&prm, &ms), HPOD_OK);
    assert_non_null(ms);
    return ms;
}

static void
test_create_rejects(void **state)
{
    (void)state;
    size_t bad_steps[2] = {5, 5}, trials[2] = {3, 2}, zero[2] = {0, 2};
    struct mstage_params prm = {2, bad_steps, trials, 3, -1, 0};
    struct mstage *ms = (struct mstage *)&prm;
    assert_int_equal(mstage_create(&prm, &ms), HPOD_EINVAL);
    assert_null(ms);
    size_t ok_steps[2] = {2, 5};
    prm.steps = ok_steps;
    prm.trials = zero;
    assert_int_equal(mstage_create(&prm, &ms), HPOD_EINVAL);
    prm.trials = trials;
    prm.k = 0;
    assert_int_equal(mstage_create(&prm, &ms), HPOD_EINVAL);
    prm.k = 1;
    prm.n = 0;
    assert_int_equal(mstage_create(&prm, &ms), HPOD_EINVAL);
    prm.n = 2;
    assert_int_equal(mstage_create(&prm, &ms), HPOD_OK);
    assert_int_equal(mstage_trial(ms, 1, 2, MSTAGE_LIVE, NAN), HPOD_EINVAL);
    assert_int_equal(mstage_observe(ms, 9, 1, 1.0), HPOD_ENOTFOUND);
    mstage_free(ms);
}

static void
test_value_at(void **state)
{
    (void)state;
    struct mstage *ms = make(-1, 0, 3);
    double v = 0;
    assert_int_equal(mstage_trial(ms, 1, 0, MSTAGE_LIVE, NAN), HPOD_OK);
    /* Every step, with a restart: 9, 7, 8, 6, 5. */
    const double y[5] = {9, 7, 8, 6, 5};
    for (size_t s = 1; s <= 5; s++)
        assert_int_equal(mstage_observe(ms, 1, s, y[s - 1]), HPOD_OK);
    assert_int_equal(mstage_value_at(ms, 1, 3, &v), 1);
    assert_close(v, 7, 0, 0); /* BSF over steps 1..3 */
    assert_int_equal(mstage_value_at(ms, 1, 4, &v), 1);
    assert_close(v, 6, 0, 0);
    assert_int_equal(mstage_value_at(ms, 1, 6, &v), 0);
    /* Skipped steps: reports at 2 and 6 only; at f = 4 the first report
     * at or past it is step 6. */
    mstage_trial(ms, 2, 0, MSTAGE_LIVE, NAN);
    mstage_observe(ms, 2, 2, 3.0);
    mstage_observe(ms, 2, 6, 4.0);
    assert_int_equal(mstage_value_at(ms, 2, 4, &v), 1);
    assert_close(v, 3, 0, 0);
    /* NaN reports are skipped; a NaN-only prefix has value NaN. */
    mstage_trial(ms, 3, 0, MSTAGE_LIVE, NAN);
    mstage_observe(ms, 3, 1, NAN);
    assert_int_equal(mstage_value_at(ms, 3, 1, &v), 1);
    assert_true(isnan(v));
    mstage_observe(ms, 3, 1, 2.5);
    mstage_observe(ms, 3, 1, 2.5); /* twice: changes nothing */
    assert_int_equal(mstage_value_at(ms, 3, 1, &v), 1);
    assert_close(v, 2.5, 0, 0);
    /* Completed without a report that far: BSF of all and the final. */
    mstage_trial(ms, 4, 0, MSTAGE_COMPLETED, 4.5);
    mstage_observe(ms, 4, 1, 6.0);
    assert_int_equal(mstage_value_at(ms, 4, 25, &v), 1);
    assert_close(v, 4.5, 0, 0);
    mstage_trial(ms, 5, 0, MSTAGE_COMPLETED, 8.0);
    assert_int_equal(mstage_value_at(ms, 5, 4, &v), 1);
    assert_close(v, 8.0, 0, 0);
    assert_int_equal(mstage_value_at(ms, 77, 4, &v), 0);
    assert_int_equal(mstage_last_step(ms, 1), 5);
    assert_int_equal(mstage_last_step(ms, 2), 6);
    assert_int_equal(mstage_last_step(ms, 5), 0);
    assert_int_equal(mstage_last_step(ms, 77), 0);
    /* At 4: trials 1 (steps to 5), 2 (step 6), 4 and 5 (completed). */
    assert_int_equal(mstage_count_at(ms, 4), 4);
    assert_int_equal(mstage_count_at(ms, 1), 5); /* and 3, at step 1 */
    assert_int_equal(mstage_count_at(ms, 100), 2);
    mstage_free(ms);
}

static void
test_decide(void **state)
{
    (void)state;
    struct mstage *ms = make(-1, 0, 3);
    mstage_trial(ms, 1, 0, MSTAGE_LIVE, NAN);
    mstage_trial(ms, 2, 1, MSTAGE_LIVE, NAN);
    mstage_trial(ms, 3, 2, MSTAGE_LIVE, NAN);
    assert_int_equal(mstage_decide(ms, 1, 3), MSTAGE_CONTINUE);
    assert_int_equal(mstage_decide(ms, 1, 4), MSTAGE_STOP);
    assert_int_equal(mstage_decide(ms, 1, 7), MSTAGE_STOP);
    assert_int_equal(mstage_decide(ms, 2, 9), MSTAGE_CONTINUE);
    assert_int_equal(mstage_decide(ms, 2, 10), MSTAGE_STOP);
    /* The last stage trains to its end and sends a final report. */
    assert_int_equal(mstage_decide(ms, 3, 25), MSTAGE_CONTINUE);
    assert_int_equal(mstage_decide(ms, 3, 40), MSTAGE_CONTINUE);
    assert_int_equal(mstage_decide(ms, 99, 4), MSTAGE_CONTINUE);
    assert_int_equal(mstage_steps(ms, 1), 10);
    assert_int_equal(mstage_steps(ms, 3), 0);
    mstage_free(ms);
}

/* Stage 0 with six trials, values at step 4 given; all paused. */
static struct mstage *
stage0_paused(int sense, const double *v4)
{
    struct mstage *ms = make(sense, 0, 3);
    for (int64_t id = 1; id <= 6; id++) {
        mstage_trial(ms, id, 0, MSTAGE_PAUSED, NAN);
        for (size_t s = 1; s <= 4; s++)
            mstage_observe(ms, id, s, s == 4 ? v4[id - 1] : -100.0 * sense);
    }
    return ms;
}

static void
test_work_in_a_stage(void **state)
{
    (void)state;
    struct mstage *ms = make(-1, 0, 3);
    struct mstage_plan p;
    mstage_plan(ms, &p);
    assert_int_equal(p.stage, 0);
    assert_int_equal(p.n_new, 6);
    assert_int_equal(p.n_seeds + p.n_prune + p.n_resume, 0);
    mstage_plan_clear(&p);
    for (int64_t id = 1; id <= 4; id++)
        mstage_trial(ms, id, 0, MSTAGE_LIVE, NAN);
    mstage_trial(ms, 5, 0, MSTAGE_ENDED, NAN); /* failed: replaced */
    mstage_plan(ms, &p);
    assert_int_equal(p.stage, 0);
    assert_int_equal(p.n_new, 2);
    mstage_plan_clear(&p);
    for (int64_t id = 6; id <= 7; id++)
        mstage_trial(ms, id, 0, MSTAGE_LIVE, NAN);
    /* Six members, none done: wait. */
    mstage_plan(ms, &p);
    assert_int_equal(p.stage, 0);
    assert_int_equal(p.n_new, 0);
    assert_int_equal(p.n_seeds, 0);
    mstage_plan_clear(&p);
    mstage_free(ms);
}

static void
test_advance_minimize(void **state)
{
    (void)state;
    /* ppl at step 4; ids 2 and 5 tie at 3.0; id 6 is NaN. */
    const double v4[6] = {5.0, 3.0, 4.0, 9.0, 3.0, NAN};
    struct mstage *ms = stage0_paused(-1, v4);
    struct mstage_plan p;
    mstage_plan(ms, &p);
    assert_int_equal(p.stage, 1);
    assert_int_equal(p.n_seeds, 3);
    assert_int_equal(p.seeds[0], 2); /* tie to the smaller id */
    assert_int_equal(p.seeds[1], 5);
    assert_int_equal(p.seeds[2], 3);
    assert_int_equal(p.seed_to[0], 1);
    assert_int_equal(p.n_prune, 3);
    assert_int_equal(p.prune[0], 1);
    assert_int_equal(p.prune[1], 4);
    assert_int_equal(p.prune[2], 6); /* NaN last */
    assert_int_equal(p.n_resume, 3);
    assert_int_equal(p.resume[0], 2);
    assert_int_equal(p.n_new, 1); /* 4 trials in stage 1, 3 seeds */
    mstage_plan_clear(&p);
    /* The state advanced too: planning again moves nothing. */
    mstage_plan(ms, &p);
    assert_int_equal(p.stage, 1);
    assert_int_equal(p.n_seeds + p.n_prune, 0);
    assert_int_equal(p.n_resume, 3);
    mstage_plan_clear(&p);
    mstage_free(ms);
}

static void
test_advance_maximize(void **state)
{
    (void)state;
    const double v4[6] = {5.0, 3.0, 4.0, 9.0, 3.0, 1.0};
    struct mstage *ms = stage0_paused(1, v4);
    struct mstage_plan p;
    mstage_plan(ms, &p);
    assert_int_equal(p.n_seeds, 3);
    assert_int_equal(p.seeds[0], 4);
    assert_int_equal(p.seeds[1], 1);
    assert_int_equal(p.seeds[2], 3);
    mstage_plan_clear(&p);
    mstage_free(ms);
}

static void
test_whole_study(void **state)
{
    (void)state;
    /* Stage 1 as the database holds it after the advance: seeds 2, 5, 3
     * resumed, one new trial 7; then stage 2 takes 2 seeds, 0 new. */
    struct mstage *ms = make(-1, 0, 3);
    struct mstage_plan p;
    int64_t pruned[3] = {1, 4, 6}, st1[4] = {2, 5, 3, 7};
    const double at10[4] = {2.0, 2.5, 1.5, 1.0};
    for (size_t i = 0; i < 3; i++)
        mstage_trial(ms, pruned[i], 0, MSTAGE_ENDED, NAN);
    for (size_t i = 0; i < 4; i++) {
        mstage_trial(ms, st1[i], 1, MSTAGE_LIVE, NAN);
        mstage_observe(ms, st1[i], 4, 3.0);
    }
    mstage_plan(ms, &p);
    assert_int_equal(p.stage, 1);
    assert_int_equal(p.n_new, 0);
    mstage_plan_clear(&p);
    for (size_t i = 0; i < 4; i++) {
        mstage_observe(ms, st1[i], 10, at10[i]);
        assert_int_equal(mstage_decide(ms, st1[i], 10), MSTAGE_STOP);
        mstage_trial(ms, st1[i], 1, MSTAGE_PAUSED, NAN);
        mstage_plan(ms, &p);
        assert_int_equal(p.stage, i < 3 ? 1 : 2);
        if (i < 3)
            mstage_plan_clear(&p);
    }
    assert_int_equal(p.n_seeds, 2); /* min(k = 3, trials[2] = 2) */
    assert_int_equal(p.seeds[0], 7);
    assert_int_equal(p.seeds[1], 3);
    assert_int_equal(p.seed_to[1], 2);
    assert_int_equal(p.n_prune, 2);
    assert_int_equal(p.n_new, 0);
    mstage_plan_clear(&p);
    /* The last stage: both complete -> finished. */
    mstage_trial(ms, 7, 2, MSTAGE_COMPLETED, 0.5);
    mstage_trial(ms, 3, 2, MSTAGE_LIVE, NAN);
    mstage_observe(ms, 3, 25, 0.9);
    mstage_plan(ms, &p);
    assert_int_equal(p.stage, 2); /* 3 has reached 25 but is still live */
    mstage_plan_clear(&p);
    mstage_trial(ms, 3, 2, MSTAGE_COMPLETED, 0.9);
    mstage_plan(ms, &p);
    assert_int_equal(p.stage, 3);
    mstage_plan_clear(&p);
    mstage_free(ms);
}

static void
test_exhausted(void **state)
{
    (void)state;
    /* Budget spent after 2 trials of stage 0: the stage completes with 2,
     * one of which failed; the single paused seed goes on, stage 1 wants
     * nothing new. */
    struct mstage *ms = make(-1, 1, 3);
    struct mstage_plan p;
    mstage_trial(ms, 1, 0, MSTAGE_PAUSED, NAN);
    mstage_observe(ms, 1, 4, 2.0);
    mstage_trial(ms, 2, 0, MSTAGE_ENDED, NAN);
    mstage_plan(ms, &p);
    assert_int_equal(p.stage, 1);
    assert_int_equal(p.n_seeds, 1);
    assert_int_equal(p.n_new, 0);
    mstage_plan_clear(&p);
    /* Nothing paused at all and exhausted: straight to the end. */
    struct mstage *e = make(-1, 1, 3);
    mstage_trial(e, 1, 0, MSTAGE_COMPLETED, 1.0);
    mstage_plan(e, &p);
    assert_int_equal(p.stage, 3);
    assert_int_equal(p.n_seeds, 0);
    mstage_plan_clear(&p);
    mstage_free(e);
    mstage_free(ms);
}

/*
 * Random stage-0 studies: the seeds are the brute-force top 3 of the
 * paused trials by their minimum over steps 1..4, and the plan does not
 * depend on the order of the calls.
 */
static void
test_random_vs_brute_force(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 42);
    for (int rep = 0; rep < 200; rep++) {
        double y[6][6];
        int paused[6];
        for (int i = 0; i < 6; i++) {
            paused[i] = rng_below(&r, 4) != 0;
            for (int s = 0; s < 6; s++)
                y[i][s] = (double)rng_below(&r, 20);
        }
        struct mstage *a = make(-1, 0, 3), *b = make(-1, 0, 3);
        for (int i = 0; i < 6; i++)
            mstage_trial(a, i + 1, 0, paused[i] ? MSTAGE_PAUSED : MSTAGE_ENDED,
                         NAN);
        for (int i = 0; i < 6; i++)
            for (int s = 0; s < 6; s++)
                mstage_observe(a, i + 1, (size_t)s + 1, y[i][s]);
        /* b: trials declared in reverse, reports in reverse. */
        for (int i = 5; i >= 0; i--)
            mstage_trial(b, i + 1, 0, paused[i] ? MSTAGE_PAUSED : MSTAGE_ENDED,
                         NAN);
        for (int s = 5; s >= 0; s--)
            for (int i = 5; i >= 0; i--)
                mstage_observe(b, i + 1, (size_t)s + 1, y[i][s]);
        /* Brute force: value at 4 = min of y[0..3]. */
        double v[6];
        int taken[6] = {0}, want[3];
        size_t n_want = 0;
        for (int i = 0; i < 6; i++) {
            v[i] = y[i][0];
            for (int s = 1; s < 4; s++)
                if (y[i][s] < v[i])
                    v[i] = y[i][s];
        }
        for (size_t j = 0; j < 3; j++) {
            int bi = -1;
            for (int i = 0; i < 6; i++)
                if (paused[i] && !taken[i] && (bi < 0 || v[i] < v[bi]))
                    bi = i;
            if (bi < 0)
                break;
            taken[bi] = 1;
            want[n_want++] = bi + 1;
        }
        struct mstage_plan pa, pb;
        mstage_plan(a, &pa);
        mstage_plan(b, &pb);
        int n_paused = 0;
        for (int i = 0; i < 6; i++)
            n_paused += paused[i];
        if (n_paused == 6) {
            assert_int_equal(pa.n_seeds, n_want);
            for (size_t j = 0; j < n_want; j++)
                assert_int_equal(pa.seeds[j], want[j]);
            assert_int_equal(pa.n_prune, 3);
        } else {
            /* Failed members leave room: stage 0 still wants more. */
            assert_int_equal(pa.stage, 0);
            assert_int_equal(pa.n_new, (size_t)(6 - n_paused));
            /* The paused ones are done: they wait, nothing to resume. */
            assert_int_equal(pa.n_resume, 0);
        }
        assert_int_equal(pa.stage, pb.stage);
        assert_int_equal(pa.n_new, pb.n_new);
        assert_int_equal(pa.n_seeds, pb.n_seeds);
        assert_int_equal(pa.n_resume, pb.n_resume);
        for (size_t j = 0; j < pa.n_seeds; j++)
            assert_int_equal(pa.seeds[j], pb.seeds[j]);
        for (size_t j = 0; j < pa.n_resume; j++)
            assert_int_equal(pa.resume[j], pb.resume[j]);
        mstage_plan_clear(&pa);
        mstage_plan_clear(&pb);
        mstage_free(a);
        mstage_free(b);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_rejects),
        cmocka_unit_test(test_value_at),
        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_work_in_a_stage),
        cmocka_unit_test(test_advance_minimize),
        cmocka_unit_test(test_advance_maximize),
        cmocka_unit_test(test_whole_study),
        cmocka_unit_test(test_exhausted),
        cmocka_unit_test(test_random_vs_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
