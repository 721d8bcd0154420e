/*
 * tests/unit/test_mobo_graph.c - the graph surrogate of mobo_next
 * (core/mobo_graph.h): EHVI on the graph finds the Pareto set far sooner
 * than random search, and the GP blend against its closed form.
 */
#include "tests/support/mobo_grid.h"

#include "core/mobo_graph.h"

static void
test_graph_finds_front(void **state)
{
    (void)state;
    double sum = 0;
    int reps = 3;
    for (int s = 0; s < reps; s++)
        sum += (double)run_front(MOBO_SURROGATE_GRAPH, (unsigned)s, N, NULL);
    print_message("EHVI/graph %.1f evaluations on average, random %.1f\n",
                  sum / reps, random_expected(n_front, N));
    assert_true(sum / reps < 0.8 * random_expected(n_front, N));
}

/*
 * mobo_graph_blend against its closed form (the average of the means, the root
 * of the average of the variances), in place too.
 */
static void
test_blend_closed_form(void **state)
{
    (void)state;
    double ma[3] = {1.0, -2.0, 0.5}, sa[3] = {0.0, 3.0, 1.0};
    double mb[3] = {3.0, 2.0, 0.5}, sb[3] = {2.0, 4.0, 1.0};
    double mu[3], sd[3];
    mobo_graph_blend(ma, sa, mb, sb, 3, mu, sd);
    assert_true(fabs(mu[0] - 2.0) < 1e-15 && fabs(sd[0] - sqrt(2.0)) < 1e-15);
    assert_true(fabs(mu[1] - 0.0) < 1e-15 && fabs(sd[1] - sqrt(12.5)) < 1e-14);
    assert_true(fabs(mu[2] - 0.5) < 1e-15 && fabs(sd[2] - 1.0) < 1e-15);
    mobo_graph_blend(ma, sa, mb, sb, 3, ma, sa); /* aliased output */
    for (int i = 0; i < 3; i++)
        assert_true(ma[i] == mu[i] && sa[i] == sd[i]);
}

/*
 * gp_blend first (graph surrogate): a state kept across a sequential study with
 * pending trials chooses as a cold call (same pick, acquisition to 1e-8);
 * the blend changes some picks of plain graph EHVI; the GP surrogate
 * ignores it (identical picks); a continuous graph study with it chooses
 * a point, the same twice; a value outside enum mobo_blend (2, the
 * removed "all", among them) is HPOD_EINVAL.
 */
static void
test_gp_blend(void **state)
{
    (void)state;
    struct study *s = calloc(1, sizeof *s);
    struct mobo_state *ms = mobo_state_create();
    struct rng r;
    size_t okc = 0, differ = 0, steps = 45;
    rng_seed(&r, 5);
    for (int t = 0; t < 3; t++)
        study_add(s, random_free(&r, s->used), 2);
    for (size_t t = 3; t < steps; t++) {
        struct mobo_input in = study_input(s, MOBO_SURROGATE_GRAPH, 9);
        size_t cw, cc, cp, pend = N;
        double aw, ac, praw[2], raw[2];
        if (t % 4 == 0)
            pend_one(s, &r, &pend, praw, &in);
        enum hpod_status sp0 = mobo_next(&in, raw, &cp);
        in.gp_blend = MOBO_BLEND_FIRST;
        in.state = ms;
        enum hpod_status sw = choose_status(&in, &cw, &aw);
        in.state = NULL;
        enum hpod_status sc = choose_status(&in, &cc, &ac);
        assert_int_equal(sw, sc);
        if (sw == HPOD_OK) {
            assert_int_equal(cw, cc);
            assert_true(fabs(aw - ac) <= 1e-8 * fmax(1.0, fabs(ac)));
            okc++;
            differ += sp0 == HPOD_OK && cp != cw;
        }
        if (t % 5 == 0) {
            size_t g0, g1;
            struct mobo_input gi = study_input(s, MOBO_SURROGATE_GP, 9);
            gi.pend_raw = in.pend_raw;
            gi.pend_cand = in.pend_cand;
            gi.n_pend = in.n_pend;
            assert_int_equal(mobo_next(&gi, raw, &g0), HPOD_OK);
            gi.gp_blend = MOBO_BLEND_FIRST;
            assert_int_equal(mobo_next(&gi, raw, &g1), HPOD_OK);
            assert_int_equal(g0, g1);
        }
        if (pend < N)
            s->used[pend] = 0;
        study_add(s, sw == HPOD_OK ? cw : random_free(&r, s->used), 2);
    }
    print_message("gp_blend: %zu model choices, %zu differ from the "
                  "graph's\n",
                  okc, differ);
    assert_true(okc >= 30);
    assert_true(differ > 0);
    {
        double r1[2], r2[2];
        size_t ch;
        struct mobo_input in = study_input(s, MOBO_SURROGATE_GRAPH, 4);
        in.space = &csp;
        in.n_cand = 0;
        in.cand_raw = NULL;
        in.cand_used = NULL;
        in.obs_cand = NULL;
        in.gp_blend = MOBO_BLEND_FIRST;
        assert_int_equal(mobo_next(&in, r1, &ch), HPOD_OK);
        assert_int_equal(mobo_next(&in, r2, &ch), HPOD_OK);
        assert_true(r1[0] == r2[0] && r1[1] == r2[1]);
        in.gp_blend = MOBO_BLEND_FIRST + 1;
        assert_int_equal(mobo_next(&in, r1, &ch), HPOD_EINVAL);
        in.gp_blend = -1;
        assert_int_equal(mobo_next(&in, r1, &ch), HPOD_EINVAL);
    }
    mobo_state_free(ms);
    free(s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_finds_front),
        cmocka_unit_test(test_blend_closed_form),
        cmocka_unit_test(test_gp_blend),
    };
    return cmocka_run_group_tests_name("mobo_graph", tests, setup, teardown);
}
