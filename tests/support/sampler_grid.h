/*
 * tests/support/sampler_grid.h - the 12 × 12 grid the single-objective
 * sampler tests share (test_sampler.c, test_sampler_gp.c,
 * test_sampler_graph.c, test_hedge.c): 144 candidates in 2-D with a smooth
 * bump at (0.7, 0.3), a sequential run, a fixed history of observations
 * and the brute-force argsort an explanation is checked against.
 */
#ifndef HPOD_TEST_SAMPLER_GRID_H
#define HPOD_TEST_SAMPLER_GRID_H

#include <stdlib.h>
#include <string.h>

#include "core/kernels.h"
#include "core/rng.h"
#include "core/sampler.h"
#include "core/space.h"
#include "tests/support/check.h"
#include "tests/support/explain_check.h"

#define G 12 /* grid side: 144 candidates in 2-D */

static struct space sp;
static double cand[G * G * 2];

static inline double
objective(const double *raw)
{
    /* A smooth bump with its maximum at (0.7, 0.3) of the unit square. */
    double a = raw[0] - 0.7, b = raw[1] - 0.3;
    return exp(-(a * a + b * b) / 0.08) + 0.3 * raw[0];
}

static inline int
setup(void **state)
{
    (void)state;
    double v[G];
    for (int i = 0; i < G; i++)
        v[i] = (double)i / (G - 1);
    space_init(&sp);
    space_add_values(&sp, PARAM_FLOAT, v, G, 0);
    space_add_values(&sp, PARAM_FLOAT, v, G, 0);
    for (int i = 0; i < G; i++)
        for (int j = 0; j < G; j++) {
            cand[(i * G + j) * 2] = v[i];
            cand[(i * G + j) * 2 + 1] = v[j];
        }
    return 0;
}

static inline int
teardown(void **state)
{
    (void)state;
    space_clear(&sp);
    return 0;
}

/* Runs a sequential study; returns the evaluations needed to hit the best
 * candidate (or limit+1). seq_out (may be NULL) gets the order. */
static inline size_t
run(enum sampler_kind kind, int acq, unsigned long long seed, size_t limit,
    size_t *seq_out)
{
    size_t n = G * G, best = 0, found = limit + 1;
    unsigned char used[G * G] = {0};
    double obs_raw[G * G * 2], obs_y[G * G];
    size_t obs_cand[G * G];
    struct sampler_state *st = sampler_state_create();
    for (size_t i = 1; i < n; i++)
        if (objective(cand + 2 * i) > objective(cand + 2 * best))
            best = i;
    for (size_t t = 0; t < limit; t++) {
        struct sampler_input in = {.space = &sp,
                                   .kind = kind,
                                   .seed = seed,
                                   .seq = (int)t,
                                   .init = 3,
                                   .kernel = KERNEL_MATERN52,
                                   .acquisition = acq,
                                   .cand_raw = cand,
                                   .cand_used = used,
                                   .n_cand = n,
                                   .obs_raw = obs_raw,
                                   .obs_y = obs_y,
                                   .obs_cand = obs_cand,
                                   .n_obs = t,
                                   .state = st};
        double raw[2];
        size_t c;
        assert_int_equal(sampler_next(&in, raw, &c), HPOD_OK);
        assert_true(c < n);
        assert_false(used[c]);
        assert_memory_equal(raw, cand + 2 * c, sizeof raw);
        used[c] = 1;
        memcpy(obs_raw + 2 * t, raw, sizeof raw);
        obs_y[t] = objective(raw);
        obs_cand[t] = c;
        if (seq_out)
            seq_out[t] = c;
        if (c == best && found > limit)
            found = t + 1;
    }
    sampler_state_free(st);
    return found;
}

/* no observations at random candidates: test_gp_plugin_incumbent's noisy
 * history, or (rough) the objective plus a deterministic ripple, which
 * ML-II fits with short lengthscales and noise near its lower bound.
 * obs_cand, obs_raw, y and used filled. */
static inline void
history(size_t no, int rough, size_t *obs_cand, double *obs_raw, double *y,
        unsigned char *used)
{
    struct rng nr;
    rng_seed(&nr, 2);
    for (size_t i = 0; i < no; i++) {
        size_t c;
        do
            c = (size_t)rng_below(&nr, G * G);
        while (used[c]);
        used[c] = 1;
        obs_cand[i] = c;
        memcpy(obs_raw + 2 * i, cand + 2 * c, 2 * sizeof(double));
        y[i] = objective(cand + 2 * c) + 0.3 * rng_normal(&nr);
        if (rough)
            y[i] = objective(cand + 2 * c) +
                   0.3 * sin(9.0 * cand[2 * c] + 7.0 * cand[2 * c + 1]);
    }
}

/*
 * Graph EI and GP EI model ranks (core/sampler.c: graph EI's scores,
 * gp_model): a strictly increasing map of the observed values, with a
 * failed-run outlier, must not change the choice of `kind` with `kernel`,
 * with and without a pending point. On the raw values the outlier inflates
 * the scale and the choices differ.
 */
static inline void
check_rank_invariant(enum sampler_kind kind, int kernel)
{
    size_t obs_cand[8] = {3, 17, 40, 66, 90, 101, 120, 139};
    double obs_raw[16], y[8], y2[8], raw[2], praw[2];
    unsigned char used[G * G] = {0}, used2[G * G];
    size_t c1, c2, p1, p2;
    for (int i = 0; i < 8; i++) {
        memcpy(obs_raw + 2 * i, cand + 2 * obs_cand[i], 2 * sizeof(double));
        used[obs_cand[i]] = 1;
        y[i] = objective(cand + 2 * obs_cand[i]);
        y2[i] = exp(4.0 * y[i]) - 100.0;
    }
    y[5] = -30.0; /* an outlier, as a failed run */
    y2[5] = exp(4.0 * y[5]) - 100.0;
    struct sampler_input in = {.space = &sp,
                               .kind = kind,
                               .seed = 2,
                               .seq = 8,
                               .init = 3,
                               .kernel = kernel,
                               .acquisition = 0,
                               .cand_raw = cand,
                               .cand_used = used,
                               .n_cand = G * G,
                               .obs_raw = obs_raw,
                               .obs_y = y,
                               .obs_cand = obs_cand,
                               .n_obs = 8};
    assert_int_equal(sampler_next(&in, raw, &c1), HPOD_OK);
    in.obs_y = y2;
    assert_int_equal(sampler_next(&in, raw, &c2), HPOD_OK);
    assert_int_equal(c1, c2);
    assert_false(used[c1]);
    /* With c1 pending the choice moves, the same way for both. */
    memcpy(used2, used, sizeof used2);
    used2[c1] = 1;
    memcpy(praw, cand + 2 * c1, sizeof praw);
    in.cand_used = used2;
    in.pend_raw = praw;
    in.pend_cand = &c1;
    in.n_pend = 1;
    assert_int_equal(sampler_next(&in, raw, &p2), HPOD_OK);
    in.obs_y = y;
    assert_int_equal(sampler_next(&in, raw, &p1), HPOD_OK);
    assert_int_equal(p1, p2);
    assert_true(p1 != c1);
}

#endif
