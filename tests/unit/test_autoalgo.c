/*
 * tests/unit/test_autoalgo.c - the rule behind "algorithm": {"name":
 * "auto"}: every case reached, each boundary (budget = init, candidates =
 * AUTOALGO_GRAPH_MAX, continuous, the order of the tests), and the table
 * holding a valid configuration and a figure for every case.
 */
#include "tests/support/check.h"

#include <string.h>

#include "core/autoalgo.h"
#include "core/kernels.h"
#include "core/mobo.h"

/* A single-objective 118-row table of 6 parameters, no budget. */
static struct autoalgo_features
base(void)
{
    struct autoalgo_features f = {
        .n_params = 6,
        .n_categorical = 1,
        .n_candidates = 118,
        .n_objectives = 1,
        .n_constraints = 0,
        .decoupled = 0,
        .budget = -1,
        .init = 3,
    };
    return f;
}

static void
test_single_objective_sizes(void **state)
{
    (void)state;
    struct autoalgo_features f = base();
    struct autoalgo_config c;
    assert_int_equal(autoalgo_choose(&f, &c), AUTOALGO_SO_FINITE);
    assert_int_equal(c.method, AUTOALGO_GP);
    assert_int_equal(c.kernel, KERNEL_MATERN52);
    assert_int_equal(c.acquisition, 3); /* nei */
    assert_true(c.lengthscale_min == 0.0);
    assert_int_equal(c.trust_region, 8);
    assert_true(c.lengthscale_prior == 1.0);
    assert_int_equal(c.hedge, 1);
    /* One case for every finite space up to the graph's bound: no size
     * split below it survived leave-one-table-out (docs/auto.md). */
    f.n_candidates = 767;
    assert_int_equal(autoalgo_choose(&f, &c), AUTOALGO_SO_FINITE);
    assert_int_equal(c.hedge, 1);
    f.n_candidates = AUTOALGO_GRAPH_MAX;
    assert_int_equal(autoalgo_choose(&f, &c), AUTOALGO_SO_FINITE);
    assert_int_equal(c.hedge, 1);
    /* The GP alone above it: a graph holds n-by-n matrices. */
    f.n_candidates = AUTOALGO_GRAPH_MAX + 1;
    assert_int_equal(autoalgo_choose(&f, &c), AUTOALGO_SO_HUGE);
    assert_int_equal(c.method, AUTOALGO_GP);
    assert_int_equal(c.acquisition, 3);
    assert_int_equal(c.hedge, 0);
    assert_int_equal(c.trust_region, 8);
    assert_true(c.lengthscale_prior == 1.0);
    f.n_candidates = 1;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_SO_FINITE);
    f.n_candidates = 0;
    assert_int_equal(autoalgo_choose(&f, &c), AUTOALGO_CONTINUOUS);
    assert_int_equal(c.method, AUTOALGO_GP);
    assert_int_equal(c.acquisition, 0);
    assert_true(c.lengthscale_min == 0.0);
    assert_int_equal(c.trust_region, 0);
    assert_true(c.lengthscale_prior == 0.0);
    assert_int_equal(c.hedge, 0); /* the graph arm needs candidates */
    /* Parameters and their categorical share do not move the choice:
     * no table measures them apart (the reason records them). */
    f.n_categorical = 6;
    f.n_params = 6;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_CONTINUOUS);
}

static void
test_budget_boundary(void **state)
{
    (void)state;
    struct autoalgo_features f = base();
    struct autoalgo_config c;
    f.budget = 3;
    assert_int_equal(autoalgo_choose(&f, &c), AUTOALGO_TINY_BUDGET);
    assert_int_equal(c.method, AUTOALGO_RANDOM);
    f.budget = 1;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_TINY_BUDGET);
    f.budget = 4;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_SO_FINITE);
    f.init = 4;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_TINY_BUDGET);
    f.budget = -1;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_SO_FINITE);
    /* A tiny budget wins over every other feature. */
    f.budget = 2;
    f.n_objectives = 2;
    f.n_constraints = 1;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_TINY_BUDGET);
}

static void
test_objectives_and_constraints(void **state)
{
    (void)state;
    struct autoalgo_features f = base();
    struct autoalgo_config c;
    f.n_objectives = 2;
    assert_int_equal(autoalgo_choose(&f, &c), AUTOALGO_MO_FINITE);
    assert_int_equal(c.method, AUTOALGO_EHVI);
    assert_int_equal(c.surrogate, MOBO_SURROGATE_GRAPH);
    assert_int_equal(c.trust_region, 2);
    assert_int_equal(c.trust_shape, MOBO_TRUST_STEPS);
    assert_true(c.front_reference == 0.3);
    assert_int_equal(c.gp_blend, MOBO_BLEND_FIRST);
    /* The same up to the graph's bound; ehvi/gp above it. */
    f.n_candidates = AUTOALGO_GRAPH_MAX;
    assert_int_equal(autoalgo_choose(&f, &c), AUTOALGO_MO_FINITE);
    assert_int_equal(c.surrogate, MOBO_SURROGATE_GRAPH);
    assert_true(c.front_reference == 0.3);
    assert_int_equal(c.gp_blend, MOBO_BLEND_FIRST);
    f.n_candidates = AUTOALGO_GRAPH_MAX + 1;
    assert_int_equal(autoalgo_choose(&f, &c), AUTOALGO_MO_HUGE);
    assert_int_equal(c.method, AUTOALGO_EHVI);
    assert_int_equal(c.surrogate, MOBO_SURROGATE_GP);
    assert_true(c.front_reference == 0.5);
    assert_int_equal(c.gp_blend, 0);
    assert_int_equal(c.trust_region, 0);
    f.n_candidates = 0;
    assert_int_equal(autoalgo_choose(&f, &c), AUTOALGO_MO_CONTINUOUS);
    assert_int_equal(c.surrogate, MOBO_SURROGATE_GP);
    assert_int_equal(c.trust_region, 0);
    assert_true(c.front_reference == 0.5);
    /* gp_blend blends a GP into the graph: never with the GP surrogate. */
    assert_int_equal(c.gp_blend, 0);
    /* Several objectives with constraints: EHVI handles both. */
    f.n_candidates = 150;
    f.n_constraints = 1;
    f.n_objectives = 3;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_MO_FINITE);
    f.n_objectives = 1;
    assert_int_equal(autoalgo_choose(&f, &c), AUTOALGO_CONSTRAINED);
    assert_int_equal(c.method, AUTOALGO_GP);
    f.n_candidates = 0;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_CONSTRAINED);
    f.decoupled = 1;
    assert_int_equal(autoalgo_choose(&f, &c), AUTOALGO_DECOUPLED);
    assert_int_equal(c.method, AUTOALGO_GP);
    f.n_constraints = 0; /* decoupled means nothing without constraints */
    assert_int_equal(autoalgo_case(&f), AUTOALGO_CONTINUOUS);
}

/* A source (warm_start) wants the GP for one objective without
 * constraints, even with a tiny budget; elsewhere it changes nothing. */
static void
test_warm_start(void **state)
{
    (void)state;
    struct autoalgo_features f = base();
    struct autoalgo_config c;
    f.warm_start = 1;
    assert_int_equal(autoalgo_choose(&f, &c), AUTOALGO_WARM_START);
    assert_int_equal(c.method, AUTOALGO_GP);
    assert_int_equal(c.acquisition, 0);
    f.budget = 2;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_WARM_START);
    f.n_objectives = 2;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_TINY_BUDGET);
    f.budget = -1;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_MO_FINITE);
    f.n_objectives = 1;
    f.n_constraints = 1;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_CONSTRAINED);
    f.n_constraints = 0;
    f.warm_start = 0;
    assert_int_equal(autoalgo_case(&f), AUTOALGO_SO_FINITE);
}

/* Every row: a method hpod has, settings it takes, a figure, a code. */
static void
test_table_rows(void **state)
{
    (void)state;
    for (int i = 0; i < AUTOALGO_N_CASES; i++) {
        const struct autoalgo_row *r = &autoalgo_rows[i];
        assert_true(r->config.method >= AUTOALGO_RANDOM &&
                    r->config.method <= AUTOALGO_EHVI);
        assert_true(r->config.kernel == KERNEL_MATERN52 ||
                    r->config.kernel == KERNEL_RBF);
        assert_true(r->config.acquisition >= 0 &&
                    r->config.acquisition <=
                        (r->config.method == AUTOALGO_GRAPH ? 1 : 3));
        assert_true(
            r->config.trust_region == 0 ||
            (r->config.method == AUTOALGO_EHVI &&
             r->config.surrogate == MOBO_SURROGATE_GRAPH &&
             r->config.trust_region > 0) ||
            (r->config.method == AUTOALGO_GP && r->config.trust_region > 0));
        assert_true(r->config.lengthscale_prior == 0.0 ||
                    (r->config.method == AUTOALGO_GP &&
                     r->config.lengthscale_prior > 0.0 &&
                     r->config.lengthscale_prior <= 10.0));
        /* trust_shape steps only with an ehvi trust region (study/algo.c
         * rejects it without one). */
        assert_true(r->config.trust_shape == MOBO_TRUST_NEAREST ||
                    (r->config.trust_shape == MOBO_TRUST_STEPS &&
                     r->config.method == AUTOALGO_EHVI &&
                     r->config.trust_region > 0));
        /* gp_blend only for ehvi/graph (study/algo.c rejects it
         * elsewhere). */
        assert_true(r->config.gp_blend == MOBO_BLEND_NONE ||
                    (r->config.gp_blend == MOBO_BLEND_FIRST &&
                     r->config.method == AUTOALGO_EHVI &&
                     r->config.surrogate == MOBO_SURROGATE_GRAPH));
        assert_true(r->config.front_reference == 0.0 ||
                    (r->config.method == AUTOALGO_EHVI &&
                     r->config.front_reference > 0.0 &&
                     r->config.front_reference <= 100.0));
        assert_true(r->config.lengthscale_min == 0.0 ||
                    (r->config.method == AUTOALGO_GP &&
                     r->config.lengthscale_min > 0.0 &&
                     r->config.lengthscale_min <= 10.0));
        assert_true(r->config.surrogate == MOBO_SURROGATE_GP ||
                    r->config.surrogate == MOBO_SURROGATE_GRAPH);
        /* GP-Hedge: a GP on finite spaces with one objective only. */
        assert_true(r->config.hedge == 0 ||
                    (r->config.hedge == 1 && r->config.method == AUTOALGO_GP &&
                     i == AUTOALGO_SO_FINITE));
        /* A clause a user reads (the reason's second sentence): short, no
         * sentence of its own, no lab notebook (figures are in docs/). */
        assert_non_null(r->evidence);
        assert_true(strlen(r->evidence) > 20 && strlen(r->evidence) < 200);
        assert_null(strchr(r->evidence, '.'));
        assert_null(strstr(r->evidence, "ession"));
        assert_null(strstr(r->evidence, "docs/"));
        const char *code = autoalgo_case_code((enum autoalgo_case)i);
        assert_string_not_equal(code, "unknown");
        for (int j = 0; j < i; j++)
            assert_string_not_equal(code,
                                    autoalgo_case_code((enum autoalgo_case)j));
    }
    assert_string_equal(autoalgo_case_code(AUTOALGO_N_CASES), "unknown");
    assert_string_equal(autoalgo_case_code(AUTOALGO_SO_FINITE), "so_finite");
    assert_string_equal(autoalgo_case_code(AUTOALGO_MO_FINITE), "mo_finite");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_objective_sizes),
        cmocka_unit_test(test_budget_boundary),
        cmocka_unit_test(test_objectives_and_constraints),
        cmocka_unit_test(test_warm_start),
        cmocka_unit_test(test_table_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
