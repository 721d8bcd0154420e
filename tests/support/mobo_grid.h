/*
 * tests/support/mobo_grid.h - the fixtures the multi-objective tests share
 * (test_mobo*.c, test_trust_region.c): the 12 × 12 grid with two
 * conflicting objectives and its Pareto set, the continuous unit square,
 * a study's history built trial by trial, and sequential runs.
 */
#ifndef HPOD_TEST_MOBO_GRID_H
#define HPOD_TEST_MOBO_GRID_H

#include <stdlib.h>
#include <string.h>

#include "core/gp.h"
#include "core/kernels.h"
#include "core/mobo.h"
#include "core/pareto.h"
#include "core/rng.h"
#include "core/sampler.h"
#include "tests/support/check.h"

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
static inline void
obj2(const double *raw, double *y)
{
    double a = raw[0] - 0.2, b = raw[1] - 0.3;
    double c = raw[0] - 0.8, d = raw[1] - 0.7;
    y[0] = -(a * a + b * b);
    y[1] = -2.5 * (c * c + 0.6 * d * d);
}

static inline int
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

static inline int
teardown(void **state)
{
    (void)state;
    space_clear(&sp);
    space_clear(&csp);
    return 0;
}

/* A free candidate uniformly at random (the caller's fallback). */
static inline size_t
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

static inline void
study_add(struct study *s, size_t c, size_t m)
{
    s->used[c] = 1;
    memcpy(s->obs_raw + 2 * s->n, cand + 2 * c, 2 * sizeof(double));
    obj2(cand + 2 * c, s->obs_y + m * s->n);
    s->obs_cand[s->n++] = c;
}

/* One pending trial on a random free candidate of s, given to in (*pend
 * and praw[2] hold it). */
static inline void
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

static inline struct mobo_input
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
static inline size_t
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
static inline double
con_left(const double *raw)
{
    return 3.0 * (raw[0] - 0.5) + 0.2 * raw[1];
}

/*
 * Expected evaluations for random search to have seen all k points of a
 * set among n: the last of them sits at k(n+1)/(k+1) in a random order.
 */
static inline double
random_expected(size_t k, size_t n)
{
    return (double)k * (double)(n + 1) / (double)(k + 1);
}

/* The choice and its score (explain) of one mobo_next call; its status. */
static inline enum hpod_status
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

static inline void
choose_explained(struct mobo_input *in, size_t *ch, double *acq)
{
    assert_int_equal(choose_status(in, ch, acq), HPOD_OK);
}

/* Brute-force kNN membership: i is among the k nearest free candidates
 * of c iff fewer than k free j come before it in (distance, index). */
static inline int
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

/* Brute force: free candidate i differs from centre c in exactly one of
 * the np raw values. */
static inline int
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

#endif
