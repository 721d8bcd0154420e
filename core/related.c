/*
 * core/related.c - shared configurations and the order of related
 * studies; see related.h.
 */
#include "core/related.h"

#include <math.h>
#include <stdlib.h>

#include "common/mem.h"
#include "core/rankcorr.h"

/* A row to sort: its values (k) and its index, the tie-break. */
struct row_key {
    const double *v;
    size_t k, i;
};

/* Rows compared lexicographically, NaN after numbers, then by index: the
 * first of equal rows sorts first. */
static int
key_cmp(const void *pa, const void *pb)
{
    const struct row_key *a = pa, *b = pb;
    for (size_t c = 0; c < a->k; c++) {
        double p = a->v[c], q = b->v[c];
        int pn = isnan(p), qn = isnan(q);
        if (pn != qn)
            return pn - qn;
        if (!pn && p != q)
            return p < q ? -1 : 1;
    }
    return (a->i > b->i) - (a->i < b->i);
}

/* 1 when the rows of keys a and b are equal and hold no NaN. */
static int
same(const struct row_key *a, const struct row_key *b)
{
    for (size_t c = 0; c < a->k; c++)
        if (!(a->v[c] == b->v[c]))
            return 0;
    return 1;
}

/* x's rows (n × k) sorted, without the repeats of a row (the first of
 * equal rows stays) and without rows holding a NaN: *m of them. */
static struct row_key *
sorted(const double *x, size_t n, size_t k, size_t *m)
{
    struct row_key *r = xmalloc((n ? n : 1) * sizeof *r);
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        r[i] = (struct row_key){x + i * k, k, i};
    qsort(r, n, sizeof *r, key_cmp);
    for (size_t i = 0; i < n; i++)
        if (same(&r[i], &r[i]) /* no NaN */ &&
            (o == 0 || !same(&r[o - 1], &r[i])))
            r[o++] = r[i];
    *m = o;
    return r;
}

double
related_spearman(const double *a, const double *ya, size_t na, const double *b,
                 const double *yb, size_t nb, size_t k, size_t *n_shared)
{
    size_t ma = 0, mb = 0, m = 0, i = 0, j = 0;
    struct row_key *ra = sorted(a, na, k, &ma), *rb = sorted(b, nb, k, &mb);
    size_t cap = ma < mb ? ma : mb;
    double *xa = xmalloc((cap ? cap : 1) * sizeof *xa);
    double *xb = xmalloc((cap ? cap : 1) * sizeof *xb);

    /* Both sorted by value: a merge finds the shared rows. */
    while (i < ma && j < mb) {
        struct row_key p = ra[i], q = rb[j];
        p.i = q.i = 0; /* compare the values alone */
        int c = key_cmp(&p, &q);
        if (c < 0) {
            i++;
        } else if (c > 0) {
            j++;
        } else {
            xa[m] = ya[ra[i++].i];
            xb[m++] = yb[rb[j++].i];
        }
    }
    double rho = m >= 2 ? rank_spearman(xa, xb, m) : NAN;
    if (n_shared)
        *n_shared = m;
    free(ra);
    free(rb);
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
