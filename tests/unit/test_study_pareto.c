/*
 * tests/unit/test_study_pareto.c - study/pareto without a database: the
 * front, the non-dominated ranks, the hypervolume and its history in
 * completion order checked against brute force on random trials with
 * mixed goals, missing objectives, a constraint and ties; the reference
 * point, derived or given, as reported and oriented.
 */
#include "tests/support/check.h"
#include "tests/support/studydef.h"

#include <stdlib.h>
#include <string.h>

#include "study/pareto.h"

#define N 40

static void
def_from(const char *extra, struct study_def *d)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"name\":\"s\",\"space\":[{\"name\":\"x\",\"type\":\"float\","
             "\"low\":0,\"high\":1}],\"objectives\":[{\"name\":\"bleu\","
             "\"goal\":\"maximize\"},{\"name\":\"gpu_time\",\"goal\":"
             "\"minimize\"}],\"algorithm\":{\"name\":\"ehvi\"}%s}",
             extra);
    def_parse(text, d);
}

static unsigned long long rng_state = 12345;

static unsigned
next_int(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng_state >> 33) % n;
}

/* Random completed trials: values on a small grid (ties), some without
 * gpu_time (not complete), some without mem or over its bound. */
static void
make_rows(struct trial *rows, char at[][32])
{
    for (size_t i = 0; i < N; i++) {
        struct trial *t = &rows[i];
        memset(t, 0, sizeof *t);
        t->id = 100 + (long long)i;
        t->state = TRIAL_COMPLETED;
        t->params = "{\"x\":0.5}";
        snprintf(at[i], 32, "2026-01-01 00:00:%02u", next_int(15));
        t->updated_at = at[i];
        metric_set_add(&t->values, "bleu", 20 + next_int(10));
        if (next_int(8))
            metric_set_add(&t->values, "gpu_time", 100 + 10 * next_int(10));
        if (next_int(6))
            metric_set_add(&t->values, "mem", next_int(10));
    }
}

static void
free_rows(struct trial *rows)
{
    for (size_t i = 0; i < N; i++)
        metric_set_clear(&rows[i].values);
}

/* Oriented objectives (larger is better) of a complete trial; 0 if not. */
static int
oriented(const struct trial *t, double *y)
{
    const double *b = metric_set_find(&t->values, "bleu");
    const double *g = metric_set_find(&t->values, "gpu_time");
    if (!b || !g)
        return 0;
    y[0] = *b;
    y[1] = -*g;
    return 1;
}

static int
feasible(const struct trial *t)
{
    const double *m = metric_set_find(&t->values, "mem");
    return m && *m <= 5;
}

static int
dominates(const double *a, const double *b)
{
    return a[0] >= b[0] && a[1] >= b[1] && (a[0] > b[0] || a[1] > b[1]);
}

/* Area dominated by the n oriented points above ref: the grid of their
 * coordinates, cell by cell. */
static double
brute_hv(const double *y, size_t n, const double *ref)
{
    double xs[N + 1], ys[N + 1], area = 0;
    size_t nx = 0, ny = 0;
    xs[nx++] = ref[0];
    ys[ny++] = ref[1];
    for (size_t i = 0; i < n; i++) {
        if (y[2 * i] > ref[0] && y[2 * i + 1] > ref[1]) {
            xs[nx++] = y[2 * i];
            ys[ny++] = y[2 * i + 1];
        }
    }
    for (size_t a = 0; a < nx; a++)
        for (size_t b = 0; b < ny; b++) {
            /* cell from (xs[a], ys[b]) to the next larger coordinates,
             * once per distinct corner */
            double x1 = INFINITY, y1 = INFINITY;
            int seen = 0;
            for (size_t c = 0; c < a; c++)
                seen |= xs[c] == xs[a];
            for (size_t c = 0; c < b; c++)
                seen |= ys[c] == ys[b];
            if (seen)
                continue;
            for (size_t c = 0; c < nx; c++)
                if (xs[c] > xs[a] && xs[c] < x1)
                    x1 = xs[c];
            for (size_t c = 0; c < ny; c++)
                if (ys[c] > ys[b] && ys[c] < y1)
                    y1 = ys[c];
            if (isinf(x1) || isinf(y1) || xs[a] < ref[0] || ys[b] < ref[1])
                continue;
            for (size_t i = 0; i < n; i++)
                if (y[2 * i] >= x1 && y[2 * i + 1] >= y1) {
                    area += (x1 - xs[a]) * (y1 - ys[b]);
                    break;
                }
        }
    return area;
}

static void
test_front_ranks_against_brute_force(void **state)
{
    (void)state;
    struct study_def d;
    struct trial rows[N];
    char at[N][32];
    struct study_pareto_answer a = {0};
    double y[N][2], fy[N * 2], lo[2] = {INFINITY, INFINITY},
                               hi[2] = {-INFINITY, -INFINITY};
    size_t comp[N], k = 0, kf = 0;

    def_from(",\"constraints\":[{\"metric\":\"mem\",\"max\":5}]", &d);
    make_rows(rows, at);
    study_pareto_build(&d, rows, N, 1, 1, &a);
    for (size_t i = 0; i < N; i++)
        if (oriented(&rows[i], y[i])) {
            comp[k++] = i;
            for (int j = 0; j < 2; j++) {
                lo[j] = fmin(lo[j], y[i][j]);
                hi[j] = fmax(hi[j], y[i][j]);
            }
            if (feasible(&rows[i])) {
                memcpy(fy + 2 * kf, y[i], sizeof y[i]);
                kf++;
            }
        }
    assert_true(kf > 3 && kf < k && k < N);
    assert_int_equal(a.n_completed, k);
    assert_int_equal(a.n_feasible, kf);
    /* The front: feasible complete trials no other feasible one
     * dominates, in row order. */
    size_t nf = 0;
    for (size_t c = 0; c < k; c++) {
        size_t i = comp[c], dom = 0;
        if (!feasible(&rows[i]))
            continue;
        for (size_t e = 0; e < k; e++)
            dom |= feasible(&rows[comp[e]]) && dominates(y[comp[e]], y[i]);
        if (!dom) {
            assert_true(nf < a.n_front);
            assert_int_equal(a.front[nf++], i);
        }
    }
    assert_int_equal(nf, a.n_front);
    /* Ranks: peel the feasible layers one by one. */
    int rank[N];
    size_t left = 0;
    for (size_t c = 0; c < k; c++) {
        rank[c] = -1;
        left += feasible(&rows[comp[c]]) != 0;
    }
    for (int r = 0; left > 0; r++) {
        int now[N] = {0};
        for (size_t c = 0; c < k; c++) {
            if (rank[c] >= 0 || !feasible(&rows[comp[c]]))
                continue;
            int dom = 0;
            for (size_t e = 0; e < k; e++)
                dom |= e != c && rank[e] < 0 && feasible(&rows[comp[e]]) &&
                       dominates(y[comp[e]], y[comp[c]]);
            now[c] = !dom;
        }
        for (size_t c = 0; c < k; c++)
            if (now[c]) {
                rank[c] = r;
                left--;
            }
    }
    for (size_t c = 0; c < k; c++) {
        assert_int_equal(a.ranks[c].trial, rows[comp[c]].id);
        assert_int_equal(a.ranks[c].feasible, feasible(&rows[comp[c]]));
        assert_int_equal(a.ranks[c].rank, rank[c]);
    }
    /* Reference: the worst complete value (feasible or not) moved out by
     * a tenth of the range; the hypervolume of the feasible ones. */
    assert_true(a.has_reference);
    assert_close(a.reference[0], lo[0] - 0.1 * (hi[0] - lo[0]), 1e-12, 0);
    assert_close(a.reference[1], -(lo[1] - 0.1 * (hi[1] - lo[1])), 1e-12, 0);
    double oref[2] = {a.reference[0], -a.reference[1]};
    assert_close(a.hypervolume, brute_hv(fy, kf, oref), 1e-12, 1e-9);
    /* History: completion order (updated_at, then id); the hypervolume
     * of the feasible ones so far; the last is the whole. */
    for (size_t i = 0; i < k; i++) {
        const struct study_pareto_step *p = &a.history[i];
        const struct trial *t = NULL;
        double acc[N * 2];
        size_t na = 0;
        for (size_t c = 0; c < k; c++)
            if (rows[comp[c]].id == p->trial)
                t = &rows[comp[c]];
        assert_non_null(t);
        assert_int_equal(p->n_completed, i + 1);
        if (i > 0) {
            const struct trial *prev = NULL;
            for (size_t c = 0; c < k; c++)
                if (rows[comp[c]].id == a.history[i - 1].trial)
                    prev = &rows[comp[c]];
            int cmp = strcmp(prev->updated_at, t->updated_at);
            assert_true(cmp < 0 || (cmp == 0 && prev->id < t->id));
        }
        for (size_t j = 0; j <= i; j++)
            for (size_t c = 0; c < k; c++)
                if (rows[comp[c]].id == a.history[j].trial &&
                    feasible(&rows[comp[c]])) {
                    memcpy(acc + 2 * na, y[comp[c]], sizeof y[0]);
                    na++;
                }
        assert_close(p->hypervolume, brute_hv(acc, na, oref), 1e-12, 1e-9);
    }
    assert_close(a.history[k - 1].hypervolume, a.hypervolume, 1e-12, 0);
    study_pareto_clear(&a);
    free_rows(rows);
    def_clear(&d);
}

/* Nothing complete: no reference, no front, volume 0; ranks and history
 * empty. */
static void
test_empty(void **state)
{
    (void)state;
    struct study_def d;
    struct study_pareto_answer a = {0};
    struct trial t = {.id = 1, .state = TRIAL_COMPLETED};

    def_from("", &d);
    metric_set_add(&t.values, "bleu", 3);
    study_pareto_build(&d, &t, 1, 1, 1, &a);
    assert_int_equal(a.n_completed, 0);
    assert_int_equal(a.n_front, 0);
    assert_false(a.has_reference);
    assert_true(a.hypervolume == 0.0);
    study_pareto_clear(&a);
    metric_set_clear(&t.values);
    def_clear(&d);
}

/* The reference point: derived, given per objective, oriented or not. */
static void
test_reference_point(void **state)
{
    (void)state;
    struct study_def d;
    /* as reported: bleu (max) 20..30, gpu_time (min) 100..300 */
    const double y[] = {20, 300, 30, 100, 25, 200};
    const double yo[] = {20, -300, 30, -100, 25, -200};
    double ref[2], oref[2];

    def_from("", &d);
    study_pareto_reference(&d, y, 3, 0, ref);
    assert_close(ref[0], 19, 1e-12, 0);
    assert_close(ref[1], 320, 1e-12, 0);
    study_pareto_reference(&d, yo, 3, 1, oref);
    assert_close(oref[0], 19, 1e-12, 0);
    assert_close(oref[1], -320, 1e-12, 0);
    def_clear(&d);
    /* A given coordinate wins over the derived one, the other stays. */
    def_from(",\"reference\":{\"gpu_time\":500}", &d);
    study_pareto_reference(&d, y, 3, 0, ref);
    assert_close(ref[0], 19, 1e-12, 0);
    assert_close(ref[1], 500, 1e-12, 0);
    study_pareto_reference(&d, yo, 3, 1, oref);
    assert_close(oref[0], 19, 1e-12, 0);
    assert_close(oref[1], -500, 1e-12, 0);
    def_clear(&d);
    /* One observation: the range is |w| (pareto_reference). */
    def_from("", &d);
    study_pareto_reference(&d, y, 1, 0, ref);
    assert_close(ref[0], 18, 1e-12, 0);
    assert_close(ref[1], 330, 1e-12, 0);
    def_clear(&d);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_front_ranks_against_brute_force),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_reference_point),
    };
    return cmocka_run_group_tests_name("study_pareto", tests, NULL, NULL);
}
