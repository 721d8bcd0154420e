/*
 * study/history.h - a study's history as the samplers take it: the
 * candidates of a finite study and which are taken, the completed trials
 * (configuration and objective, oriented so that larger is better), the
 * live ones (pending), and for multi-objective or constrained studies
 * every trial's objectives and constrained metrics.
 *
 * history_build decides from rows already loaded (pure); history_load
 * reads them on a borrowed connection first.
 */
#ifndef HPOD_STUDY_HISTORY_H
#define HPOD_STUDY_HISTORY_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"
#include "study/def.h"
#include "study/multifidelity.h"

struct history {
    const double *cand_raw; /* borrowed: n_cand × n_params */
    unsigned char *cand_used;
    size_t n_cand;
    double *obs_raw, *obs_y;
    size_t *obs_cand;
    size_t n_obs;
    double *pend_raw;
    size_t *pend_cand;
    size_t n_pend, cap_pend;
    /* Multi-objective and constrained studies (core/mobo): every trial
     * that reported any objective or constrained metric, with all m
     * objectives (oriented, larger is better) and the constrained metrics
     * (as "<= bound"), NaN where not reported: decoupled reports each
     * teach their own surrogate. */
    double *mo_raw, *mo_y, *mo_c;
    size_t *mo_cand;
    size_t n_mo, n_mo_complete;
};

/*
 * history_impute - an inactive parameter (NaN) of raw takes the lowest
 * legal value of its parameter (choice 0 for a categorical), as the
 * samplers see it. A stand-in until the encoding compares inactive
 * parameters itself (core/space.h); a configuration a sampler returns
 * leaves out, as JSON, the parameters its conditions make inactive
 * (params_to_json).
 */
void history_impute(const struct space *sp, double *raw);

/* 1 when d chooses through core/mobo: multi-objective or constrained. */
int history_uses_mobo(const struct study_def *d);

/*
 * history_candidates - a finite study's stored candidates, parsed into
 * *raw (n × n_params, new allocation). HPOD_EINTERNAL when one is not a
 * point of the study's space.
 */
enum hpod_status history_candidates(struct db *db, long long study_id,
                                    const struct study_def *d, double **raw,
                                    size_t *n, struct hpod_err *err);

/*
 * history_build - fills h (history_clear) from the study's trials rows
 * (as trial_store_history gives them). cand_raw (borrowed, n_cand rows)
 * is given for a finite study (finite = 1), NULL otherwise. For a
 * multistage study (w->multistage) the evidence is each trial's value at
 * w->obs_at and the members still training to the current stage are
 * pending (multifidelity_observation). An excluded trial is no evidence (its
 * candidate stays taken). A trial whose params are not a point of the
 * space is not evidence.
 */
void history_build(const struct study_def *d, const struct trial *rows,
                   size_t n_rows, const double *cand_raw, size_t n_cand,
                   int finite, const struct mf_work *w, struct history *h);

/*
 * history_build_parsed - history_build with each row's params already
 * parsed: row i's point is rows_raw[i * n_params ..] when rows_ok[i]
 * (rows with a candidate take the candidate's point; rows_ok[i] = 0: not
 * a point of the space, not evidence). Same answer as history_build on
 * the same rows (rows_raw NULL: history_build).
 */
void history_build_parsed(const struct study_def *d, const struct trial *rows,
                          const double *rows_raw, const unsigned char *rows_ok,
                          size_t n_rows, const double *cand_raw, size_t n_cand,
                          int finite, const struct mf_work *w,
                          struct history *h);

/* 1 when params (JSON text, may be NULL) is a point of d's space, into raw. */
int history_parse_params(const struct study_def *d, const char *params,
                         double *raw);

/*
 * history_taken_rows - random search on a finite space: h->cand_used from
 * rows' candidates (rows of trials not failed by lease expiry).
 */
void history_taken_rows(const struct trial *rows, size_t n_rows,
                        const double *cand_raw, size_t n_cand,
                        struct history *h);

/*
 * history_load - history_build on the study's stored trials; random
 * search on a continuous space needs none (h stays empty).
 */
enum hpod_status history_load(struct db *db, long long study_id,
                              const struct study_def *d, const double *cand_raw,
                              size_t n_cand, int finite,
                              const struct mf_work *w, struct history *h,
                              struct hpod_err *err);

/* Adds a configuration (raw, its candidate or (size_t)-1) as pending. */
void history_add_pending(struct history *h, size_t np, const double *raw,
                         size_t cand);

void history_clear(struct history *h);

#endif
