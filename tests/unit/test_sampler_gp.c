/*
 * tests/unit/test_sampler_gp.c - the GP sampler (core/sampler_gp.h)
 * through sampler_next: the kept model, rank invariance, the plug-in
 * incumbent, "nei" and the trust region against brute-force references,
 * and the explanation of a continuous choice.
 */
#include "tests/support/sampler_grid.h"
#include "tests/support/budget.h"

#include "core/acquisition.h"
#include "core/gp.h"
#include "core/kernels.h"
#include "core/normal_scores.h"

/*
 * A GP study keeping its model: every choice equals a cold process's (no
 * state, the same stored model), the model is refitted exactly when
 * gp_refit_due says so (with n_fit the observations of that choice), and
 * the kept hyperparameters are reused between refits.
 */
static void
test_gp_kept_model(void **state)
{
    (void)state;
    size_t n = G * G, steps = 70, refits = 0;
    unsigned char used[G * G] = {0};
    double obs_raw[G * G * 2], obs_y[G * G];
    size_t obs_cand[G * G];
    struct sampler_state *st = sampler_state_create();
    struct sampler_gp_model model = {0}, cold = {0};
    for (size_t t = 0; t < steps; t++) {
        struct sampler_input in = {.space = &sp,
                                   .kind = SAMPLER_GP,
                                   .seed = 11,
                                   .seq = (int)t,
                                   .init = 3,
                                   .kernel = KERNEL_MATERN52,
                                   .cand_raw = cand,
                                   .cand_used = used,
                                   .n_cand = n,
                                   .obs_raw = obs_raw,
                                   .obs_y = obs_y,
                                   .obs_cand = obs_cand,
                                   .n_obs = t,
                                   .state = st,
                                   .gp_model = &model};
        double raw[2], raw2[2];
        size_t c, c2;
        /* The cold process: what the database holds before this choice. */
        if (model.valid)
            assert_int_equal(sampler_gp_model_set(&cold, model.kernel,
                                                  model.n_fit, model.lml_fit,
                                                  model.hyper, model.n_hyper),
                             HPOD_OK);
        else
            sampler_gp_model_clear(&cold);
        int due = t >= 3 && gp_refit_due(model.valid ? model.n_fit : 0,
                                         model.lml_fit, t, NAN);
        size_t before = model.n_fit;
        assert_int_equal(sampler_next(&in, raw, &c), HPOD_OK);
        in.state = NULL;
        in.gp_model = &cold;
        cold.changed = 0;
        assert_int_equal(sampler_next(&in, raw2, &c2), HPOD_OK);
        assert_int_equal(c, c2);
        if (due) /* due before conditioning: a refit for sure */
            assert_true(model.changed);
        if (model.changed) {
            assert_int_equal(model.n_fit, t);
            assert_true(cold.changed);
            assert_memory_equal(model.hyper, cold.hyper,
                                model.n_hyper * sizeof(double));
            refits++;
        } else if (t >= 3) {
            assert_int_equal(model.n_fit, before);
            assert_false(cold.changed);
        }
        model.changed = 0;
        used[c] = 1;
        memcpy(obs_raw + 2 * t, raw, sizeof raw);
        obs_y[t] = objective(raw);
        obs_cand[t] = c;
    }
    /* Refits at every n up to GP_REFIT_ALWAYS_N, then every ~10%. */
    assert_true(refits >= GP_REFIT_ALWAYS_N - 3 && refits < steps - 3);
    sampler_gp_model_clear(&model);
    sampler_gp_model_clear(&cold);
    sampler_state_free(st);
}

static void
test_gp_rank_invariant(void **state)
{
    (void)state;
    check_rank_invariant(SAMPLER_GP, KERNEL_MATERN52);
    check_rank_invariant(SAMPLER_GP, KERNEL_RBF);
}

/*
 * Brute-force reference of the GP path (core/sampler.c, gp_model): the
 * same fit (normal scores, the rng stream sampler_next derives from seed
 * and seq), EI with the largest posterior mean at an observation as the
 * incumbent, argmax over the free candidates. On noisy data ML-II picks a
 * noise variance, the incumbent falls below the best observation's score,
 * and for this history EI with the best observation as the incumbent
 * chooses another candidate (checked, so that the test can tell them
 * apart).
 */
static void
test_gp_plugin_incumbent(void **state)
{
    (void)state;
    enum { NO = 30 };
    size_t obs_cand[NO];
    double obs_raw[2 * NO], y[NO], z[NO], x[2 * NO], u[G * G * 2];
    double mu[G * G], var[G * G], sc[G * G], mo[NO];
    unsigned char used[G * G] = {0};
    struct rng nr;
    rng_seed(&nr, 2);
    for (int i = 0; i < NO; i++) {
        size_t c;
        do
            c = (size_t)rng_below(&nr, G * G);
        while (used[c]);
        used[c] = 1;
        obs_cand[i] = c;
        memcpy(obs_raw + 2 * i, cand + 2 * c, 2 * sizeof(double));
        y[i] = objective(cand + 2 * c) + 0.3 * rng_normal(&nr);
    }
    struct sampler_input in = {.space = &sp,
                               .kind = SAMPLER_GP,
                               .seed = 4,
                               .seq = NO,
                               .init = 3,
                               .kernel = KERNEL_MATERN52,
                               .acquisition = 0,
                               .cand_raw = cand,
                               .cand_used = used,
                               .n_cand = G * G,
                               .obs_raw = obs_raw,
                               .obs_y = y,
                               .obs_cand = obs_cand,
                               .n_obs = NO};
    double raw[2];
    size_t got, got_ex;
    struct sampler_explain ex = {0};
    assert_int_equal(sampler_next(&in, raw, &got), HPOD_OK);
    /* The explanation costs nothing to the choice. */
    in.explain = &ex;
    assert_int_equal(sampler_next(&in, raw, &got_ex), HPOD_OK);
    assert_int_equal(got_ex, got);

    struct rng r;
    rng_seed2(&r, 4, NO);
    struct gp *gp = gp_create(NO, 2, KERNEL_MATERN52);
    normal_scores(y, NO, z);
    space_encode_rows(&sp, obs_raw, NO, x);
    space_encode_rows(&sp, cand, G * G, u);
    assert_int_equal(gp_fit(gp, x, z, NO, &r), HPOD_OK);
    assert_int_equal(gp_predict(gp, x, NO, mo, NULL), HPOD_OK);
    double inc = -INFINITY, zmax = -INFINITY;
    for (int i = 0; i < NO; i++) {
        inc = mo[i] > inc ? mo[i] : inc;
        zmax = z[i] > zmax ? z[i] : zmax;
    }
    assert_int_equal(gp_predict(gp, u, G * G, mu, var), HPOD_OK);
    acq_score(ACQ_EI, mu, var, G * G, inc, 0.0, sc);
    size_t want = acq_argmax(sc, G * G, used);
    check_explain_ranking(&ex, sc, mu, var, G * G, used, want);
    assert_int_equal(ex.chooser, SAMPLER_CHOSE_MODEL);
    assert_int_equal(ex.n_obs, NO);
    assert_int_equal(ex.n_pend, 0);
    assert_true(fabs(ex.incumbent - inc) <= 1e-12 * (1 + fabs(inc)));
    sampler_explain_clear(&ex);
    acq_score(ACQ_EI, mu, var, G * G, zmax, 0.0, sc);
    size_t other = acq_argmax(sc, G * G, used);
    print_message("plug-in incumbent %.3f, best score %.3f: choice %zu, "
                  "with the best score %zu\n",
                  inc, zmax, want, other);
    gp_free(gp);
    assert_true(inc < zmax - 0.05);
    assert_int_equal(got, want);
    assert_true(other != want);
}

/*
 * Brute-force reference of "nei" (acquisition 3) with a lengthscale floor
 * (ls_min): the fit of test_gp_plugin_incumbent with the fit options'
 * ls_min raised, then EI on the predicted observation: latent variance
 * plus max(fitted σ_n², 0.05)·s² (s: the standardization of the normal
 * scores), the plug-in incumbent, argmax over the free candidates. The
 * explanation reports the widened sd. On the rough history the default
 * fit goes below both floors (checked), so that both are exercised.
 */
static void
test_gp_nei_reference(void **state)
{
    (void)state;
    enum { NO = 30 };
    size_t obs_cand[NO];
    double obs_raw[2 * NO], y[NO], z[NO], x[2 * NO], u[G * G * 2];
    double mu[G * G], var[G * G], sc[G * G], mo[NO];
    unsigned char used[G * G] = {0};
    history(NO, 1, obs_cand, obs_raw, y, used);
    for (int variant = 0; variant < 2; variant++) {
        double ls_min = variant ? 0.3 : 0.0;
        struct sampler_input in = {.space = &sp,
                                   .kind = SAMPLER_GP,
                                   .seed = 4,
                                   .seq = NO,
                                   .init = 3,
                                   .kernel = KERNEL_MATERN52,
                                   .acquisition = 3,
                                   .ls_min = ls_min,
                                   .cand_raw = cand,
                                   .cand_used = used,
                                   .n_cand = G * G,
                                   .obs_raw = obs_raw,
                                   .obs_y = y,
                                   .obs_cand = obs_cand,
                                   .n_obs = NO};
        double raw[2];
        size_t got;
        struct sampler_explain ex = {0};
        in.explain = &ex;
        assert_int_equal(sampler_next(&in, raw, &got), HPOD_OK);

        struct rng r;
        struct gp_fit_options o;
        double ls[2], ym, ys;
        struct gp_hyper h = {ls, 0.0, 0.0};
        rng_seed2(&r, 4, NO);
        struct gp *gp = gp_create(NO, 2, KERNEL_MATERN52);
        gp_fit_options_default(&o);
        if (ls_min > 0)
            o.ls_min = ls_min;
        assert_int_equal(gp_set_fit_options(gp, &o), HPOD_OK);
        normal_scores(y, NO, z);
        gp_standardization(z, NO, &ym, &ys);
        space_encode_rows(&sp, obs_raw, NO, x);
        space_encode_rows(&sp, cand, G * G, u);
        assert_int_equal(gp_fit(gp, x, z, NO, &r), HPOD_OK);
        gp_get_hyper(gp, &h);
        assert_true(ls[0] >= o.ls_min && ls[1] >= o.ls_min);
        assert_true(h.noise_var < 0.05); /* the floor binds */
        if (!variant)                    /* ... and so does ls_min below */
            assert_true(ls[0] < 0.3 || ls[1] < 0.3);
        assert_int_equal(gp_predict(gp, x, NO, mo, NULL), HPOD_OK);
        double inc = -INFINITY;
        for (int i = 0; i < NO; i++)
            inc = mo[i] > inc ? mo[i] : inc;
        assert_int_equal(gp_predict(gp, u, G * G, mu, var), HPOD_OK);
        double noise = (h.noise_var > 0.05 ? h.noise_var : 0.05) * ys * ys;
        for (size_t i = 0; i < G * G; i++)
            var[i] += noise;
        acq_score(ACQ_EI, mu, var, G * G, inc, 0.0, sc);
        size_t want = acq_argmax(sc, G * G, used);
        check_explain_ranking(&ex, sc, mu, var, G * G, used, want);
        assert_int_equal(got, want);
        print_message("nei, ls_min %.2f: lengthscales %.3f %.3f, noise %.4f "
                      "(floor 0.05), choice %zu\n",
                      o.ls_min, ls[0], ls[1], h.noise_var, want);
        sampler_explain_clear(&ex);
        gp_free(gp);
    }
}

/* One GP (nei, lengthscale_min 0.3) choice over the grid with the given
 * used flags and trust region divisor (0: none). */
static size_t
gp_choice(const size_t *obs_cand, const double *obs_raw, const double *y,
          size_t no, const unsigned char *used, int trust_div)
{
    struct sampler_input in = {.space = &sp,
                               .kind = SAMPLER_GP,
                               .seed = 5,
                               .seq = (int)no,
                               .init = 3,
                               .kernel = KERNEL_MATERN52,
                               .acquisition = 3,
                               .ls_min = 0.3,
                               .trust_div = trust_div,
                               .cand_raw = cand,
                               .cand_used = used,
                               .n_cand = G * G,
                               .obs_raw = obs_raw,
                               .obs_y = y,
                               .obs_cand = obs_cand,
                               .n_obs = no};
    double raw[2];
    size_t got;
    assert_int_equal(sampler_next(&in, raw, &got), HPOD_OK);
    return got;
}

/*
 * The trust region (trust_div) against brute force: the choice equals the plain
 * GP's with every candidate outside the region marked used (the model never
 * reads the used flags), the region being the k = 144/SAMPLER_TR_DIV candidates
 * nearest the best observation, sorted by distance (ties to the lower
 * index), k doubled for every SAMPLER_TR_TAU observations after the best;
 * once k >= 144 the choice is the plain one.
 */
static void
test_gp_trust_region_reference(void **state)
{
    (void)state;
    enum { NO = 16 };
    size_t obs_cand[NO], fails[3] = {0, SAMPLER_TR_TAU, 3 * SAMPLER_TR_TAU};
    double obs_raw[2 * NO], y[NO];
    unsigned char used[G * G] = {0}, ref[G * G];
    int differs = 0;

    history(NO, 0, obs_cand, obs_raw, y, used);
    /* The best observation far from the bump at (0.7, 0.3), where the
     * plain GP keeps looking. */
    size_t far = 0;
    for (size_t i = 1; i < NO; i++)
        if (obs_raw[2 * i] - obs_raw[2 * i + 1] <
            obs_raw[2 * far] - obs_raw[2 * far + 1])
            far = i;
    y[far] = 3.0;
    for (int t = 0; t < 3; t++) {
        /* the best observation moved to position NO - 1 - fails[t] */
        size_t bo = 0, to = NO - 1 - fails[t];
        for (size_t i = 1; i < NO; i++)
            if (y[i] > y[bo])
                bo = i;
        size_t tc = obs_cand[bo];
        double ty = y[bo], tr[2] = {obs_raw[2 * bo], obs_raw[2 * bo + 1]};
        obs_cand[bo] = obs_cand[to];
        y[bo] = y[to];
        memcpy(obs_raw + 2 * bo, obs_raw + 2 * to, sizeof tr);
        obs_cand[to] = tc;
        y[to] = ty;
        memcpy(obs_raw + 2 * to, tr, sizeof tr);

        size_t k = (size_t)(G * G / SAMPLER_TR_DIV)
                   << (fails[t] / SAMPLER_TR_TAU);
        size_t order[G * G];
        double d[G * G];
        for (size_t i = 0; i < G * G; i++) {
            double a = cand[2 * i] - cand[2 * tc],
                   b = cand[2 * i + 1] - cand[2 * tc + 1];
            d[i] = a * a + b * b;
            order[i] = i;
        }
        for (size_t a = 1; a < G * G; a++) /* stable insertion sort */
            for (size_t b = a; b > 0 && d[order[b]] < d[order[b - 1]]; b--) {
                size_t v = order[b];
                order[b] = order[b - 1];
                order[b - 1] = v;
            }
        memcpy(ref, used, sizeof ref);
        for (size_t r = k; r < G * G; r++)
            ref[order[r]] = 1;
        size_t plain = gp_choice(obs_cand, obs_raw, y, NO, used, 0);
        size_t want =
            k >= G * G ? plain : gp_choice(obs_cand, obs_raw, y, NO, ref, 0);
        size_t got = gp_choice(obs_cand, obs_raw, y, NO, used, SAMPLER_TR_DIV);
        print_message("trust region k %zu: plain %zu, region %zu\n", k, plain,
                      got);
        assert_int_equal(got, want);
        differs += want != plain;
        /* The explanation ranks only the region's free rows: finite. */
        struct sampler_explain ex = {0};
        struct sampler_input ein = {.space = &sp,
                                    .kind = SAMPLER_GP,
                                    .seed = 5,
                                    .seq = NO,
                                    .init = 3,
                                    .kernel = KERNEL_MATERN52,
                                    .acquisition = 3,
                                    .trust_div = SAMPLER_TR_DIV,
                                    .ls_min = 0.3,
                                    .cand_raw = cand,
                                    .cand_used = used,
                                    .n_cand = G * G,
                                    .obs_raw = obs_raw,
                                    .obs_y = y,
                                    .obs_cand = obs_cand,
                                    .n_obs = NO,
                                    .explain = &ex};
        double eraw[2];
        size_t ec;
        assert_int_equal(sampler_next(&ein, eraw, &ec), HPOD_OK);
        assert_int_equal(ex.pick.cand, got);
        for (size_t j = 0; j < ex.n_runners; j++) {
            assert_true(isfinite(ex.runner[j].acq));
            assert_false(ref[ex.runner[j].cand] && k < G * G);
        }
        sampler_explain_clear(&ex);
    }
    /* The region changed at least one choice: the test can fail. */
    assert_true(differs > 0);
}

/* Continuous GP: the runners-up are configurations (raw), distinct from
 * the pick, scored no higher, with the GP's mean and sd. */
static void
test_explain_continuous(void **state)
{
    (void)state;
    struct space cs;
    double obs_raw[2 * 8], obs_y[8], raw[2];
    struct rng r;
    struct sampler_explain ex = {0};
    size_t c;

    space_init(&cs);
    space_add_range(&cs, PARAM_FLOAT, 0, 1, 0);
    space_add_range(&cs, PARAM_FLOAT, 0, 1, 0);
    rng_seed(&r, 3);
    for (int i = 0; i < 8; i++) {
        space_sample(&cs, &r, obs_raw + 2 * i);
        obs_y[i] = objective(obs_raw + 2 * i);
    }
    struct sampler_input in = {.space = &cs,
                               .kind = SAMPLER_GP,
                               .seed = 5,
                               .seq = 8,
                               .init = 3,
                               .kernel = KERNEL_MATERN52,
                               .obs_raw = obs_raw,
                               .obs_y = obs_y,
                               .n_obs = 8,
                               .explain = &ex};
    assert_int_equal(sampler_next(&in, raw, &c), HPOD_OK);
    assert_int_equal(ex.chooser, SAMPLER_CHOSE_MODEL);
    assert_int_equal(ex.n_runners, SAMPLER_EXPLAIN_RUNNERS);
    assert_non_null(ex.runner_raw);
    assert_true(ex.pick.sd >= 0 && !isnan(ex.pick.mean));
    for (size_t j = 0; j < ex.n_runners; j++) {
        const double *q = ex.runner_raw + 2 * j;
        assert_true(q[0] != raw[0] || q[1] != raw[1]);
        assert_true(ex.runner[j].acq <= ex.pick.acq);
        assert_int_equal(ex.runner[j].cand, (size_t)-1);
        assert_true(ex.runner[j].sd >= 0);
    }
    sampler_explain_clear(&ex);
    assert_null(ex.runner_raw);
    space_clear(&cs);
}

/*
 * The GP under a work budget (continuous space): one never spent answers
 * what no budget answers, bit for bit, and says nothing was cut; one
 * spent at once still answers a legal configuration (the fit keeps its
 * default start, the optimizer its first chunk) and says the search was
 * cut; the kept model is not rewritten by a cut fit.
 */
static void
test_budget_continuous(void **state)
{
    (void)state;
    struct space cs;
    double obs_raw[2 * 12], obs_y[12], raw0[2], raw1[2];
    struct rng r;
    size_t c;

    space_init(&cs);
    space_add_range(&cs, PARAM_FLOAT, 0, 1, 0);
    space_add_range(&cs, PARAM_FLOAT, 0, 1, 0);
    rng_seed(&r, 3);
    for (int i = 0; i < 12; i++) {
        space_sample(&cs, &r, obs_raw + 2 * i);
        obs_y[i] = objective(obs_raw + 2 * i);
    }
    struct sampler_explain ex = {0};
    struct sampler_gp_model m = {0};
    struct sampler_input in = {.space = &cs,
                               .kind = SAMPLER_GP,
                               .seed = 5,
                               .seq = 12,
                               .init = 3,
                               .kernel = KERNEL_MATERN52,
                               .obs_raw = obs_raw,
                               .obs_y = obs_y,
                               .n_obs = 12,
                               .explain = &ex};
    assert_int_equal(sampler_next(&in, raw0, &c), HPOD_OK);
    assert_int_equal(ex.budget_cut, 0);
    int left = 1 << 20;
    struct compute_budget never = {budget_spent_after, &left, 0};
    in.budget = &never;
    assert_int_equal(sampler_next(&in, raw1, &c), HPOD_OK);
    assert_memory_equal(raw0, raw1, sizeof raw0);
    assert_int_equal(ex.budget_cut, 0);
    /* Spent at once. */
    int none = 0;
    struct compute_budget spent = {budget_spent_after, &none, 0};
    in.budget = &spent;
    in.gp_model = &m;
    assert_int_equal(sampler_next(&in, raw1, &c), HPOD_OK);
    assert_int_equal(ex.budget_cut, 1);
    assert_int_equal(ex.chooser, SAMPLER_CHOSE_MODEL);
    assert_true(raw1[0] >= 0 && raw1[0] <= 1 && raw1[1] >= 0 && raw1[1] <= 1);
    assert_int_equal(m.valid, 0); /* the cut fit was not kept */
    assert_int_equal(m.changed, 0);
    sampler_explain_clear(&ex);
    sampler_gp_model_clear(&m);
    space_clear(&cs);
}

/*
 * A categorical space of many choices: one feature per parameter (the
 * GP's hyperparameters are dim + 2 = 4, not 1,002: the kept model says
 * so) and the choice is legal. What the overlap kernel predicts is
 * tested in test_gp.c (test_categorical_kinds).
 */
static void
test_categorical_space(void **state)
{
    (void)state;
    enum { NO = 24 };
    struct space cs;
    double obs_raw[2 * NO], obs_y[NO], raw[2];
    struct rng r;
    size_t c;

    space_init(&cs);
    space_add_range(&cs, PARAM_FLOAT, 0, 1, 0);
    space_add_categorical(&cs, 1000);
    assert_int_equal(cs.dim, 2);
    rng_seed(&r, 7);
    for (int i = 0; i < NO; i++) {
        space_sample(&cs, &r, obs_raw + 2 * i);
        if (i % 3 == 0)
            obs_raw[2 * i + 1] = 42; /* the good choice, seen 8 times */
        obs_y[i] = (obs_raw[2 * i + 1] == 42 ? 1.0 : 0.0) -
                   (obs_raw[2 * i] - 0.3) * (obs_raw[2 * i] - 0.3);
    }
    struct sampler_gp_model m = {0};
    struct sampler_input in = {.space = &cs,
                               .kind = SAMPLER_GP,
                               .seed = 2,
                               .seq = NO,
                               .init = 3,
                               .kernel = KERNEL_MATERN52,
                               .acquisition = 0,
                               .obs_raw = obs_raw,
                               .obs_y = obs_y,
                               .n_obs = NO,
                               .gp_model = &m};
    assert_int_equal(sampler_next(&in, raw, &c), HPOD_OK);
    assert_true(space_contains(&cs, 0, raw[0]) &&
                space_contains(&cs, 1, raw[1]));
    assert_int_equal(m.n_hyper, 4);
    assert_true(m.valid && m.hyper[1] > 0 && isfinite(m.hyper[1]));
    sampler_gp_model_clear(&m);
    space_clear(&cs);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gp_kept_model),
        cmocka_unit_test(test_gp_rank_invariant),
        cmocka_unit_test(test_gp_plugin_incumbent),
        cmocka_unit_test(test_gp_nei_reference),
        cmocka_unit_test(test_gp_trust_region_reference),
        cmocka_unit_test(test_explain_continuous),
        cmocka_unit_test(test_budget_continuous),
        cmocka_unit_test(test_categorical_space),
    };
    return cmocka_run_group_tests_name("sampler_gp", tests, setup, teardown);
}
