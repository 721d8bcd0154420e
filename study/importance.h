/*
 * study/importance.h - which parameters mattered in a study: the
 * explainable boosting machine of core/ebm fitted on the completed trials'
 * configurations (raw values: a categorical parameter by choice index)
 * against one metric as reported (an objective, by default the first, or
 * a constrained metric). Read only.
 */
#ifndef HPOD_STUDY_IMPORTANCE_H
#define HPOD_STUDY_IMPORTANCE_H

#include <stddef.h>

#include "common/status.h"
#include "core/ebm.h"
#include "store/db.h"
#include "store/model.h"
#include "study/def.h"

/*
 * Fewest completed trials carrying the metric that importance is computed
 * on: with fewer, the shape functions' bins rest on one or two trials each
 * and the ranking is noise.
 */
#define STUDY_IMPORTANCE_MIN_TRIALS 10

struct study_importance {
    struct study_def def; /* owned */
    const char *metric;   /* borrowed from def */
    struct ebm *model;    /* owned, on the n trials */
    size_t n;             /* completed trials used */
};

/*
 * study_importance_data - the rows to fit on, without a database: of the
 * completed trials rows (borrowed, n_rows), those carrying metric with a
 * parameter object of d's space; *x (n × n_params) and *y (n) are new
 * allocations (also when n is 0).
 */
void study_importance_data(const struct study_def *d, const struct trial *rows,
                           size_t n_rows, const char *metric, double **x,
                           double **y, size_t *n);

/*
 * study_importance - the model for study study_id on metric (NULL: its
 * first objective). out: study_importance_cleanup, also on failure.
 * HPOD_ENOTFOUND (no such study); HPOD_EUNPROC (field "objective") when
 * metric is neither an objective nor a constrained metric of the study;
 * HPOD_ECONFLICT when fewer than STUDY_IMPORTANCE_MIN_TRIALS completed
 * trials carry it.
 */
enum hpod_status study_importance(struct db *db, long long study_id,
                                  const char *metric,
                                  struct study_importance *out,
                                  struct hpod_err *err);
void study_importance_cleanup(struct study_importance *a);

#endif
