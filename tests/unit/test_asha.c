/*
 * tests/unit/test_asha.c - ASHA rung bookkeeping on hand-made curves: rung
 * positions, promotion of exactly ⌊k/p⌋, ties, asynchronous arrival, BSF
 * with restarts, skipped steps, keep, both modes, multi-objective order,
 * and independence from the order of the reports.
 */
#include "tests/support/check.h"

#include <string.h>

#include "core/asha.h"
#include "core/rng.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

static const int MINIMIZE[1] = {-1};
static const int MAXIMIZE[1] = {1};

static struct asha *
make_ex(size_t r, size_t u, size_t R, size_t p, size_t keep,
        enum asha_mode mode, int exhausted, size_t m, const int *sense)
{
    struct asha_params prm;
    struct asha *a = NULL;
    memset(&prm, 0, sizeof prm);
    prm.r = r;
    prm.u = u;
    prm.R = R;
    prm.p = p;
    prm.keep = keep;
    prm.mode = mode;
    prm.exhausted = exhausted;
    prm.m = m;
    prm.sense = sense;
    assert_int_equal(asha_create(&prm, &a), HPOD_OK);
    assert_non_null(a);
    return a;
}

static struct asha *
make(size_t r, size_t u, size_t R, size_t p, size_t keep, enum asha_mode mode,
     size_t m, const int *sense)
{
    return make_ex(r, u, R, p, keep, mode, 0, m, sense);
}

static void
obs1(struct asha *a, int64_t config, size_t step, double v)
{
    assert_int_equal(asha_observe(a, config, step, &v), HPOD_OK);
}

static void
test_rungs(void **state)
{
    (void)state;
    size_t out[16];
    assert_int_equal(asha_rungs(5, 2, 25, NULL), 11);
    assert_int_equal(asha_rungs(5, 2, 25, out), 11);
    for (size_t i = 0; i < 11; i++)
        assert_int_equal(out[i], 5 + 2 * i);
    assert_int_equal(asha_rungs(1, 3, 11, out), 4); /* 1 4 7 10 */
    assert_int_equal(out[3], 10);
    assert_int_equal(asha_rungs(5, 10, 12, out), 1);
    assert_int_equal(out[0], 5);
    assert_int_equal(asha_rungs(3, 1, 3, out), 1);
    assert_int_equal(asha_rungs(0, 1, 3, out), 0);
    assert_int_equal(asha_rungs(1, 0, 3, out), 0);
    assert_int_equal(asha_rungs(4, 1, 3, out), 0);
    /* No wrap-around near SIZE_MAX. */
    size_t big = (size_t)-1;
    assert_int_equal(asha_rungs(big - 5, 4, big, out), 2);
    assert_int_equal(out[1], big - 1);
}

static void
test_create_errors(void **state)
{
    (void)state;
    struct asha_params prm = {5, 2, 25, 2, 2, ASHA_PROMOTION, 0, 1, MINIMIZE};
    struct asha *a = (struct asha *)&prm; /* must be reset to NULL */
    assert_int_equal(asha_create(NULL, &a), HPOD_EINVAL);
    assert_null(a);
    assert_int_equal(asha_create(&prm, NULL), HPOD_EINVAL);
    struct asha_params bad = prm;
    bad.r = 0;
    assert_int_equal(asha_create(&bad, &a), HPOD_EINVAL);
    bad = prm;
    bad.u = 0;
    assert_int_equal(asha_create(&bad, &a), HPOD_EINVAL);
    bad = prm;
    bad.R = 4;
    assert_int_equal(asha_create(&bad, &a), HPOD_EINVAL);
    bad = prm;
    bad.p = 1;
    assert_int_equal(asha_create(&bad, &a), HPOD_EINVAL);
    bad = prm;
    bad.m = 0;
    assert_int_equal(asha_create(&bad, &a), HPOD_EINVAL);
    bad.m = ASHA_MAX_OBJECTIVES + 1;
    assert_int_equal(asha_create(&bad, &a), HPOD_EINVAL);
    bad = prm;
    bad.sense = NULL;
    assert_int_equal(asha_create(&bad, &a), HPOD_EINVAL);
    bad = prm;
    bad.mode = (enum asha_mode)7;
    assert_int_equal(asha_create(&bad, &a), HPOD_EINVAL);
    assert_int_equal(asha_create(&prm, &a), HPOD_OK);
    assert_int_equal(asha_n_rungs(a), 11);
    assert_int_equal(asha_observe(a, 1, 1, NULL), HPOD_EINVAL);
    asha_free(a);
    asha_free(NULL);
}

/*
 * p = 3, 7 configurations at rung 1 (of 1, 2, 3; R = 3): ⌊7/3⌋ = 2 are
 * promotable, exactly the two best, never more, whatever the ties.
 */
static void
test_exactly_floor_k_over_p(void **state)
{
    (void)state;
    struct asha *a = make(1, 1, 3, 3, 0, ASHA_PROMOTION, 1, MINIMIZE);
    const double v[7] = {4.25, 2.5, 7.125, 2.5, 3.0, 9.5, 2.5};
    for (int64_t c = 0; c < 7; c++)
        obs1(a, 100 + c, 1, v[c]);
    /* Order: 101 (2.5), 103 (2.5), 106 (2.5), 104, 100, 102, 105. */
    const int64_t order[7] = {101, 103, 106, 104, 100, 102, 105};
    size_t promotable = 0;
    for (size_t j = 0; j < 7; j++) {
        struct asha_standing s;
        assert_int_equal(asha_standing(a, order[j], 0, &s), 1);
        assert_int_equal(s.position, j);
        assert_int_equal(s.k, 7);
        assert_int_equal(s.limit, 2);
        assert_int_equal(s.arrival, 1);
        promotable += (size_t)s.promotable;
        assert_int_equal(asha_decide(a, order[j], 1),
                         j < 2 ? ASHA_CONTINUE : ASHA_STOP);
    }
    assert_int_equal(promotable, 2);
    /* Between rungs nothing is decided; unknown configs continue. */
    assert_int_equal(asha_decide(a, 105, 2), ASHA_CONTINUE);
    assert_int_equal(asha_decide(a, 999, 1), ASHA_CONTINUE);
    /* An eighth and ninth arrival raise the limit to 3. */
    obs1(a, 107, 1, 8.0);
    obs1(a, 108, 1, 8.5);
    assert_int_equal(asha_decide(a, 106, 1), ASHA_CONTINUE);
    assert_int_equal(asha_decide(a, 104, 1), ASHA_STOP);
    asha_free(a);
}

/*
 * Asynchronous arrival, promotion mode, p = 3: the first arrivals at a
 * rung cannot be promoted (⌊1/3⌋ = ⌊2/3⌋ = 0); the third arrival makes the
 * best of the three promotable, and it is proposed.
 */
static void
test_async_arrival_promotion(void **state)
{
    (void)state;
    struct asha *a = make(2, 2, 6, 3, 0, ASHA_PROMOTION, 1, MINIMIZE);
    struct asha_promotion pr;
    obs1(a, 1, 1, 9.0);
    obs1(a, 1, 2, 5.5); /* config 1 reaches rung 2 first */
    assert_int_equal(asha_decide(a, 1, 1), ASHA_CONTINUE);
    assert_int_equal(asha_decide(a, 1, 2), ASHA_STOP);
    asha_pause(a, 1);
    assert_int_equal(asha_promotable(a, &pr), 0);
    obs1(a, 2, 2, 6.5);
    assert_int_equal(asha_decide(a, 2, 2), ASHA_STOP);
    asha_pause(a, 2);
    assert_int_equal(asha_promotable(a, &pr), 0);
    obs1(a, 3, 2, 7.5);
    assert_int_equal(asha_decide(a, 3, 2), ASHA_STOP);
    asha_pause(a, 3);
    assert_int_equal(asha_promotable(a, &pr), 1);
    assert_int_equal(pr.config, 1);
    assert_int_equal(pr.rung, 0);
    assert_int_equal(pr.rung_step, 2);
    assert_int_equal(pr.resume_step, 2);
    /*
     * Config 1 is resumed (no longer paused: a fresh state without its
     * pause) and reaches rung 4 alone: paused again, nothing promotable
     * (config 2 is not in the top ⌊3/3⌋ = 1 at rung 2).
     */
    struct asha *b = make(2, 2, 6, 3, 0, ASHA_PROMOTION, 1, MINIMIZE);
    obs1(b, 1, 2, 5.5);
    obs1(b, 2, 2, 6.5);
    obs1(b, 3, 2, 7.5);
    asha_pause(b, 2);
    asha_pause(b, 3);
    assert_int_equal(asha_promotable(b, &pr), 0);
    obs1(b, 1, 3, 5.0);
    obs1(b, 1, 4, 4.5);
    assert_int_equal(asha_decide(b, 1, 4), ASHA_STOP);
    asha_pause(b, 1);
    assert_int_equal(asha_promotable(b, &pr), 0);
    /* Three more at rung 2, all better than 2 and 3: 4 and 5 promotable. */
    obs1(b, 4, 2, 1.5);
    obs1(b, 5, 2, 2.5);
    obs1(b, 6, 2, 3.5);
    asha_pause(b, 4);
    asha_pause(b, 5);
    asha_pause(b, 6);
    /* Rung 2 order: 4, 5, 6, 1, 2, 3; limit ⌊6/3⌋ = 2. */
    assert_int_equal(asha_promotable(b, &pr), 1);
    assert_int_equal(pr.config, 4);
    assert_int_equal(pr.rung, 0);
    asha_free(a);
    asha_free(b);
}

/* The highest rung with a promotable paused configuration goes first. */
static void
test_promotion_prefers_highest_rung(void **state)
{
    (void)state;
    struct asha *a = make(1, 1, 4, 2, 0, ASHA_PROMOTION, 1, MAXIMIZE);
    struct asha_promotion pr;
    /* Rung 1: configs 10..13; bleu larger is better. */
    obs1(a, 10, 1, 20.0);
    obs1(a, 11, 1, 18.0);
    obs1(a, 12, 1, 12.0);
    obs1(a, 13, 1, 11.0);
    /* 10 and 11 went on to rung 2; 11 was paused there. */
    obs1(a, 10, 2, 21.0);
    obs1(a, 11, 2, 19.0);
    asha_pause(a, 11);
    /* 12 paused at rung 1: not promotable (position 2, limit 2). */
    asha_pause(a, 12);
    /* Rung 2: k = 2, limit 1: 10 is first, 11 not promotable; nothing. */
    assert_int_equal(asha_promotable(a, &pr), 0);
    /* A paused config that already went higher is not promoted again. */
    asha_pause(a, 10);
    assert_int_equal(asha_promotable(a, &pr), 1);
    assert_int_equal(pr.config, 10);
    assert_int_equal(pr.rung, 1);
    assert_int_equal(pr.rung_step, 2);
    /* Two more at rung 1: k = 6, limit 3, order 10, 15, 11, 14, 12, 13. */
    obs1(a, 14, 1, 15.0);
    obs1(a, 15, 1, 19.5);
    asha_pause(a, 14);
    asha_pause(a, 15);
    struct asha_standing s;
    assert_int_equal(asha_standing(a, 15, 0, &s), 1);
    assert_int_equal(s.position, 1);
    assert_int_equal(s.limit, 3);
    /* Rung 2 (10) first, then rung 1's best paused promotable: 15. */
    assert_int_equal(asha_promotable(a, &pr), 1);
    assert_int_equal(pr.config, 10);
    struct asha *b = make(1, 1, 4, 2, 0, ASHA_PROMOTION, 1, MAXIMIZE);
    obs1(b, 10, 1, 20.0);
    obs1(b, 11, 1, 18.0);
    obs1(b, 12, 1, 12.0);
    obs1(b, 13, 1, 11.0);
    obs1(b, 14, 1, 15.0);
    obs1(b, 15, 1, 19.5);
    obs1(b, 10, 2, 21.0);
    asha_pause(b, 12);
    asha_pause(b, 14);
    asha_pause(b, 15);
    assert_int_equal(asha_promotable(b, &pr), 1);
    assert_int_equal(pr.config, 15);
    assert_int_equal(pr.rung, 0);
    assert_int_equal(pr.resume_step, 1);
    /* Finished configs (at R) are never proposed. */
    obs1(b, 15, 4, 25.0);
    assert_int_equal(asha_promotable(b, &pr), 0);
    /*
     * R = 5 is not a rung (rungs 2, 4): a paused configuration that has
     * reported step 5 is finished and never proposed.
     */
    struct asha *c = make(2, 2, 5, 2, 0, ASHA_PROMOTION, 1, MAXIMIZE);
    obs1(c, 1, 4, 30.0);
    obs1(c, 2, 4, 10.0);
    asha_pause(c, 1);
    assert_int_equal(asha_promotable(c, &pr), 1);
    assert_int_equal(pr.config, 1);
    assert_int_equal(pr.rung, 1);
    obs1(c, 1, 5, 31.0);
    assert_int_equal(asha_promotable(c, &pr), 0);
    asha_free(c);
    asha_free(a);
    asha_free(b);
}

/*
 * BSF: a curve that overfits then restarts is judged by its best so far,
 * not its current value; reports that skip a rung arrive at the first
 * step past it, with the BSF up to that step.
 */
static void
test_bsf_and_skipped_steps(void **state)
{
    (void)state;
    struct asha *a = make(3, 3, 9, 2, 0, ASHA_PROMOTION, 1, MINIMIZE);
    /* Config 1: 10, 6 (best), 8 at the rung: BSF 6. */
    obs1(a, 1, 1, 10.0);
    obs1(a, 1, 2, 6.0);
    obs1(a, 1, 3, 8.0);
    /* Config 2: 7 steadily: current 7 < 8, BSF 7 > 6. */
    obs1(a, 2, 1, 7.0);
    obs1(a, 2, 2, 7.0);
    obs1(a, 2, 3, 7.0);
    assert_int_equal(asha_decide(a, 1, 3), ASHA_CONTINUE);
    assert_int_equal(asha_decide(a, 2, 3), ASHA_STOP);
    /* Config 3 reports only at 2 and 4: arrives at rung 3 at step 4. */
    obs1(a, 3, 2, 9.0);
    obs1(a, 3, 4, 5.0);
    struct asha_standing s;
    assert_int_equal(asha_standing(a, 3, 0, &s), 1);
    assert_int_equal(s.arrival, 4);
    assert_int_equal(s.position, 0);
    assert_int_equal(s.limit, 1);
    assert_int_equal(asha_decide(a, 3, 2), ASHA_CONTINUE);
    assert_int_equal(asha_decide(a, 3, 4), ASHA_CONTINUE);
    assert_int_equal(asha_decide(a, 1, 3), ASHA_STOP); /* now second */
    /* A report for the same (config, step) twice changes nothing. */
    obs1(a, 3, 4, 5.0);
    assert_int_equal(asha_standing(a, 3, 0, &s), 1);
    assert_int_equal(s.k, 3);
    /* Config 4 jumps from 2 to 7: arrival at rungs 3 and 6 at step 7. */
    obs1(a, 4, 2, 4.0);
    obs1(a, 4, 7, 3.0);
    assert_int_equal(asha_standing(a, 4, 1, &s), 1);
    assert_int_equal(s.arrival, 7);
    assert_int_equal(asha_standing(a, 4, 2, &s), 0);
    /* Rung 3 (k = 4, limit 2): 4 first; rung 6 (k = 1, top, keep 0): 0. */
    assert_int_equal(asha_decide(a, 4, 7), ASHA_STOP);
    /* At or beyond R nothing is stopped. */
    obs1(a, 4, 9, 3.0);
    assert_int_equal(asha_decide(a, 4, 9), ASHA_CONTINUE);
    assert_int_equal(asha_standing(a, 4, 2, &s), 1);
    assert_int_equal(s.promotable, 0);
    assert_int_equal(s.limit, 0);
    asha_free(a);
}

/*
 * keep: at the top decision rung the best `keep` are never stopped, even
 * when ⌊k/p⌋ is smaller; lower rungs follow ⌊k/p⌋ alone.
 */
static void
test_keep(void **state)
{
    (void)state;
    /* Rungs 1, 2, 3 with R = 3: decision rungs 1 and 2; top = 2. */
    struct asha *a = make(1, 1, 3, 4, 2, ASHA_PROMOTION, 1, MINIMIZE);
    for (int64_t c = 1; c <= 3; c++) {
        obs1(a, c, 1, 10.0 - (double)c);
        obs1(a, c, 2, 5.0 + (double)c);
    }
    /* Rung 1: k = 3, ⌊3/4⌋ = 0: everyone stopped there. */
    for (int64_t c = 1; c <= 3; c++)
        assert_int_equal(asha_decide(a, c, 1), ASHA_STOP);
    /* Rung 2 (top): keep 2 -> 1 and 2 continue, 3 stops. */
    assert_int_equal(asha_decide(a, 1, 2), ASHA_CONTINUE);
    assert_int_equal(asha_decide(a, 2, 2), ASHA_CONTINUE);
    assert_int_equal(asha_decide(a, 3, 2), ASHA_STOP);
    asha_free(a);
    /* keep 0: nobody at the top either; keep 5 capped at k. */
    a = make(1, 1, 3, 4, 0, ASHA_PROMOTION, 1, MINIMIZE);
    obs1(a, 1, 1, 6.0);
    obs1(a, 1, 2, 5.0);
    assert_int_equal(asha_decide(a, 1, 2), ASHA_STOP);
    asha_free(a);
    a = make(1, 1, 3, 4, 5, ASHA_PROMOTION, 1, MINIMIZE);
    obs1(a, 1, 1, 6.0);
    obs1(a, 1, 2, 5.0);
    struct asha_standing s;
    assert_int_equal(asha_standing(a, 1, 1, &s), 1);
    assert_int_equal(s.limit, 1);
    assert_int_equal(asha_decide(a, 1, 2), ASHA_CONTINUE);
    asha_free(a);
}

/*
 * Exhausted (no new configuration will start): every rung lets its best
 * `keep` move up, so that `keep` configurations can reach R. Rungs 1, 2, 3
 * (decision) and R = 4; p = 2, keep = 2.
 */
static void
test_exhausted(void **state)
{
    (void)state;
    struct asha_promotion pr;
    for (int ex = 0; ex <= 1; ex++) {
        /* 1, 2, 3 at rung 1 (5, 6, 7); 1 went on to rung 2 and paused. */
        struct asha *a =
            make_ex(1, 1, 4, 2, 2, ASHA_PROMOTION, ex, 1, MINIMIZE);
        obs1(a, 1, 1, 5.0);
        obs1(a, 2, 1, 6.0);
        obs1(a, 3, 1, 7.0);
        obs1(a, 1, 2, 4.0);
        asha_pause(a, 1);
        asha_pause(a, 2);
        asha_pause(a, 3);
        assert_int_equal(asha_promotable(a, &pr), ex);
        if (ex) {
            assert_int_equal(pr.config, 1);
            assert_int_equal(pr.rung, 1);
        }
        asha_free(a);

        /* 1 is past rung 3 and running: next is 2 (position 1 < keep). */
        a = make_ex(1, 1, 4, 2, 2, ASHA_PROMOTION, ex, 1, MINIMIZE);
        obs1(a, 1, 1, 5.0);
        obs1(a, 2, 1, 6.0);
        obs1(a, 3, 1, 7.0);
        obs1(a, 1, 2, 4.0);
        obs1(a, 1, 3, 3.5);
        asha_pause(a, 2);
        asha_pause(a, 3);
        assert_int_equal(asha_promotable(a, &pr), ex);
        if (ex) {
            assert_int_equal(pr.config, 2);
            assert_int_equal(pr.rung, 0);
        }
        /* 2 resumed reaches rung 2 second: ⌊2/2⌋ = 1, keep lifts it. */
        obs1(a, 2, 2, 5.5);
        assert_int_equal(asha_decide(a, 2, 2), ex ? ASHA_CONTINUE : ASHA_STOP);
        asha_free(a);
    }
}

/* Stopping mode: the best of fewer than p continues; no promotions. */
static void
test_stopping_mode(void **state)
{
    (void)state;
    struct asha *a = make(2, 2, 10, 3, 0, ASHA_STOPPING, 1, MINIMIZE);
    struct asha_promotion pr;
    obs1(a, 1, 2, 6.0);
    assert_int_equal(asha_decide(a, 1, 2), ASHA_CONTINUE);
    obs1(a, 2, 2, 7.0);
    assert_int_equal(asha_decide(a, 2, 2), ASHA_STOP);
    obs1(a, 3, 2, 5.0);
    assert_int_equal(asha_decide(a, 3, 2), ASHA_CONTINUE);
    /* Same data in promotion mode: nobody until the third arrival. */
    struct asha *b = make(2, 2, 10, 3, 0, ASHA_PROMOTION, 1, MINIMIZE);
    obs1(b, 1, 2, 6.0);
    assert_int_equal(asha_decide(b, 1, 2), ASHA_STOP);
    obs1(b, 2, 2, 7.0);
    obs1(b, 3, 2, 5.0);
    assert_int_equal(asha_decide(b, 3, 2), ASHA_CONTINUE);
    /* Paused configs are never promoted in stopping mode. */
    asha_pause(a, 1);
    asha_pause(a, 2);
    for (int64_t c = 4; c <= 9; c++)
        obs1(a, c, 2, 9.0);
    assert_int_equal(asha_promotable(a, &pr), 0);
    asha_pause(b, 1);
    for (int64_t c = 4; c <= 9; c++)
        obs1(b, c, 2, 9.0);
    assert_int_equal(asha_promotable(b, &pr), 1);
    assert_int_equal(pr.config, 1);
    asha_free(a);
    asha_free(b);
}

/*
 * Two objectives (maximize bleu, minimize time) at one rung:
 *   a (20, 10), b (18, 5), c (15, 3): front 0; d (17, 8): front 1 (b
 *   dominates it); e (14, 9): front 2 (d dominates it); f (NaN, 1): last.
 * Crowding in front 0: a and c are extremes (+Inf), b is inner, so the
 * order is a, c (ids), b, d, e, f. p = 2, k = 6: limit 3.
 */
static void
test_multiobjective(void **state)
{
    (void)state;
    const int sense[2] = {1, -1};
    struct asha *a = make(1, 1, 2, 2, 0, ASHA_PROMOTION, 2, sense);
    const double v[6][2] = {{20, 10}, {18, 5}, {15, 3},
                            {17, 8},  {14, 9}, {NAN, 1}};
    const int64_t id[6] = {1, 2, 3, 4, 5, 6};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(asha_observe(a, id[i], 1, v[i]), HPOD_OK);
    const int64_t order[6] = {1, 3, 2, 4, 5, 6};
    for (size_t j = 0; j < 6; j++) {
        struct asha_standing s;
        assert_int_equal(asha_standing(a, order[j], 0, &s), 1);
        assert_int_equal(s.position, j);
        assert_int_equal(s.limit, 3);
    }
    assert_int_equal(asha_decide(a, 2, 1), ASHA_CONTINUE);
    assert_int_equal(asha_decide(a, 4, 1), ASHA_STOP);
    /*
     * Per-objective BSF: config 4 reports (19, 8) at step 1 and (16, 2) at
     * step 2, so it reaches rung 2 as (19, 2), which dominates config 3's
     * (18, 2.5): 4 comes first. Ranked by its last values (16, 2) instead,
     * both would share front 0 and the smaller id, 3, would come first.
     */
    struct asha *b = make(1, 1, 3, 2, 0, ASHA_PROMOTION, 2, sense);
    const double s4a[2] = {19, 8}, s4b[2] = {16, 2};
    const double s3[2] = {18, 2.5};
    assert_int_equal(asha_observe(b, 4, 1, s4a), HPOD_OK);
    assert_int_equal(asha_observe(b, 4, 2, s4b), HPOD_OK);
    assert_int_equal(asha_observe(b, 3, 2, s3), HPOD_OK);
    struct asha_standing s;
    assert_int_equal(asha_standing(b, 4, 1, &s), 1);
    assert_int_equal(s.position, 0);
    assert_int_equal(asha_standing(b, 3, 1, &s), 1);
    assert_int_equal(s.position, 1);
    asha_free(a);
    asha_free(b);
}

/*
 * The same reports in any order (and pauses before or after them) give
 * the same standings, decisions and promotion.
 */
static void
test_order_independence(void **state)
{
    (void)state;
    enum { NC = 23, NS = 9 };
    struct rng g;
    rng_seed(&g, 2385);
    size_t n = 0;
    int64_t cfg[NC * NS];
    size_t step[NC * NS];
    double val[NC * NS];
    for (int64_t c = 0; c < NC; c++) {
        size_t len = 1 + (size_t)rng_below(&g, NS);
        double level = 3 + rng_uniform(&g);
        for (size_t s = 1; s <= len; s++) {
            cfg[n] = 1000 + 7 * c;
            step[n] = s;
            /* Rounded so that ties happen. */
            val[n] =
                floor(4 * (level + 2.0 / (double)s + 0.3 * rng_normal(&g))) / 4;
            n++;
        }
    }
    size_t perm[NC * NS];
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    struct asha *a = make(2, 2, 8, 2, 2, ASHA_PROMOTION, 1, MINIMIZE);
    struct asha *b = make(2, 2, 8, 2, 2, ASHA_PROMOTION, 1, MINIMIZE);
    for (size_t i = 0; i < n; i++)
        obs1(a, cfg[i], step[i], val[i]);
    for (int64_t c = 0; c < NC; c += 2)
        asha_pause(a, 1000 + 7 * c);
    rng_shuffle(&g, perm, n);
    for (int64_t c = NC - 1; c >= 0; c--)
        if (c % 2 == 0)
            asha_pause(b, 1000 + 7 * c);
    for (size_t i = 0; i < n; i++)
        obs1(b, cfg[perm[i]], step[perm[i]], val[perm[i]]);
    size_t stops = 0, conts = 0;
    for (int64_t c = 0; c < NC; c++) {
        int64_t id = 1000 + 7 * c;
        for (size_t r = 0; r < asha_n_rungs(a); r++) {
            struct asha_standing sa, sb;
            int ha = asha_standing(a, id, r, &sa);
            assert_int_equal(ha, asha_standing(b, id, r, &sb));
            if (ha) {
                assert_int_equal(sa.position, sb.position);
                assert_int_equal(sa.k, sb.k);
                assert_int_equal(sa.limit, sb.limit);
            }
        }
        for (size_t s = 1; s <= NS; s++) {
            enum asha_action x = asha_decide(a, id, s);
            assert_int_equal(x, asha_decide(b, id, s));
            stops += x == ASHA_STOP;
            conts += x == ASHA_CONTINUE;
        }
    }
    assert_true(stops > 0 && conts > 0);
    struct asha_promotion pa, pb;
    int ha = asha_promotable(a, &pa);
    assert_int_equal(ha, asha_promotable(b, &pb));
    assert_int_equal(ha, 1);
    assert_int_equal(pa.config, pb.config);
    assert_int_equal(pa.rung, pb.rung);
    assert_int_equal(pa.resume_step, pb.resume_step);
    asha_free(a);
    asha_free(b);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rungs),
        cmocka_unit_test(test_create_errors),
        cmocka_unit_test(test_exactly_floor_k_over_p),
        cmocka_unit_test(test_async_arrival_promotion),
        cmocka_unit_test(test_promotion_prefers_highest_rung),
        cmocka_unit_test(test_bsf_and_skipped_steps),
        cmocka_unit_test(test_keep),
        cmocka_unit_test(test_exhausted),
        cmocka_unit_test(test_stopping_mode),
        cmocka_unit_test(test_multiobjective),
        cmocka_unit_test(test_order_independence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
