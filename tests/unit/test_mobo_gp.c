/*
 * tests/unit/test_mobo_gp.c - the GP surrogates of mobo_next
 * (core/mobo_gp.h): EHVI with GPs finds the Pareto set far sooner than
 * random search, low outliers are capped, and the refit schedule.
 */
#include "tests/support/mobo_grid.h"

#include "core/mobo_gp.h"

static void
test_gp_finds_front(void **state)
{
    (void)state;
    double sum = 0;
    int reps = 3;
    size_t worst = 0;
    for (int s = 0; s < reps; s++) {
        size_t e = run_front(MOBO_SURROGATE_GP, (unsigned)s, 80, NULL);
        sum += (double)e;
        worst = e > worst ? e : worst;
    }
    print_message("Pareto set of %zu points among %d: EHVI/GP %.1f "
                  "evaluations on average (worst %zu), random %.1f\n",
                  n_front, N, sum / reps, worst, random_expected(n_front, N));
    assert_true(n_front >= 8);
    assert_true(sum / reps < 0.5 * random_expected(n_front, N));
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

/*
 * The objective GP of a single objective caps low outliers at the lower
 * Tukey fence Q1 - 1.5 IQR (core/mobo.c, cap_low_outliers): a study whose
 * failed trials report 2 must choose exactly as one whose failures
 * report the fence (same pick, same acquisition to the bit), and the
 * incumbent, the largest value, is untouched.
 */
static void
test_low_outliers_capped(void **state)
{
    (void)state;
    enum { K = 16 };
    double raw[K * 2], y[K], yc[K], c[K], s[K], cmax = 0.6;
    size_t oc[K];
    unsigned char used[N] = {0};
    struct rng r;
    rng_seed(&r, 11);
    for (size_t i = 0; i < K; i++) {
        size_t k = random_free(&r, used);
        used[k] = 1;
        oc[i] = k;
        memcpy(raw + 2 * i, cand + 2 * k, sizeof(double) * 2);
        y[i] = 18 + 2 * obj_far(raw + 2 * i);
        c[i] = con_left(raw + 2 * i);
    }
    y[3] = y[9] = 2.0; /* two failed trainings */
    memcpy(s, y, sizeof s);
    for (size_t i = 1; i < K; i++)
        for (size_t j = i; j > 0 && s[j - 1] > s[j]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    double q1 = s[K / 4], q3 = s[3 * K / 4], fence = q1 - 1.5 * (q3 - q1);
    assert_true(fence > 2.0);
    for (size_t i = 0; i < K; i++)
        yc[i] = y[i] < fence ? fence : y[i];
    struct sampler_explain ea, eb;
    memset(&ea, 0, sizeof ea);
    memset(&eb, 0, sizeof eb);
    struct mobo_input in = {.space = &sp,
                            .surrogate = MOBO_SURROGATE_GP,
                            .kernel = KERNEL_MATERN52,
                            .seed = 5,
                            .seq = K,
                            .cand_raw = cand,
                            .cand_used = used,
                            .n_cand = N,
                            .m = 1,
                            .obs_raw = raw,
                            .obs_y = y,
                            .obs_cand = oc,
                            .n_obs = K,
                            .n_con = 1,
                            .obs_c = c,
                            .con_max = &cmax,
                            .explain = &ea};
    double ra[2], rb[2];
    size_t ca, cb;
    assert_int_equal(mobo_next(&in, ra, &ca), HPOD_OK);
    in.obs_y = yc;
    in.explain = &eb;
    assert_int_equal(mobo_next(&in, rb, &cb), HPOD_OK);
    assert_int_equal(ca, cb);
    assert_true(ea.pick.acq == eb.pick.acq);
    /* Without the cap (fewer than 8 observations) the outliers matter:
     * the 7-point studies differ. */
    in.n_obs = 7;
    in.obs_y = y;
    in.explain = &ea;
    assert_int_equal(mobo_next(&in, ra, &ca), HPOD_OK);
    in.obs_y = yc;
    in.explain = &eb;
    assert_int_equal(mobo_next(&in, rb, &cb), HPOD_OK);
    assert_true(ea.pick.acq != eb.pick.acq);
    sampler_explain_clear(&ea);
    sampler_explain_clear(&eb);
}

/* ---- refit schedule, kept state, trust region, log objectives ---- */
static void
test_fit_point_schedule(void **state)
{
    (void)state;
    /* Brute force: walk the schedule from GP_REFIT_ALWAYS_N. */
    size_t pts[200], np = 0, s = GP_REFIT_ALWAYS_N;
    while (s < 5000 && np < 200) {
        pts[np++] = s;
        s = s + (size_t)ceil(MOBO_REFIT_GROWTH * (double)s);
    }
    for (size_t n = 0; n < 3000; n++) {
        size_t want = n;
        if (n > GP_REFIT_ALWAYS_N)
            for (size_t k = 0; k < np && pts[k] <= n; k++)
                want = pts[k];
        assert_int_equal(mobo_gp_fit_point(n), want);
    }
    assert_true(mobo_gp_fit_point(1000) < 1000);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gp_finds_front),
        cmocka_unit_test(test_low_outliers_capped),
        cmocka_unit_test(test_fit_point_schedule),
    };
    return cmocka_run_group_tests_name("mobo_gp", tests, setup, teardown);
}
