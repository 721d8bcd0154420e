/*
 * tests/unit/test_simulate.c - simulated runs on a synthetic 50-row table:
 * determinism, shared initial rows, no repeats, stopping rule, the greedy
 * step against a brute-force nearest neighbour, and random search's ftb
 * against its closed-form expectation (the acceptance of issue 4).
 */
#include "tests/support/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"
#include "core/simulate.h"
#include "tests/support/grid.h"

#define NROWS GRID_ROWS
#define NP GRID_PARAMS

struct table {
    struct space sp;
    double raw[NROWS * NP];
    double y[NROWS];
    struct simulate_problem p;
};

/* The shared 5 × 10 grid (tests/support/grid.h): y peaks at row 24. */
static void
table_make(struct table *t)
{
    grid_make(&t->sp, t->raw, t->y, NULL);
    t->p.space = &t->sp;
    t->p.raw = t->raw;
    t->p.y = t->y;
    t->p.n = NROWS;
}

static struct metric_spec
spec_for(const struct table *t)
{
    struct metric_spec s;
    memset(&s, 0, sizeof s);
    s.y = t->y;
    s.n = NROWS;
    s.ninit = 3;
    s.tol = 0.5;
    s.fb_budget = 20;
    s.fbp_budget = 50;
    return s;
}

static const struct simulate_algo RS = {SAMPLER_RANDOM, 0, 0, 0,  0.0,
                                        NULL,           0, 0, 0.0};
static const struct simulate_algo GREEDY = {SAMPLER_GREEDY, 0, 0, 0,  0.0,
                                            NULL,           0, 0, 0.0};

static void
test_oracle_of_fixture(void **state)
{
    (void)state;
    struct table t;
    table_make(&t);
    assert_int_equal(metric_oracle_best(t.y, NROWS), 24);
    space_clear(&t.sp);
}

static void
test_deterministic_and_permutation(void **state)
{
    (void)state;
    struct table t;
    size_t a[NROWS], b[NROWS], c[NROWS], la, lb, lc;
    table_make(&t);
    for (int k = 0; k < 2; k++) {
        const struct simulate_algo *al = k ? &GREEDY : &RS;
        assert_int_equal(
            simulate_run(&t.p, al, 2385, 3, NROWS, NULL, NULL, a, &la),
            HPOD_OK);
        assert_int_equal(
            simulate_run(&t.p, al, 2385, 3, NROWS, NULL, NULL, b, &lb),
            HPOD_OK);
        assert_int_equal(
            simulate_run(&t.p, al, 2386, 3, NROWS, NULL, NULL, c, &lc),
            HPOD_OK);
        assert_int_equal(la, NROWS);
        assert_int_equal(lb, NROWS);
        assert_memory_equal(a, b, sizeof a);
        assert_true(memcmp(a, c, sizeof a) != 0);
        /* Run to n: every row exactly once. */
        unsigned char seen[NROWS] = {0};
        for (size_t i = 0; i < la; i++) {
            assert_true(a[i] < NROWS);
            assert_int_equal(seen[a[i]], 0);
            seen[a[i]] = 1;
        }
    }
    space_clear(&t.sp);
}

static void
test_same_init_rows_for_every_algorithm(void **state)
{
    (void)state;
    struct table t;
    size_t a[NROWS], b[NROWS], la, lb, init[5];
    table_make(&t);
    for (unsigned long long seed = 0; seed < 40; seed++) {
        unsigned char used[NROWS] = {0};
        simulate_init_rows(seed, NROWS, 5, used, init);
        assert_int_equal(
            simulate_run(&t.p, &RS, seed, 5, 30, NULL, NULL, a, &la), HPOD_OK);
        assert_int_equal(
            simulate_run(&t.p, &GREEDY, seed, 5, 30, NULL, NULL, b, &lb),
            HPOD_OK);
        assert_int_equal(la, 30);
        assert_int_equal(lb, 30);
        assert_memory_equal(a, init, sizeof init);
        assert_memory_equal(b, init, sizeof init);
        for (int i = 0; i < 5; i++)
            assert_int_equal(used[init[i]], 1);
    }
    /* The two algorithms do differ after the initial rows. */
    assert_true(memcmp(a + 5, b + 5, 25 * sizeof *a) != 0);
    space_clear(&t.sp);
}

/* RANDOM runs are sampler_next's random study path, step by step. */
static void
test_random_replays_sampler(void **state)
{
    (void)state;
    struct table t;
    size_t a[NROWS], la, seq[NROWS];
    double obs_raw[NROWS * NP], obs_y[NROWS], raw[NP];
    unsigned char used[NROWS] = {0};
    table_make(&t);
    assert_int_equal(simulate_run(&t.p, &RS, 77, 3, NROWS, NULL, NULL, a, &la),
                     HPOD_OK);
    struct sampler_input in;
    memset(&in, 0, sizeof in);
    in.space = &t.sp;
    in.kind = SAMPLER_RANDOM;
    in.seed = 77;
    in.init = 3;
    in.cand_raw = t.raw;
    in.cand_used = used;
    in.n_cand = NROWS;
    in.obs_raw = obs_raw;
    in.obs_y = obs_y;
    in.obs_cand = seq;
    for (size_t i = 0; i < NROWS; i++) {
        size_t c;
        in.seq = (int)i;
        in.n_obs = i;
        assert_int_equal(sampler_next(&in, raw, &c), HPOD_OK);
        used[c] = 1;
        seq[i] = c;
        memcpy(obs_raw + i * NP, raw, sizeof raw);
        obs_y[i] = t.y[c];
    }
    assert_memory_equal(a, seq, sizeof seq);
    space_clear(&t.sp);
}

/* After the initial rows greedy takes the free row nearest the best. */
static void
test_greedy_steps_brute_force(void **state)
{
    (void)state;
    struct table t;
    size_t a[NROWS], la;
    table_make(&t);
    assert_int_equal(
        simulate_run(&t.p, &GREEDY, 5, 3, NROWS, NULL, NULL, a, &la), HPOD_OK);
    for (size_t i = 3; i < la; i++) {
        size_t best = a[0];
        for (size_t j = 1; j < i; j++)
            if (t.y[a[j]] > t.y[best])
                best = a[j];
        double ub[NP], u[NP], bd = INFINITY;
        size_t pick = NROWS;
        space_encode(&t.sp, t.raw + best * NP, ub);
        for (size_t r = 0; r < NROWS; r++) {
            int taken = 0;
            for (size_t j = 0; j < i; j++)
                taken |= a[j] == r;
            if (taken)
                continue;
            space_encode(&t.sp, t.raw + r * NP, u);
            double d = (u[0] - ub[0]) * (u[0] - ub[0]) +
                       (u[1] - ub[1]) * (u[1] - ub[1]);
            if (d < bd) {
                bd = d;
                pick = r;
            }
        }
        assert_int_equal(a[i], pick);
    }
    space_clear(&t.sp);
}

/* With a metric spec the run stops exactly where the metrics are final. */
static void
test_stops_at_needed_length(void **state)
{
    (void)state;
    struct table t;
    size_t a[NROWS], full[NROWS], la, lf;
    table_make(&t);
    struct metric_spec s = spec_for(&t);
    for (unsigned long long seed = 0; seed < 30; seed++) {
        for (int k = 0; k < 2; k++) {
            const struct simulate_algo *al = k ? &GREEDY : &RS;
            assert_int_equal(
                simulate_run(&t.p, al, seed, 3, NROWS, &s, NULL, a, &la),
                HPOD_OK);
            assert_int_equal(
                simulate_run(&t.p, al, seed, 3, NROWS, NULL, NULL, full, &lf),
                HPOD_OK);
            assert_int_equal(metric_needed_length(&s, a, la), la);
            assert_int_equal(metric_needed_length(&s, a, la - 1), 0);
            assert_true(la >= 20);
            assert_memory_equal(a, full, la * sizeof *a);
            assert_int_equal(metric_ftb(a, la, t.y, NROWS, 3),
                             metric_ftb(full, lf, t.y, NROWS, 3));
            assert_int_equal(metric_ftc(a, la, t.y, NROWS, 3, 0.5),
                             metric_ftc(full, lf, t.y, NROWS, 3, 0.5));
        }
    }
    /* length caps the run. */
    assert_int_equal(simulate_run(&t.p, &RS, 1, 3, 7, NULL, NULL, a, &la),
                     HPOD_OK);
    assert_int_equal(la, 7);
    assert_int_equal(simulate_run(&t.p, &RS, 1, 9, 2, NULL, NULL, a, &la),
                     HPOD_OK);
    assert_int_equal(la, 2);
    space_clear(&t.sp);
}

static void
test_many_matches_single_runs(void **state)
{
    (void)state;
    struct table t;
    size_t seqs[6 * 25], lens[6], one[25], l1;
    table_make(&t);
    struct metric_spec s = spec_for(&t);
    assert_int_equal(simulate_many(&t.p, &GREEDY, 10, 6, 3, 25, &s, seqs, lens),
                     HPOD_OK);
    for (size_t r = 0; r < 6; r++) {
        assert_int_equal(
            simulate_run(&t.p, &GREEDY, 10 + r, 3, 25, &s, NULL, one, &l1),
            HPOD_OK);
        assert_int_equal(lens[r], l1);
        assert_memory_equal(seqs + r * 25, one, l1 * sizeof *one);
    }
    space_clear(&t.sp);
}

/*
 * A sampler state shared from run to run (one per thread in tools/)
 * changes nothing: graph runs in any order equal runs with a private
 * state, so figures do not depend on the thread count.
 */
static void
test_shared_state_changes_nothing(void **state)
{
    (void)state;
    struct table t;
    size_t a[NROWS], b[NROWS], la, lb;
    table_make(&t);
    struct metric_spec s = spec_for(&t);
    static const unsigned long long order[5] = {4, 1, 3, 1, 0};
    int differs = 0;
    for (int acq = 0; acq < 2; acq++) {
        struct simulate_algo g = {SAMPLER_GRAPH, 1 /* RBF */, acq, 0,  0.0,
                                  NULL,          0,           0,   0.0};
        struct sampler_state *st = sampler_state_create();
        for (int k = 0; k < 5; k++) {
            assert_int_equal(
                simulate_run(&t.p, &g, order[k], 3, NROWS, &s, st, a, &la),
                HPOD_OK);
            assert_int_equal(
                simulate_run(&t.p, &g, order[k], 3, NROWS, &s, NULL, b, &lb),
                HPOD_OK);
            assert_int_equal(la, lb);
            assert_memory_equal(a, b, la * sizeof *a);
            /* The graph model is really used (not a random fallback). */
            assert_int_equal(
                simulate_run(&t.p, &RS, order[k], 3, NROWS, &s, NULL, b, &lb),
                HPOD_OK);
            differs += la != lb || memcmp(a, b, la * sizeof *a) != 0;
        }
        sampler_state_free(st);
    }
    assert_true(differs >= 8);
    space_clear(&t.sp);
}

/* Closed forms of E[max(P, 3)] and its std for P uniform on 1..n. */
static void
test_rs_expectation_closed_form(void **state)
{
    (void)state;
    double m, s;
    simulate_rs_ftb_expectation(50, 3, &m, &s);
    assert_close(m, 25.5 + 3.0 / 50, 1e-14, 0);
    /* E[X²] = (Σp² + (9-1) + (9-4))/50 = (42925 + 13)/50. */
    assert_close(s * s, 42938.0 / 50 - m * m, 1e-12, 0);
    simulate_rs_ftb_expectation(118, 0, &m, &s);
    assert_close(m, 59.5, 1e-14, 0);
    assert_close(s, sqrt((118.0 * 118.0 - 1) / 12), 1e-12, 0);
}

/*
 * Issue 4 acceptance on synthetic data: random search's mean ftb is
 * within 3 standard errors of (n+1)/2 (2,000 runs of 50 rows).
 */
static void
test_random_search_ftb_expectation(void **state)
{
    (void)state;
    enum { R = 2000 };
    struct table t;
    table_make(&t);
    struct metric_spec s = spec_for(&t);
    size_t *seqs = malloc(R * NROWS * sizeof *seqs), lens[R];
    assert_int_equal(simulate_many(&t.p, &RS, 0, R, 3, NROWS, &s, seqs, lens),
                     HPOD_OK);
    struct simulate_summary sum;
    simulate_summarize(&s, seqs, NROWS, lens, R, &sum);
    assert_int_equal(sum.ftb.runs, R);
    assert_int_equal(sum.ftb.missed, 0);
    double se = sum.ftb.std / sqrt((double)R);
    assert_true(fabs(sum.ftb.mean - 25.5) < 3 * se);
    /* Population std of a uniform position: sqrt((n²-1)/12) = 14.43. */
    assert_close(sum.ftb.std, sqrt((50.0 * 50 - 1) / 12), 0.05, 0);
    /* Pareto metrics were not asked for. */
    assert_true(isnan(sum.fto.mean));
    assert_int_equal(sum.fto.runs, 0);
    free(seqs);
    space_clear(&t.sp);
}

/* Aggregation on hand-made sequences, checked by hand. */
static void
test_summarize_hand_made(void **state)
{
    (void)state;
    double y[6] = {1.0, 3.0, 2.8, 0.5, 2.0, 2.4};
    unsigned char par[6] = {0, 1, 0, 1, 0, 0};
    struct metric_spec s;
    memset(&s, 0, sizeof s);
    s.y = y;
    s.pareto = par;
    s.n = 6;
    s.ninit = 2;
    s.tol = 0.5; /* rows 1 and 2 are close */
    s.fb_budget = 2;
    s.fbp_budget = 3;
    size_t seqs[3 * 6] = {
        0, 4, 2, 1, 3, 5, /* ftb 4, ftc 3, fb 1.0, fto 4, fta 5, fbp 0 */
        1, 0, 3, 9, 9, 9, /* ftb 2, ftc 2, fb 0,   fto 2, fta 3, fbp 2 */
        5, 3, 0, 9, 9, 9, /* ftb -, ftc -, fb 0.6, fto 2, fta -, fbp 1 */
    };
    size_t lens[3] = {6, 3, 3};
    struct simulate_summary sum;
    simulate_summarize(&s, seqs, 6, lens, 3, &sum);
    assert_int_equal(sum.ftb.runs, 2);
    assert_int_equal(sum.ftb.missed, 1);
    assert_close(sum.ftb.mean, 3.0, 1e-15, 0);
    assert_close(sum.ftb.std, 1.0, 1e-15, 0);
    assert_close(sum.ftc.mean, 2.5, 1e-15, 0);
    assert_close(sum.ftc.std, 0.5, 1e-15, 0);
    assert_int_equal(sum.fb.runs, 3);
    assert_close(sum.fb.mean, 1.6 / 3, 1e-14, 0);
    assert_close(sum.fto.mean, 8.0 / 3, 1e-14, 0);
    assert_int_equal(sum.fta.runs, 2);
    assert_int_equal(sum.fta.missed, 1);
    assert_close(sum.fta.mean, 4.0, 1e-15, 0);
    assert_close(sum.fbp.mean, 1.0, 1e-14, 0);
    /* Switching y off switches ftb/ftc/fb off. */
    s.y = NULL;
    simulate_summarize(&s, seqs, 6, lens, 3, &sum);
    assert_true(isnan(sum.ftb.mean));
    assert_int_equal(sum.ftb.runs + sum.ftb.missed, 0);
}

/*
 * Two conflicting objectives on the fixture: y (max) and a cost that grows
 * with x0 and falls with x1 (min), oriented as -cost. Pareto flags by
 * brute force.
 */
static void
mo_make(const struct table *t, double *y2, unsigned char *pareto, double *ref)
{
    for (int r = 0; r < NROWS; r++) {
        y2[2 * r] = t->y[r];
        y2[2 * r + 1] =
            -(log2(t->raw[r * NP]) * 1.7 + 0.2 * (7.3 - t->raw[r * NP + 1]));
    }
    for (int r = 0; r < NROWS; r++) {
        int dom = 0;
        for (int q = 0; q < NROWS && !dom; q++)
            dom = y2[2 * q] >= y2[2 * r] && y2[2 * q + 1] >= y2[2 * r + 1] &&
                  (y2[2 * q] > y2[2 * r] || y2[2 * q + 1] > y2[2 * r + 1]);
        pareto[r] = !dom;
    }
    ref[0] = ref[1] = INFINITY;
    for (int r = 0; r < NROWS; r++)
        for (int k = 0; k < 2; k++)
            if (y2[2 * r + k] < ref[k])
                ref[k] = y2[2 * r + k];
    ref[0] -= 1;
    ref[1] -= 1;
}

static void
test_multi_objective_runs(void **state)
{
    (void)state;
    struct table t;
    double y2[2 * NROWS], ref[2];
    unsigned char pareto[NROWS];
    size_t a[NROWS], b[NROWS], la, lb;
    table_make(&t);
    mo_make(&t, y2, pareto, ref);
    struct simulate_mo_problem mp = {&t.sp, t.raw, NROWS, 2,    y2,
                                     ref,   0,     NULL,  NULL, NULL};
    struct metric_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.pareto = pareto;
    spec.n = NROWS;
    spec.ninit = 3;
    spec.fbp_budget = 20;
    struct simulate_mo_algo rs = {1, 0, 0, 0, 0, 0, 0},
                            ehvi = {0, 0, 0, 0, 0, 0, 0};
    /* Random search: exactly simulate_run's random sequences. */
    assert_int_equal(simulate_run_mo(&mp, &rs, 7, 3, NROWS, NULL, a, &la),
                     HPOD_OK);
    assert_int_equal(simulate_run(&t.p, &RS, 7, 3, NROWS, NULL, NULL, b, &lb),
                     HPOD_OK);
    assert_int_equal(la, NROWS);
    assert_int_equal(lb, NROWS);
    assert_memory_equal(a, b, sizeof a);
    /* EHVI: deterministic, no repeats, same initial rows, and all Pareto
     * rows found sooner than random search on average. */
    double fta_e = 0, fta_r = 0;
    int reps = 6;
    for (int sd = 0; sd < reps; sd++) {
        assert_int_equal(
            simulate_run_mo(&mp, &ehvi, (unsigned)sd, 3, NROWS, &spec, a, &la),
            HPOD_OK);
        assert_int_equal(
            simulate_run_mo(&mp, &ehvi, (unsigned)sd, 3, NROWS, &spec, b, &lb),
            HPOD_OK);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la * sizeof a[0]);
        unsigned char seen[NROWS] = {0};
        for (size_t i = 0; i < la; i++) {
            assert_true(a[i] < NROWS);
            assert_false(seen[a[i]]);
            seen[a[i]] = 1;
        }
        size_t r0[NROWS], lr;
        assert_int_equal(
            simulate_run_mo(&mp, &rs, (unsigned)sd, 3, NROWS, &spec, r0, &lr),
            HPOD_OK);
        assert_memory_equal(a, r0, 3 * sizeof a[0]);
        fta_e += (double)metric_fta(a, la, pareto, NROWS, 3);
        fta_r += (double)metric_fta(r0, lr, pareto, NROWS, 3);
    }
    print_message("fta over %d seeds: ehvi %.1f, random %.1f\n", reps,
                  fta_e / reps, fta_r / reps);
    assert_true(fta_e < fta_r);
    assert_true(fta_e > 0);
    /* Constrained single objective: max y with cost <= median; after 20
     * evaluations the best feasible row found is within 0.5 of the best. */
    double cost[NROWS], sorted[NROWS], bound, best = -INFINITY;
    for (int r = 0; r < NROWS; r++)
        sorted[r] = cost[r] = -y2[2 * r + 1];
    for (int i = 1; i < NROWS; i++)
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            double tmp = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = tmp;
        }
    bound = sorted[NROWS / 2];
    for (int r = 0; r < NROWS; r++)
        if (cost[r] <= bound && t.y[r] > best)
            best = t.y[r];
    double one_ref[1] = {0};
    struct simulate_mo_problem cp = {&t.sp,   t.raw, NROWS, 1,      t.y,
                                     one_ref, 1,     cost,  &bound, NULL};
    double gap = 0;
    for (int sd = 0; sd < reps; sd++) {
        assert_int_equal(
            simulate_run_mo(&cp, &ehvi, (unsigned)sd, 3, 20, NULL, a, &la),
            HPOD_OK);
        assert_int_equal(la, 20);
        double got = -INFINITY;
        for (size_t i = 0; i < la; i++)
            if (cost[a[i]] <= bound && t.y[a[i]] > got)
                got = t.y[a[i]];
        gap += best - got;
    }
    print_message("constrained: mean gap after 20 = %.3f\n", gap / reps);
    assert_true(gap / reps <= 0.5);
    space_clear(&t.sp);
}

static void
test_error_paths(void **state)
{
    (void)state;
    struct table t;
    size_t a[NROWS], la = 99;
    table_make(&t);
    assert_int_equal(simulate_run(NULL, &RS, 0, 3, 5, NULL, NULL, a, &la),
                     HPOD_EINVAL);
    assert_int_equal(la, 0); /* *len_out is always set */
    assert_int_equal(simulate_run(&t.p, NULL, 0, 3, 5, NULL, NULL, a, &la),
                     HPOD_EINVAL);
    assert_int_equal(simulate_run(&t.p, &RS, 0, 3, 0, NULL, NULL, a, &la),
                     HPOD_EINVAL);
    assert_int_equal(simulate_run(&t.p, &RS, 0, 3, 5, NULL, NULL, NULL, &la),
                     HPOD_EINVAL);
    struct simulate_problem q = t.p;
    q.n = 0;
    assert_int_equal(simulate_run(&q, &RS, 0, 3, 5, NULL, NULL, a, &la),
                     HPOD_EINVAL);
    struct space empty;
    space_init(&empty);
    q = t.p;
    q.space = &empty;
    assert_int_equal(simulate_run(&q, &RS, 0, 3, 5, NULL, NULL, a, &la),
                     HPOD_EINVAL);
    size_t lens[2] = {7, 7};
    assert_int_equal(simulate_many(&t.p, &RS, 0, 2, 3, 0, NULL, a, lens),
                     HPOD_EINVAL);
    /* A sampler failure is passed through with the rows so far. */
    struct simulate_algo bad = {
        (enum sampler_kind)99, 0, 0, 0, 0.0, NULL, 0, 0, 0.0};
    enum hpod_status st = simulate_run(&t.p, &bad, 0, 3, 5, NULL, NULL, a, &la);
    if (st != HPOD_OK) {
        assert_int_equal(la, 3);
    } else {
        /* The sampler treats unknown kinds as random: still a valid run. */
        assert_int_equal(la, 5);
    }
    space_clear(&t.sp);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oracle_of_fixture),
        cmocka_unit_test(test_deterministic_and_permutation),
        cmocka_unit_test(test_same_init_rows_for_every_algorithm),
        cmocka_unit_test(test_random_replays_sampler),
        cmocka_unit_test(test_greedy_steps_brute_force),
        cmocka_unit_test(test_stops_at_needed_length),
        cmocka_unit_test(test_many_matches_single_runs),
        cmocka_unit_test(test_shared_state_changes_nothing),
        cmocka_unit_test(test_rs_expectation_closed_form),
        cmocka_unit_test(test_random_search_ftb_expectation),
        cmocka_unit_test(test_summarize_hand_made),
        cmocka_unit_test(test_multi_objective_runs),
        cmocka_unit_test(test_error_paths),
    };
    return cmocka_run_group_tests_name("simulate", tests, NULL, NULL);
}
