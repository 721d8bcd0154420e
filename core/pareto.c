/*
 * core/pareto.c - Pareto dominance, non-dominated sorting, exact
 * hypervolume (sweep in 2-D, WFG beyond), crowding distance and the default
 * reference point.
 *
 * Pure numerics: no I/O, no globals; scratch memory from xmalloc, freed
 * before returning except what a caller-owned struct pareto_hv keeps for
 * reuse. Contracts are in core/pareto.h.
 */
#include "core/pareto.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

/* A sort key: value, then original position, so that the order is total. */
struct key {
    double v;
    size_t i;
};

/*
 * The hypervolume workspace. Level d (1 <= d <= m) holds a set of at most cap
 * points of dimension d (stored with row stride m), its sort keys and the
 * flags of the non-dominated filter. Level d-1 receives the limit sets
 * built while level d is processed, so recursion never overwrites the
 * points of a caller.
 */
struct pareto_hv {
    size_t m, cap;
    double **pts;
    struct key **keys;
    unsigned char **keep;
};

static int better_eq(double a, double b, int sense);
static int key_cmp(const void *pa, const void *pb);
static size_t hv_filter(struct pareto_hv *w, size_t d, size_t n);
static double hv_rec(struct pareto_hv *w, size_t d, size_t n);
static double hv_sweep2(struct pareto_hv *w, size_t n);

/* a is at least as good as b for the given goal (false if either is NaN). */
static int
better_eq(double a, double b, int sense)
{
    return sense < 0 ? a <= b : a >= b;
}

/* Ascending by value, NaN last, ties by position: a total order. */
static int
key_cmp(const void *pa, const void *pb)
{
    const struct key *a = pa, *b = pb;
    int na = isnan(a->v), nb = isnan(b->v);
    if (na != nb)
        return na - nb;
    if (!na) {
        if (a->v < b->v)
            return -1;
        if (a->v > b->v)
            return 1;
    }
    return (a->i > b->i) - (a->i < b->i);
}

int
pareto_dominates(const double *a, const double *b, size_t m, const int *sense)
{
    int strict = 0;
    for (size_t k = 0; k < m; k++) {
        if (!better_eq(a[k], b[k], sense[k]))
            return 0;
        if (a[k] != b[k])
            strict = 1;
    }
    return strict;
}

void
pareto_rank(const double *y, size_t n, size_t m, const int *sense, int *rank)
{
    /*
     * Deb et al. (2002) keep, for every point, the list of points it
     * dominates (O(n²) memory). Re-testing dominance when a front is
     * removed costs the same O(n² m) in total (each point is removed once
     * and tested against the others once) and needs only the counts.
     */
    size_t *count = xcalloc(n ? n : 1, sizeof *count);
    size_t left = n;

    for (size_t i = 0; i < n; i++) {
        rank[i] = -1;
        for (size_t j = 0; j < n; j++)
            if (j != i && pareto_dominates(y + j * m, y + i * m, m, sense))
                count[i]++;
    }
    for (int r = 0; left > 0; r++) {
        size_t found = 0;
        for (size_t i = 0; i < n; i++)
            if (rank[i] < 0 && count[i] == 0) {
                rank[i] = r;
                found++;
            }
        if (found == 0) {
            /* Unreachable: dominance is a strict partial order. */
            for (size_t i = 0; i < n; i++)
                if (rank[i] < 0)
                    rank[i] = r;
            break;
        }
        left -= found;
        for (size_t i = 0; i < n; i++) {
            if (rank[i] != r)
                continue;
            for (size_t j = 0; j < n; j++)
                if (rank[j] < 0 &&
                    pareto_dominates(y + i * m, y + j * m, m, sense))
                    count[j]--;
        }
    }
    free(count);
}

size_t
pareto_front(const double *y, size_t n, size_t m, const int *sense, size_t *idx)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < n &&
               (j == i || !pareto_dominates(y + j * m, y + i * m, m, sense)))
            j++;
        if (j == n)
            idx[k++] = i;
    }
    return k;
}

/*
 * Keeps, among the n points of level d (first d coordinates), those not
 * weakly dominated by another (one representative of duplicates: the first),
 * compacting them to the front of the level. Points here are boxes
 * [0, p] after the change of variables in pareto_hypervolume, so "covers"
 * is >= in every coordinate. Returns the count kept.
 */
static size_t
hv_filter(struct pareto_hv *w, size_t d, size_t n)
{
    double *p = w->pts[d];
    unsigned char *keep = w->keep[d];
    size_t m = w->m, k = 0;

    for (size_t i = 0; i < n; i++) {
        const double *a = p + i * m;
        keep[i] = 1;
        for (size_t j = 0; j < n && keep[i]; j++) {
            const double *b = p + j * m;
            size_t c = 0;
            int equal = 1;
            if (j == i)
                continue;
            for (; c < d && b[c] >= a[c]; c++)
                if (b[c] != a[c])
                    equal = 0;
            if (c == d && (!equal || j < i))
                keep[i] = 0;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (keep[i]) {
            if (k != i)
                memcpy(p + k * m, p + i * m, d * sizeof *p);
            k++;
        }
    return k;
}

/* Area of the union of boxes [0,a]×[0,b]: sweep in decreasing a. */
static double
hv_sweep2(struct pareto_hv *w, size_t n)
{
    const double *p = w->pts[2];
    struct key *key = w->keys[2];
    double area = 0, top = 0;
    size_t m = w->m;

    for (size_t i = 0; i < n; i++) {
        key[i].v = -p[i * m];
        key[i].i = i;
    }
    qsort(key, n, sizeof *key, key_cmp);
    for (size_t t = 0; t < n; t++) {
        const double *q = p + key[t].i * m;
        if (q[1] > top) {
            area += q[0] * (q[1] - top);
            top = q[1];
        }
    }
    return area;
}

/*
 * Volume of the union of the boxes [0, p] of the n points of level d, in
 * their first d coordinates (all > 0). WFG (While et al. 2012, with the
 * dimension sweep of their implementation): sort the points by the last
 * coordinate z ascending; then for j after i the box of j reaches at least
 * as high in z, so the part of box i not covered by later boxes is
 *   z_i × ( vol_{d-1}(p_i) − HV_{d-1}( nds{ min(p_i, p_j) : j after i } ) ),
 * and the sum of these exclusive parts is the hypervolume.
 */
static double
hv_rec(struct pareto_hv *w, size_t d, size_t n)
{
    const double *p = w->pts[d];
    struct key *key = w->keys[d];
    double *lim = w->pts[d - 1];
    size_t m = w->m;
    double vol = 0;

    if (n == 0)
        return 0;
    if (d == 1 || n == 1) {
        double v = p[0];
        if (d == 1) {
            for (size_t i = 1; i < n; i++)
                if (p[i * m] > v)
                    v = p[i * m];
            return v;
        }
        for (size_t c = 1; c < d; c++)
            v *= p[c];
        return v;
    }
    if (d == 2)
        return hv_sweep2(w, n);

    for (size_t i = 0; i < n; i++) {
        key[i].v = p[i * m + d - 1];
        key[i].i = i;
    }
    qsort(key, n, sizeof *key, key_cmp);
    for (size_t t = 0; t < n; t++) {
        const double *a = p + key[t].i * m;
        double incl = 1, excl = 0;
        size_t nl = 0;
        for (size_t c = 0; c + 1 < d; c++)
            incl *= a[c];
        for (size_t s = t + 1; s < n; s++) {
            const double *b = p + key[s].i * m;
            double *q = lim + nl * m;
            for (size_t c = 0; c + 1 < d; c++)
                q[c] = a[c] < b[c] ? a[c] : b[c];
            nl++;
        }
        if (nl > 0) {
            nl = hv_filter(w, d - 1, nl);
            excl = hv_rec(w, d - 1, nl);
        }
        vol += a[d - 1] * (incl - excl);
    }
    return vol;
}

struct pareto_hv *
pareto_hv_create(size_t m)
{
    struct pareto_hv *w = xcalloc(1, sizeof *w);
    w->m = m;
    w->pts = xcalloc(m + 1, sizeof *w->pts);
    w->keys = xcalloc(m + 1, sizeof *w->keys);
    w->keep = xcalloc(m + 1, sizeof *w->keep);
    return w;
}

void
pareto_hv_free(struct pareto_hv *w)
{
    if (w == NULL)
        return;
    for (size_t d = 1; d <= w->m; d++) {
        free(w->pts[d]);
        free(w->keys[d]);
        free(w->keep[d]);
    }
    free(w->pts);
    free(w->keys);
    free(w->keep);
    free(w);
}

double
pareto_hv_volume(struct pareto_hv *w, const double *y, size_t n,
                 const int *sense, const double *ref)
{
    size_t m = w->m, k = 0;

    if (n == 0 || m == 0)
        return 0;
    if (n > w->cap) {
        /* Geometric growth: a caller with rising n reallocates O(log n). */
        size_t cap = n > 2 * w->cap ? n : 2 * w->cap;
        for (size_t d = 1; d <= m; d++) {
            w->pts[d] = xrealloc(w->pts[d], cap * m * sizeof **w->pts);
            w->keys[d] = xrealloc(w->keys[d], cap * sizeof **w->keys);
            w->keep[d] = xrealloc(w->keep[d], cap);
        }
        w->cap = cap;
    }

    /*
     * Change of variables u_k = ±(y_k − ref_k), the sign making "better"
     * positive: the dominated region becomes the union of the boxes
     * [0, u_i] in the positive orthant, whatever the goals. Points not
     * strictly better than ref in every objective (u_k <= 0 or NaN) span
     * no volume and are dropped.
     */
    for (size_t i = 0; i < n; i++) {
        double *u = w->pts[m] + k * m;
        size_t c = 0;
        for (; c < m; c++) {
            u[c] = sense[c] < 0 ? ref[c] - y[i * m + c] : y[i * m + c] - ref[c];
            if (!(u[c] > 0))
                break;
        }
        if (c == m)
            k++;
    }
    if (m >= 3)
        k = hv_filter(w, m, k);
    return hv_rec(w, m, k);
}

double
pareto_hypervolume(const double *y, size_t n, size_t m, const int *sense,
                   const double *ref)
{
    struct pareto_hv *w;
    double hv;

    if (n == 0 || m == 0)
        return 0;
    w = pareto_hv_create(m);
    hv = pareto_hv_volume(w, y, n, sense, ref);
    pareto_hv_free(w);
    return hv;
}

void
pareto_crowding(const double *y, const size_t *idx, size_t k, size_t m,
                double *dist)
{
    struct key *key;

    for (size_t j = 0; j < k; j++)
        dist[j] = k <= 2 ? INFINITY : 0.0;
    if (k <= 2)
        return;
    key = xmalloc(k * sizeof *key);
    for (size_t c = 0; c < m; c++) {
        double range;
        for (size_t j = 0; j < k; j++) {
            key[j].v = y[idx[j] * m + c];
            key[j].i = j;
        }
        qsort(key, k, sizeof *key, key_cmp);
        range = key[k - 1].v - key[0].v;
        /* A constant (or non-finite) objective says nothing about spread. */
        if (!(range > 0) || !isfinite(range))
            continue;
        dist[key[0].i] = INFINITY;
        dist[key[k - 1].i] = INFINITY;
        /* Deb et al. (2002), Fig. 3: normalized side of the cuboid. */
        for (size_t t = 1; t + 1 < k; t++)
            dist[key[t].i] += (key[t + 1].v - key[t - 1].v) / range;
    }
    free(key);
}

void
pareto_reference(const double *y, size_t n, size_t m, const int *sense,
                 double margin, double *ref)
{
    for (size_t c = 0; c < m; c++) {
        double lo = INFINITY, hi = -INFINITY, worst, d;
        for (size_t i = 0; i < n; i++) {
            double v = y[i * m + c];
            if (!isfinite(v))
                continue;
            if (v < lo)
                lo = v;
            if (v > hi)
                hi = v;
        }
        if (lo > hi) {
            lo = hi = 0;
        }
        worst = sense[c] < 0 ? hi : lo;
        /* The range of two finite doubles may overflow; margin·hi −
         * margin·lo then does not. */
        d = isfinite(hi - lo) ? margin * (hi - lo) : margin * hi - margin * lo;
        if (!(d > 0))
            d = margin * fabs(worst);
        if (!(d > 0))
            d = margin;
        ref[c] = sense[c] < 0 ? worst + d : worst - d;
        /* Near ±DBL_MAX the move overflows: the reference stays the
         * farthest finite value (a point at it then adds no volume). */
        if (!isfinite(ref[c]))
            ref[c] = copysign(DBL_MAX, ref[c]);
    }
}

size_t
pareto_complete_rows(const double *y, size_t n, size_t m, double *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < m && isfinite(y[i * m + j]))
            j++;
        if (j == m)
            memcpy(out + k++ * m, y + i * m, m * sizeof *out);
    }
    return k;
}
