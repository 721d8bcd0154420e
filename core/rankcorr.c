/*
 * core/rankcorr.c - rank statistics; contracts in core/rankcorr.h.
 */
#include "core/rankcorr.h"

#include <math.h>
#include <stdlib.h>

#include "common/mem.h"

struct keyed {
    double v;
    size_t i;
};

static int
cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->v != y->v)
        return (x->v > y->v) - (x->v < y->v);
    return (x->i > y->i) - (x->i < y->i);
}

void
rank_average(const double *x, size_t n, double *rank)
{
    struct keyed *k = xmalloc((n ? n : 1) * sizeof *k);
    for (size_t i = 0; i < n; i++) {
        k[i].v = x[i];
        k[i].i = i;
    }
    qsort(k, n, sizeof *k, cmp_keyed);
    for (size_t s = 0; s < n;) {
        size_t e = s + 1;
        while (e < n && k[e].v == k[s].v)
            e++;
        double r = 0.5 * (double)(s + 1 + e); /* mean of s+1 .. e */
        for (size_t t = s; t < e; t++)
            rank[k[t].i] = r;
        s = e;
    }
    free(k);
}

double
rank_spearman(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return NAN;
    double *rx = xmalloc(n * sizeof *rx), *ry = xmalloc(n * sizeof *ry);
    double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
    rank_average(x, n, rx);
    rank_average(y, n, ry);
    for (size_t i = 0; i < n; i++) {
        mx += rx[i];
        my += ry[i];
    }
    mx /= (double)n;
    my /= (double)n;
    for (size_t i = 0; i < n; i++) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    free(rx);
    free(ry);
    if (sxx <= 0 || syy <= 0)
        return NAN;
    return sxy / sqrt(sxx * syy);
}

size_t
rank_top_k(size_t n, double frac)
{
    if (n == 0)
        return 0;
    double c = ceil(frac * (double)n - 1e-9);
    size_t k = c < 1 ? 1 : (size_t)c;
    return k > n ? n : k;
}

size_t
rank_top_set(const double *x, size_t n, double frac, int maximize,
             unsigned char *top)
{
    size_t k = rank_top_k(n, frac), count = 0;
    if (n == 0)
        return 0;
    double *s = xmalloc(n * sizeof *s);
    for (size_t i = 0; i < n; i++)
        s[i] = maximize ? -x[i] : x[i];
    struct keyed *kk = xmalloc(n * sizeof *kk);
    for (size_t i = 0; i < n; i++) {
        kk[i].v = s[i];
        kk[i].i = i;
    }
    qsort(kk, n, sizeof *kk, cmp_keyed);
    double cut = kk[k - 1].v;
    for (size_t i = 0; i < n; i++) {
        top[i] = s[i] <= cut;
        count += top[i];
    }
    free(kk);
    free(s);
    return count;
}

double
rank_top_overlap(const double *x, const double *y, size_t n, double frac,
                 int maximize, size_t *n_x, size_t *n_y, size_t *n_both)
{
    size_t a = 0, b = 0, both = 0;
    if (n > 0) {
        unsigned char *tx = xmalloc(n), *ty = xmalloc(n);
        a = rank_top_set(x, n, frac, maximize, tx);
        b = rank_top_set(y, n, frac, maximize, ty);
        for (size_t i = 0; i < n; i++)
            both += tx[i] && ty[i];
        free(tx);
        free(ty);
    }
    if (n_x)
        *n_x = a;
    if (n_y)
        *n_y = b;
    if (n_both)
        *n_both = both;
    return a ? (double)both / (double)a : 0.0;
}
