/*
 * bench/analysis.h - what a lookup table says about its hyperparameters
 * (dissertation ch. 3 and 5): the importance model of core/ebm fitted on
 * every row of a table, and the comparison of two tables on the
 * configurations they share (core/rankcorr).
 */
#ifndef HPOD_BENCH_ANALYSIS_H
#define HPOD_BENCH_ANALYSIS_H

#include <stddef.h>

#include "bench/catalog.h"
#include "common/status.h"
#include "core/ebm.h"

/* The fraction of the shared configurations that counts as the top. */
#define BENCH_TOP_FRACTION 0.2

/*
 * analysis_metric_name - metric of table ref (NULL: its first), checked:
 * *out borrows the table's name for it. HPOD_EUNPROC (field `field`) when
 * ref is a curve set or has no such metric.
 */
enum hpod_status analysis_metric_name(const struct bench_ref *ref,
                                      const char *metric, const char *field,
                                      const char **out, struct hpod_err *err);

/*
 * analysis_importance - core/ebm on every row of table ref (the parameter
 * columns, categoricals by choice index) against metric (checked by
 * analysis_metric_name). *out: a new model (ebm_free).
 */
enum hpod_status analysis_importance(const struct bench_ref *ref,
                                     const char *metric, struct ebm **out,
                                     struct hpod_err *err);

struct analysis_compare {
    size_t n_shared;    /* configurations in both tables */
    double spearman;    /* of the metric over them; NaN when undefined */
    size_t top_k;       /* ceil(BENCH_TOP_FRACTION · n_shared) */
    size_t top_a;       /* |top of a| (ties at the k-th value included) */
    size_t top_b;       /* |top of b| */
    size_t top_both;    /* |top_a ∩ top_b| */
    double top_overlap; /* top_both / top_a (0 when nothing is shared) */
};

/*
 * analysis_compare - tables a and b on metric (both must have it) over the
 * configurations they share: a row of a and a row of b are the same
 * configuration when every parameter has the same value (categoricals by
 * choice name), the parameters matched by name; a configuration listed
 * twice in a table counts once, with its first row. maximize: larger
 * metric values are better (for the top sets). HPOD_EUNPROC (field "with")
 * when b is a curve set or the two tables' parameters differ; (field
 * "metric") when either lacks the metric.
 */
enum hpod_status analysis_compare(const struct bench_ref *a,
                                  const struct bench_ref *b, const char *metric,
                                  int maximize, struct analysis_compare *out,
                                  struct hpod_err *err);

#endif
