/*
 * core/transfer.c - the source's prior and its weight; see transfer.h.
 */
#include "core/transfer.h"

#include <math.h>
#include <stdlib.h>

#include "common/mem.h"
#include "core/gp.h"
#include "core/rankcorr.h"
#include "core/rng.h"
#include "core/space.h"

/* Index of the first source row equal to q (np raw values), or ns. */
static size_t
find_row(const double *src_u, size_t ns, size_t d, const double *q)
{
    for (size_t s = 0; s < ns; s++) {
        size_t k = 0;
        while (k < d && fabs(src_u[s * d + k] - q[k]) <=
                            1e-9 * (fabs(q[k]) > 1 ? fabs(q[k]) : 1))
            k++;
        if (k == d)
            return s;
    }
    return ns;
}

/* Mean score of the source rows equal to q (first at index first). */
static double
exact_mean(const double *src_u, const double *z, size_t ns, size_t d,
           const double *q, size_t first)
{
    double sum = z[first];
    size_t cnt = 1;
    for (size_t s = first + 1; s < ns; s++)
        if (find_row(src_u + s * d, 1, d, q) == 0) {
            sum += z[s];
            cnt++;
        }
    return sum / (double)cnt;
}

static int
cmp_z(const void *a, const void *b, void *ctx)
{
    const double *z = ctx;
    double x = z[*(const size_t *)a], y = z[*(const size_t *)b];
    return x < y ? -1 : x > y;
}

/* Insertion sort of idx by z (ns is small; avoids qsort_r portability). */
static void
sort_by(size_t *idx, size_t n, const double *z)
{
    for (size_t i = 1; i < n; i++) {
        size_t v = idx[i], j = i;
        while (j > 0 && cmp_z(&idx[j - 1], &v, (void *)z) > 0) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
}

/* GP on (at most TRANSFER_GP_MAX rows of) the source's scores, predicting
 * the queries that did not match (mu[i] where !hit[i]). */
static enum hpod_status
gp_fill(const double *src_u, const double *z, size_t ns, size_t d,
        const unsigned char *kinds, const double *q_u, size_t nq, int kernel,
        unsigned long long seed, double *mu, const unsigned char *hit)
{
    size_t m = ns < TRANSFER_GP_MAX ? ns : TRANSFER_GP_MAX;
    size_t *idx = xmalloc(ns * sizeof *idx);
    double *x = xmalloc(m * d * sizeof *x), *y = xmalloc(m * sizeof *y);
    double *qb = xmalloc(d * sizeof *qb);
    struct gp *gp = gp_create(m, d, (enum kernel_kind)kernel);
    struct rng r;
    enum hpod_status st = HPOD_EINVAL;

    for (size_t s = 0; s < ns; s++)
        idx[s] = s;
    sort_by(idx, ns, z);
    /* Evenly spaced in rank order: the subset spans the whole ranking. */
    for (size_t k = 0; k < m; k++) {
        size_t s = m == ns ? idx[k] : idx[k * (ns - 1) / (m - 1)];
        for (size_t j = 0; j < d; j++)
            x[k * d + j] = src_u[s * d + j];
        y[k] = z[s];
    }
    rng_seed(&r, seed);
    if (!gp || (st = gp_set_kinds(gp, kinds)) != HPOD_OK ||
        (st = gp_fit(gp, x, y, m, &r)) != HPOD_OK)
        goto out;
    for (size_t i = 0; i < nq && st == HPOD_OK; i++)
        if (!hit[i]) {
            for (size_t j = 0; j < d; j++)
                qb[j] = q_u[i * d + j];
            st = gp_predict(gp, qb, 1, &mu[i], NULL);
        }
out:
    gp_free(gp);
    free(idx);
    free(x);
    free(y);
    free(qb);
    return st;
}

enum hpod_status
transfer_prior(const double *src_raw, const double *src_u, const double *z,
               size_t ns, size_t np, size_t d, const unsigned char *kinds,
               const double *q_raw, const double *q_u, size_t nq, int kernel,
               unsigned long long seed, double *mu, unsigned char *exact,
               size_t *n_exact)
{
    if (!src_raw || !src_u || !z || !mu || (nq && (!q_u || !q_raw)) ||
        ns == 0 || np == 0 || d == 0)
        return HPOD_EINVAL;
    unsigned char *hit = xcalloc(nq ? nq : 1, 1);
    size_t matched = 0;
    enum hpod_status st = HPOD_OK;

    for (size_t i = 0; i < nq; i++) {
        size_t s = find_row(src_raw, ns, np, q_raw + i * np);
        if (s < ns) {
            mu[i] = exact_mean(src_raw, z, ns, np, q_raw + i * np, s);
            hit[i] = 1;
            matched++;
        }
    }
    if (matched < nq)
        st = gp_fill(src_u, z, ns, d, kinds, q_u, nq, kernel, seed, mu, hit);
    for (size_t i = 0; exact && i < nq; i++)
        exact[i] = hit[i];
    if (n_exact)
        *n_exact = matched;
    free(hit);
    return st;
}

double
transfer_kendall_tau(const double *p, const double *y, size_t n)
{
    if (n < 2)
        return 0.0;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double a = p[i] - p[j], b = y[i] - y[j];
            s += (double)(((a > 0) - (a < 0)) * ((b > 0) - (b < 0)));
        }
    return s / ((double)n * (double)(n - 1) / 2.0);
}

double
transfer_weight(int rule, const double *p, const double *y, size_t n)
{
    if (rule == TRANSFER_SPEARMAN) {
        if (n < 3)
            return 1.0;
        double rho = rank_spearman(p, y, n);
        return isfinite(rho) && rho > 0 ? rho : 0.0;
    }
    if (rule == TRANSFER_SHRUNK) {
        if (n < 3)
            return 1.0;
        double rho = rank_spearman(p, y, n), dn = (double)n;
        double w = (TRANSFER_SHRINK_N + dn * (isfinite(rho) ? rho : 0.0)) /
                   (TRANSFER_SHRINK_N + dn);
        return w > 0 ? w : 0.0;
    }
    if (rule == TRANSFER_KENDALL) {
        if (n < 3)
            return 1.0;
        double dn = (double)n;
        double se = sqrt(2.0 * (2.0 * dn + 5.0) / (9.0 * dn * (dn - 1.0)));
        return transfer_kendall_tau(p, y, n) < -TRANSFER_KENDALL_Z * se ? 0.0
                                                                        : 1.0;
    }
    return rule == TRANSFER_INIT ? 0.0 : 1.0;
}

double
transfer_rank_loss(const double *f, const double *y, const size_t *idx,
                   size_t m)
{
    double loss = 0;
    for (size_t a = 0; a < m; a++)
        for (size_t b = a + 1; b < m; b++) {
            size_t i = idx[a], j = idx[b];
            double dy = y[i] - y[j], df = f[i] - f[j];
            if (dy == 0)
                continue;
            if (df == 0)
                loss += 0.5;
            else if ((dy > 0) != (df > 0))
                loss += 1;
        }
    return loss;
}

void
transfer_loo_nn(const double *u, const double *y, size_t n, size_t dim,
                const unsigned char *kinds, double *t)
{
    for (size_t i = 0; i < n; i++) {
        double best = INFINITY, sum = 0;
        size_t cnt = 0;
        for (size_t j = 0; j < n; j++) {
            if (j == i)
                continue;
            double d = space_d2(kinds, u + i * dim, u + j * dim, dim);
            if (d < best) {
                best = d;
                sum = y[j];
                cnt = 1;
            } else if (d == best) {
                sum += y[j];
                cnt++;
            }
        }
        t[i] = cnt ? sum / (double)cnt : 0.0;
    }
}

double
transfer_weight_rankloss(const double *p, const double *y, const double *u,
                         size_t n, size_t dim, const unsigned char *kinds,
                         unsigned long long seed)
{
    if (n < 3)
        return 1.0;
    double *t = xmalloc(n * sizeof *t);
    size_t *idx = xmalloc(n * sizeof *idx);
    struct rng r;
    double wins = 0;

    transfer_loo_nn(u, y, n, dim, kinds, t);
    rng_seed2(&r, seed, (uint64_t)n);
    for (int b = 0; b < TRANSFER_BOOTSTRAP; b++) {
        for (size_t k = 0; k < n; k++)
            idx[k] = (size_t)rng_below(&r, n);
        double lp = transfer_rank_loss(p, y, idx, n);
        double lt = transfer_rank_loss(t, y, idx, n);
        wins += lp < lt ? 1.0 : lp == lt ? 0.5 : 0.0;
    }
    free(t);
    free(idx);
    return wins / TRANSFER_BOOTSTRAP;
}
