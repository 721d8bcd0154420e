/*
 * tests/unit/test_mobo.c - multi-objective and constrained choices: input
 * errors, determinism by seed, no reuse of taken candidates, EHVI (GP and
 * graph surrogates) finds a known Pareto set in far fewer evaluations than
 * random search, decoupled reports, constraint feasibility (plain and
 * log-transformed), the constrained single-objective sampler, pending
 * trials in continuous spaces, three objectives through Monte Carlo and
 * the greedy control against brute force.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>

#include "core/gp.h"
#include "core/kernels.h"
#include "core/mobo.h"
#include "core/pareto.h"
#include "core/rng.h"
#include "core/sampler.h"

#define G 12 /* grid side: 144 candidates in 2-D */
#define N (G * G)

static struct space sp;  /* the grid, as value lists */
static struct space csp; /* the continuous unit square */
static double cand[N * 2];
static unsigned char in_front[N]; /* Pareto set of the 2-objective problem */
static size_t n_front;
static const int sense2[2] = {1, 1};

/*
 * Two conflicting smooth objectives (both maximized): closeness to (0.2,
 * 0.3) and to (0.8, 0.7) with different scales; the Pareto set is the
 * grid's staircase along the segment between them.
 */
static void
obj2(const double *raw, double *y)
{
    double a = raw[0] - 0.2, b = raw[1] - 0.3;
    double c = raw[0] - 0.8, d = raw[1] - 0.7;
    y[0] = -(a * a + b * b);
    y[1] = -2.5 * (c * c + 0.6 * d * d);
}

static int
setup(void **state)
{
    (void)state;
    double v[G], y[N * 2];
    size_t idx[N];
    for (int i = 0; i < G; i++)
        v[i] = (double)i / (G - 1);
    space_init(&sp);
    space_add_values(&sp, PARAM_FLOAT, v, G, 0);
    space_add_values(&sp, PARAM_FLOAT, v, G, 0);
    space_init(&csp);
    space_add_range(&csp, PARAM_FLOAT, 0, 1, 0);
    space_add_range(&csp, PARAM_FLOAT, 0, 1, 0);
    for (int i = 0; i < G; i++)
        for (int j = 0; j < G; j++) {
            cand[(i * G + j) * 2] = v[i];
            cand[(i * G + j) * 2 + 1] = v[j];
        }
    for (size_t i = 0; i < N; i++)
        obj2(cand + 2 * i, y + 2 * i);
    n_front = pareto_front(y, N, 2, sense2, idx);
    for (size_t i = 0; i < n_front; i++)
        in_front[idx[i]] = 1;
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    space_cleanup(&sp);
    space_cleanup(&csp);
    return 0;
}

/* A free candidate uniformly at random (the caller's fallback). */
static size_t
random_free(struct rng *r, const unsigned char *used)
{
    size_t k, free_n = 0;
    for (size_t i = 0; i < N; i++)
        free_n += !used[i];
    k = (size_t)rng_below(r, free_n);
    for (size_t i = 0; i < N; i++)
        if (!used[i] && k-- == 0)
            return i;
    return N;
}

/* A sequential 2-objective study on the grid. */
struct study {
    unsigned char used[N];
    double obs_raw[N * 2], obs_y[N * 5], ref[3];
    size_t obs_cand[N], n;
};

static void
study_add(struct study *s, size_t c, size_t m)
{
    s->used[c] = 1;
    memcpy(s->obs_raw + 2 * s->n, cand + 2 * c, 2 * sizeof(double));
    obj2(cand + 2 * c, s->obs_y + m * s->n);
    s->obs_cand[s->n++] = c;
}

/* One pending trial on a random free candidate of s, given to in (*pend
 * and praw[2] hold it). */
static void
pend_one(struct study *s, struct rng *r, size_t *pend, double *praw,
         struct mobo_input *in)
{
    *pend = random_free(r, s->used);
    s->used[*pend] = 1;
    memcpy(praw, cand + 2 * *pend, 2 * sizeof *praw);
    in->pend_raw = praw;
    in->pend_cand = pend;
    in->n_pend = 1;
}

static struct mobo_input
study_input(struct study *s, int surrogate, unsigned long long seed)
{
    /* The reference point the handler would derive: the worst observed
     * value of each objective minus 10% of its range. */
    pareto_reference(s->obs_y, s->n, 2, sense2, 0.1, s->ref);
    struct mobo_input in = {.space = &sp,
                            .surrogate = surrogate,
                            .kernel = KERNEL_MATERN52,
                            .seed = seed,
                            .seq = (int)s->n,
                            .cand_raw = cand,
                            .cand_used = s->used,
                            .n_cand = N,
                            .m = 2,
                            .ref = s->ref,
                            .obs_raw = s->obs_raw,
                            .obs_y = s->obs_y,
                            .obs_cand = s->obs_cand,
                            .n_obs = s->n};
    return in;
}

/*
 * Evaluations until every point of the Pareto set has been evaluated (or
 * limit + 1): 3 random initial rows, then mobo_next (random when it
 * answers HPOD_ENUMERIC). order (may be NULL) receives the choices.
 */
static size_t
run_front(int surrogate, unsigned long long seed, size_t limit, size_t *order)
{
    struct study *s = calloc(1, sizeof *s);
    struct rng r;
    size_t found = 0, done = limit + 1;
    rng_seed(&r, seed);
    for (size_t t = 0; t < limit && done > limit; t++) {
        size_t c = N;
        double raw[2];
        if (t >= 3) {
            struct mobo_input in = study_input(s, surrogate, seed);
            enum hpod_status st = mobo_next(&in, raw, &c);
            assert_true(st == HPOD_OK || st == HPOD_ENUMERIC);
            if (st == HPOD_OK) {
                assert_true(c < N);
                assert_false(s->used[c]);
                assert_memory_equal(raw, cand + 2 * c, sizeof raw);
            } else {
                c = N;
            }
        }
        if (c == N)
            c = random_free(&r, s->used);
        study_add(s, c, 2);
        if (order)
            order[t] = c;
        found += in_front[c];
        if (found == n_front)
            done = t + 1;
    }
    free(s);
    return done;
}

/* Constrained metric: feasible iff x <= 0.5, i.e. the left half. */
static double
con_left(const double *raw)
{
    return 3.0 * (raw[0] - 0.5) + 0.2 * raw[1];
}

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

/*
 * Expected evaluations for random search to have seen all k points of a
 * set among n: the last of them sits at k(n+1)/(k+1) in a random order.
 */
static double
random_expected(size_t k, size_t n)
{
    return (double)k * (double)(n + 1) / (double)(k + 1);
}

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

static void
test_feasibility(void **state)
{
    (void)state;
    struct study s = {0};
    struct rng r;
    double obs_c[20], cmax = 0.1; /* 3(x - 0.5) + 0.2y <= 0.1 */
    double u[6] = {0.0, 0.5, 1.0, 0.5, 0.1, 0.2}, p[3];
    rng_seed(&r, 7);
    struct mobo_input in = study_input(&s, MOBO_SURROGATE_GP, 2);
    in.n_con = 1;
    in.obs_c = obs_c;
    in.con_max = &cmax;

    /* No report of the metric: nothing is known, P = 1. */
    assert_int_equal(mobo_feasibility(&in, u, 3, p), HPOD_OK);
    for (int i = 0; i < 3; i++)
        assert_close(p[i], 1.0, 0, 0);
    /* n_con = 0: P = 1 too. */
    in.n_con = 0;
    assert_int_equal(mobo_feasibility(&in, u, 3, p), HPOD_OK);
    assert_close(p[2], 1.0, 0, 0);
    in.n_con = 1;

    /* One report, at (0.1, 0.2), well feasible (-1.16): P there ~ 1. */
    study_add(&s, 1 * G + 2, 2);
    obs_c[0] = con_left(cand + 2 * (1 * G + 2));
    in = study_input(&s, MOBO_SURROGATE_GP, 2);
    in.n_con = 1;
    in.obs_c = obs_c;
    in.con_max = &cmax;
    assert_int_equal(mobo_feasibility(&in, u + 4, 1, p), HPOD_OK);
    assert_true(p[0] > 0.8);

    /* Twenty reports: P ~ 1 deep in the left half, ~ 0 deep in the right. */
    for (size_t t = 1; t < 20; t++) {
        size_t c = random_free(&r, s.used);
        study_add(&s, c, 2);
        obs_c[t] = con_left(cand + 2 * c);
    }
    in = study_input(&s, MOBO_SURROGATE_GP, 2);
    in.n_con = 1;
    in.obs_c = obs_c;
    in.con_max = &cmax;
    assert_int_equal(mobo_feasibility(&in, u, 3, p), HPOD_OK);
    print_message("P(feasible) at x = 0, 1, 0.1: %.3g %.3g %.3g\n", p[0], p[1],
                  p[2]);
    assert_true(p[0] > 0.99);
    assert_true(p[1] < 0.01);
    assert_true(p[2] > 0.99);

    /* An impossible bound on a log metric: P = 0 everywhere. */
    unsigned char lg = 1;
    for (size_t t = 0; t < 20; t++)
        obs_c[t] = exp(obs_c[t]);
    cmax = -1;
    in.con_log = &lg;
    assert_int_equal(mobo_feasibility(&in, u, 3, p), HPOD_OK);
    for (int i = 0; i < 3; i++)
        assert_close(p[i], 0.0, 0, 0);

    /* mobo_front keeps only the trials that meet the constraint. */
    size_t idx[N], nf;
    cmax = exp(0.1);
    in.con_log = NULL;
    assert_int_equal(mobo_front(&in, idx, &nf), HPOD_OK);
    assert_true(nf >= 1);
    for (size_t i = 0; i < nf; i++)
        assert_true(obs_c[idx[i]] <= cmax);
}

static void
test_log_constraint(void **state)
{
    (void)state;
    /* A positive "time" spanning three orders of magnitude: exp(8x + y). */
    struct study s = {0};
    struct rng r;
    double t_obs[16], l_obs[16], u[4] = {0.05, 0.5, 0.95, 0.5}, p[2], q[2];
    double tmax = exp(4.5), lmax = 4.5;
    unsigned char lg = 1;
    rng_seed(&r, 11);
    for (size_t t = 0; t < 16; t++) {
        size_t c = random_free(&r, s.used);
        study_add(&s, c, 2);
        l_obs[t] = 8 * cand[2 * c] + cand[2 * c + 1];
        t_obs[t] = exp(l_obs[t]);
    }
    struct mobo_input in = study_input(&s, MOBO_SURROGATE_GP, 9);
    in.n_con = 1;
    in.obs_c = t_obs;
    in.con_max = &tmax;
    in.con_log = &lg;
    assert_int_equal(mobo_feasibility(&in, u, 2, p), HPOD_OK);
    /* The same as a plain constraint on log(time) against log(max). */
    in.obs_c = l_obs;
    in.con_max = &lmax;
    in.con_log = NULL;
    assert_int_equal(mobo_feasibility(&in, u, 2, q), HPOD_OK);
    assert_close(p[0], q[0], 1e-12, 1e-300);
    assert_close(p[1], q[1], 1e-12, 1e-300);
    assert_true(p[0] > 0.99);
    assert_true(p[1] < 0.01);
    print_message("log time constraint: P = %.3g at x = 0.05, %.3g at 0.95\n",
                  p[0], p[1]);
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
        assert_int_equal(mobo_fit_point(n), want);
    }
    assert_true(mobo_fit_point(1000) < 1000);
}

/* The choice and its score (explain) of one mobo_next call; its status. */
static enum hpod_status
choose_status(struct mobo_input *in, size_t *ch, double *acq)
{
    struct sampler_explain ex = {0};
    double raw[2];
    enum hpod_status st;
    in->explain = &ex;
    st = mobo_next(in, raw, ch);
    *acq = ex.pick.acq;
    in->explain = NULL;
    sampler_explain_clear(&ex);
    return st;
}

static void
choose_explained(struct mobo_input *in, size_t *ch, double *acq)
{
    assert_int_equal(choose_status(in, ch, acq), HPOD_OK);
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
                mobo_state_destroy(ms);
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
        mobo_state_destroy(ms);
        free(s);
    }
    mobo_state_destroy(NULL);
}

/* Brute-force kNN membership: i is among the k nearest free candidates
 * of c iff fewer than k free j come before it in (distance, index). */
static int
knn_member(const double *u, size_t n, const unsigned char *used, size_t c,
           size_t i, size_t k)
{
    double di = hypot(u[2 * i] - u[2 * c], u[2 * i + 1] - u[2 * c + 1]);
    size_t before = 0;
    if (used[i])
        return 0;
    for (size_t j = 0; j < n; j++) {
        double dj = hypot(u[2 * j] - u[2 * c], u[2 * j + 1] - u[2 * c + 1]);
        if (used[j] || j == i)
            continue;
        before += dj * dj < di * di || (dj * dj == di * di && j < i);
    }
    return before < k;
}

static void
test_trust_region_knn(void **state)
{
    (void)state;
    struct rng r;
    unsigned char used[N], mask[N];
    size_t centre[4] = {5, 77, 140, 20};
    rng_seed(&r, 3);
    for (size_t i = 0; i < N; i++)
        used[i] = rng_below(&r, 4) == 0;
    for (size_t k = 1; k <= 13; k += 4) {
        size_t marked = mobo_trust_region(cand, N, 2, used, centre, 4, k, mask);
        size_t cnt = 0;
        for (size_t i = 0; i < N; i++) {
            int want = 0;
            for (int f = 0; f < 4; f++)
                want |= knn_member(cand, N, used, centre[f], i, k);
            assert_int_equal(mask[i], want);
            cnt += want;
        }
        assert_int_equal(marked, cnt);
        /* The grid has ties: every centre still gets exactly k. */
        assert_true(cnt >= k && cnt <= 4 * k);
    }
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

/* Brute force: free candidate i differs from centre c in exactly one of
 * the np raw values. */
static int
one_step(const double *raw, size_t np, const unsigned char *used, size_t c,
         size_t i)
{
    size_t dif = 0;
    if (used[i])
        return 0;
    for (size_t t = 0; t < np; t++)
        dif += raw[i * np + t] != raw[c * np + t];
    return dif == 1;
}

/*
 * mobo_step_region against brute force on random candidates of a space
 * with a value list, an integer range and a categorical (repeated rows
 * and used candidates included), and on the grid: there one step is the
 * same row or the same column.
 */
static void
test_step_region_brute(void **state)
{
    (void)state;
    struct space s3;
    struct rng r;
    enum { NC = 90 };
    double raw[NC * 3], vals[4] = {1e-4, 3e-4, 1e-3, 3e-3};
    unsigned char used[NC], mask[NC];
    size_t centre[5], total = 0;
    space_init(&s3);
    assert_int_equal(space_add_values(&s3, PARAM_FLOAT, vals, 4, 1), HPOD_OK);
    assert_int_equal(space_add_range(&s3, PARAM_INT, 1, 6, 0), HPOD_OK);
    assert_int_equal(space_add_categorical(&s3, 3), HPOD_OK);
    rng_seed(&r, 11);
    for (int rep = 0; rep < 20; rep++) {
        for (size_t i = 0; i < NC; i++) {
            raw[3 * i] = vals[rng_below(&r, 4)];
            raw[3 * i + 1] = (double)(1 + rng_below(&r, 6));
            raw[3 * i + 2] = (double)rng_below(&r, 3);
            used[i] = rng_below(&r, 3) == 0;
        }
        size_t nf = 1 + (size_t)rep % 5, cnt = 0;
        for (size_t f = 0; f < nf; f++)
            centre[f] = rng_below(&r, NC);
        size_t marked = mobo_step_region(&s3, raw, NC, used, centre, nf, mask);
        for (size_t i = 0; i < NC; i++) {
            int want = 0;
            for (size_t f = 0; f < nf; f++)
                want |= one_step(raw, 3, used, centre[f], i);
            assert_int_equal(mask[i], want);
            cnt += want;
        }
        assert_int_equal(marked, cnt);
        total += cnt;
    }
    assert_true(total > 0);
    space_cleanup(&s3);
    /* The grid: candidate c = row·G + column. */
    unsigned char gused[N], gmask[N];
    memset(gused, 0, sizeof gused);
    gused[5 * G + 7] = 1; /* a used neighbour of the centre */
    centre[0] = 5 * G + 5;
    size_t gm = mobo_step_region(&sp, cand, N, gused, centre, 1, gmask);
    assert_int_equal(gm, 2 * (G - 1) - 1);
    for (size_t c = 0; c < N; c++)
        assert_int_equal(gmask[c], c != centre[0] && !gused[c] &&
                                       (c / G == 5 || c % G == 5));
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

/*
 * mobo_blend against its closed form (the average of the means, the root
 * of the average of the variances), in place too.
 */
static void
test_blend_closed_form(void **state)
{
    (void)state;
    double ma[3] = {1.0, -2.0, 0.5}, sa[3] = {0.0, 3.0, 1.0};
    double mb[3] = {3.0, 2.0, 0.5}, sb[3] = {2.0, 4.0, 1.0};
    double mu[3], sd[3];
    mobo_blend(ma, sa, mb, sb, 3, mu, sd);
    assert_true(fabs(mu[0] - 2.0) < 1e-15 && fabs(sd[0] - sqrt(2.0)) < 1e-15);
    assert_true(fabs(mu[1] - 0.0) < 1e-15 && fabs(sd[1] - sqrt(12.5)) < 1e-14);
    assert_true(fabs(mu[2] - 0.5) < 1e-15 && fabs(sd[2] - 1.0) < 1e-15);
    mobo_blend(ma, sa, mb, sb, 3, ma, sa); /* aliased output */
    for (int i = 0; i < 3; i++)
        assert_true(ma[i] == mu[i] && sa[i] == sd[i]);
}

/*
 * gp_blend (graph surrogate; the first objective and every objective on
 * alternate steps): a state kept across a sequential study with
 * pending trials chooses as a cold call (same pick, acquisition to 1e-8);
 * the blend changes some picks of plain graph EHVI; the GP surrogate
 * ignores it (identical picks); a continuous graph study with it chooses
 * a point, the same twice; a value outside enum mobo_blend is
 * HPOD_EINVAL.
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
        in.gp_blend = t % 2 ? MOBO_BLEND_FIRST : MOBO_BLEND_ALL;
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
            gi.gp_blend = MOBO_BLEND_ALL;
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
        in.gp_blend = MOBO_BLEND_ALL;
        assert_int_equal(mobo_next(&in, r1, &ch), HPOD_OK);
        assert_int_equal(mobo_next(&in, r2, &ch), HPOD_OK);
        assert_true(r1[0] == r2[0] && r1[1] == r2[1]);
        in.gp_blend = MOBO_BLEND_ALL + 1;
        assert_int_equal(mobo_next(&in, r1, &ch), HPOD_EINVAL);
        in.gp_blend = -1;
        assert_int_equal(mobo_next(&in, r1, &ch), HPOD_EINVAL);
    }
    mobo_state_destroy(ms);
    free(s);
}

/*
 * log_objectives on a positive objective y0 = e^{a} and on a negated
 * positive one y1 = -e^{-b} chooses as plain EHVI on (a, b) with the
 * reference mapped alike; an objective with values of both signs keeps
 * its raw model; a reference of the wrong sign still gives a choice.
 */
static void
test_log_objectives(void **state)
{
    (void)state;
    struct study *s = calloc(1, sizeof *s);
    struct rng r;
    double ylog[N * 2], ref[2], refl[2], raw[2], shifted[N * 2];
    size_t ca, cb;
    double aa, ab;
    rng_seed(&r, 4);
    for (int t = 0; t < 30; t++)
        study_add(s, random_free(&r, s->used), 2);
    for (int sg = 0; sg < 2; sg++) {
        struct mobo_input in = study_input(s, sg, 9);
        memcpy(refl, in.ref, sizeof refl);
        for (size_t i = 0; i < s->n; i++) {
            ylog[2 * i] = exp(s->obs_y[2 * i]);
            ylog[2 * i + 1] = -exp(-s->obs_y[2 * i + 1]);
        }
        ref[0] = exp(refl[0]);
        ref[1] = -exp(-refl[1]);
        choose_explained(&in, &ca, &aa);
        in.obs_y = ylog;
        in.ref = ref;
        in.log_objectives = 1;
        choose_explained(&in, &cb, &ab);
        assert_int_equal(ca, cb);
        assert_true(fabs(aa - ab) <= 1e-6 * fmax(1.0, fabs(aa)));
        /* Without the log, the same values choose otherwise or score
         * otherwise: the option is not a no-op. */
        in.log_objectives = 0;
        choose_explained(&in, &cb, &ab);
        assert_true(cb != ca || fabs(aa - ab) > 1e-6);
        /* Mixed signs: the raw model, as without the option. */
        for (size_t i = 0; i < 2 * s->n; i++)
            shifted[i] = s->obs_y[i] + 0.3;
        in.obs_y = shifted;
        in.ref = refl;
        choose_explained(&in, &ca, &aa);
        in.log_objectives = 1;
        choose_explained(&in, &cb, &ab);
        assert_int_equal(ca, cb);
        assert_true(fabs(aa - ab) <= 1e-12 * fmax(1.0, fabs(aa)));
        /* A reference of the other sign (0 has no log). */
        in.obs_y = ylog;
        ref[0] = 0;
        in.ref = ref;
        choose_explained(&in, &cb, &ab);
        assert_true(isfinite(ab));
        assert_int_equal(mobo_next(&in, raw, &cb), HPOD_OK);
    }
    /* mobo_feasibility reads no objectives: obs_y may be NULL (the
     * one-column inputs of study/constraints.c), log_objectives or not. */
    double oc[30], cmax = 0.0, u[2] = {0.2, 0.4}, pf;
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
                             .con_max = &cmax,
                             .log_objectives = 1};
    assert_int_equal(mobo_feasibility(&fin, u, 1, &pf), HPOD_OK);
    assert_true(pf > 0.5 && pf <= 1);
    free(s);
}

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
        cmocka_unit_test(test_input_errors),
        cmocka_unit_test(test_determinism_and_free_choices),
        cmocka_unit_test(test_gp_finds_front),
        cmocka_unit_test(test_graph_finds_front),
        cmocka_unit_test(test_decoupled_reports),
        cmocka_unit_test(test_feasibility),
        cmocka_unit_test(test_log_constraint),
        cmocka_unit_test(test_constrained_single_objective),
        cmocka_unit_test(test_constrained_two_objectives),
        cmocka_unit_test(test_ehvi_times_feasibility),
        cmocka_unit_test(test_continuous_and_pending),
        cmocka_unit_test(test_three_objectives_monte_carlo),
        cmocka_unit_test(test_five_objectives_scalarized),
        cmocka_unit_test(test_low_outliers_capped),
        cmocka_unit_test(test_fit_point_schedule),
        cmocka_unit_test(test_state_warm_equals_cold),
        cmocka_unit_test(test_trust_region_knn),
        cmocka_unit_test(test_trust_region_pick),
        cmocka_unit_test(test_step_region_brute),
        cmocka_unit_test(test_step_region_pick),
        cmocka_unit_test(test_log_objectives),
        cmocka_unit_test(test_front_reference),
        cmocka_unit_test(test_blend_closed_form),
        cmocka_unit_test(test_gp_blend),
        cmocka_unit_test(test_greedy_brute_force),
        cmocka_unit_test(test_greedy_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
