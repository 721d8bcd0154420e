/*
 * tests/unit/test_decoupled_run.c - decoupled runs (tools/decoupled_run.h)
 * on a synthetic 50-row table: the budget, the probe-then-train order,
 * the failed probes never trained, random search, determinism and the
 * error paths.
 */
#include "tests/support/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/decoupled.h"
#include "tools/decoupled_run.h"
#include "core/kernels.h"
#include "core/mobo.h"
#include "tests/support/grid.h"

#define NROWS GRID_ROWS
#define NP GRID_PARAMS

struct table {
    struct space sp;
    double raw[NROWS * NP];
    double y[NROWS], c[NROWS], ref[1], cmax[1];
    unsigned char clog[1];
    struct simulate_mo_problem p;
};

/* The shared 5 × 10 grid (tests/support/grid.h): y peaks at row 24, the
 * constraint c grows with x0, with a rugged factor the GP cannot predict
 * well, so that the best feasible rows lie on an uncertain boundary
 * (c <= 6). */
static void
table_make(struct table *t)
{
    grid_make(&t->sp, t->raw, t->y, t->c);
    t->ref[0] = 0;
    t->cmax[0] = 6;
    t->clog[0] = 1;
    t->p = (struct simulate_mo_problem){
        &t->sp, t->raw, NROWS, 1, t->y, t->ref, 1, t->c, t->cmax, t->clog};
}

/* Checks one run's events against the rules of decoupled_run. */
static double
check_events(const struct table *t, const size_t *rows,
             const unsigned char *kinds, size_t ne, double cost, size_t init)
{
    unsigned char probed[NROWS] = {0}, trained[NROWS] = {0};
    double spent = 0;
    for (size_t i = 0; i < ne; i++) {
        size_t r = rows[i];
        assert_true(r < NROWS);
        assert_false(trained[r]);
        if (kinds[i] == DECOUPLED_PROBE) {
            assert_true(i >= init);
            assert_false(probed[r]);
            probed[r] = 1;
            spent += cost;
            /* A passing probe is trained at once (unless the budget
             * ends there); a failing one never. */
            if (t->c[r] <= t->cmax[0] && i + 1 < ne) {
                assert_int_equal(rows[i + 1], r);
                assert_int_equal(kinds[i + 1], DECOUPLED_TRAIN);
            }
        } else {
            assert_int_equal(kinds[i], DECOUPLED_TRAIN);
            if (probed[r])
                assert_true(t->c[r] <= t->cmax[0]);
            trained[r] = 1;
            spent += 1;
        }
    }
    return spent;
}

static void
test_runs(void **state)
{
    (void)state;
    static struct table t;
    table_make(&t);
    unsigned char dec[1] = {1};
    double cost[1] = {0.1};
    size_t rows[2 * NROWS], rows2[2 * NROWS], ne = 0, ne2 = 0;
    unsigned char kinds[2 * NROWS], kinds2[2 * NROWS];
    struct simulate_mo_algo bo = {
        0, MOBO_SURROGATE_GP, KERNEL_MATERN52, 0, 0, 0, 0};
    struct simulate_mo_algo rs = {
        1, MOBO_SURROGATE_GP, KERNEL_MATERN52, 0, 0, 0, 0};
    size_t probes = 0;
    for (unsigned long long seed = 0; seed < 4; seed++) {
        assert_int_equal(
            decoupled_run(&t.p, &bo, dec, cost, seed, 3, 12, rows, kinds, &ne),
            HPOD_OK);
        double spent = check_events(&t, rows, kinds, ne, 0.1, 3);
        assert_true(spent <= 12 + 1e-9);
        assert_true(spent > 12 - 1 - 1e-9); /* stops only when the next
                                               training would not fit */
        for (size_t i = 0; i < ne; i++)
            probes += kinds[i] == DECOUPLED_PROBE;
        /* Deterministic. */
        assert_int_equal(decoupled_run(&t.p, &bo, dec, cost, seed, 3, 12, rows2,
                                       kinds2, &ne2),
                         HPOD_OK);
        assert_int_equal(ne, ne2);
        assert_memory_equal(rows, rows2, ne * sizeof *rows);
        assert_memory_equal(kinds, kinds2, ne);
        /* Random search trains only, the budget's worth of rows. */
        assert_int_equal(
            decoupled_run(&t.p, &rs, dec, cost, seed, 3, 12, rows, kinds, &ne),
            HPOD_OK);
        assert_int_equal(ne, 12);
        assert_float_equal(check_events(&t, rows, kinds, ne, 0.1, 3), 12, 0);
    }
    /* Half the table violates the constraint: the model must probe. */
    assert_true(probes > 0);
}

static void
test_errors(void **state)
{
    (void)state;
    static struct table t;
    table_make(&t);
    unsigned char dec[1] = {1}, none[1] = {0};
    double cost[1] = {0.1}, bad[1] = {0};
    size_t rows[2 * NROWS], ne = 7;
    unsigned char kinds[2 * NROWS];
    struct simulate_mo_algo bo = {
        0, MOBO_SURROGATE_GP, KERNEL_MATERN52, 0, 0, 0, 0};
    assert_int_equal(
        decoupled_run(&t.p, &bo, none, cost, 0, 3, 10, rows, kinds, &ne),
        HPOD_EINVAL);
    assert_int_equal(ne, 0);
    assert_int_equal(
        decoupled_run(&t.p, &bo, dec, bad, 0, 3, 10, rows, kinds, &ne),
        HPOD_EINVAL);
    assert_int_equal(
        decoupled_run(&t.p, &bo, dec, cost, 0, 3, 10, NULL, kinds, &ne),
        HPOD_EINVAL);
    struct simulate_mo_problem two = t.p;
    two.m = 2;
    assert_int_equal(
        decoupled_run(&two, &bo, dec, cost, 0, 3, 10, rows, kinds, &ne),
        HPOD_EINVAL);
    /* A budget below one training: no training, only probes, which with
     * fewer than MOBO_MIN_CON_REPORTS reports are always chosen (as the
     * service chooses them), at 0.1 each. */
    assert_int_equal(
        decoupled_run(&t.p, &bo, dec, cost, 0, 3, 0.5, rows, kinds, &ne),
        HPOD_OK);
    /* A passed probe is trained next, which does not fit the budget. */
    assert_true(ne >= 1 && ne <= 5);
    for (size_t i = 0; i < ne; i++)
        assert_int_equal(kinds[i], DECOUPLED_PROBE);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("decoupled_run", tests, NULL, NULL);
}
