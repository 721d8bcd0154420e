/*
 * tests/unit/test_acqopt.c - the acquisition optimizer: the argmax of a
 * smooth function known in closed form, refinement never worse than the
 * random draw (brute force over the drawn points), determinism for a seed,
 * the batches the callback sees, -Inf and NaN scores, failures, and legal
 * (snapped) points on an integer parameter.
 */
#include "tests/support/check.h"
#include "tests/support/budget.h"

#include <stdlib.h>
#include <string.h>

#include "core/acqopt.h"
#include "core/rng.h"
#include "core/space.h"

/* f(u) = -Σ_k (u_k - c_k)²: argmax c, f(c) = 0. */
struct quad {
    const double *c;
    size_t dim;
    size_t calls, first_expected, batch[16];
};

static enum hpod_status
quad_score(void *ctx, const double *u, size_t first, size_t k, double *score)
{
    struct quad *q = ctx;
    assert_int_equal(first, q->first_expected);
    if (q->calls < 16)
        q->batch[q->calls] = k;
    q->calls++;
    q->first_expected = first + k;
    for (size_t i = 0; i < k; i++) {
        double s = 0;
        for (size_t d = 0; d < q->dim; d++) {
            double e = u[i * q->dim + d] - q->c[d];
            s -= e * e;
        }
        score[i] = s;
    }
    return HPOD_OK;
}

static void
unit_square(struct space *sp)
{
    space_init(sp);
    assert_int_equal(space_add_range(sp, PARAM_FLOAT, 0, 1, 0), HPOD_OK);
    assert_int_equal(space_add_range(sp, PARAM_FLOAT, 0, 1, 0), HPOD_OK);
}

static void
test_quadratic_argmax(void **state)
{
    (void)state;
    const double c[2] = {0.3, 0.7};
    struct space sp;
    struct acqopt_ws ws;
    struct quad q = {c, 2, 0, 0, {0}};
    struct rng r;
    size_t best;
    double drawn_best = -INFINITY;

    unit_square(&sp);
    acqopt_ws_init(&ws, &sp);
    assert_int_equal(ws.cap, acqopt_capacity());
    rng_seed(&r, 12);
    assert_int_equal(acqopt_draw(&ws, &sp, &r), HPOD_OK);
    assert_int_equal(acqopt_run(&ws, &sp, &r, quad_score, &q, NULL, &best),
                     HPOD_OK);
    /* The random points in chunks of ACQOPT_CHUNK, then one batch per
     * round of TOP × PER. */
    size_t nch = (ACQOPT_N_RANDOM + ACQOPT_CHUNK - 1) / ACQOPT_CHUNK;
    assert_int_equal(q.calls, nch + ACQOPT_REFINE_STEPS);
    for (size_t i = 0; i < nch; i++)
        assert_int_equal(q.batch[i],
                         i + 1 < nch
                             ? ACQOPT_CHUNK
                             : ACQOPT_N_RANDOM - (nch - 1) * ACQOPT_CHUNK);
    for (size_t i = nch; i < nch + ACQOPT_REFINE_STEPS; i++)
        assert_int_equal(q.batch[i], ACQOPT_REFINE_TOP * ACQOPT_REFINE_PER);
    assert_int_equal(ws.n, acqopt_capacity());
    /* Brute force: the argmax over every point scored, and the best of the
     * random draw alone, which refinement can only improve on. */
    for (size_t i = 0; i < ws.n; i++)
        assert_true(ws.score[i] <= ws.score[best]);
    for (size_t i = 0; i < ACQOPT_N_RANDOM; i++)
        drawn_best = fmax(drawn_best, ws.score[i]);
    assert_true(ws.score[best] >= drawn_best);
    /* 2000 uniform points leave ~0.01 to the optimum; three rounds of
     * steps 0.1, 0.05, 0.025 close most of it. */
    assert_close(ws.u[best * 2], c[0], 0, 0.01);
    assert_close(ws.u[best * 2 + 1], c[1], 0, 0.01);
    assert_true(ws.score[best] > -1e-4);
    acqopt_ws_clear(&ws);
    space_clear(&sp);
}

static void
run_seeded(struct acqopt_ws *ws, const struct space *sp, uint64_t seed,
           size_t *best)
{
    const double c[2] = {0.8, 0.1};
    struct quad q = {c, 2, 0, 0, {0}};
    struct rng r;
    rng_seed(&r, seed);
    assert_int_equal(acqopt_draw(ws, sp, &r), HPOD_OK);
    assert_int_equal(acqopt_run(ws, sp, &r, quad_score, &q, NULL, best),
                     HPOD_OK);
}

static void
test_deterministic_and_reusable(void **state)
{
    (void)state;
    struct space sp;
    struct acqopt_ws a, b;
    size_t ba, bb, n;
    double *u;

    unit_square(&sp);
    acqopt_ws_init(&a, &sp);
    acqopt_ws_init(&b, &sp);
    run_seeded(&a, &sp, 7, &ba);
    n = a.n;
    u = malloc(n * 2 * sizeof *u);
    memcpy(u, a.u, n * 2 * sizeof *u);
    /* The same seed in a fresh workspace and in a reused one. */
    run_seeded(&b, &sp, 7, &bb);
    assert_int_equal(ba, bb);
    assert_int_equal(b.n, n);
    assert_memory_equal(b.u, u, n * 2 * sizeof *u);
    run_seeded(&a, &sp, 7, &bb);
    assert_int_equal(ba, bb);
    assert_memory_equal(a.u, u, n * 2 * sizeof *u);
    /* Another seed draws other points. */
    run_seeded(&b, &sp, 8, &bb);
    assert_true(memcmp(b.u, u, ACQOPT_N_RANDOM * 2 * sizeof *u) != 0);
    free(u);
    acqopt_ws_clear(&a);
    acqopt_ws_clear(&b);
    acqopt_ws_clear(&b); /* freeing twice is safe */
    space_clear(&sp);
}

/* -Inf everywhere but at odd indices of the draw, which are NaN. */
static enum hpod_status
hopeless_score(void *ctx, const double *u, size_t first, size_t k,
               double *score)
{
    size_t *calls = ctx;
    (void)u;
    (*calls)++;
    for (size_t i = 0; i < k; i++)
        score[i] = (first + i) % 2 ? NAN : -INFINITY;
    return HPOD_OK;
}

static void
test_no_direction(void **state)
{
    (void)state;
    struct space sp;
    struct acqopt_ws ws;
    struct rng r;
    size_t best, calls = 0;

    unit_square(&sp);
    acqopt_ws_init(&ws, &sp);
    rng_seed(&r, 3);
    assert_int_equal(acqopt_draw(&ws, &sp, &r), HPOD_OK);
    assert_int_equal(
        acqopt_run(&ws, &sp, &r, hopeless_score, &calls, NULL, &best), HPOD_OK);
    /* Nothing to refine around: the draw alone (in its chunks), argmax
     * the first -Inf. */
    assert_int_equal(calls,
                     (ACQOPT_N_RANDOM + ACQOPT_CHUNK - 1) / ACQOPT_CHUNK);
    assert_int_equal(ws.n, ACQOPT_N_RANDOM);
    assert_int_equal(best, 0);
    acqopt_ws_clear(&ws);
    space_clear(&sp);
}

static enum hpod_status
failing_score(void *ctx, const double *u, size_t first, size_t k, double *score)
{
    (void)ctx;
    (void)u;
    for (size_t i = 0; i < k; i++)
        score[i] = (double)(first + i);
    return first > 0 ? HPOD_ENUMERIC : HPOD_OK;
}

static void
test_failures(void **state)
{
    (void)state;
    struct space sp, other;
    struct acqopt_ws ws;
    struct rng r;
    size_t best;

    unit_square(&sp);
    space_init(&other);
    assert_int_equal(space_add_categorical(&other, 3), HPOD_OK);
    acqopt_ws_init(&ws, &sp);
    rng_seed(&r, 1);
    /* Not drawn yet; a space of another dimension; NULL arguments. */
    assert_int_equal(acqopt_run(&ws, &sp, &r, failing_score, NULL, NULL, &best),
                     HPOD_EINVAL);
    assert_int_equal(acqopt_draw(&ws, &other, &r), HPOD_EINVAL);
    assert_int_equal(acqopt_draw(NULL, &sp, &r), HPOD_EINVAL);
    assert_int_equal(acqopt_draw(&ws, &sp, &r), HPOD_OK);
    assert_int_equal(acqopt_run(&ws, &sp, &r, NULL, NULL, NULL, &best),
                     HPOD_EINVAL);
    /* The callback's failure after its first chunk is returned, and the
     * workspace must be drawn again. */
    assert_int_equal(acqopt_run(&ws, &sp, &r, failing_score, NULL, NULL, &best),
                     HPOD_ENUMERIC);
    assert_int_equal(acqopt_run(&ws, &sp, &r, failing_score, NULL, NULL, &best),
                     HPOD_EINVAL);
    acqopt_ws_clear(&ws);
    space_clear(&sp);
    space_clear(&other);
}

/* Larger is better towards the integer 7 of [1, 10] and a float 0.25. */
static enum hpod_status
int_score(void *ctx, const double *u, size_t first, size_t k, double *score)
{
    const struct space *sp = ctx;
    double raw[2];
    (void)first;
    for (size_t i = 0; i < k; i++) {
        space_decode(sp, u + i * sp->dim, raw);
        score[i] = -fabs(raw[0] - 7) - fabs(raw[1] - 0.25);
    }
    return HPOD_OK;
}

static void
test_integer_snapped(void **state)
{
    (void)state;
    struct space sp;
    struct acqopt_ws ws;
    struct rng r;
    size_t best;
    double raw[2];

    space_init(&sp);
    assert_int_equal(space_add_range(&sp, PARAM_INT, 1, 10, 0), HPOD_OK);
    assert_int_equal(space_add_range(&sp, PARAM_FLOAT, 0, 1, 0), HPOD_OK);
    acqopt_ws_init(&ws, &sp);
    rng_seed(&r, 99);
    assert_int_equal(acqopt_draw(&ws, &sp, &r), HPOD_OK);
    assert_int_equal(acqopt_run(&ws, &sp, &r, int_score, &sp, NULL, &best),
                     HPOD_OK);
    for (size_t i = 0; i < ws.n; i++) {
        space_decode(&sp, ws.u + i * sp.dim, raw);
        assert_true(space_contains(&sp, 0, raw[0]));
        assert_true(space_contains(&sp, 1, raw[1]));
    }
    space_decode(&sp, ws.u + best * sp.dim, raw);
    assert_close(raw[0], 7, 0, 0);
    assert_close(raw[1], 0.25, 0, 0.01);
    acqopt_ws_clear(&ws);
    space_clear(&sp);
}

/*
 * A budget that runs out after k checks: the run scores the first k + 1
 * chunks of the draw (no refinement) and answers their argmax, which is
 * brute force over those points; once the draw is scored, each further
 * check allows one round of refinement. A budget that never runs out
 * gives the unbudgeted run's points and answer.
 */
static void
test_budget(void **state)
{
    (void)state;
    const double c[2] = {0.8, 0.1};
    struct space sp;
    struct acqopt_ws ws, full;
    struct rng r;
    size_t best, fbest,
        nch = (ACQOPT_N_RANDOM + ACQOPT_CHUNK - 1) / ACQOPT_CHUNK;

    unit_square(&sp);
    acqopt_ws_init(&ws, &sp);
    acqopt_ws_init(&full, &sp);
    run_seeded(&full, &sp, 5, &fbest);
    for (int k = 0; k <= (int)nch + 1; k++) {
        int left = k;
        struct compute_budget b = {budget_spent_after, &left, 0};
        struct quad q = {c, 2, 0, 0, {0}};
        rng_seed(&r, 5);
        assert_int_equal(acqopt_draw(&ws, &sp, &r), HPOD_OK);
        assert_int_equal(acqopt_run(&ws, &sp, &r, quad_score, &q, &b, &best),
                         HPOD_OK);
        size_t chunks = (size_t)k + 1 < nch ? (size_t)k + 1 : nch;
        size_t rounds = (size_t)k + 1 > nch ? (size_t)k + 1 - nch : 0;
        size_t want_n = chunks * ACQOPT_CHUNK < ACQOPT_N_RANDOM
                            ? chunks * ACQOPT_CHUNK
                            : ACQOPT_N_RANDOM + rounds * ACQOPT_REFINE_TOP *
                                                    ACQOPT_REFINE_PER;
        assert_int_equal(ws.n, want_n);
        assert_int_equal(b.cuts, 1);
        /* The same points as the unbudgeted run, as far as they go. */
        assert_memory_equal(ws.u, full.u, ws.n * 2 * sizeof *ws.u);
        assert_memory_equal(ws.score, full.score, ws.n * sizeof *ws.score);
        size_t brute = 0;
        for (size_t i = 1; i < ws.n; i++)
            if (ws.score[i] > ws.score[brute])
                brute = i;
        assert_int_equal(best, brute);
    }
    /* Never spent: the unbudgeted answer, bit for bit. */
    int left = 1000;
    struct compute_budget never = {budget_spent_after, &left, 0};
    struct quad q = {c, 2, 0, 0, {0}};
    rng_seed(&r, 5);
    assert_int_equal(acqopt_draw(&ws, &sp, &r), HPOD_OK);
    assert_int_equal(acqopt_run(&ws, &sp, &r, quad_score, &q, &never, &best),
                     HPOD_OK);
    assert_int_equal(best, fbest);
    assert_int_equal(ws.n, full.n);
    assert_memory_equal(ws.u, full.u, ws.n * 2 * sizeof *ws.u);
    assert_int_equal(never.cuts, 0);
    acqopt_ws_clear(&ws);
    acqopt_ws_clear(&full);
    space_clear(&sp);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quadratic_argmax),
        cmocka_unit_test(test_deterministic_and_reusable),
        cmocka_unit_test(test_no_direction),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_integer_snapped),
    };
    return cmocka_run_group_tests_name("acqopt", tests, NULL, NULL);
}
