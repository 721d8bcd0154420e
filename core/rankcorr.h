/*
 * core/rankcorr.h - rank statistics for comparing two lookup tables on
 * their shared configurations (dissertation ch. 3): average ranks with
 * ties, Spearman's rank correlation, and the overlap of the top fractions.
 * Pure: no I/O, no globals; arrays are borrowed for the call.
 */
#ifndef HPOD_RANKCORR_H
#define HPOD_RANKCORR_H

#include <stddef.h>

/*
 * rank_average - the 1-based ascending ranks of x[0..n) into rank, tied
 * values sharing the mean of the ranks they span (1, 2.5, 2.5, 4).
 */
void rank_average(const double *x, size_t n, double *rank);

/*
 * rank_spearman - Spearman's rho of x and y (n pairs): the Pearson
 * correlation of their average ranks. NaN when n < 2 or either side is
 * constant (no ranking to compare).
 */
double rank_spearman(const double *x, const double *y, size_t n);

/* ceil(frac · n), at least 1 and at most n (0 when n == 0). */
size_t rank_top_k(size_t n, double frac);

/*
 * rank_top_set - marks in top (n flags) the best fraction of x: k =
 * ceil(frac · n) (at least 1 when n > 0), larger is better when maximize,
 * and every value tied with the k-th best is in too (the set does not
 * depend on the order of the rows). Returns the set's size (>= k).
 */
size_t rank_top_set(const double *x, size_t n, double frac, int maximize,
                    unsigned char *top);

/*
 * rank_top_overlap - |top_x ∩ top_y| / |top_x| for the rank_top_set sets
 * of x and y; *n_x, *n_y, *n_both get the sizes (NULL allowed). 0 when
 * n == 0.
 */
double rank_top_overlap(const double *x, const double *y, size_t n, double frac,
                        int maximize, size_t *n_x, size_t *n_y, size_t *n_both);

#endif
