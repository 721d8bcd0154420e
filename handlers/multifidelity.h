/*
 * handlers/multifidelity.h - ASHA for live studies: the rungs are rebuilt
 * from the database (core/asha is a pure function of the reports and the
 * paused set) inside the transaction that holds the study lock, so every
 * hpod process on the database takes the same decisions.
 */
#ifndef HPOD_MULTIFIDELITY_H
#define HPOD_MULTIFIDELITY_H

#include <jansson.h>

#include "handlers/handlers.h"
#include "handlers/json_model.h"
#include "store/model.h"

/* 1 when the study's algorithm is asha. */
int mf_enabled(const struct study_def *d);

/*
 * mf_decide - the answer ("continue" or "stop", static strings) to an
 * intermediate report of trial at step with values (borrowed), given every
 * report stored so far. Call with the study locked, before storing it.
 */
enum hpod_status mf_decide(struct req *rq, const struct study_def *d,
                           const struct study *s, long long trial, int step,
                           json_t *values, const char **action);

/*
 * mf_promote - if a paused trial is promotable now, resumes it for worker
 * (running, new lease, resume_from_step) and fills *out (*promoted = 1).
 */
enum hpod_status mf_promote(struct req *rq, const struct study_def *d,
                            const struct study *s, const char *worker,
                            struct trial *out, int *promoted);

#endif
