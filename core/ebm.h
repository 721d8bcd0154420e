/*
 * core/ebm.h - an explainable boosting machine (Lou, Caruana & Gehrke,
 * "Intelligible models for classification and regression", KDD 2012;
 * Lou et al., "Accurate intelligible models with pairwise interactions"
 * (GA2M, FAST), KDD 2013): the additive model
 *
 *     y = b0 + sum_j f_j(x_j) + sum_{(i,j) in P} f_ij(x_i, x_j)
 *
 * fitted by cyclic gradient boosting on the squared error:
 *   1. each feature is binned: every distinct value is a bin when there are
 *      at most max_bins of them (the lookup tables' parameters, any
 *      categorical), else quantile bins (at most max_bins);
 *   2. b0 = mean(y); then `rounds` times, round-robin over the features, a
 *      tree of at most max_leaves leaves is fitted on the residual of one
 *      feature's bins (contiguous bins per leaf; a categorical feature's
 *      bins are ordered by their mean residual first) and learning_rate
 *      times its leaf means is added to f_j;
 *   3. FAST: every pair is scored by the squared-error reduction of the best
 *      small 2-D tree (a cut on one feature, then a cut on the other on each
 *      side) on the residual left by the main effects; the n_pairs
 *      strongest pairs are boosted the same way for pair_rounds rounds;
 *   4. each pair term is purified (its data-weighted mean over each bin of
 *      either feature is moved into that feature's main term), then every
 *      term is centred (data mean 0, the mean moved into b0). Predictions
 *      on the data are unchanged; importances become comparable.
 *
 * Importance of feature j = mean over the data of |f_j(x_j)|; of a pair
 * the mean of |f_ij|. The shape function of j is f_j per bin, each bin with
 * its representative value (the value itself when every distinct value
 * has its own bin, else the mean of the data values in it) and count.
 *
 * Deterministic (no sampling, no bagging). Cost O(rounds · p · (n + B))
 * plus O(p² · B²) for the pair scores: a 767-row, 6-feature table takes a
 * few milliseconds. Pure: no I/O, no globals.
 */
#ifndef HPOD_EBM_H
#define HPOD_EBM_H

#include <stddef.h>

#include "common/status.h"

struct ebm_opts {
    size_t max_bins;      /* per feature (>= 2) */
    size_t rounds;        /* main-effect rounds over all features */
    double learning_rate; /* in (0, 1] */
    size_t max_leaves;    /* leaves per main-effect tree (>= 2) */
    size_t n_pairs;       /* pair terms kept (0: none) */
    size_t pair_rounds;   /* boosting rounds over the kept pairs */
};

/* The defaults: 32 bins, 1000 rounds, rate 0.05, 3 leaves, 3 pairs, 500
 * pair rounds. */
void ebm_default_opts(struct ebm_opts *o);

struct ebm;

/*
 * ebm_fit - fits the model on n rows of p features x (row-major n × p) and
 * targets y (n). categorical: p flags (NULL: none); a categorical feature's
 * values are codes (any finite doubles) whose order means nothing. A
 * feature value may be NaN, missing (an inactive conditional parameter):
 * a feature's missing rows share one bin of their own, its last, whose
 * value is NaN. o NULL: ebm_default_opts. *out: a new model (ebm_free).
 * Return: HPOD_OK; HPOD_EINVAL when n == 0, p == 0, a feature value is
 * infinite, a target not finite or an option is out of range (nothing
 * allocated).
 */
enum hpod_status ebm_fit(const double *x, size_t n, size_t p,
                         const unsigned char *categorical, const double *y,
                         const struct ebm_opts *o, struct ebm **out);
void ebm_free(struct ebm *m);

size_t ebm_n_rows(const struct ebm *m);
size_t ebm_n_features(const struct ebm *m);
double ebm_intercept(const struct ebm *m);
/* In-sample R² (1 when y is constant and fitted exactly). */
double ebm_r2(const struct ebm *m);

/* Feature j: importance, bins, and per bin the representative value,
 * the number of rows and the contribution f_j. */
double ebm_importance(const struct ebm *m, size_t j);
size_t ebm_n_bins(const struct ebm *m, size_t j);
double ebm_bin_value(const struct ebm *m, size_t j, size_t b);
size_t ebm_bin_count(const struct ebm *m, size_t j, size_t b);
double ebm_contribution(const struct ebm *m, size_t j, size_t b);
/* The bin of value v for feature j (the first bin whose upper edge is >=
 * v, the last one above every edge; a categorical code not seen: the
 * nearest bin by value). */
size_t ebm_bin_of(const struct ebm *m, size_t j, double v);

/* Pair terms, strongest first by importance: k < ebm_n_pairs. */
size_t ebm_n_pairs(const struct ebm *m);
void ebm_pair(const struct ebm *m, size_t k, size_t *a, size_t *b,
              double *importance);
/* f_ab at bin ba of feature a and bin bb of feature b. */
double ebm_pair_contribution(const struct ebm *m, size_t k, size_t ba,
                             size_t bb);
/* The FAST score of pair (a, b) (a != b): the squared-error reduction per
 * row of its best small 2-D tree on the main-effect residual. */
double ebm_pair_score(const struct ebm *m, size_t a, size_t b);

/* The model's prediction at x (p features). */
double ebm_predict(const struct ebm *m, const double *x);

#endif
