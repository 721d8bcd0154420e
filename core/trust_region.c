/*
 * core/trust_region.c - trust regions on a candidate list; see
 * trust_region.h.
 */
#include "core/trust_region.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/acquisition.h"

struct dist_idx {
    double d;
    size_t i;
};

static int
dist_idx_cmp(const void *pa, const void *pb)
{
    const struct dist_idx *a = pa, *b = pb;
    if (a->d != b->d)
        return a->d < b->d ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

size_t
trust_region_nearest(const double *u, size_t n, size_t dim,
                     const unsigned char *kinds, const unsigned char *skip,
                     const size_t *centre, size_t nf, size_t k,
                     unsigned char *mask)
{
    struct dist_idx *di = xmalloc((n ? n : 1) * sizeof *di);
    size_t marked = 0;

    memset(mask, 0, n);
    for (size_t f = 0; f < nf; f++) {
        const double *c = u + centre[f] * dim;
        size_t nfree = 0;
        for (size_t i = 0; i < n; i++) {
            if (skip && skip[i])
                continue;
            di[nfree].d = space_d2(kinds, u + i * dim, c, dim);
            di[nfree++].i = i;
        }
        qsort(di, nfree, sizeof *di, dist_idx_cmp);
        for (size_t r = 0; r < k && r < nfree; r++) {
            marked += !mask[di[r].i];
            mask[di[r].i] = 1;
        }
    }
    free(di);
    return marked;
}

size_t
trust_region_steps(const struct space *sp, const double *raw, size_t n,
                   const unsigned char *used, const size_t *centre, size_t nf,
                   unsigned char *mask)
{
    size_t np = sp->n_params, marked = 0;

    memset(mask, 0, n);
    for (size_t f = 0; f < nf; f++) {
        const double *c = raw + centre[f] * np;
        for (size_t i = 0; i < n; i++) {
            size_t dif = 0;
            if (used[i] || mask[i])
                continue;
            for (size_t t = 0; t < np && dif < 2; t++)
                dif += raw[i * np + t] != c[t];
            if (dif == 1) {
                mask[i] = 1;
                marked++;
            }
        }
    }
    return marked;
}

void
trust_region_best(const double *u, size_t n, size_t dim,
                  const unsigned char *kinds, const unsigned char *used,
                  const size_t *obs_cand, const double *obs_y, size_t n_obs,
                  size_t div, size_t tau, double *score)
{
    size_t k = n / div, bo = acq_argmax(obs_y, n_obs, NULL), nfree = 0;
    size_t fails = n_obs - 1 - bo, b = obs_cand[bo];

    if (fails / tau >= 16 || (k << (fails / tau)) >= n)
        return;
    k <<= fails / tau;
    unsigned char *keep = xmalloc(n);
    trust_region_nearest(u, n, dim, kinds, NULL, &b, 1, k, keep);
    for (size_t i = 0; i < n; i++)
        nfree += keep[i] && !used[i] && !isnan(score[i]);
    for (size_t i = 0; nfree > 0 && i < n; i++)
        if (!keep[i])
            score[i] = NAN;
    free(keep);
}
