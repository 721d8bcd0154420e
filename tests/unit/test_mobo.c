/*
 * tests/unit/test_mobo.c - multi-objective and constrained choices through
 * core/mobo.h's entry points: input errors, determinism by seed, no reuse
 * of taken candidates, decoupled reports, the constrained single-objective
 * sampler, pending trials in continuous spaces, three and five objectives
 * through Monte Carlo, a warm state against a cold one, the front's reference
 * and log objectives.
 */
#include "tests/support/mobo_grid.h"

static void
test_input_errors(void **state)
{
    (void)state;
    struct study s = {0};
    double raw[2];
    size_t c;
    study_add(&s, 0, 2);
    study_add(&s, 77, 2);
    study_add(&s, 143, 2);
    struct mobo_input in = study_input(&s, MOBO_SURROGATE_GP, 1);
    assert_int_equal(mobo_next(&in, raw, &c), HPOD_OK);

    struct mobo_input bad = in;
    bad.m = 0;
    assert_int_equal(mobo_next(&bad, raw, &c), HPOD_EINVAL);
    bad = in;
    bad.surrogate = 3; /* 2 is MOBO_SURROGATE_GREEDY */
    assert_int_equal(mobo_next(&bad, raw, &c), HPOD_EINVAL);
    bad = in;
    bad.kernel = 7;
    assert_int_equal(mobo_next(&bad, raw, &c), HPOD_EINVAL);
    bad = in;
    bad.ref = NULL;
    assert_int_equal(mobo_next(&bad, raw, &c), HPOD_EINVAL);
    double nanref[2] = {NAN, 0};
    bad.ref = nanref;
    assert_int_equal(mobo_next(&bad, raw, &c), HPOD_EINVAL);
    size_t oc[3] = {0, 77, N};
    bad = in;
    bad.obs_cand = oc;
    assert_int_equal(mobo_next(&bad, raw, &c), HPOD_EINVAL);
    bad = in;
    bad.n_con = 1;
    assert_int_equal(mobo_next(&bad, raw, &c), HPOD_EINVAL); /* no con_max */
    assert_int_equal(mobo_next(NULL, raw, &c), HPOD_EINVAL);
    assert_int_equal(mobo_next(&in, NULL, &c), HPOD_EINVAL);

    /* One complete trial is not enough for a model: random fallback. */
    s.obs_y[1] = NAN;
    s.obs_y[2 * 2] = NAN;
    assert_int_equal(mobo_next(&in, raw, &c), HPOD_ENUMERIC);
    assert_true(c == (size_t)-1);
    /* Nothing left: not found, before anything else is tried. */
    memset(s.used, 1, sizeof s.used);
    assert_int_equal(mobo_next(&in, raw, &c), HPOD_ENOTFOUND);

    /* A log-transformed constraint must have positive reports. */
    double obs_c[3] = {1.5, -0.2, 3.1}, cmax = 2;
    unsigned char lg = 1;
    double u[2] = {0.5, 0.5}, p;
    in.n_con = 1;
    in.obs_c = obs_c;
    in.con_max = &cmax;
    in.con_log = &lg;
    assert_int_equal(mobo_feasibility(&in, u, 1, &p), HPOD_EINVAL);
    obs_c[1] = 0.2;
    assert_int_equal(mobo_feasibility(&in, u, 1, &p), HPOD_OK);
    u[0] = NAN;
    assert_int_equal(mobo_feasibility(&in, u, 1, &p), HPOD_EINVAL);
    cmax = INFINITY;
    u[0] = 0.5;
    assert_int_equal(mobo_feasibility(&in, u, 1, &p), HPOD_EINVAL);
}

static void
test_determinism_and_free_choices(void **state)
{
    (void)state;
    size_t a[20], b[20], c[20];
    for (int sg = 0; sg < 2; sg++) {
        run_front(sg, 5, 20, a);
        run_front(sg, 5, 20, b);
        run_front(sg, 6, 20, c);
        assert_memory_equal(a, b, sizeof a);
        assert_true(memcmp(a, c, sizeof a) != 0);
    }

    /* With many candidates taken (two of them pending), the choice is
     * always one of the free ones. */
    struct study s = {0};
    struct rng r;
    size_t pend[2], ch;
    double pend_raw[4], raw[2], obs_c[N], cmax = 0.0;
    enum hpod_status st;
    rng_seed(&r, 99);
    for (size_t t = 0; t < 60; t++)
        study_add(&s, random_free(&r, s.used), 2);
    for (int p = 0; p < 2; p++) {
        pend[p] = random_free(&r, s.used);
        s.used[pend[p]] = 1;
        memcpy(pend_raw + 2 * p, cand + 2 * pend[p], 2 * sizeof(double));
    }
    for (int sg = 0; sg < 2; sg++) {
        struct mobo_input in = study_input(&s, sg, 3);
        in.pend_raw = pend_raw;
        in.pend_cand = pend;
        in.n_pend = 2;
        for (int k = 0; k < 4; k++) {
            in.seq = (int)s.n + k;
            assert_int_equal(mobo_next(&in, raw, &ch), HPOD_OK);
            assert_true(ch < N);
            assert_false(s.used[ch]);
        }
        /* The explanation: the same choice, its score, and free distinct
         * runners-up in non-increasing score; no per-objective mean/sd. */
        struct sampler_explain ex = {0};
        size_t ch2;
        in.explain = &ex;
        assert_int_equal(mobo_next(&in, raw, &ch2), HPOD_OK);
        assert_int_equal(ch2, ch);
        assert_int_equal(ex.pick.cand, ch);
        assert_true(isfinite(ex.pick.acq) && isnan(ex.pick.mean));
        assert_int_equal(ex.n_runners, SAMPLER_EXPLAIN_RUNNERS);
        for (size_t j = 0; j < ex.n_runners; j++) {
            double prev = j ? ex.runner[j - 1].acq : ex.pick.acq;
            assert_false(s.used[ex.runner[j].cand]);
            assert_true(ex.runner[j].cand != ch);
            assert_true(ex.runner[j].acq <= prev);
        }
        sampler_explain_clear(&ex);
    }
    /* Near exhaustion, once the whole front is known, no free candidate
     * may improve the hypervolume at all (EHVI underflows to 0): the
     * caller is told to choose at random... */
    while (s.n < N - 6)
        study_add(&s, random_free(&r, s.used), 2);
    for (int sg = 0; sg < 2; sg++) {
        struct mobo_input in = study_input(&s, sg, 3);
        in.pend_raw = pend_raw;
        in.pend_cand = pend;
        in.n_pend = 2;
        st = mobo_next(&in, raw, &ch);
        assert_true(st == HPOD_ENUMERIC || (st == HPOD_OK && !s.used[ch]));
        /* ...unless there is a constraint to rank them by. */
        for (size_t i = 0; i < s.n; i++)
            obs_c[i] = con_left(s.obs_raw + 2 * i);
        in.n_con = 1;
        in.obs_c = obs_c;
        in.con_max = &cmax;
        assert_int_equal(mobo_next(&in, raw, &ch), HPOD_OK);
        assert_true(ch < N);
        assert_false(s.used[ch]);
    }
}

static void
test_decoupled_reports(void **state)
{
    (void)state;
    struct study s = {0};
    size_t idx[N], nf, c1, c2;
    double raw[2];
    study_add(&s, 0, 2);
    study_add(&s, 5 * G + 4, 2);
    study_add(&s, 9 * G + 8, 2);
    study_add(&s, 143, 2);
    /* Trial 4 reported only objective 0, with a value better than any. */
    study_add(&s, 2 * G + 3, 2);
    s.obs_y[2 * 4] = 1.0;
    s.obs_y[2 * 4 + 1] = NAN;
    struct mobo_input in = study_input(&s, MOBO_SURROGATE_GP, 4);
    assert_int_equal(mobo_front(&in, idx, &nf), HPOD_OK);
    for (size_t i = 0; i < nf; i++)
        assert_true(idx[i] != 4);
    /* Without the NaN it would dominate in objective 0 and be in front. */
    s.obs_y[2 * 4 + 1] = -0.5;
    assert_int_equal(mobo_front(&in, idx, &nf), HPOD_OK);
    assert_true(nf >= 1 && idx[nf - 1] == 4);
    s.obs_y[2 * 4 + 1] = NAN;

    /* Objective 0's model does learn from trial 4: a very good and a very
     * bad value there lead to different choices. */
    assert_int_equal(mobo_next(&in, raw, &c1), HPOD_OK);
    s.obs_y[2 * 4] = -3.0;
    assert_int_equal(mobo_next(&in, raw, &c2), HPOD_OK);
    assert_true(c1 != c2);
    assert_false(s.used[c1]);
    /* The graph surrogate accepts decoupled reports too. */
    in.surrogate = MOBO_SURROGATE_GRAPH;
    assert_int_equal(mobo_next(&in, raw, &c2), HPOD_OK);
    assert_false(s.used[c2]);
}

/*
 * Constrained single objective: maximize closeness to (0.9, 0.8), deep in
 * the infeasible half, subject to con_left <= 0.1. The best feasible
 * candidate lies on the boundary (computed by brute force). With
 * use_con == 0 the constraint is withheld from the model (the control).
 */
static double
obj_far(const double *raw)
{
    double a = raw[0] - 0.9, b = raw[1] - 0.8;
    return -(a * a + b * b);
}

static size_t
run_constrained(unsigned long long seed, size_t limit, int use_con,
                double *min_p, size_t *deep)
{
    struct study *s = calloc(1, sizeof *s);
    double obs_c[N], cmax = 0.1, y1[N];
    struct rng r;
    size_t best = N, found = limit + 1;
    for (size_t i = 0; i < N; i++)
        if (con_left(cand + 2 * i) <= cmax &&
            (best == N || obj_far(cand + 2 * i) > obj_far(cand + 2 * best)))
            best = i;
    rng_seed(&r, seed);
    *min_p = 1;
    *deep = 0;
    for (size_t t = 0; t < limit; t++) {
        size_t c = N;
        double raw[2];
        if (t >= 4) {
            struct mobo_input in = {.space = &sp,
                                    .surrogate = MOBO_SURROGATE_GP,
                                    .kernel = KERNEL_MATERN52,
                                    .seed = seed,
                                    .seq = (int)t,
                                    .cand_raw = cand,
                                    .cand_used = s->used,
                                    .n_cand = N,
                                    .m = 1,
                                    .obs_raw = s->obs_raw,
                                    .obs_y = y1,
                                    .obs_cand = s->obs_cand,
                                    .n_obs = s->n,
                                    .n_con = 1,
                                    .obs_c = obs_c,
                                    .con_max = &cmax};
            assert_int_equal(mobo_next(&in, raw, &c), HPOD_OK);
            assert_false(s->used[c]);
            if (t >= 10) {
                double p, uc[2];
                space_encode(&sp, raw, uc);
                assert_int_equal(mobo_feasibility(&in, uc, 1, &p), HPOD_OK);
                *min_p = fmin(*min_p, p);
            }
            if (!use_con) {
                in.n_con = 0;
                assert_int_equal(mobo_next(&in, raw, &c), HPOD_OK);
            }
        } else {
            c = random_free(&r, s->used);
        }
        study_add(s, c, 2);
        y1[s->n - 1] = obj_far(cand + 2 * c);
        obs_c[s->n - 1] = con_left(cand + 2 * c);
        /* Deep: at least 0.25 beyond the boundary x ~ 0.53. */
        if (t >= 10 && cand[2 * c] >= 0.8)
            (*deep)++;
        if (c == best && found > limit)
            found = t + 1;
    }
    free(s);
    return found;
}

static void
test_constrained_single_objective(void **state)
{
    (void)state;
    double sum = 0, min_p = 1, mp;
    size_t deep = 0, d, deep_ctl = 0;
    int reps = 3;
    for (int s = 0; s < reps; s++) {
        sum += (double)run_constrained((unsigned)s, 30, 1, &mp, &d);
        min_p = fmin(min_p, mp);
        deep += d;
        run_constrained((unsigned)s, 30, 0, &mp, &d);
        deep_ctl += d;
    }
    print_message("constrained EI: best feasible after %.1f evaluations on "
                  "average (random %.1f); smallest P(feasible) of a choice "
                  "after 10: %.3g; choices deep in the infeasible half "
                  "after 10: %zu (without the constraint: %zu)\n",
                  sum / reps, (N + 1) / 2.0, min_p, deep, deep_ctl);
    assert_true(sum / reps < 20);
    /* Once the model has 10 reports it never goes where it believes the
     * constraint fails (below MOBO_MIN_PFEAS, the documented guard; the
     * choices are made on the P of the value a trial would report, this
     * is the latent P), nor deep into the infeasible half, where plain EI
     * would go. */
    assert_true(min_p > MOBO_MIN_PFEAS);
    assert_int_equal(deep, 0);
    assert_true(deep_ctl > 0);
}

/*
 * Two objectives under the constraint con_left <= 0.1: half of the Pareto
 * set lies deep in the infeasible half (x = 0.8). Counts the EHVI choices
 * made there after the first 10 evaluations, with the constraint in the
 * model (use_con) or withheld (the control).
 */
static size_t
run_constrained_front(unsigned long long seed, size_t limit, int use_con)
{
    struct study *s = calloc(1, sizeof *s);
    double obs_c[N], cmax = 0.1;
    struct rng r;
    size_t deep = 0, idx[N], nf;
    rng_seed(&r, seed);
    for (size_t t = 0; t < limit; t++) {
        size_t c = N;
        double raw[2];
        if (t >= 3) {
            struct mobo_input in = study_input(s, MOBO_SURROGATE_GP, seed);
            in.n_con = use_con ? 1 : 0;
            in.obs_c = obs_c;
            in.con_max = &cmax;
            assert_int_equal(mobo_next(&in, raw, &c), HPOD_OK);
            assert_false(s->used[c]);
            /* The incumbent front holds feasible trials only. */
            assert_int_equal(mobo_front(&in, idx, &nf), HPOD_OK);
            for (size_t i = 0; use_con && i < nf; i++)
                assert_true(obs_c[idx[i]] <= cmax);
        } else {
            c = random_free(&r, s->used);
        }
        study_add(s, c, 2);
        obs_c[s->n - 1] = con_left(cand + 2 * c);
        if (t >= 10 && con_left(cand + 2 * c) > cmax)
            deep++;
    }
    free(s);
    return deep;
}

static void
test_constrained_two_objectives(void **state)
{
    (void)state;
    size_t deep = 0, deep_ctl = 0;
    for (unsigned s = 0; s < 2; s++) {
        deep += run_constrained_front(s, 25, 1);
        deep_ctl += run_constrained_front(s, 25, 0);
    }
    print_message("constrained EHVI: choices deep in the infeasible half "
                  "after 10: %zu (without the constraint: %zu)\n",
                  deep, deep_ctl);
    assert_int_equal(deep, 0);
    assert_true(deep_ctl > 0);
}

static void
test_continuous_and_pending(void **state)
{
    (void)state;
    struct rng r;
    double obs_raw[16], obs_y[16], ref[2], raw[2], raw2[2];
    size_t c;
    rng_seed(&r, 21);
    for (int i = 0; i < 8; i++) {
        space_sample(&csp, &r, obs_raw + 2 * i);
        obj2(obs_raw + 2 * i, obs_y + 2 * i);
    }
    pareto_reference(obs_y, 8, 2, sense2, 0.1, ref);
    struct mobo_input in = {.space = &csp,
                            .surrogate = MOBO_SURROGATE_GP,
                            .kernel = KERNEL_MATERN52,
                            .seed = 4,
                            .seq = 8,
                            .m = 2,
                            .ref = ref,
                            .obs_raw = obs_raw,
                            .obs_y = obs_y,
                            .n_obs = 8};
    assert_int_equal(mobo_next(&in, raw, &c), HPOD_OK);
    assert_true(c == (size_t)-1);
    assert_true(raw[0] >= 0 && raw[0] <= 1 && raw[1] >= 0 && raw[1] <= 1);
    /* The same choice again; once it is pending, a different one. */
    assert_int_equal(mobo_next(&in, raw2, &c), HPOD_OK);
    assert_memory_equal(raw, raw2, sizeof raw);
    in.pend_raw = raw;
    in.n_pend = 1;
    in.seq = 9;
    assert_int_equal(mobo_next(&in, raw2, &c), HPOD_OK);
    double d = hypot(raw[0] - raw2[0], raw[1] - raw2[1]);
    print_message("continuous EHVI: pending (%.3f, %.3f), next (%.3f, %.3f)\n",
                  raw[0], raw[1], raw2[0], raw2[1]);
    assert_true(d > 0.03);
    /* The graph surrogate over random nodes. */
    in.surrogate = MOBO_SURROGATE_GRAPH;
    assert_int_equal(mobo_next(&in, raw2, &c), HPOD_OK);
    assert_true(raw2[0] >= 0 && raw2[0] <= 1);
}

/* Three objectives: closeness to three corners of the square. */
static void
obj3(const double *raw, double *y)
{
    static const double cx[3] = {0.1, 0.9, 0.5}, cy[3] = {0.1, 0.2, 0.9};
    for (int k = 0; k < 3; k++) {
        double a = raw[0] - cx[k], b = raw[1] - cy[k];
        y[k] = -(a * a + b * b);
    }
}

/*
 * The hypervolume (as a fraction of the grid's) that m objectives obj reach
 * after budget evaluations: mobo_next (GP surrogate, 3 random rows first)
 * averaged over 2 seeds, each model choice checked to repeat exactly (the
 * Monte Carlo draws are seeded), into *mobo; random search with the same
 * budget averaged over 200 orders into *rand. m <= 5.
 */
static void
grid_hypervolumes(size_t m, void (*obj)(const double *, double *),
                  size_t budget, double *mobo, double *rand)
{
    static const int sense[5] = {1, 1, 1, 1, 1};
    double all[N * 5], ref[5], hv_max, hv_mobo = 0, hv_rand = 0;
    size_t reps = 2;
    for (size_t i = 0; i < N; i++)
        obj(cand + 2 * i, all + m * i);
    /* A fixed reference: the worst of the grid, minus 10% of the range. */
    pareto_reference(all, N, m, sense, 0.1, ref);
    hv_max = pareto_hypervolume(all, N, m, sense, ref);
    for (size_t s = 0; s < reps; s++) {
        struct study *st = calloc(1, sizeof *st);
        struct rng r;
        rng_seed(&r, 100 + s);
        for (size_t t = 0; t < budget; t++) {
            size_t c, c2;
            double raw[2];
            if (t < 3) {
                c = random_free(&r, st->used);
            } else {
                struct mobo_input in = {.space = &sp,
                                        .surrogate = MOBO_SURROGATE_GP,
                                        .kernel = KERNEL_MATERN52,
                                        .seed = s,
                                        .seq = (int)t,
                                        .cand_raw = cand,
                                        .cand_used = st->used,
                                        .n_cand = N,
                                        .m = m,
                                        .ref = ref,
                                        .obs_raw = st->obs_raw,
                                        .obs_y = st->obs_y,
                                        .obs_cand = st->obs_cand,
                                        .n_obs = st->n};
                assert_int_equal(mobo_next(&in, raw, &c), HPOD_OK);
                assert_false(st->used[c]);
                assert_int_equal(mobo_next(&in, raw, &c2), HPOD_OK);
                assert_int_equal(c2, c);
            }
            st->used[c] = 1;
            memcpy(st->obs_raw + 2 * st->n, cand + 2 * c, 2 * sizeof(double));
            obj(cand + 2 * c, st->obs_y + m * st->n);
            st->obs_cand[st->n++] = c;
        }
        hv_mobo += pareto_hypervolume(st->obs_y, st->n, m, sense, ref);
        free(st);
    }
    struct rng r;
    rng_seed(&r, 5);
    for (int s = 0; s < 200; s++) {
        size_t idx[N];
        double y[N * 5];
        for (size_t i = 0; i < N; i++)
            idx[i] = i;
        rng_shuffle(&r, idx, N);
        for (size_t i = 0; i < budget; i++)
            memcpy(y + m * i, all + m * idx[i], m * sizeof(double));
        hv_rand += pareto_hypervolume(y, budget, m, sense, ref) / 200;
    }
    *mobo = hv_mobo / (double)reps / hv_max;
    *rand = hv_rand / hv_max;
}

static void
test_three_objectives_monte_carlo(void **state)
{
    (void)state;
    double mobo, rand;
    grid_hypervolumes(3, obj3, 14, &mobo, &rand);
    print_message("3 objectives, 14 evaluations: hypervolume %.3f of the "
                  "grid's for EHVI (Monte Carlo), %.3f for random\n",
                  mobo, rand);
    assert_true(mobo > rand);
    assert_true(mobo > 0.9);
}

/* Five objectives: closeness to five points of the square. */
static void
obj5(const double *raw, double *y)
{
    static const double cx[5] = {0.1, 0.9, 0.5, 0.9, 0.1},
                        cy[5] = {0.1, 0.2, 0.9, 0.8, 0.6};
    for (int k = 0; k < 5; k++) {
        double a = raw[0] - cx[k], b = raw[1] - cy[k];
        y[k] = -(a * a + b * b);
    }
}

/* Above MOBO_EHVI_EXACT_MAX objectives EHVI is estimated through random
 * hypervolume scalarizations: deterministic, and it covers more of the
 * grid's hypervolume than random search with the same budget. */
static void
test_five_objectives_scalarized(void **state)
{
    (void)state;
    double mobo, rand;
    assert_true(5 > MOBO_EHVI_EXACT_MAX);
    grid_hypervolumes(5, obj5, 14, &mobo, &rand);
    print_message("5 objectives, 14 evaluations: hypervolume %.3f of the "
                  "grid's for the scalarized EHVI, %.3f for random\n",
                  mobo, rand);
    assert_true(mobo > rand);
}

/*
 * A state kept across a sequential study (with a pending trial on every
 * third step) chooses as a cold call on every step, with the same
 * acquisition to 1e-9: its GPs are conditioned by Cholesky appends and
 * its candidate predictions extended row by row, its graph downdated,
 * against a fresh fit on the schedule's rows and a fresh factorization.
 * A state dropped halfway (a restarted process) changes nothing either.
 */
static void
test_state_warm_equals_cold(void **state)
{
    (void)state;
    for (int sg = 0; sg < 2; sg++) {
        struct study *s = calloc(1, sizeof *s);
        struct mobo_state *ms = mobo_state_create();
        struct rng r;
        size_t steps = sg == MOBO_SURROGATE_GP ? 75 : 60, okc = 0;
        rng_seed(&r, 11);
        for (int t = 0; t < 3; t++)
            study_add(s, random_free(&r, s->used), 2);
        for (size_t t = 3; t < steps; t++) {
            struct mobo_input in = study_input(s, sg, 7);
            size_t cw, cc, pend = N;
            double aw, ac, praw[2];
            if (t % 3 == 0)
                pend_one(s, &r, &pend, praw, &in);
            if (t == steps / 2) {
                mobo_state_free(ms);
                ms = mobo_state_create();
            }
            in.state = ms;
            enum hpod_status sw = choose_status(&in, &cw, &aw);
            in.state = NULL;
            enum hpod_status sc = choose_status(&in, &cc, &ac);
            /* Once no candidate improves (EHVI 0 everywhere), both tell
             * the caller to choose at random. */
            assert_int_equal(sw, sc);
            assert_true(sw == HPOD_OK || sw == HPOD_ENUMERIC);
            if (sw == HPOD_OK) {
                assert_int_equal(cw, cc);
                /* An appended factor equals a fresh one to rounding; a
                 * log acquisition deep in the tail (-558 at one step with
                 * OPENBLAS_NUM_THREADS=1, as make test runs) carries that
                 * to 1.3e-9 relative. */
                assert_true(fabs(aw - ac) <= 1e-8 * fmax(1.0, fabs(ac)));
                okc++;
            }
            if (pend < N)
                s->used[pend] = 0;
            study_add(s, sw == HPOD_OK ? cw : random_free(&r, s->used), 2);
        }
        print_message("surrogate %d: %zu of %zu model choices compared\n", sg,
                      okc, steps - 3);
        assert_true(okc >= 40);
        mobo_state_free(ms);
        free(s);
    }
    mobo_state_free(NULL);
}

/* The front reference by brute force, for s's two objectives (both
 * maximized, sense2): per objective, the worst (lowest) value among the
 * nf front rows idx, moved down by fr times the range of every observed
 * value. */
static void
front_ref_brute(const struct study *s, const size_t *idx, size_t nf, double fr,
                double *ref)
{
    for (size_t j = 0; j < 2; j++) {
        double lo = INFINITY, hi = -INFINITY, w = INFINITY;
        for (size_t i = 0; i < s->n; i++) {
            lo = fmin(lo, s->obs_y[i * 2 + j]);
            hi = fmax(hi, s->obs_y[i * 2 + j]);
        }
        for (size_t f = 0; f < nf; f++)
            w = fmin(w, s->obs_y[idx[f] * 2 + j]);
        ref[j] = w - fr * (hi - lo);
    }
}

/*
 * front_ref: EHVI's reference from the observed front is the brute-force
 * one (the worst value of each objective on the front of the observed
 * trials, moved out by front_ref × the range of the observed values):
 * the same pick and acquisition as the same study given that reference.
 * It differs from the default reference, so the pick may differ; a
 * negative or non-finite front_ref is HPOD_EINVAL.
 */
static void
test_front_reference(void **state)
{
    (void)state;
    struct study *s = calloc(1, sizeof *s);
    struct rng r;
    size_t idx[N], ch, ch0, differ = 0, compared = 0;
    double raw[2], ref[2];
    rng_seed(&r, 11);
    for (int t = 0; t < 20; t++)
        study_add(s, random_free(&r, s->used), 2);
    for (int step = 0; step < 6; step++) {
        size_t nf = pareto_front(s->obs_y, s->n, 2, sense2, idx);
        for (int sg = 0; sg < 2; sg++)
            for (int k = 0; k < 3; k++) {
                double fr = k == 0 ? 0.3 : k == 1 ? 0.5 : 2.0;
                front_ref_brute(s, idx, nf, fr, ref);
                struct sampler_explain ea = {0}, eb = {0};
                struct mobo_input in = study_input(s, sg, 5);
                double def_ref[2] = {s->ref[0], s->ref[1]};
                in.front_ref = fr;
                in.explain = &ea;
                assert_int_equal(mobo_next(&in, raw, &ch), HPOD_OK);
                in.front_ref = 0;
                in.ref = ref;
                in.explain = &eb;
                assert_int_equal(mobo_next(&in, raw, &ch0), HPOD_OK);
                assert_int_equal(ch, ch0);
                assert_true(fabs(ea.pick.acq - eb.pick.acq) <=
                            1e-9 * (1 + fabs(eb.pick.acq)));
                in.ref = def_ref;
                in.explain = NULL;
                assert_int_equal(mobo_next(&in, raw, &ch0), HPOD_OK);
                differ += ch != ch0;
                compared++;
                sampler_explain_clear(&ea);
                sampler_explain_clear(&eb);
            }
        study_add(s, ch, 2);
    }
    print_message("front reference: %zu of %zu picks differ from the "
                  "default reference's\n",
                  differ, compared);
    assert_true(differ > 0);
    /* Continuous (the acquisition optimizer, GP and graph): the same
     * point as with the brute-force reference given. */
    {
        size_t nf = pareto_front(s->obs_y, s->n, 2, sense2, idx);
        front_ref_brute(s, idx, nf, 0.5, ref);
        for (int sg = 0; sg < 2; sg++) {
            double raw2[2];
            struct mobo_input in = study_input(s, sg, 6);
            in.space = &csp;
            in.n_cand = 0;
            in.cand_raw = NULL;
            in.cand_used = NULL;
            in.obs_cand = NULL;
            in.front_ref = 0.5;
            assert_int_equal(mobo_next(&in, raw, &ch), HPOD_OK);
            in.front_ref = 0;
            in.ref = ref;
            assert_int_equal(mobo_next(&in, raw2, &ch), HPOD_OK);
            assert_true(fabs(raw[0] - raw2[0]) <= 1e-12 &&
                        fabs(raw[1] - raw2[1]) <= 1e-12);
        }
    }
    struct mobo_input in = study_input(s, 1, 5);
    in.front_ref = -0.1;
    assert_int_equal(mobo_next(&in, raw, &ch), HPOD_EINVAL);
    in.front_ref = NAN;
    assert_int_equal(mobo_next(&in, raw, &ch), HPOD_EINVAL);
    in.front_ref = INFINITY;
    assert_int_equal(mobo_next(&in, raw, &ch), HPOD_EINVAL);
    free(s);
}

/* mobo_feasibility reads no objectives: obs_y may be NULL (the one-column
 * inputs of study/constraints.c). */
static void
test_feasibility_without_objectives(void **state)
{
    (void)state;
    struct study *s = calloc(1, sizeof *s);
    struct rng r;
    double oc[30], cmax = 0.0, u[2] = {0.2, 0.4}, pf;
    rng_seed(&r, 4);
    for (int t = 0; t < 30; t++)
        study_add(s, random_free(&r, s->used), 2);
    for (size_t i = 0; i < s->n; i++)
        oc[i] = con_left(s->obs_raw + 2 * i);
    struct mobo_input fin = {.space = &sp,
                             .kernel = KERNEL_MATERN52,
                             .seed = 1,
                             .m = 1,
                             .obs_raw = s->obs_raw,
                             .n_obs = s->n,
                             .n_con = 1,
                             .obs_c = oc,
                             .con_max = &cmax};
    assert_int_equal(mobo_feasibility(&fin, u, 1, &pf), HPOD_OK);
    assert_true(pf > 0.5 && pf <= 1);
    free(s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_input_errors),
        cmocka_unit_test(test_determinism_and_free_choices),
        cmocka_unit_test(test_decoupled_reports),
        cmocka_unit_test(test_constrained_single_objective),
        cmocka_unit_test(test_constrained_two_objectives),
        cmocka_unit_test(test_continuous_and_pending),
        cmocka_unit_test(test_three_objectives_monte_carlo),
        cmocka_unit_test(test_five_objectives_scalarized),
        cmocka_unit_test(test_state_warm_equals_cold),
        cmocka_unit_test(test_front_reference),
        cmocka_unit_test(test_feasibility_without_objectives),
    };
    return cmocka_run_group_tests_name("mobo", tests, setup, teardown);
}
