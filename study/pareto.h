/*
 * study/pareto.h - a study's Pareto front, what a dashboard plots: the
 * non-dominated feasible completed trials for the study's objectives
 * (mixed goals), the hypervolume they dominate against the reference
 * point, each completed trial's non-dominated rank and feasibility, and
 * the hypervolume after each completed trial in completion order.
 * Infeasible trials (a constraint not met, or its metric not reported)
 * are never on the front. The numerics are core/pareto.
 */
#ifndef HPOD_STUDY_PARETO_H
#define HPOD_STUDY_PARETO_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"
#include "study/def.h"

/*
 * study_pareto_reference - the reference point (m = d->n_objectives
 * entries) for the k observations y (k × m): per objective the study's
 * own ("reference" in its definition), else the worst observed value
 * moved out by PARETO_REF_MARGIN (core/pareto.h) of the range
 * (pareto_reference). oriented = 1: y and ref are oriented, larger is better
 * (as core/mobo takes them); 0: as reported, with the study's goals.
 */
void study_pareto_reference(const struct study_def *d, const double *y,
                            size_t k, int oriented, double *ref);

/* A completed trial's standing: rank -1 when infeasible (no rank). */
struct study_pareto_rank {
    long long trial;
    int rank;
    int feasible;
};

/* The hypervolume of the feasible trials completed up to trial. */
struct study_pareto_step {
    size_t n_completed;
    long long trial;
    double hypervolume;
};

struct study_pareto_answer {
    struct study_def def; /* the study's definition (owned) */
    struct trial *rows;   /* n_rows completed trials (owned) */
    size_t n_rows;
    size_t n_completed; /* those carrying every objective */
    size_t n_feasible;
    size_t *front; /* n_front indices into rows, core/pareto's order */
    size_t n_front;
    double hypervolume; /* finite: saturates at DBL_MAX, NaN is 0 */
    int has_reference;  /* 0 when no trial carries every objective */
    double reference[MODEL_MAX_OBJECTIVES]; /* as reported, not oriented */
    struct study_pareto_rank *ranks;        /* n_completed, or NULL */
    struct study_pareto_step *history;      /* n_completed, or NULL */
};

/*
 * study_pareto_build - the answer for definition d and its completed
 * trials rows (borrowed, n); ranks and history only when asked. Fills
 * every field of out but def, rows and n_rows (left as they are).
 * Completion order is by updated_at, then by id.
 */
void study_pareto_build(const struct study_def *d, const struct trial *rows,
                        size_t n, int want_ranks, int want_history,
                        struct study_pareto_answer *out);

/*
 * study_pareto - study_pareto_build on study study_id's stored definition
 * and completed trials (read only). out: study_pareto_clear, also on
 * failure. HPOD_ENOTFOUND when the study does not exist.
 */
enum hpod_status study_pareto(struct db *db, long long study_id, int want_ranks,
                              int want_history, struct study_pareto_answer *out,
                              struct hpod_err *err);
void study_pareto_clear(struct study_pareto_answer *a);

#endif
