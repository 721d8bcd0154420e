/*
 * core/mstage.h - the stage bookkeeping of multi-stage Bayesian
 * optimization (docs/ARCHITECTURE.md, "Algorithms": stages of increasing
 * fidelity, BO within a stage, the top k of a stage seed the next; Wang et
 * al. 2015, k = 3 in the paper; Xuan Zhang's dissertation ch. 6-7).
 *
 * Pure: no I/O, no globals, no clock. Like core/asha, a struct mstage is
 * built by the caller from what the database holds (every trial with its
 * stage and state, every intermediate report, the final values) and every
 * answer is a function of that SET, whatever the order of the calls: any
 * hpod process rebuilding it under the study's lock decides the same.
 * Scratch memory comes from xmalloc (common/mem.h).
 *
 * Rules (the contract):
 *
 *  Stages. Stage i (0-based, i < n) trains trials[i] configurations to
 *  steps[i] steps (the fidelity), steps strictly increasing. A trial
 *  belongs to one stage at a time: the stage it was started or last
 *  promoted into (the caller stores it, as the step to train to). Members
 *  of stage i are its trials that are LIVE (pending or running), PAUSED or
 *  COMPLETED; ENDED trials (failed, pruned) are not members, so a member
 *  that fails is replaced by a new configuration.
 *
 *  Value at a fidelity f. The trial's best-so-far objective (in the sense's
 *  direction, NaNs skipped) over its reports with step <= s*, where s* is
 *  its first reported step >= f (a trainer that reports every step arrives
 *  at f exactly; one that skips arrives later). A trial with no report at
 *  or past f has no value at f, unless it is COMPLETED: a completed trial
 *  has reached every fidelity, and without a report at or past f its value
 *  is the BSF of all its reports and its final value.
 *
 *  Done. A member of stage i < n-1 is done when it has a value at
 *  steps[i] (that report is answered STOP, which pauses it) or is
 *  COMPLETED; a member of the last stage when it is COMPLETED (its final
 *  report is the end of its training).
 *
 *  Current stage c: the highest stage holding any trial (ENDED ones
 *  included), 0 when there is none. Stage c is complete when it has
 *  trials[c] members, or `exhausted` (the caller's statement that no new
 *  configuration can start: budget or candidates spent), and every member
 *  is done.
 *
 *  Advance (mstage_plan). When stage c < n-1 is complete, its PAUSED
 *  members are ordered by value at steps[c] (best first; a NaN value
 *  last; ties to the smaller id); the first min(k, trials[c+1]) are the
 *  SEEDS, moved to stage c+1 (still paused, waiting for a worker); the
 *  other paused members are PRUNED. Completed members (a trainer that sent
 *  its final report early) stay where they are. Then stage c+1 is looked
 *  at the same way (it may be complete at once: no seeds and exhausted),
 *  until a stage is not complete or the last stage is. When the last stage
 *  is complete, the plan's stage is n: the study has finished.
 *
 *  Work (mstage_plan). In the current stage c < n: RESUME lists its paused
 *  members that are not done (seeds waiting for a worker, best first by
 *  their value at the previous stage's fidelity); new configurations
 *  still wanted: trials[c] - members, 0 when exhausted. Paused members
 *  that are done wait for the stage to complete.
 *
 *  Decision (mstage_decide). A report at `step` of a member of stage i <
 *  n-1 answers STOP when step >= steps[i] (the trial is paused: it will be
 *  a seed of stage i+1 or pruned), else CONTINUE; members of the last stage
 *  always CONTINUE (they train to steps[n-1] and send a final report).
 */
#ifndef HPOD_MSTAGE_H
#define HPOD_MSTAGE_H

#include <stddef.h>
#include <stdint.h>

#include "common/status.h"

/* Most stages a struct mstage accepts. */
#define MSTAGE_MAX_STAGES 64

enum mstage_state {
    MSTAGE_LIVE = 0,      /* pending or running */
    MSTAGE_PAUSED = 1,    /* stopped at its stage's fidelity, may go on */
    MSTAGE_COMPLETED = 2, /* final report in */
    MSTAGE_ENDED = 3      /* failed or pruned: not a member */
};

enum mstage_action { MSTAGE_CONTINUE = 0, MSTAGE_STOP = 1 };

/* Parameters; copied by mstage_create. */
struct mstage_params {
    size_t n;             /* stages, 1..MSTAGE_MAX_STAGES */
    const size_t *steps;  /* n fidelities (steps), >= 1, strictly increasing */
    const size_t *trials; /* n configurations per stage, >= 1 */
    size_t k;             /* seeds a stage passes on (>= 1) */
    int sense;            /* < 0 minimize, else maximize */
    int exhausted;        /* 1: no new configuration can start */
};

/* What the caller does next (mstage_plan); arrays owned by the plan. */
struct mstage_plan {
    size_t stage;    /* current stage after advancing; n when finished */
    int64_t *seeds;  /* trials to move to the stage after theirs (paused) */
    size_t *seed_to; /* the stage each seed moves to */
    size_t n_seeds;
    int64_t *prune; /* paused trials left behind: prune them */
    size_t n_prune;
    int64_t *resume; /* paused members of `stage` waiting, best first */
    size_t n_resume;
    size_t n_new; /* new configurations `stage` still wants */
};

struct mstage;

/*
 * mstage_create - a new empty state for prm (copied); *out receives it
 * (mstage_free), NULL on failure. Return: HPOD_OK; HPOD_EINVAL for NULL
 * pointers, n == 0 or n > MSTAGE_MAX_STAGES, k == 0, a zero step or trial
 * count, or steps that do not increase strictly.
 */
enum hpod_status mstage_create(const struct mstage_params *prm,
                               struct mstage **out);

/* Frees ms; accepts NULL. */
void mstage_free(struct mstage *ms);

/*
 * mstage_trial - declares trial id in stage `stage` with state and final
 * objective value (NaN if none). A second call for the same id replaces
 * the first. Return: HPOD_OK; HPOD_EINVAL for stage >= n or a bad state.
 */
enum hpod_status mstage_trial(struct mstage *ms, int64_t id, size_t stage,
                              enum mstage_state state, double final_value);

/*
 * mstage_observe - adds trial id's intermediate report at step (the trial
 * must have been declared). Adding a report twice changes nothing.
 * Return: HPOD_OK; HPOD_ENOTFOUND for an undeclared trial.
 */
enum hpod_status mstage_observe(struct mstage *ms, int64_t id, size_t step,
                                double value);

/*
 * mstage_value_at - trial id's value at fidelity f (rules above): 1 with
 * *out set, 0 if it has none (or is undeclared).
 */
int mstage_value_at(struct mstage *ms, int64_t id, size_t f, double *out);

/* mstage_decide - the answer to id's report at step (rules above). */
enum mstage_action mstage_decide(struct mstage *ms, int64_t id, size_t step);

/*
 * mstage_plan - advances through every complete stage (updating the state
 * as the caller will update the database) and fills *out (release with
 * mstage_plan_clear).
 */
void mstage_plan(struct mstage *ms, struct mstage_plan *out);

/* Frees the plan's arrays and zeroes it. */
void mstage_plan_clear(struct mstage_plan *p);

/* The number of declared trials with a value at fidelity f. */
size_t mstage_count_at(const struct mstage *ms, size_t f);

/* The highest step id has reported, 0 if none (or undeclared). */
size_t mstage_last_step(const struct mstage *ms, int64_t id);

/* The fidelity (steps) of stage i, 0 when i >= n. */
size_t mstage_steps(const struct mstage *ms, size_t i);

#endif
