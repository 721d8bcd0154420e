/*
 * tests/unit/test_hedge.c - GP-Hedge (core/hedge.h) against brute-force
 * replays of its arms: the gains and the draw.
 */
#include "tests/support/sampler_grid.h"
#include "tests/support/budget.h"

#include "core/acquisition.h"
#include "core/gp.h"
#include "core/graph.h"
#include "core/hedge.h"
#include "core/kernels.h"
#include "core/normal_scores.h"
#include "core/sampler_graph.h"

/* One hedge-test choice: the GP arm's configuration (nei, trust region 8,
 * lengthscale prior 1) with kind, variant, gp_model and state given, from
 * the first t observations (used: those marked). */
static size_t
hedge_arm_choice_b(enum sampler_kind kind, unsigned variant, size_t t,
                   const size_t *obs_cand, const double *obs_raw,
                   const double *y, const unsigned char *used,
                   struct sampler_gp_model *m, struct sampler_state *st,
                   struct sampler_explain *ex, struct compute_budget *b)
{
    struct sampler_input in = {.space = &sp,
                               .kind = kind,
                               .seed = 9,
                               .seq = (int)t,
                               .init = 3,
                               .kernel = KERNEL_MATERN52,
                               .acquisition = kind == SAMPLER_GP ? 3 : 0,
                               .variant = variant,
                               .trust_div = kind == SAMPLER_GP ? 8 : 0,
                               .ls_prior = kind == SAMPLER_GP ? 1.0 : 0.0,
                               .cand_raw = cand,
                               .cand_used = used,
                               .n_cand = G * G,
                               .obs_raw = obs_raw,
                               .obs_y = y,
                               .obs_cand = obs_cand,
                               .n_obs = t,
                               .state = st,
                               .gp_model = m,
                               .explain = ex,
                               .budget = b};
    double raw[2];
    size_t got;
    assert_int_equal(sampler_next(&in, raw, &got), HPOD_OK);
    return got;
}

static size_t
hedge_arm_choice_ex(enum sampler_kind kind, unsigned variant, size_t t,
                    const size_t *obs_cand, const double *obs_raw,
                    const double *y, const unsigned char *used,
                    struct sampler_gp_model *m, struct sampler_state *st,
                    struct sampler_explain *ex)
{
    return hedge_arm_choice_b(kind, variant, t, obs_cand, obs_raw, y, used, m,
                              st, ex, NULL);
}

static size_t
hedge_arm_choice(enum sampler_kind kind, unsigned variant, size_t t,
                 const size_t *obs_cand, const double *obs_raw, const double *y,
                 const unsigned char *used, struct sampler_gp_model *m,
                 struct sampler_state *st)
{
    return hedge_arm_choice_ex(kind, variant, t, obs_cand, obs_raw, y, used, m,
                               st, NULL);
}

/*
 * SAMPLER_V_HEDGE against brute force (core/hedge.h):
 * the arms' nominees at every prefix t = 3..n by plain sampler_next calls
 * (the GP with one kept model carried along the prefixes, graph EI
 * alone), the gains from a GP set to that model's hyperparameters and
 * conditioned on all n normal scores (the nominee of t weighted by
 * SAMPLER_HEDGE_DISCOUNT^(n-1-t)), the draw from its own stream. The
 * hedge's choice, from a cold state and from a state carried along the
 * same prefixes (the cache), equals it, and its explanation names the
 * arm that chose. Over the histories the two arms
 * nominate different candidates at least once, and both arms are picked.
 */
static void
test_gp_hedge_reference(void **state)
{
    (void)state;
    enum { NO = 14 };
    size_t obs_cand[NO], nom[NO + 1][2], picked[2] = {0, 0}, differ = 0;
    double obs_raw[2 * NO], y[NO], z[NO], x[2 * NO], u[2], mu;
    unsigned char used_all[G * G] = {0};

    for (int h = 0; h < 6; h++) {
        memset(used_all, 0, sizeof used_all);
        history(NO, h % 2, obs_cand, obs_raw, y, used_all);
        /* A different order per history: the prefixes differ. */
        for (int k = 0; k < h; k++) {
            size_t a = (size_t)(k * 5 + h) % NO, b = (size_t)(k * 3 + 1) % NO;
            size_t tc = obs_cand[a];
            double ty = y[a], tr[2] = {obs_raw[2 * a], obs_raw[2 * a + 1]};
            obs_cand[a] = obs_cand[b];
            y[a] = y[b];
            memcpy(obs_raw + 2 * a, obs_raw + 2 * b, sizeof tr);
            obs_cand[b] = tc;
            y[b] = ty;
            memcpy(obs_raw + 2 * b, tr, sizeof tr);
        }
        for (size_t n = 6; n <= NO; n++) {
            struct sampler_gp_model m = {0};
            struct sampler_state *warm = sampler_state_create();
            unsigned char used[G * G] = {0};
            double gain[2] = {0.0, 0.0};
            size_t cold[1], hot[1];
            for (size_t t = 0; t <= n; t++) {
                if (t >= 3) {
                    nom[t][0] = hedge_arm_choice(SAMPLER_GP, 0, t, obs_cand,
                                                 obs_raw, y, used, &m, NULL);
                    nom[t][1] = hedge_arm_choice(SAMPLER_GRAPH, 0, t, obs_cand,
                                                 obs_raw, y, used, NULL, NULL);
                    differ += nom[t][0] != nom[t][1];
                    if (t < n)
                        (void)hedge_arm_choice(SAMPLER_GP, SAMPLER_V_HEDGE, t,
                                               obs_cand, obs_raw, y, used, NULL,
                                               warm);
                }
                if (t < n)
                    used[obs_cand[t]] = 1;
            }
            /* The gains: the kept model's GP on all n observations. */
            double ls[2], ym, ys;
            struct gp_hyper hy = {ls, 0.0, 0.0};
            assert_true(m.valid && m.n_hyper == 4);
            memcpy(ls, m.hyper, sizeof ls);
            hy.signal_var = m.hyper[2];
            hy.noise_var = m.hyper[3];
            struct gp *gp = gp_create(n, 2, KERNEL_MATERN52);
            assert_int_equal(gp_set_hyper(gp, &hy), HPOD_OK);
            normal_scores(y, n, z);
            gp_standardization(z, n, &ym, &ys);
            space_encode_rows(&sp, obs_raw, n, x);
            assert_int_equal(gp_condition_std(gp, x, z, n, ym, ys), HPOD_OK);
            for (size_t t = 3; t < n; t++)
                for (int k = 0; k < 2; k++) {
                    space_encode(&sp, cand + 2 * nom[t][k], u);
                    assert_int_equal(gp_predict(gp, u, 1, &mu, NULL), HPOD_OK);
                    gain[k] +=
                        mu * pow(SAMPLER_HEDGE_DISCOUNT, (double)(n - 1 - t));
                }
            gp_free(gp);
            struct rng hr;
            rng_seed2(&hr, 9 ^ SAMPLER_HEDGE_STREAM, (uint64_t)n);
            double p1 =
                1.0 / (1.0 + exp(SAMPLER_HEDGE_ETA * (gain[0] - gain[1])));
            int arm = rng_uniform(&hr) < p1;
            size_t want[1] = {nom[n][arm]};
            cold[0] = hedge_arm_choice(SAMPLER_GP, SAMPLER_V_HEDGE, n, obs_cand,
                                       obs_raw, y, used, NULL, NULL);
            hot[0] = hedge_arm_choice(SAMPLER_GP, SAMPLER_V_HEDGE, n, obs_cand,
                                      obs_raw, y, used, NULL, warm);
            assert_int_equal(cold[0], want[0]);
            assert_int_equal(hot[0], want[0]);
            if (nom[n][0] != nom[n][1]) {
                /* The explanation names the arm that chose. */
                struct sampler_explain ex = {0};
                assert_int_equal(hedge_arm_choice_ex(
                                     SAMPLER_GP, SAMPLER_V_HEDGE, n, obs_cand,
                                     obs_raw, y, used, NULL, NULL, &ex),
                                 want[0]);
                assert_int_equal(ex.arm, arm);
                sampler_explain_clear(&ex);
                picked[arm]++;
            }
            if (n == NO) {
                /* Candidates held by no observation (a failed trial): the
                 * arms choose again around them, the same arm wins. */
                unsigned char used2[G * G];
                memcpy(used2, used, sizeof used2);
                used2[nom[n][0]] = used2[nom[n][1]] = 1;
                size_t a2 = hedge_arm_choice(SAMPLER_GP, 0, n, obs_cand,
                                             obs_raw, y, used2, &m, NULL);
                size_t b2 = hedge_arm_choice(SAMPLER_GRAPH, 0, n, obs_cand,
                                             obs_raw, y, used2, NULL, NULL);
                for (int w = 0; w < 2; w++) {
                    size_t got = hedge_arm_choice(SAMPLER_GP, SAMPLER_V_HEDGE,
                                                  n, obs_cand, obs_raw, y,
                                                  used2, NULL, w ? warm : NULL);
                    assert_false(used2[got]);
                    assert_int_equal(got, arm ? b2 : a2);
                }
            }
            sampler_gp_model_clear(&m);
            sampler_state_free(warm);
        }
    }
    /* The explanation names the pick, ranked first by the chosen arm. */
    {
        struct sampler_explain ex = {0};
        size_t got =
            hedge_arm_choice_ex(SAMPLER_GP, SAMPLER_V_HEDGE, NO, obs_cand,
                                obs_raw, y, used_all, NULL, NULL, &ex);
        assert_int_equal(ex.chooser, SAMPLER_CHOSE_MODEL);
        assert_int_equal(ex.pick.cand, got);
        assert_true(ex.n_runners > 0 && !isnan(ex.pick.acq));
        sampler_explain_clear(&ex);
    }
    print_message("hedge: arms differed at %zu prefixes; at n the GP was "
                  "drawn %zu times, graph EI %zu\n",
                  differ, picked[0], picked[1]);
    assert_true(differ > 0);
    assert_true(picked[0] > 0 && picked[1] > 0);
}

/*
 * The hedge under a work budget: spent during the replay of its arms'
 * past nominees, it answers the GP arm alone (the same choice as the GP
 * without hedge, from the study's kept model, under the spent budget) and
 * says the search was cut; the steps it replayed stay in the state, and an
 * unbudgeted choice from that state equals a cold one (the cache never changes
 * an answer).
 */
static void
test_hedge_budget(void **state)
{
    (void)state;
    enum { NO = 12 };
    size_t obs_cand[NO];
    double obs_raw[2 * NO], y[NO];
    unsigned char used[G * G] = {0};

    history(NO, 0, obs_cand, obs_raw, y, used);
    size_t cold = hedge_arm_choice(SAMPLER_GP, SAMPLER_V_HEDGE, NO, obs_cand,
                                   obs_raw, y, used, NULL, NULL);
    for (int k = 0; k < 3; k++) {
        struct sampler_gp_model m1 = {0}, m2 = {0};
        struct sampler_state *st = sampler_state_create();
        struct sampler_explain ex = {0};
        int left = k;
        struct compute_budget b = {budget_spent_after, &left, 0};
        size_t got =
            hedge_arm_choice_b(SAMPLER_GP, SAMPLER_V_HEDGE, NO, obs_cand,
                               obs_raw, y, used, &m1, st, &ex, &b);
        int none = 0;
        struct compute_budget spent = {budget_spent_after, &none, 0};
        size_t gp = hedge_arm_choice_b(SAMPLER_GP, 0, NO, obs_cand, obs_raw, y,
                                       used, &m2, NULL, NULL, &spent);
        assert_int_equal(got, gp);
        assert_int_equal(ex.budget_cut, 1);
        assert_int_equal(ex.arm, 0);
        assert_int_equal(ex.pick.cand, got);
        /* The replay goes on from where it stopped: as a cold hedge. */
        assert_int_equal(hedge_arm_choice(SAMPLER_GP, SAMPLER_V_HEDGE, NO,
                                          obs_cand, obs_raw, y, used, NULL, st),
                         cold);
        sampler_explain_clear(&ex);
        sampler_gp_model_clear(&m1);
        sampler_gp_model_clear(&m2);
        sampler_state_free(st);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gp_hedge_reference),
        cmocka_unit_test(test_hedge_budget),
    };
    return cmocka_run_group_tests_name("hedge", tests, setup, teardown);
}
