/*
 * study/multifidelity.h - ASHA and multi-stage BO for live studies.
 * Their state is rebuilt from the database (core/asha and core/mstage are
 * pure functions of the reports, the trials' states and, for multistage,
 * each trial's stage stored as the step it trains to) inside the
 * transaction that holds the study lock, so every hpod process on the
 * database takes the same decisions.
 *
 * Each decision comes in two parts: mf_*_rows decides from rows already
 * loaded (struct mf_rows: pure, no database), and the call without the
 * suffix loads the rows on a borrowed connection, decides and applies
 * the writes the decision implies. The caller owns the transaction.
 */
#ifndef HPOD_MULTIFIDELITY_H
#define HPOD_MULTIFIDELITY_H

#include <stddef.h>

#include "common/status.h"
#include "core/mstage.h"
#include "store/db.h"
#include "store/model.h"
#include "store/trial_store.h"
#include "study/def.h"

struct mstage;

/* 1 when the study's algorithm is asha or multistage. */
int multifidelity_enabled(const struct study_def *d);

/*
 * What the multi-fidelity rules are rebuilt from: the study's trials (as
 * trial_store_history gives them) and its intermediate reports (as
 * trial_store_study_steps gives them). Owned by the struct when filled by
 * multifidelity_rows_load (multifidelity_rows_clear); tests may point it at
 * their own arrays.
 */
struct mf_rows {
    struct trial *trials;
    size_t n_trials;
    struct step_row *steps;
    size_t n_steps;
};

enum hpod_status multifidelity_rows_load(struct db *db, long long study_id,
                                         struct mf_rows *out,
                                         struct hpod_err *err);
void multifidelity_rows_clear(struct mf_rows *r);

/*
 * multifidelity_decide_rows - the answer ("continue" or "stop", static strings)
 * to an intermediate report of trial t at step with values (borrowed), given
 * the rows stored before it (rows may be NULL for multistage, whose rule needs
 * only the trial's own stage); *stopped_state is the state a "stop" leaves
 * the trial in (paused, or pruned in ASHA's stopping mode).
 */
enum hpod_status
multifidelity_decide_rows(const struct study_def *d, const struct study *s,
                          const struct mf_rows *rows, const struct trial *t,
                          int step, const struct metric_set *values,
                          const char **action, enum trial_state *stopped_state,
                          struct hpod_err *err);

/*
 * multifidelity_decide - multifidelity_decide_rows on the rows stored for study
 * s. Call with the study locked, before storing the report.
 */
enum hpod_status
multifidelity_decide(struct db *db, const struct study_def *d,
                     const struct study *s, const struct trial *t, int step,
                     const struct metric_set *values, const char **action,
                     enum trial_state *stopped_state, struct hpod_err *err);

/*
 * What a suggest may do in a multi-fidelity study (multifidelity_prepare):
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

/*
 * multifidelity_prepare_rows - fills *w (multifidelity_work_clear) from rows
 * for a multistage study (for any other algorithm: no stage, no limit) and
 * *plan (zeroed when not multistage; mstage_plan_clear) with the advance to
 * apply: seeds to set to train to their new stage, trials to prune.
 */
enum hpod_status
multifidelity_prepare_rows(const struct study_def *d, const struct study *s,
                           const struct mf_rows *rows, struct mf_work *w,
                           struct mstage_plan *plan, struct hpod_err *err);

/* multifidelity_prepare - fills *w (multifidelity_work_clear); applies a
 * multistage advance. */
enum hpod_status multifidelity_prepare(struct db *db, const struct study_def *d,
                                       const struct study *s, struct mf_work *w,
                                       struct hpod_err *err);
void multifidelity_work_clear(struct mf_work *w);

/*
 * multifidelity_asha_promotion_rows - ASHA's promotion mode: *found = 1 with
 * *trial_id and *resume_step (its highest reported step) when a paused
 * trial is promotable at its rung given rows; *found = 0 when none is, or
 * the study is not in ASHA's promotion mode.
 */
enum hpod_status multifidelity_asha_promotion_rows(
    const struct study_def *d, const struct study *s,
    const struct mf_rows *rows, int *found, long long *trial_id,
    long long *resume_step, struct hpod_err *err);

/*
 * multifidelity_promote - if a paused trial is to go on now (ASHA: promotable
 * at its rung; multistage: a seed of the current stage), resumes it for worker
 * (running, new lease, resume_from_step, train_to) and fills *out
 * (*promoted = 1).
 */
enum hpod_status multifidelity_promote(struct db *db, const struct study_def *d,
                                       const struct study *s, struct mf_work *w,
                                       const char *worker, struct trial *out,
                                       int *promoted, struct hpod_err *err);

/*
 * multifidelity_prune_paused - ASHA with nothing answered by this suggest
 * (n_answered == 0), nothing live and no new configuration to start
 * (budget or finite candidates spent): the paused trials will never
 * resume, so they are to be pruned and the study can finish. 1 when so.
 */
int multifidelity_prune_paused(const struct study_def *d, const struct study *s,
                               size_t n_answered);

/*
 * multifidelity_observation - multistage: the model's evidence in the current
 * stage. BO within a stage learns from the values trials reached at the stage's
 * steps; when a stage starts none has reached them yet (its seeds are
 * waiting), so the model learns from the highest fidelity at or below the
 * stage's that at least `init` trials have reached (w->obs_at): a stage's
 * first new configurations are chosen from the previous stage's results,
 * not at random. Returns 1 with *y (objective, as reported) when trial t
 * has a value at w->obs_at; 0 otherwise, with *pending = 1 when it is
 * being trained in the current stage (a live or waiting member).
 */
int multifidelity_observation(const struct mf_work *w, const struct trial *t,
                              double *y, int *pending);

#endif
