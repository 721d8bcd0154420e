/*
 * tests/unit/test_mobo_acq.c - mobo_next's acquisition and pick
 * (core/mobo_acq.h): EHVI times the probability of feasibility, and the
 * pick inside the trust regions (nearest and one-step) against brute
 * force.
 */
#include "tests/support/mobo_grid.h"
#include "tests/support/budget.h"

#include "core/mobo_acq.h"
#include "core/trust_region.h"

/*
 * The product: with EHVI_u the unconstrained argmax and c the constrained
 * one, EHVI(u) >= EHVI(c) and EHVI(c)·P(c) >= EHVI(u)·P(u) imply
 * P(c) >= P(u). A constraint reported by two trials only, infeasible near
 * u, must move the choice while P(u) is still above MOBO_MIN_PFEAS (so
 * the move is the product's doing, not the exclusion's).
 */
static void
test_ehvi_times_feasibility(void **state)
{
    (void)state;
    struct study s = {0};
    double raw[2], obs_c[6], cmax = 1.0, pu, pc, uu[2], uc[2];
    size_t cu, cc, near = 0;
    size_t rows[6] = {0, 3 * G + 9, 6 * G + 2, 8 * G + 8, 11 * G + 4, 143};
    for (int i = 0; i < 6; i++)
        study_add(&s, rows[i], 2);
    struct mobo_input in = study_input(&s, MOBO_SURROGATE_GP, 8);
    assert_int_equal(mobo_next(&in, raw, &cu), HPOD_OK);
    /* The trial nearest to u reports a violation, the farthest one a
     * comfortable margin; the others say nothing. */
    double dmin = INFINITY;
    for (size_t i = 0; i < 6; i++) {
        double dx = cand[2 * rows[i]] - cand[2 * cu];
        double dy = cand[2 * rows[i] + 1] - cand[2 * cu + 1];
        obs_c[i] = NAN;
        if (dx * dx + dy * dy < dmin) {
            dmin = dx * dx + dy * dy;
            near = i;
        }
    }
    obs_c[near] = 2.5;
    obs_c[near == 0 ? 5 : 0] = -0.5;
    in.n_con = 1;
    in.obs_c = obs_c;
    in.con_max = &cmax;
    assert_int_equal(mobo_next(&in, raw, &cc), HPOD_OK);
    space_encode(&sp, cand + 2 * cu, uu);
    space_encode(&sp, cand + 2 * cc, uc);
    assert_int_equal(mobo_feasibility(&in, uu, 1, &pu), HPOD_OK);
    assert_int_equal(mobo_feasibility(&in, uc, 1, &pc), HPOD_OK);
    print_message(
        "EHVI choice %zu (P = %.3g); EHVI x P choice %zu (P = %.3g)\n", cu, pu,
        cc, pc);
    assert_true(cc != cu);
    assert_true(pu > MOBO_MIN_PFEAS);
    assert_true(pc >= pu);
}

/*
 * With trust_k the pick is a free candidate in the trust region around
 * the observed front (brute-force kNN from mobo_front's trials), and a
 * region holding every candidate chooses as no region.
 */
static void
test_trust_region_pick(void **state)
{
    (void)state;
    struct study *s = calloc(1, sizeof *s);
    struct rng r;
    size_t idx[N], nf, centre[N], ch, ch0, stalled = 0;
    double raw[2];
    rng_seed(&r, 8);
    for (int t = 0; t < 25; t++)
        study_add(s, random_free(&r, s->used), 2);
    for (int sg = 0; sg < 2; sg++) {
        struct mobo_input in = study_input(s, sg, 2);
        assert_int_equal(mobo_front(&in, idx, &nf), HPOD_OK);
        for (size_t i = 0; i < nf; i++)
            centre[i] = s->obs_cand[idx[i]];
        size_t last = 0;
        for (size_t f = 0; f < nf; f++)
            last = idx[f] > last ? idx[f] : last;
        /* Not stalled: fewer than k·|F| evaluations since the front
         * last gained a trial (here k = 3 and 25 observations). */
        assert_true(s->n - 1 - last < 3 * nf);
        in.trust_k = 3;
        assert_int_equal(mobo_next(&in, raw, &ch), HPOD_OK);
        int inside = 0;
        for (size_t f = 0; f < nf; f++)
            inside |= knn_member(cand, N, s->used, centre[f], ch, 3);
        assert_true(inside);
        /* Stalled (k = 1: k·|F| <= the evaluations since): every free
         * candidate is eligible, as without a region. */
        in.trust_k = 0;
        assert_int_equal(mobo_next(&in, raw, &ch0), HPOD_OK);
        if (s->n - 1 - last >= nf) {
            in.trust_k = 1;
            assert_int_equal(mobo_next(&in, raw, &ch), HPOD_OK);
            assert_int_equal(ch, ch0);
            stalled++;
        }
        in.trust_k = N;
        assert_int_equal(mobo_next(&in, raw, &ch), HPOD_OK);
        in.trust_k = 0;
        assert_int_equal(mobo_next(&in, raw, &ch0), HPOD_OK);
        assert_int_equal(ch, ch0);
    }
    /* A study that found the whole front first, then 30 dominated rows:
     * stalled at k = 1, so the choice is the unrestricted one. */
    memset(s, 0, sizeof *s);
    for (size_t c = 0; c < N; c++)
        if (in_front[c])
            study_add(s, c, 2);
    while (s->n < n_front + 30) {
        size_t c = random_free(&r, s->used);
        if (!in_front[c])
            study_add(s, c, 2);
    }
    assert_true(30 >= n_front);
    for (int sg = 0; sg < 2; sg++) {
        struct mobo_input in = study_input(s, sg, 2);
        enum hpod_status s0 = mobo_next(&in, raw, &ch0);
        in.trust_k = 1;
        assert_int_equal(mobo_next(&in, raw, &ch), s0);
        if (s0 == HPOD_OK) {
            assert_int_equal(ch, ch0);
            stalled++;
        }
    }
    print_message("trust region: %zu stalled choices compared\n", stalled);
    assert_true(stalled >= 1);
    free(s);
}

/*
 * trust_shape steps: while the region has not stalled, the pick is a free
 * candidate one step from a trial of the observed front (brute force from
 * mobo_front's trials); an unknown shape is HPOD_EINVAL.
 */
static void
test_step_region_pick(void **state)
{
    (void)state;
    struct study *s = calloc(1, sizeof *s);
    struct rng r;
    size_t idx[N], nf, ch, inside = 0;
    double raw[2];
    rng_seed(&r, 21);
    for (int t = 0; t < 12; t++)
        study_add(s, random_free(&r, s->used), 2);
    for (int step = 0; step < 12; step++) {
        struct mobo_input in = study_input(s, MOBO_SURROGATE_GRAPH, 3);
        assert_int_equal(mobo_front(&in, idx, &nf), HPOD_OK);
        size_t last = 0;
        for (size_t f = 0; f < nf; f++)
            last = idx[f] > last ? idx[f] : last;
        in.trust_k = N;
        in.trust_shape = MOBO_TRUST_STEPS;
        assert_int_equal(mobo_next(&in, raw, &ch), HPOD_OK);
        int one = 0, any = 0;
        for (size_t f = 0; f < nf; f++)
            for (size_t i = 0; i < N; i++) {
                int st = one_step(cand, 2, s->used, s->obs_cand[idx[f]], i);
                any |= st;
                one |= st && i == ch;
            }
        assert_true(one || !any);
        inside += one;
        in.trust_shape = MOBO_TRUST_STEPS + 1;
        assert_int_equal(mobo_next(&in, raw, &ch), HPOD_EINVAL);
        in.trust_shape = MOBO_TRUST_STEPS;
        assert_int_equal(mobo_next(&in, raw, &ch), HPOD_OK);
        study_add(s, ch, 2);
    }
    assert_true(inside >= 6);
    free(s);
}

/*
 * mobo_acq_score under a budget spent after k checks scores the first
 * k + 1 chunks, chunk c being the points c, c + nch, ... (brute force),
 * each as without a budget; the others stay NaN; skipped points are NaN.
 */
static void
test_score_chunks(void **state)
{
    (void)state;
    enum { K = 700 };
    size_t nch = (K + MOBO_ACQ_CHUNK - 1) / MOBO_ACQ_CHUNK;
    struct mobo_ctx x;
    double mu[K], sd[K], lpf[K], full[K], sc[K];
    unsigned char skip[K];

    memset(&x, 0, sizeof x);
    x.m = 1; /* no incumbent yet: the score is log P(feasible) */
    for (size_t i = 0; i < K; i++) {
        mu[i] = 0.0;
        sd[i] = 1.0;
        lpf[i] = -1e-3 * (double)(i % 97);
        skip[i] = i % 11 == 0;
    }
    mobo_acq_score(&x, mu, sd, lpf, K, skip, NULL, full);
    for (size_t i = 0; i < K; i++)
        assert_true(skip[i] ? isnan(full[i]) : full[i] == lpf[i]);
    for (int k = 0; k <= (int)nch; k++) {
        int left = k;
        struct compute_budget b = {budget_spent_after, &left, 0};
        mobo_acq_score(&x, mu, sd, lpf, K, skip, &b, sc);
        for (size_t i = 0; i < K; i++) {
            int scored = i % nch <= (size_t)k && !skip[i];
            assert_true(scored ? sc[i] == full[i] : isnan(sc[i]));
        }
        assert_int_equal(b.cuts, (size_t)k + 1 < nch ? 1 : 0);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ehvi_times_feasibility),
        cmocka_unit_test(test_score_chunks),
        cmocka_unit_test(test_trust_region_pick),
        cmocka_unit_test(test_step_region_pick),
    };
    return cmocka_run_group_tests_name("mobo_acq", tests, setup, teardown);
}
