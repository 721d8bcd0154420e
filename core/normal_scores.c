/*
 * core/normal_scores.c - normal scores by mid-rank; see normal_scores.h.
 */
#include "core/normal_scores.h"

#include <math.h>
#include <stdlib.h>

#include "common/mem.h"

struct ranked {
    double y;
    size_t i;
};

static int
cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->y != y->y)
        return x->y < y->y ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

void
normal_scores(const double *y, size_t n, double *z)
{
    struct ranked *r = xmalloc(n * sizeof *r);

    /* Mid-ranks from one sort, O(n log n): a run of equal values shares
     * lt = its start and eq = its length (exact: small integers). */
    for (size_t i = 0; i < n; i++) {
        r[i].y = y[i];
        r[i].i = i;
    }
    qsort(r, n, sizeof *r, cmp_ranked);
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && r[b].y == r[a].y;)
            b++;
        double p = ((double)a + 0.5 * (double)(b - a)) / (double)n;
        double lo = -40.0, hi = 40.0;
        /* Φ⁻¹(p) by bisection on Φ(x) = erfc(-x/√2)/2: up to 100 halvings
         * of [-40, 40] reach round-off; once mid rounds to an end, further
         * halvings leave the answer 0.5·(lo + hi) as it is. */
        for (int it = 0; it < 100; it++) {
            double mid = 0.5 * (lo + hi);
            if (mid == lo || mid == hi)
                break;
            if (0.5 * erfc(-mid / sqrt(2.0)) < p)
                lo = mid;
            else
                hi = mid;
        }
        for (size_t k = a; k < b; k++)
            z[r[k].i] = 0.5 * (lo + hi);
    }
    free(r);
}
