/*
 * tests/support/explain_check.h - an explanation (core/sampler_explain.h)
 * checked against a brute-force argsort of the scores.
 */
#ifndef HPOD_TEST_EXPLAIN_CHECK_H
#define HPOD_TEST_EXPLAIN_CHECK_H

#include <stdlib.h>

#include "core/sampler_explain.h"
#include "tests/support/check.h"

/*
 * The explanation against a brute-force argsort of the scores (ties to
 * the lower index, skipped and NaN excluded): the pick and the next
 * SAMPLER_EXPLAIN_RUNNERS, with the mean and sd at each (mean/var NULL:
 * not compared).
 */
static inline void
check_explain_ranking(const struct sampler_explain *ex, const double *sc,
                      const double *mu, const double *var, size_t n,
                      const unsigned char *skip, size_t want)
{
    unsigned char *taken = calloc(n, 1);
    size_t order[SAMPLER_EXPLAIN_RUNNERS + 1], k;

    for (k = 0; k <= SAMPLER_EXPLAIN_RUNNERS; k++) {
        size_t b = n;
        for (size_t i = 0; i < n; i++) {
            if (skip[i] || taken[i] || isnan(sc[i]))
                continue;
            /* Strictly larger, or equal at a lower index (scan order). */
            if (b == n || sc[i] > sc[b])
                b = i;
        }
        if (b == n)
            break;
        taken[b] = 1;
        order[k] = b;
    }
    free(taken);
    assert_true(k >= 1);
    assert_int_equal(order[0], want);
    assert_int_equal(ex->pick.cand, want);
    assert_int_equal(ex->n_runners, k - 1);
    for (size_t j = 0; j < k; j++) {
        const struct sampler_explain_point *p =
            j == 0 ? &ex->pick : &ex->runner[j - 1];
        double tol = 1e-12 * (1 + fabs(sc[order[j]]));
        assert_int_equal(p->cand, order[j]);
        assert_true(fabs(p->acq - sc[order[j]]) <= tol);
        if (mu) {
            assert_true(fabs(p->mean - mu[order[j]]) <=
                        1e-12 * (1 + fabs(mu[order[j]])));
            assert_true(fabs(p->sd - sqrt(var[order[j]])) <=
                        1e-12 * (1 + sqrt(var[order[j]])));
        }
    }
}

#endif
