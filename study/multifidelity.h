/*
 * study/multifidelity.h - ASHA and multi-stage BO for live studies.
 * Their state is rebuilt from the database (core/asha and core/mstage are
 * pure functions of the reports, the trials' states and, for multistage,
 * each trial's stage stored as the step it trains to) inside the
 * transaction that holds the study lock, so every hpod process on the
 * database takes the same decisions.
 */
#ifndef HPOD_MULTIFIDELITY_H
#define HPOD_MULTIFIDELITY_H

#include <jansson.h>

#include "handlers/handlers.h"
#include "study/def.h"
#include "store/model.h"

struct mstage;

/* 1 when the study's algorithm is asha or multistage. */
int mf_enabled(const struct study_def *d);

/*
 * mf_decide - the answer ("continue" or "stop", static strings) to an
 * intermediate report of trial at step with values (borrowed), given every
 * report stored so far; *stopped_state is the state a "stop" leaves the
 * trial in (paused, or pruned in ASHA's stopping mode). Call with the study
 * locked, before storing the report.
 */
enum hpod_status mf_decide(struct req *rq, const struct study_def *d,
                           const struct study *s, const struct trial *t,
                           int step, const struct metric_set *values,
                           const char **action,
                           enum trial_state *stopped_state);

/*
 * What a suggest may do in a multi-fidelity study (mf_prepare):
 * multistage's current stage, advanced first when the previous one is
 * complete (its seeds set to train to this stage, the others pruned).
 */
struct mf_work {
    int multistage;
    struct mstage *ms;  /* multistage: the stages as the database holds them */
    size_t stage;       /* current stage; == stages when finished */
    long long train_to; /* its steps (new trials train to it); -1: none */
    long long obs_at;   /* the fidelity the model learns from (below) */
    long long max_new;  /* new configurations allowed now; -1: no limit */
    int finished;       /* multistage: every stage is complete */
    long long *resume;  /* multistage: paused seeds waiting, best first */
    long long *resume_from;
    size_t n_resume, next_resume;
};

/* mf_prepare - fills *w (mf_work_cleanup); applies a multistage advance. */
enum hpod_status mf_prepare(struct req *rq, const struct study_def *d,
                            const struct study *s, struct mf_work *w);
void mf_work_cleanup(struct mf_work *w);

/*
 * mf_promote - if a paused trial is to go on now (ASHA: promotable at its
 * rung; multistage: a seed of the current stage), resumes it for worker
 * (running, new lease, resume_from_step, train_to) and fills *out
 * (*promoted = 1).
 */
enum hpod_status mf_promote(struct req *rq, const struct study_def *d,
                            const struct study *s, struct mf_work *w,
                            const char *worker, struct trial *out,
                            int *promoted);

/*
 * mf_observation - multistage: the model's evidence in the current stage.
 * BO within a stage learns from the values trials reached at the stage's
 * steps; when a stage starts none has reached them yet (its seeds are
 * waiting), so the model learns from the highest fidelity at or below the
 * stage's that at least `init` trials have reached (w->obs_at): a stage's
 * first new configurations are chosen from the previous stage's results,
 * not at random. Returns 1 with *y (objective, as reported) when trial t
 * has a value at w->obs_at; 0 otherwise, with *pending = 1 when it is
 * being trained in the current stage (a live or waiting member).
 */
int mf_observation(const struct mf_work *w, const struct trial *t, double *y,
                   int *pending);

#endif
