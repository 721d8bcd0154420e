/*
 * tests/unit/test_mobo_greedy.c - the model-free control for several
 * objectives (core/mobo_greedy.h) against brute force, and its errors.
 */
#include "tests/support/mobo_grid.h"

/*
 * The greedy control (mobo_greedy, and mobo_next with the GREEDY
 * surrogate) against brute force: the front of the observed rows that
 * reported both objectives and meet their constraint, then the free
 * candidate nearest any of them (the grid's encoding is its raw values),
 * ties to the lowest index. Random histories with unreported objectives,
 * violated constraints and taken candidates without values (pending).
 */
static size_t
greedy_brute(const struct study *s, const double *obs_c, double bound)
{
    size_t best = N;
    double bd = INFINITY;
    for (size_t c = 0; c < N; c++) {
        if (s->used[c])
            continue;
        for (size_t i = 0; i < s->n; i++) {
            const double *yi = s->obs_y + 2 * i;
            int dom = isnan(yi[0]) || isnan(yi[1]) || obs_c[i] > bound;
            for (size_t k = 0; k < s->n && !dom; k++) {
                const double *yk = s->obs_y + 2 * k;
                dom = !isnan(yk[0]) && !isnan(yk[1]) && obs_c[k] <= bound &&
                      yk[0] >= yi[0] && yk[1] >= yi[1] &&
                      (yk[0] > yi[0] || yk[1] > yi[1]);
            }
            if (dom)
                continue;
            double dx = cand[2 * c] - s->obs_raw[2 * i];
            double dy = cand[2 * c + 1] - s->obs_raw[2 * i + 1];
            if (dx * dx + dy * dy < bd) {
                bd = dx * dx + dy * dy;
                best = c;
            }
        }
    }
    return best;
}

static void
test_greedy_brute_force(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 77);
    size_t agree = 0, trials = 60;
    for (size_t t = 0; t < trials; t++) {
        struct study s;
        double obs_c[N], bound = 0.7;
        memset(&s, 0, sizeof s);
        size_t n_obs = 1 + (size_t)rng_below(&r, 40);
        for (size_t i = 0; i < n_obs; i++) {
            study_add(&s, random_free(&r, s.used), 2);
            obs_c[i] = rng_uniform(&r);
            if (rng_uniform(&r) < 0.1)
                s.obs_y[2 * (s.n - 1) + rng_below(&r, 2)] = NAN;
        }
        for (size_t k = rng_below(&r, 5); k > 0; k--)
            s.used[random_free(&r, s.used)] = 1; /* pending */
        size_t want = greedy_brute(&s, obs_c, t % 2 ? bound : INFINITY);
        struct mobo_input in = study_input(&s, MOBO_SURROGATE_GREEDY, t);
        if (t % 2) {
            in.n_con = 1;
            in.obs_c = obs_c;
            in.con_max = &bound;
        }
        double raw[2];
        size_t got = N;
        enum hpod_status st = mobo_next(&in, raw, &got);
        if (want == N) {
            assert_int_equal(st, HPOD_ENUMERIC); /* the front is empty */
            agree++;
            continue;
        }
        assert_int_equal(st, HPOD_OK);
        assert_int_equal(got, want);
        assert_true(raw[0] == cand[2 * want] && raw[1] == cand[2 * want + 1]);
        agree++;
    }
    assert_int_equal(agree, trials);
}

static void
test_greedy_errors(void **state)
{
    (void)state;
    struct study s;
    double raw[2];
    size_t got;
    memset(&s, 0, sizeof s);
    struct mobo_input in = study_input(&s, MOBO_SURROGATE_GREEDY, 1);
    assert_int_equal(mobo_greedy(&in, raw, &got), HPOD_ENUMERIC);
    study_add(&s, 5, 2);
    in = study_input(&s, MOBO_SURROGATE_GREEDY, 1);
    /* One observation is its own front: the grid neighbour 4 is nearest
     * (tied with 6 and 17: the lowest index). */
    assert_int_equal(mobo_greedy(&in, raw, &got), HPOD_OK);
    assert_int_equal(got, 4);
    in.n_cand = 0; /* continuous: greedy needs candidates */
    assert_int_equal(mobo_next(&in, raw, &got), HPOD_EINVAL);
    in = study_input(&s, MOBO_SURROGATE_GREEDY, 1);
    in.m = 0;
    assert_int_equal(mobo_greedy(&in, raw, &got), HPOD_EINVAL);
    memset(s.used, 1, sizeof s.used);
    in = study_input(&s, MOBO_SURROGATE_GREEDY, 1);
    assert_int_equal(mobo_greedy(&in, raw, &got), HPOD_ENOTFOUND);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_greedy_brute_force),
        cmocka_unit_test(test_greedy_errors),
    };
    return cmocka_run_group_tests_name("mobo_greedy", tests, setup, teardown);
}
