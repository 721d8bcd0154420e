/*
 * tests/unit/test_mstage_sim.c - the multi-stage BO replay on hand-made
 * curves: checkpoint counts by hand, the two-stage closed form "train all
 * to f then the best by BSF to R", the paired draw with asha_sim, the
 * exhausted path, determinism and input checks.
 */
#include "tests/support/check.h"

#include <string.h>

#include "core/asha_sim.h"
#include "tools/mstage_sim.h"
#include "core/rng.h"
#include "core/sampler.h"
#include "core/space.h"

#define MAXC 64

/* A one-parameter space x in {1, ..., n} and features x_i = i + 1. */
static void
line_space(struct space *sp, double *feat, size_t n)
{
    double v[MAXC];
    for (size_t i = 0; i < n; i++)
        v[i] = feat[i] = (double)(i + 1);
    space_init(sp);
    assert_int_equal(space_add_values(sp, PARAM_INT, v, n, 0), HPOD_OK);
}

static const struct mstage_sim_base random_base = {SAMPLER_RANDOM, 7, 3, 0, 0};

/* Curves c_i(s) = a_i + b_i / s, distinct at every step. */
static void
make_curves(struct asha_sim_curve *cv, double *buf, size_t n, size_t len,
            const double *a, const double *b)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t s = 0; s < len; s++)
            buf[i * len + s] = a[i] + b[i] / (double)(s + 1);
        cv[i].ppl = buf + i * len;
        cv[i].len = len;
        cv[i].optimal = buf[i * len + len - 1];
    }
}

/*
 * Four curves, stages {2: 4}, {4: 2}, {6: 1}, k = 2. By hand: stage 0
 * trains 2 + 2 + 2 + 1 (curve 2 has one checkpoint: it completes there);
 * the two best paused at step 2 (curves 0 and 1) resume to 4 (+2 each);
 * the best at step 4 (curve 0) goes to 6 (+2). 13 checkpoints; all to 6 is
 * 6 + 6 + 1 + 6 = 19.
 */
static void
test_counts_by_hand(void **state)
{
    (void)state;
    double buf[4 * 6], feat[4];
    double a[4] = {10, 12, 50, 14}, b[4] = {8, 8, 8, 8};
    struct asha_sim_curve cv[4];
    struct space sp;
    make_curves(cv, buf, 4, 6, a, b);
    cv[2].len = 1;
    cv[2].optimal = buf[2 * 6];
    line_space(&sp, feat, 4);
    size_t steps[3] = {2, 4, 6}, trials[3] = {4, 2, 1};
    struct mstage_params prm = {3, steps, trials, 2, -1, 0};
    struct mstage_sim_result res;
    size_t drawn[4], trained[4], issued[4];
    struct rng r;
    rng_seed(&r, 3);
    assert_int_equal(mstage_sim_trace(cv, 4, feat, &sp, &prm, &random_base, 4,
                                      &r, &res, drawn, trained, issued),
                     HPOD_OK);
    assert_int_equal(res.steps, 13);
    assert_int_equal(res.steps_full, 19);
    assert_int_equal(res.started, 4);
    assert_int_equal(res.n_full, 2); /* curve 2 (ended) and the winner */
    size_t want[4] = {6, 4, 1, 2};
    for (size_t j = 0; j < 4; j++) {
        assert_int_equal(trained[j], want[drawn[j]]);
        assert_true(issued[j] < 4);
    }
    assert_int_equal(drawn[res.kept], 0);
    assert_int_equal(res.best_rank, 1);
    assert_true(res.best_full);
    assert_true(res.best_started);

    /* The same study when the one-checkpoint curve is the best of all: it
     * completed in stage 0 (trained to its end) and is the one kept. */
    buf[2 * 6] = 1.0;
    cv[2].optimal = 1.0;
    rng_seed(&r, 3);
    assert_int_equal(mstage_sim_trace(cv, 4, feat, &sp, &prm, &random_base, 4,
                                      &r, &res, drawn, trained, NULL),
                     HPOD_OK);
    assert_int_equal(res.steps, 13);
    assert_int_equal(drawn[res.kept], 2);
    assert_int_equal(res.best_rank, 1);
    space_clear(&sp);
}

/*
 * Stages {2: all}, {R: 1}: the replay must equal "train every drawn config
 * to 2, then the best by BSF at 2 to R" (brute force), for random pools
 * and curves that cross (a_i + b_i/s with b_i of either sign), some of
 * them shorter than R.
 */
static void
test_two_stage_closed_form(void **state)
{
    (void)state;
    enum { N = 30, LEN = 9, CONF = 12 };
    size_t R = 7;
    double buf[N * LEN], feat[N], a[N], b[N];
    struct asha_sim_curve cv[N];
    struct space sp;
    struct rng g;
    rng_seed(&g, 11);
    for (size_t i = 0; i < N; i++) {
        a[i] = 5 + 10 * rng_uniform(&g);
        b[i] = 8 * rng_uniform(&g) - 2;
    }
    make_curves(cv, buf, N, LEN, a, b);
    for (size_t i = 0; i < N; i += 4)
        cv[i].len = 2 + i % 5; /* 2..6: some end before R */
    line_space(&sp, feat, N);
    for (uint64_t seed = 0; seed < 20; seed++) {
        size_t steps[2] = {2, R}, trials[2] = {CONF, 1};
        struct mstage_params prm = {2, steps, trials, 3, -1, 0};
        struct mstage_sim_result res;
        size_t drawn[CONF], trained[CONF];
        struct rng r;
        rng_seed(&r, seed);
        assert_int_equal(mstage_sim_trace(cv, N, feat, &sp, &prm, &random_base,
                                          CONF, &r, &res, drawn, trained, NULL),
                         HPOD_OK);
        /* Brute force: BSF at 2 of every drawn curve; curves of length 2
         * are paused at 2 as well (the report at 2 answers stop). */
        size_t win = CONF, spent = 0, full = 0;
        double wv = 0;
        for (size_t j = 0; j < CONF; j++) {
            const struct asha_sim_curve *c = &cv[drawn[j]];
            double v = c->ppl[0] < c->ppl[1] ? c->ppl[0] : c->ppl[1];
            if (win == CONF || v < wv) {
                win = j;
                wv = v;
            }
            spent += 2;
            full += c->len < R ? c->len : R;
        }
        const struct asha_sim_curve *w = &cv[drawn[win]];
        spent += (w->len < R ? w->len : R) - 2;
        assert_int_equal(res.steps, spent);
        assert_int_equal(res.steps_full, full);
        assert_int_equal(res.started, CONF);
        assert_int_equal(res.n_full, 1);
        assert_int_equal(res.kept, win);
        for (size_t j = 0; j < CONF; j++)
            assert_int_equal(trained[j],
                             j == win ? (w->len < R ? w->len : R) : 2);
        size_t rank = 1;
        for (size_t j = 0; j < CONF; j++)
            rank += cv[drawn[j]].optimal < w->optimal;
        assert_int_equal(res.best_rank, rank);
        assert_int_equal(res.best_full, rank == 1);
        assert_true(res.best_started);
    }
    space_clear(&sp);
}

/* The pool is asha_sim's for the same rng state, and r advances alike. */
static void
test_draw_paired_with_asha(void **state)
{
    (void)state;
    enum { N = 25, LEN = 8, CONF = 10 };
    double buf[N * LEN], feat[N], a[N], b[N];
    struct asha_sim_curve cv[N];
    struct space sp;
    for (size_t i = 0; i < N; i++) {
        a[i] = (double)((i * 7) % N);
        b[i] = 3;
    }
    make_curves(cv, buf, N, LEN, a, b);
    line_space(&sp, feat, N);
    size_t steps[3] = {2, 4, 8}, trials[3] = {6, 3, 1};
    struct mstage_params prm = {3, steps, trials, 3, -1, 0};
    struct asha_params ap;
    memset(&ap, 0, sizeof ap);
    ap.r = 2;
    ap.u = 2;
    ap.R = 8;
    ap.p = 2;
    ap.keep = 1;
    for (uint64_t seed = 0; seed < 5; seed++) {
        struct rng r1, r2;
        struct mstage_sim_result mres;
        struct asha_sim_result ares;
        size_t d1[CONF], d2[CONF];
        rng_seed(&r1, seed);
        rng_seed(&r2, seed);
        assert_int_equal(mstage_sim_trace(cv, N, feat, &sp, &prm, &random_base,
                                          CONF, &r1, &mres, d1, NULL, NULL),
                         HPOD_OK);
        assert_int_equal(
            asha_sim_trace(cv, N, &ap, 2, CONF, &r2, &ares, d2, NULL), HPOD_OK);
        for (size_t j = 0; j < CONF; j++)
            assert_int_equal(d1[j], d2[j]);
        assert_true(rng_uniform(&r1) == rng_uniform(&r2));
        assert_int_equal(mres.steps_full, ares.steps_full);
    }
    space_clear(&sp);
}

/*
 * A clearly best curve (lowest at every step) that is started survives
 * every stage, whatever the base sampler: stage 0 takes every candidate.
 */
static void
test_clear_best_survives(void **state)
{
    (void)state;
    enum { N = 12, LEN = 10 };
    double buf[N * LEN], feat[N], a[N], b[N];
    struct asha_sim_curve cv[N];
    struct space sp;
    for (size_t i = 0; i < N; i++) {
        a[i] = 20 + (double)((i * 5) % N);
        b[i] = 10;
    }
    a[7] = 5; /* curve 7 is the best at every step */
    make_curves(cv, buf, N, LEN, a, b);
    line_space(&sp, feat, N);
    size_t steps[3] = {1, 4, 10}, trials[3] = {N, 4, 2};
    struct mstage_params prm = {3, steps, trials, 3, -1, 0};
    enum sampler_kind kinds[3] = {SAMPLER_RANDOM, SAMPLER_GP, SAMPLER_GRAPH};
    for (size_t k = 0; k < 3; k++) {
        struct mstage_sim_base base = {kinds[k], 5, 3, 0, 0};
        struct mstage_sim_result res;
        size_t drawn[N], trained[N];
        struct rng r;
        rng_seed(&r, 42 + k);
        assert_int_equal(mstage_sim_trace(cv, N, feat, &sp, &prm, &base, N, &r,
                                          &res, drawn, trained, NULL),
                         HPOD_OK);
        assert_int_equal(drawn[res.kept], 7);
        assert_int_equal(res.best_rank, 1);
        assert_true(res.best_full);
        assert_int_equal(trained[res.kept], 10);
        /* Stage 0: 12 × 1; stage 1: 3 seeds + 1 new config to 4 (3·3 + 4);
         * stage 2: 2 seeds to 10 (3 + 1 new... none left: all issued).
         * Every config was issued in stage 0, so stage 1 has only its 3
         * seeds (exhausted), and stage 2 its top 2: 12 + 9 + 12. */
        assert_int_equal(res.started, N);
        assert_int_equal(res.steps, 12 + 9 + 12);
        assert_int_equal(res.n_full, 2);
    }
    space_clear(&sp);
}

/* Fewer candidates than stage 0 wants: exhausted lets the stage finish. */
static void
test_exhausted(void **state)
{
    (void)state;
    double buf[3 * 5], feat[3];
    double a[3] = {3, 1, 2}, b[3] = {1, 1, 1};
    struct asha_sim_curve cv[3];
    struct space sp;
    make_curves(cv, buf, 3, 5, a, b);
    line_space(&sp, feat, 3);
    size_t steps[2] = {2, 4}, trials[2] = {5, 1};
    struct mstage_params prm = {2, steps, trials, 3, -1, 0};
    struct mstage_sim_result res;
    size_t drawn[3];
    struct rng r;
    rng_seed(&r, 1);
    assert_int_equal(mstage_sim_trace(cv, 3, feat, &sp, &prm, &random_base, 3,
                                      &r, &res, drawn, NULL, NULL),
                     HPOD_OK);
    assert_int_equal(res.started, 3);
    assert_int_equal(res.steps, 3 * 2 + 2);
    assert_int_equal(drawn[res.kept], 1);
    assert_int_equal(res.best_rank, 1);
    space_clear(&sp);
}

/* GP base on a pool larger than stage 0: a function of the seed only; the
 * outputs are consistent with the trace. */
static void
test_deterministic_gp(void **state)
{
    (void)state;
    enum { N = 40, LEN = 12, CONF = 30 };
    double buf[N * LEN], feat[N], a[N], b[N];
    struct asha_sim_curve cv[N];
    struct space sp;
    struct rng g;
    rng_seed(&g, 5);
    for (size_t i = 0; i < N; i++) {
        double x = (double)i / N;
        a[i] = 10 + 20 * (x - 0.6) * (x - 0.6) + rng_uniform(&g);
        b[i] = 5 + 5 * rng_uniform(&g);
    }
    make_curves(cv, buf, N, LEN, a, b);
    line_space(&sp, feat, N);
    size_t steps[3] = {2, 6, 12}, trials[3] = {10, 5, 2};
    struct mstage_params prm = {3, steps, trials, 3, -1, 0};
    struct mstage_sim_base base = {SAMPLER_GP, 9, 3, 0, 0};
    struct mstage_sim_result r1, r2;
    size_t d1[CONF], t1[CONF], i1[CONF], d2[CONF], t2[CONF], i2[CONF];
    struct rng r;
    rng_seed(&r, 77);
    assert_int_equal(mstage_sim_trace(cv, N, feat, &sp, &prm, &base, CONF, &r,
                                      &r1, d1, t1, i1),
                     HPOD_OK);
    rng_seed(&r, 77);
    assert_int_equal(mstage_sim_trace(cv, N, feat, &sp, &prm, &base, CONF, &r,
                                      &r2, d2, t2, i2),
                     HPOD_OK);
    assert_memory_equal(&r1, &r2, sizeof r1);
    assert_memory_equal(d1, d2, sizeof d1);
    assert_memory_equal(t1, t2, sizeof t1);
    assert_memory_equal(i1, i2, sizeof i1);
    /* 10 in stage 0, 3 seeds + 2 new in stage 1, 2 seeds in stage 2. */
    assert_int_equal(r1.started, 12);
    size_t sum = 0, n_started = 0, best = 0;
    for (size_t j = 0; j < CONF; j++) {
        sum += t1[j];
        n_started += i1[j] != MSTAGE_SIM_NONE;
        assert_true((t1[j] > 0) == (i1[j] != MSTAGE_SIM_NONE));
        if (cv[d1[j]].optimal < cv[d1[best]].optimal)
            best = j;
    }
    assert_int_equal(sum, r1.steps);
    assert_int_equal(n_started, 12);
    assert_int_equal(r1.best_started, i1[best] != MSTAGE_SIM_NONE);
    assert_int_equal(r1.best_full, t1[best] == 12);
    /* 10·2 + (3·4 + 2·6) + 2·6 */
    assert_int_equal(r1.steps, 20 + 24 + 12);
    space_clear(&sp);
}

/*
 * k = 1 < init = 3: when stage 1 starts its new configurations, only its
 * seed has a value at stage 1's fidelity, so the model learns from stage
 * 0's (study/multifidelity.c, obs_at). The first new trial of stage 1
 * must be sampler_next's choice from the six stage-0 values at step 2.
 */
static void
test_fallback_fidelity(void **state)
{
    (void)state;
    enum { N = 12, LEN = 8 };
    double buf[N * LEN], feat[N], a[N], b[N];
    struct asha_sim_curve cv[N];
    struct space sp;
    for (size_t i = 0; i < N; i++) {
        double x = (double)i / N;
        a[i] = 10 + 30 * (x - 0.7) * (x - 0.7);
        b[i] = 4 + (double)(i % 3);
    }
    make_curves(cv, buf, N, LEN, a, b);
    line_space(&sp, feat, N);
    size_t steps[3] = {2, 4, 8}, trials[3] = {6, 3, 1};
    struct mstage_params prm = {3, steps, trials, 1, -1, 0};
    struct mstage_sim_base base = {SAMPLER_GP, 13, 3, 0, 0};
    struct mstage_sim_result res;
    size_t drawn[N], issued[N];
    struct rng r;
    rng_seed(&r, 8);
    assert_int_equal(mstage_sim_trace(cv, N, feat, &sp, &prm, &base, N, &r,
                                      &res, drawn, NULL, issued),
                     HPOD_OK);
    assert_int_equal(res.started, 8); /* 6, then 1 seed + 2 new */

    double cand_raw[N], obs_raw[6], obs_y[6], raw;
    size_t obs_cand[6], want = N;
    unsigned char used[N];
    for (size_t j = 0; j < N; j++) {
        cand_raw[j] = feat[drawn[j]];
        used[j] = issued[j] < 6;
        if (issued[j] < 6) {
            const double *p = cv[drawn[j]].ppl;
            size_t i = issued[j];
            obs_raw[i] = cand_raw[j];
            obs_y[i] = -(p[0] < p[1] ? p[0] : p[1]);
            obs_cand[i] = j;
        }
    }
    struct sampler_input in = {
        .space = &sp,
        .kind = SAMPLER_GP,
        .seed = 13,
        .seq = 6,
        .init = 3,
        .cand_raw = cand_raw,
        .cand_used = used,
        .n_cand = N,
        .obs_raw = obs_raw,
        .obs_y = obs_y,
        .obs_cand = obs_cand,
        .n_obs = 6,
    };
    assert_int_equal(sampler_next(&in, &raw, &want), HPOD_OK);
    assert_true(want < N);
    assert_int_equal(issued[want], 6);
    space_clear(&sp);
}

static void
test_invalid(void **state)
{
    (void)state;
    double buf[2 * 3], feat[2], a[2] = {1, 2}, b[2] = {1, 1};
    struct asha_sim_curve cv[2];
    struct space sp;
    make_curves(cv, buf, 2, 3, a, b);
    line_space(&sp, feat, 2);
    size_t steps[2] = {2, 2}, trials[2] = {2, 1}, ok_steps[2] = {1, 3};
    struct mstage_params bad = {2, steps, trials, 3, -1, 0};
    struct mstage_params prm = {2, ok_steps, trials, 3, -1, 0};
    struct mstage_sim_result res;
    struct rng r;
    rng_seed(&r, 1);
    assert_int_equal(
        mstage_sim_run(cv, 2, feat, &sp, &bad, &random_base, 2, &r, &res),
        HPOD_EINVAL);
    assert_int_equal(
        mstage_sim_run(cv, 2, feat, &sp, &prm, &random_base, 3, &r, &res),
        HPOD_EINVAL);
    assert_int_equal(
        mstage_sim_run(cv, 2, NULL, &sp, &prm, &random_base, 2, &r, &res),
        HPOD_EINVAL);
    cv[1].len = 0;
    assert_int_equal(
        mstage_sim_run(cv, 2, feat, &sp, &prm, &random_base, 2, &r, &res),
        HPOD_EINVAL);
    cv[1].len = 3;
    assert_int_equal(
        mstage_sim_run(cv, 2, feat, &sp, &prm, &random_base, 2, &r, &res),
        HPOD_OK);
    space_clear(&sp);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_by_hand),
        cmocka_unit_test(test_two_stage_closed_form),
        cmocka_unit_test(test_draw_paired_with_asha),
        cmocka_unit_test(test_clear_best_survives),
        cmocka_unit_test(test_exhausted),
        cmocka_unit_test(test_deterministic_gp),
        cmocka_unit_test(test_fallback_fidelity),
        cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
