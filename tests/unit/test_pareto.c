/*
 * tests/unit/test_pareto.c - dominance, non-dominated sorting, fronts,
 * hypervolume, crowding distance and the reference point, against hand
 * computations and brute-force references (longest dominance chains,
 * inclusion-exclusion, an exact grid count, Monte Carlo).
 */
#include "tests/support/check.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "core/pareto.h"
#include "core/rng.h"

#define MAXN 64
#define MAXM 5

static void
test_dominates(void **state)
{
    (void)state;
    const int max2[2] = {1, 1}, mixed[2] = {1, -1};
    double a[2] = {14.2, 210}, b[2] = {13.9, 250}, c[2] = {14.2, 210};
    /* Maximize both: b is worse in bleu but better in the second. */
    assert_int_equal(pareto_dominates(a, b, 2, max2), 0);
    assert_int_equal(pareto_dominates(b, a, 2, max2), 0);
    /* Max bleu, min time: a wins in both. */
    assert_int_equal(pareto_dominates(a, b, 2, mixed), 1);
    assert_int_equal(pareto_dominates(b, a, 2, mixed), 0);
    /* Identical points do not dominate each other. */
    assert_int_equal(pareto_dominates(a, c, 2, mixed), 0);
    /* Equal in one, strictly better in the other. */
    c[1] = 209;
    assert_int_equal(pareto_dominates(c, a, 2, mixed), 1);
    assert_int_equal(pareto_dominates(a, c, 2, mixed), 0);
    /* NaN never dominates and is never dominated. */
    c[1] = NAN;
    assert_int_equal(pareto_dominates(c, b, 2, mixed), 0);
    assert_int_equal(pareto_dominates(b, c, 2, mixed), 0);
}

/* Values on a coarse grid (ties) with some rows copied (duplicates). */
static void
random_ties(struct rng *r, double *y, size_t n, size_t m)
{
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && rng_below(r, 5) == 0) {
            memcpy(y + i * m, y + rng_below(r, i) * m, m * sizeof *y);
            continue;
        }
        for (size_t c = 0; c < m; c++)
            y[i * m + c] = 0.25 * (double)rng_below(r, 6) - 0.3;
    }
}

/*
 * Reference rank: the length of the longest dominance chain ending at i,
 * by relaxation over an explicit dominance-count matrix (O(n³)).
 */
static void
brute_rank(const double *y, size_t n, size_t m, const int *sense, int *rank)
{
    static unsigned char dom[MAXN][MAXN];
    for (size_t i = 0; i < n; i++) {
        rank[i] = 0;
        for (size_t j = 0; j < n; j++) {
            /* Direct comparison, written independently of the module. */
            int ge = 1, gt = 0;
            for (size_t c = 0; c < m; c++) {
                double a = sense[c] < 0 ? -y[j * m + c] : y[j * m + c];
                double b = sense[c] < 0 ? -y[i * m + c] : y[i * m + c];
                if (a < b)
                    ge = 0;
                if (a > b)
                    gt = 1;
            }
            dom[j][i] = (unsigned char)(ge && gt);
        }
    }
    for (size_t it = 0; it < n; it++)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                if (dom[j][i] && rank[j] + 1 > rank[i])
                    rank[i] = rank[j] + 1;
}

static void
test_rank_bruteforce(void **state)
{
    (void)state;
    struct rng r;
    double y[MAXN * MAXM];
    int rank[MAXN], ref[MAXN];
    size_t idx[MAXN];
    const int senses[3][4] = {{1, 1, 1, 1}, {1, -1, 1, -1}, {-1, -1, 1, 1}};
    int deep = 0;

    rng_seed(&r, 2385);
    for (int trial = 0; trial < 60; trial++) {
        size_t n = 5 + rng_below(&r, MAXN - 5);
        size_t m = 2 + rng_below(&r, 3);
        const int *sense = senses[trial % 3];
        random_ties(&r, y, n, m);
        pareto_rank(y, n, m, sense, rank);
        brute_rank(y, n, m, sense, ref);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(rank[i], ref[i]);
            if (rank[i] > 1)
                deep = 1;
            /* Rank 0 is non-dominated; dominance lowers the rank. */
            for (size_t j = 0; j < n; j++)
                if (pareto_dominates(y + j * m, y + i * m, m, sense))
                    assert_true(rank[j] < rank[i]);
                else if (memcmp(y + j * m, y + i * m, m * sizeof *y) == 0)
                    assert_int_equal(rank[j], rank[i]);
        }
        /* The front is exactly the rank-0 set, in increasing order. */
        size_t k = pareto_front(y, n, m, sense, idx), t = 0;
        for (size_t i = 0; i < n; i++)
            if (rank[i] == 0) {
                assert_true(t < k);
                assert_int_equal(idx[t++], i);
            }
        assert_int_equal(t, k);
    }
    assert_true(deep); /* The data exercised more than two fronts. */
}

static void
test_rank_front_hand(void **state)
{
    (void)state;
    /* Max bleu, min time. Fronts: {0, 3, 5(copy of 3)}, {1, 4}, {2}. */
    const double y[] = {20.1, 300, 19.0, 310, 18.0, 320,
                        19.5, 150, 18.5, 200, 19.5, 150};
    const int sense[2] = {1, -1};
    int rank[6];
    size_t idx[6];
    pareto_rank(y, 6, 2, sense, rank);
    assert_int_equal(rank[0], 0);
    assert_int_equal(rank[1], 1);
    assert_int_equal(rank[2], 2);
    assert_int_equal(rank[3], 0);
    assert_int_equal(rank[4], 1);
    assert_int_equal(rank[5], 0);
    assert_int_equal(pareto_front(y, 6, 2, sense, idx), 3);
    assert_int_equal(idx[0], 0);
    assert_int_equal(idx[1], 3);
    assert_int_equal(idx[2], 5);
    assert_int_equal(pareto_front(y, 0, 2, sense, idx), 0);
}

static void
test_hv_hand(void **state)
{
    (void)state;
    const int max2[2] = {1, 1}, max3[3] = {1, 1, 1};
    const double z2[2] = {0, 0}, z3[3] = {0, 0, 0};
    /* Staircase (1,3),(2,2),(3,1): 3 + 2 + 1 columns of width 1. */
    const double s[] = {1, 3, 2, 2, 3, 1};
    assert_close(pareto_hypervolume(s, 3, 2, max2, z2), 6.0, 1e-15, 0);
    /* m = 1: the best improvement over ref. */
    const double one[] = {2.5, 4.25, 3.0};
    const int max1[1] = {1}, min1[1] = {-1};
    const double r1[1] = {1.0}, r1b[1] = {5.0};
    assert_close(pareto_hypervolume(one, 3, 1, max1, r1), 3.25, 1e-15, 0);
    assert_close(pareto_hypervolume(one, 3, 1, min1, r1b), 2.5, 1e-15, 0);
    /*
     * (2,1,1),(1,2,1),(1,1,2): boxes of volume 2, pairwise intersections
     * the unit cube, triple intersection the unit cube: 6 − 3 + 1 = 4.
     */
    const double c[] = {2, 1, 1, 1, 2, 1, 1, 1, 2};
    assert_close(pareto_hypervolume(c, 3, 3, max3, z3), 4.0, 1e-15, 0);
    /*
     * (3,1,2),(1,3,1),(2,2,3): volumes 6, 3, 12; pairwise intersections
     * (1,1,1)=1, (2,1,2)=4, (1,2,1)=2; triple (1,1,1)=1.
     * 21 − 7 + 1 = 15.
     */
    const double d[] = {3, 1, 2, 1, 3, 1, 2, 2, 3};
    assert_close(pareto_hypervolume(d, 3, 3, max3, z3), 15.0, 1e-15, 0);
    /* The same after adding a dominated point and a duplicate. */
    const double e[] = {3, 1, 2, 1, 3, 1, 2, 2, 3, 1, 1, 1, 2, 2, 3};
    assert_close(pareto_hypervolume(e, 5, 3, max3, z3), 15.0, 1e-15, 0);
    /* Empty input and zero objectives. */
    assert_close(pareto_hypervolume(d, 0, 3, max3, z3), 0.0, 0, 0);
    assert_close(pareto_hypervolume(d, 3, 0, max3, z3), 0.0, 0, 0);
}

static void
test_hv_ref_excludes(void **state)
{
    (void)state;
    const int sense[2] = {1, -1};
    const double ref[2] = {10.0, 400.0};
    /* Only (14, 200) is strictly better than ref in both: 4 × 200. */
    const double y[] = {14.0, 200.0, /* counts */
                        9.0,  100.0, /* worse bleu than ref */
                        12.0, 400.0, /* equal time: zero width */
                        13.0, 500.0, /* worse time */
                        NAN,  100.0};
    assert_close(pareto_hypervolume(y, 5, 2, sense, ref), 800.0, 1e-15, 0);
    assert_close(pareto_hypervolume(y, 1, 2, sense, ref), 800.0, 1e-15, 0);
    assert_close(pareto_hypervolume(y + 2, 4, 2, sense, ref), 0.0, 0, 0);
    /* 3-D as well. */
    const int s3[3] = {1, 1, 1};
    const double r3[3] = {1, 1, 1};
    const double p3[] = {2, 3, 4, 0.5, 9, 9, 9, 9, 1};
    assert_close(pareto_hypervolume(p3, 3, 3, s3, r3), 6.0, 1e-15, 0);
}

/* HV by inclusion-exclusion over all non-empty subsets (maximization). */
static double
brute_hv_ie(const double *y, size_t n, size_t m, const double *ref)
{
    double total = 0;
    for (unsigned long s = 1; s < (1ul << n); s++) {
        double v = 1;
        int bits = 0;
        for (size_t c = 0; c < m; c++) {
            double lo = INFINITY;
            for (size_t i = 0; i < n; i++)
                if (s & (1ul << i) && y[i * m + c] < lo)
                    lo = y[i * m + c];
            v *= lo > ref[c] ? lo - ref[c] : 0;
        }
        for (size_t i = 0; i < n; i++)
            bits += (s >> i) & 1;
        total += (bits & 1) ? v : -v;
    }
    return total;
}

/*
 * HV exactly on the grid of distinct coordinates (maximization): a cell is
 * covered iff some point reaches its upper corner. O(n^m · n m).
 */
static double
brute_hv_grid(const double *y, size_t n, size_t m, const double *ref)
{
    static double g[MAXM][MAXN + 1];
    size_t len[MAXM], at[MAXM] = {0};
    double total = 0;
    for (size_t c = 0; c < m; c++) {
        len[c] = 0;
        g[c][len[c]++] = ref[c];
        for (size_t i = 0; i < n; i++)
            if (y[i * m + c] > ref[c])
                g[c][len[c]++] = y[i * m + c];
        /* Insertion sort; duplicates give zero-width cells. */
        for (size_t a = 1; a < len[c]; a++)
            for (size_t b = a; b > 0 && g[c][b - 1] > g[c][b]; b--) {
                double t = g[c][b];
                g[c][b] = g[c][b - 1];
                g[c][b - 1] = t;
            }
        if (len[c] < 2)
            return 0;
    }
    for (;;) {
        double vol = 1;
        int covered = 0;
        for (size_t c = 0; c < m; c++)
            vol *= g[c][at[c] + 1] - g[c][at[c]];
        for (size_t i = 0; i < n && !covered; i++) {
            size_t c = 0;
            while (c < m && y[i * m + c] >= g[c][at[c] + 1])
                c++;
            covered = c == m;
        }
        if (covered)
            total += vol;
        size_t c = 0;
        while (c < m && ++at[c] == len[c] - 1)
            at[c++] = 0;
        if (c == m)
            break;
    }
    return total;
}

/* brute_hv_grid for m = 3 with goals: negate minimized columns first. */
static double
brute_hv_grid_mixed(const double *y, size_t n, const int *sense,
                    const double *ref)
{
    double z[MAXN * 3], rz[3];
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < 3; c++)
            z[i * 3 + c] = sense[c] < 0 ? -y[i * 3 + c] : y[i * 3 + c];
    for (size_t c = 0; c < 3; c++)
        rz[c] = sense[c] < 0 ? -ref[c] : ref[c];
    return brute_hv_grid(z, n, 3, rz);
}

/* Points near the sphere of radius 1 (mostly mutually non-dominated). */
static void
random_front(struct rng *r, double *y, size_t n, size_t m, double noise)
{
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (size_t c = 0; c < m; c++) {
            double v = fabs(rng_normal(r)) + 1e-3;
            y[i * m + c] = v;
            s += v * v;
        }
        for (size_t c = 0; c < m; c++)
            y[i * m + c] *= (1 - noise * rng_uniform(r)) / sqrt(s);
    }
}

static void
test_hv_bruteforce(void **state)
{
    (void)state;
    struct rng r;
    double y[MAXN * MAXM], ref[MAXM] = {0};
    const int sense[MAXM] = {1, 1, 1, 1, 1};
    rng_seed(&r, 7193);
    for (size_t m = 2; m <= 4; m++)
        for (int trial = 0; trial < 20; trial++) {
            size_t n = 1 + rng_below(&r, 10);
            random_front(&r, y, n, m, trial % 2 ? 0.6 : 0.05);
            for (size_t c = 0; c < m; c++)
                ref[c] = 0.1 * rng_uniform(&r) - 0.02;
            double hv = pareto_hypervolume(y, n, m, sense, ref);
            assert_close(hv, brute_hv_ie(y, n, m, ref), 1e-12, 1e-15);
            assert_close(hv, brute_hv_grid(y, n, m, ref), 1e-12, 1e-15);
        }
    /* Larger sets against the grid count only. */
    const size_t big[3][2] = {{3, 40}, {4, 14}, {5, 8}};
    for (int b = 0; b < 3; b++) {
        size_t m = big[b][0], n = big[b][1];
        for (int trial = 0; trial < 3; trial++) {
            random_front(&r, y, n, m, 0.3);
            for (size_t c = 0; c < m; c++)
                ref[c] = 0.02;
            double hv = pareto_hypervolume(y, n, m, sense, ref);
            assert_true(hv > 0);
            assert_close(hv, brute_hv_grid(y, n, m, ref), 1e-12, 1e-15);
        }
    }
}

static void
test_hv_monte_carlo(void **state)
{
    (void)state;
    struct rng r;
    double y[12 * 3], ideal[3], lo[3], z[3];
    const int sense[3] = {1, -1, 1}; /* the second objective minimized */
    const double ref[3] = {-0.1, 1.1, 0.05};
    const size_t n = 12, m = 3, samples = 1000000;
    size_t hit = 0;
    rng_seed(&r, 4242);
    random_front(&r, y, n, m, 0.4);
    for (size_t i = 0; i < n; i++)
        y[i * m + 1] = 1.0 - y[i * m + 1];
    /* Box [lo, ideal] in "bigger is better" coordinates. */
    for (size_t c = 0; c < m; c++) {
        ideal[c] = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            double v = sense[c] < 0 ? -y[i * m + c] : y[i * m + c];
            if (v > ideal[c])
                ideal[c] = v;
        }
        lo[c] = sense[c] < 0 ? -ref[c] : ref[c];
    }
    double box = 1;
    for (size_t c = 0; c < m; c++)
        box *= ideal[c] - lo[c];
    for (size_t s = 0; s < samples; s++) {
        for (size_t c = 0; c < m; c++)
            z[c] = lo[c] + (ideal[c] - lo[c]) * rng_uniform(&r);
        for (size_t i = 0; i < n; i++) {
            size_t c = 0;
            while (c < m &&
                   (sense[c] < 0 ? -y[i * m + c] : y[i * m + c]) >= z[c])
                c++;
            if (c == m) {
                hit++;
                break;
            }
        }
    }
    double p = (double)hit / (double)samples;
    double se = box * sqrt(p * (1 - p) / (double)samples);
    double hv = pareto_hypervolume(y, n, m, sense, ref);
    assert_true(p > 0.05 && p < 0.95);
    assert_close(hv, box * p, 0, 4 * se);
}

static void
test_hv_permutation_and_mixed(void **state)
{
    (void)state;
    struct rng r;
    double y[MAXN * 4], yp[MAXN * 4], yn[MAXN * 4];
    size_t perm[MAXN];
    const size_t n = 50, m = 4;
    const int sense[4] = {1, -1, -1, 1}, all_max[4] = {1, 1, 1, 1};
    double ref[4], refn[4];
    rng_seed(&r, 99);
    random_front(&r, y, n, m, 0.5);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < m; c++)
            if (sense[c] < 0)
                y[i * m + c] = 2.0 - y[i * m + c];
    pareto_reference(y, n, m, sense, 0.1, ref);
    double hv = pareto_hypervolume(y, n, m, sense, ref);
    assert_true(hv > 0);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (int t = 0; t < 3; t++) {
        rng_shuffle(&r, perm, n);
        for (size_t i = 0; i < n; i++)
            memcpy(yp + i * m, y + perm[i] * m, m * sizeof *y);
        assert_close(pareto_hypervolume(yp, n, m, sense, ref), hv, 1e-12, 0);
    }
    /* Minimizing a column is maximizing its negation. */
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < m; c++)
            yn[i * m + c] = sense[c] < 0 ? -y[i * m + c] : y[i * m + c];
    for (size_t c = 0; c < m; c++)
        refn[c] = sense[c] < 0 ? -ref[c] : ref[c];
    assert_close(pareto_hypervolume(yn, n, m, all_max, refn), hv, 1e-12, 0);
    /* Same for the 2-D sweep: max bleu, min gpu_time. */
    const double bt[] = {14.66, 320, 14.1, 150, 12.9, 90, 13.5, 200};
    const double btn[] = {14.66, -320, 14.1, -150, 12.9, -90, 13.5, -200};
    const int mt[2] = {1, -1}, mm[2] = {1, 1};
    const double rt[2] = {12.0, 400}, rtn[2] = {12.0, -400};
    /* By hand: strips at bleu 12.9, 14.1, 14.66 (13.5 is dominated). */
    double want = (14.66 - 14.1) * 80 + (14.1 - 12.9) * 250 + 0.9 * 310;
    assert_close(pareto_hypervolume(bt, 4, 2, mt, rt), want, 1e-13, 0);
    assert_close(pareto_hypervolume(btn, 4, 2, mm, rtn), want, 1e-13, 0);
}

static void
test_hv_workspace_reuse(void **state)
{
    (void)state;
    struct rng r;
    double y[MAXN * 3];
    const int sense[3] = {1, 1, -1};
    const double ref[3] = {0, 0, 1.5};
    struct pareto_hv *w = pareto_hv_create(3);
    rng_seed(&r, 61);
    /* Sizes that shrink and grow past the capacity, in any order. */
    const size_t sizes[6] = {5, 2, 40, 17, 64, 1};
    for (int t = 0; t < 6; t++) {
        random_front(&r, y, sizes[t], 3, 0.4);
        for (size_t i = 0; i < sizes[t]; i++)
            y[i * 3 + 2] = 1.0 - y[i * 3 + 2];
        assert_close(pareto_hv_volume(w, y, sizes[t], sense, ref),
                     pareto_hypervolume(y, sizes[t], 3, sense, ref), 0, 0);
        assert_close(pareto_hv_volume(w, y, sizes[t], sense, ref),
                     brute_hv_grid_mixed(y, sizes[t], sense, ref), 1e-12,
                     1e-15);
    }
    pareto_hv_free(w);
    pareto_hv_free(NULL);
}

static void
test_crowding_hand(void **state)
{
    (void)state;
    /*
     * Rows used: 4, 1, 3, 0 of a 5-row table (row 2 unused).
     * Objective 0 values 1, 2, 4, 7 (range 6); objective 1 values
     * 10, 6, 5, 1 (range 9), the same order reversed.
     * Inner points: j=1 -> (4-1)/6 + (10-5)/9; j=2 -> (7-2)/6 + (6-1)/9.
     */
    const double y[] = {7, 1, 2, 6, 99, 99, 4, 5, 1, 10};
    const size_t idx[4] = {4, 1, 3, 0};
    double dist[4];
    pareto_crowding(y, idx, 4, 2, dist);
    assert_true(isinf(dist[0]) && dist[0] > 0);
    assert_close(dist[1], 3.0 / 6 + 5.0 / 9, 1e-15, 0);
    assert_close(dist[2], 5.0 / 6 + 5.0 / 9, 1e-15, 0);
    assert_true(isinf(dist[3]) && dist[3] > 0);
    /* Two points: both boundaries. */
    pareto_crowding(y, idx, 2, 2, dist);
    assert_true(isinf(dist[0]) && isinf(dist[1]));
    /* Identical points: no spread in any objective. */
    const double same[] = {1, 2, 1, 2, 1, 2};
    const size_t all[3] = {0, 1, 2};
    pareto_crowding(same, all, 3, 2, dist);
    for (int j = 0; j < 3; j++)
        assert_close(dist[j], 0.0, 0, 0);
}

static void
test_reference(void **state)
{
    (void)state;
    /* bleu max (worst 12, range 3), time min (worst 300, range 200),
     * constant max column (worst 5, range 0 -> |5|), zero column (-> 1). */
    const double y[] = {12, 300, 5, 0, 15, 100, 5, 0, 13, 250, 5, 0};
    const int sense[4] = {1, -1, 1, -1};
    double ref[4];
    pareto_reference(y, 3, 4, sense, 0.1, ref);
    assert_close(ref[0], 12 - 0.3, 1e-15, 0);
    assert_close(ref[1], 300 + 20, 1e-15, 0);
    assert_close(ref[2], 5 - 0.5, 1e-15, 0);
    assert_close(ref[3], 0.1, 1e-15, 0);
    /* Non-finite values are ignored; none at all acts as w = 0. */
    const double z[] = {NAN, 4, INFINITY, 2};
    const int s2[2] = {1, 1};
    pareto_reference(z, 2, 2, s2, 0.5, ref);
    assert_close(ref[0], -0.5, 0, 0);
    assert_close(ref[1], 2 - 0.5 * 2, 1e-15, 0);
    /* With margin > 0 every point counts. */
    pareto_reference(y, 3, 4, sense, 0.1, ref);
    assert_true(pareto_hypervolume(y, 3, 4, sense, ref) > 0);
    /* Values across the whole double range: the range overflows, the
     * reference does not. Minimized column: worst DBL_MAX stays there;
     * maximized column: -1e308 - 0.1·(1e308 + 1e308) = -1.2e308. */
    const double big[] = {-DBL_MAX, 1e308, DBL_MAX, -1e308};
    const int s3[2] = {-1, 1};
    pareto_reference(big, 2, 2, s3, 0.1, ref);
    assert_true(ref[0] == DBL_MAX);
    assert_close(ref[1], -1.2e308, 1e-15, 0);
    pareto_reference(big, 2, 2, s2, 0.1, ref);
    assert_close(ref[0], -DBL_MAX, 0, 0);
    assert_true(isfinite(ref[0]) && isfinite(ref[1]));
}

/* pareto_complete_rows: the rows with every value finite, in order. */
static void
test_complete_rows(void **state)
{
    (void)state;
    const double y[] = {1, 2, NAN, 3, 4, 5, 6, INFINITY, 7, 8};
    double out[10];
    size_t k = pareto_complete_rows(y, 5, 2, out);
    assert_int_equal(k, 3);
    const double want[] = {1, 2, 4, 5, 7, 8};
    for (size_t i = 0; i < 6; i++)
        assert_true(out[i] == want[i]);
    assert_int_equal(pareto_complete_rows(y, 0, 2, out), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dominates),
        cmocka_unit_test(test_rank_bruteforce),
        cmocka_unit_test(test_rank_front_hand),
        cmocka_unit_test(test_hv_hand),
        cmocka_unit_test(test_hv_ref_excludes),
        cmocka_unit_test(test_hv_bruteforce),
        cmocka_unit_test(test_hv_monte_carlo),
        cmocka_unit_test(test_hv_permutation_and_mixed),
        cmocka_unit_test(test_hv_workspace_reuse),
        cmocka_unit_test(test_crowding_hand),
        cmocka_unit_test(test_reference),
        cmocka_unit_test(test_complete_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
