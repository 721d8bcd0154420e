/*
 * core/related.c - shared configurations and the order of related
 * studies; see related.h.
 */
#include "core/related.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/rankcorr.h"

/* Rows x (n × k) compared lexicographically; NaN sorts after numbers. */
static int
row_cmp(const double *x, size_t i, size_t j, size_t k)
{
    for (size_t c = 0; c < k; c++) {
        double p = x[i * k + c], q = x[j * k + c];
        int pn = isnan(p), qn = isnan(q);
        if (pn != qn)
            return pn - qn;
        if (!pn && p != q)
            return p < q ? -1 : 1;
    }
    return 0;
}

/* Stable merge sort of idx[0..n) by row_cmp (tmp: n scratch). */
static void
sort_rows(const double *x, size_t k, size_t *idx, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_rows(x, k, idx, tmp, h);
    sort_rows(x, k, idx + h, tmp, n - h);
    size_t i = 0, j = h, o = 0;
    while (i < h && j < n)
        tmp[o++] = row_cmp(x, idx[j], idx[i], k) < 0 ? idx[j++] : idx[i++];
    while (i < h)
        tmp[o++] = idx[i++];
    while (j < n)
        tmp[o++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

/* 1 when row has a NaN (it equals no row). */
static int
has_nan(const double *x, size_t i, size_t k)
{
    for (size_t c = 0; c < k; c++)
        if (isnan(x[i * k + c]))
            return 1;
    return 0;
}

/* The two rows equal? (rows of two arrays) */
static int
cross_cmp(const double *a, size_t i, const double *b, size_t j, size_t k)
{
    for (size_t c = 0; c < k; c++) {
        double p = a[i * k + c], q = b[j * k + c];
        if (p != q)
            return p < q ? -1 : 1;
    }
    return 0;
}

/* Sorted indices of x's rows, stable: the first of equal rows first. */
static size_t *
sorted(const double *x, size_t n, size_t k)
{
    size_t *idx = xmalloc((n ? n : 1) * sizeof *idx);
    size_t *tmp = xmalloc((n ? n : 1) * sizeof *tmp);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_rows(x, k, idx, tmp, n);
    free(tmp);
    return idx;
}

double
related_spearman(const double *a, const double *ya, size_t na, const double *b,
                 const double *yb, size_t nb, size_t k, size_t *n_shared)
{
    size_t *ia = sorted(a, na, k), *ib = sorted(b, nb, k);
    size_t cap = na < nb ? na : nb, m = 0, i = 0, j = 0;
    double *xa = xmalloc((cap ? cap : 1) * sizeof *xa);
    double *xb = xmalloc((cap ? cap : 1) * sizeof *xb);

    while (i < na && j < nb) {
        if (has_nan(a, ia[i], k)) {
            i++;
            continue;
        }
        int c = cross_cmp(a, ia[i], b, ib[j], k);
        if (c < 0) {
            i++;
        } else if (c > 0) {
            j++;
        } else {
            xa[m] = ya[ia[i]];
            xb[m++] = yb[ib[j]];
            /* The first row of each run: skip the repeats on both sides. */
            size_t i0 = ia[i], j0 = ib[j];
            while (i < na && row_cmp(a, ia[i], i0, k) == 0)
                i++;
            while (j < nb && row_cmp(b, ib[j], j0, k) == 0)
                j++;
        }
    }
    double rho = m >= 2 ? rank_spearman(xa, xb, m) : NAN;
    if (n_shared)
        *n_shared = m;
    free(ia);
    free(ib);
    free(xa);
    free(xb);
    return rho;
}

/* 1 when study p goes before study q. */
static int
before(const struct related_score *p, const struct related_score *q)
{
    int pr = !isnan(p->rho), qr = !isnan(q->rho);
    if (pr != qr)
        return pr;
    if (pr && p->rho != q->rho)
        return p->rho > q->rho;
    if (p->overlap != q->overlap)
        return p->overlap > q->overlap;
    return p->id < q->id;
}

void
related_rank(const struct related_score *s, size_t n, size_t *order)
{
    /* Insertion sort: a lab's studies, at most a few thousand. */
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && before(&s[i], &s[order[j - 1]])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}
