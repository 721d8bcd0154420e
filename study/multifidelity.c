/*
 * study/multifidelity.c - ASHA and multi-stage BO decisions for live
 * studies; see multifidelity.h. Decisions are serialized by the study row
 * lock that the report and suggest calls take first.
 */
#include "study/multifidelity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/asha.h"
#include "common/mem.h"
#include "core/mstage.h"
#include "common/err.h"
#include "store/trial_store.h"
#include "study/explain.h"

int
multifidelity_enabled(const struct study_def *d)
{
    return d->algo.name == ALGO_ASHA || d->algo.name == ALGO_MULTISTAGE;
}

/* No new configuration can start: budget or finite candidates spent. */
static int
exhausted(const struct study *s)
{
    return study_exhausted(s);
}

/* The study's objectives from reported values, NaN where missing. */
static void
objective_values(const struct study_def *d, const struct metric_set *vals,
                 double *out)
{
    for (size_t j = 0; j < d->n_objectives; j++)
        out[j] = metric_set_get(vals, d->obj_names[j]);
}

enum hpod_status
multifidelity_rows_load(struct db *db, long long study_id, struct mf_rows *out,
                        struct hpod_err *err)
{
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    if ((st = trial_store_history(db, study_id, &out->trials, &out->n_trials,
                                  err)) != HPOD_OK ||
        (st = trial_store_study_steps(db, study_id, &out->steps, &out->n_steps,
                                      err)) != HPOD_OK)
        multifidelity_rows_clear(out);
    return st;
}

void
multifidelity_rows_clear(struct mf_rows *r)
{
    if (!r)
        return;
    step_rows_free(r->steps, r->n_steps);
    trials_free(r->trials, r->n_trials);
    memset(r, 0, sizeof *r);
}

/* Rebuilds the rungs from every stored report and the paused trials. */
static enum hpod_status
asha_build(const struct study_def *d, const struct study *s,
           const struct mf_rows *rows, struct asha **out, struct hpod_err *err)
{
    struct asha_params prm;
    double v[MODEL_MAX_OBJECTIVES];

    *out = NULL;
    memset(&prm, 0, sizeof prm);
    prm.r = (size_t)d->algo.asha_r;
    prm.u = (size_t)d->algo.asha_u;
    prm.R = (size_t)d->algo.asha_R;
    prm.p = (size_t)d->algo.asha_p;
    prm.keep = (size_t)d->algo.asha_keep;
    prm.mode = d->algo.asha_mode ? ASHA_STOPPING : ASHA_PROMOTION;
    /* No new configuration will start: let the best `keep` of every rung
     * move up (core/asha.h). */
    prm.exhausted = exhausted(s);
    prm.m = d->n_objectives;
    prm.sense = d->obj_sense;
    if (asha_create(&prm, out) != HPOD_OK)
        return hpod_fail(err, HPOD_EINTERNAL, "", "invalid asha parameters");
    for (size_t i = 0; i < rows->n_steps; i++) {
        objective_values(d, &rows->steps[i].values, v);
        asha_observe(*out, rows->steps[i].trial_id, (size_t)rows->steps[i].step,
                     v);
    }
    for (size_t i = 0; i < rows->n_trials; i++)
        if (rows->trials[i].state == TRIAL_PAUSED)
            asha_pause(*out, rows->trials[i].id);
    return HPOD_OK;
}

/* The stage a trial trains in: the index of its train_to, else 0. */
static size_t
stage_of(const struct study_def *d, long long train_to)
{
    for (size_t i = 0; i < d->algo.ms_n; i++)
        if (d->algo.ms_steps[i] == train_to)
            return i;
    return 0;
}

static enum mstage_state
ms_state(enum trial_state st)
{
    switch (st) {
    case TRIAL_PENDING:
    case TRIAL_RUNNING:
        return MSTAGE_LIVE;
    case TRIAL_PAUSED:
        return MSTAGE_PAUSED;
    case TRIAL_COMPLETED:
        return MSTAGE_COMPLETED;
    default:
        return MSTAGE_ENDED;
    }
}

static enum hpod_status
ms_create(const struct study_def *d, int exhausted_now, struct mstage **out)
{
    size_t steps[MODEL_MAX_STAGES], trials[MODEL_MAX_STAGES];
    for (size_t i = 0; i < d->algo.ms_n; i++) {
        steps[i] = (size_t)d->algo.ms_steps[i];
        trials[i] = (size_t)d->algo.ms_trials[i];
    }
    struct mstage_params prm = {d->algo.ms_n,    steps,
                                trials,          (size_t)d->algo.ms_k,
                                d->obj_sense[0], exhausted_now};
    return mstage_create(&prm, out);
}

/* Rebuilds the stages from every trial and intermediate report. */
static enum hpod_status
ms_build(const struct study_def *d, const struct study *s,
         const struct mf_rows *rows, struct mstage **out, struct hpod_err *err)
{
    if (ms_create(d, exhausted(s), out) != HPOD_OK)
        return hpod_fail(err, HPOD_EINTERNAL, "",
                         "invalid multistage parameters");
    for (size_t i = 0; i < rows->n_trials; i++) {
        const struct trial *t = &rows->trials[i];
        double fv[MODEL_MAX_OBJECTIVES];
        objective_values(d, &t->values, fv);
        mstage_trial(*out, t->id, stage_of(d, t->train_to), ms_state(t->state),
                     fv[0]);
    }
    for (size_t i = 0; i < rows->n_steps; i++) {
        double v[MODEL_MAX_OBJECTIVES];
        objective_values(d, &rows->steps[i].values, v);
        mstage_observe(*out, rows->steps[i].trial_id,
                       (size_t)rows->steps[i].step, v[0]);
    }
    return HPOD_OK;
}

/*
 * What GET /v1/trials/{id}/explain shows of an ASHA stop at step: the
 * highest rung config has reached, its place there (1-based rank among
 * the configurations that reached it) and the top-1/p cut.
 */
static json_t *
asha_stop_detail(struct asha *a, long long config, int step)
{
    struct asha_standing sd, best = {0};
    size_t n = asha_n_rungs(a), rung = n;

    for (size_t i = 0; i < n; i++)
        if (asha_standing(a, config, i, &sd)) {
            rung = i;
            best = sd;
        }
    if (rung == n)
        return json_pack("{s:i, s:n, s:n, s:n, s:n}", "step", step, "rung",
                         "rank", "of", "cut");
    return json_pack("{s:i, s:I, s:I, s:I, s:I}", "step", step, "rung",
                     (json_int_t)rung, "rank", (json_int_t)best.position + 1,
                     "of", (json_int_t)best.k, "cut", (json_int_t)best.limit);
}

/* multifidelity_decide_rows; *detail (may be NULL) receives what explain
 * records of a stop. */
static enum hpod_status
decide_rows(const struct study_def *d, const struct study *s,
            const struct mf_rows *rows, const struct trial *t, int step,
            const struct metric_set *values, const char **action,
            enum trial_state *stopped_state, json_t **detail,
            struct hpod_err *err)
{
    double v[MODEL_MAX_OBJECTIVES];
    enum hpod_status st;

    *action = "continue";
    *stopped_state = TRIAL_PAUSED;
    if (d->algo.name == ALGO_MULTISTAGE) {
        /* The rule needs only the trial's own stage (core/mstage.h). */
        struct mstage *ms = NULL;
        if (ms_create(d, 0, &ms) != HPOD_OK)
            return hpod_fail(err, HPOD_EINTERNAL, "",
                             "invalid multistage parameters");
        mstage_trial(ms, t->id, stage_of(d, t->train_to), MSTAGE_LIVE, NAN);
        if (mstage_decide(ms, t->id, (size_t)step) == MSTAGE_STOP) {
            *action = "stop";
            if (detail)
                *detail = json_pack("{s:i, s:I}", "step", step, "stage",
                                    (json_int_t)stage_of(d, t->train_to));
        }
        mstage_free(ms);
        return HPOD_OK;
    }
    struct asha *a = NULL;
    if ((st = asha_build(d, s, rows, &a, err)) != HPOD_OK)
        return st;
    objective_values(d, values, v);
    asha_observe(a, t->id, (size_t)step, v);
    if (asha_decide(a, t->id, (size_t)step) == ASHA_STOP) {
        *action = "stop";
        if (detail)
            *detail = asha_stop_detail(a, t->id, step);
    }
    if (d->algo.asha_mode)
        *stopped_state = TRIAL_PRUNED;
    asha_free(a);
    return HPOD_OK;
}

enum hpod_status
multifidelity_decide_rows(const struct study_def *d, const struct study *s,
                          const struct mf_rows *rows, const struct trial *t,
                          int step, const struct metric_set *values,
                          const char **action, enum trial_state *stopped_state,
                          struct hpod_err *err)
{
    return decide_rows(d, s, rows, t, step, values, action, stopped_state, NULL,
                       err);
}

/* Records a stop (detail stolen; NULL: nothing to record). */
static enum hpod_status
record_stop(struct db *db, const struct trial *t, json_t *detail,
            struct hpod_err *err)
{
    return detail ? explain_decision(db, t->id, "stop", detail, err) : HPOD_OK;
}

enum hpod_status
multifidelity_decide(struct db *db, const struct study_def *d,
                     const struct study *s, const struct trial *t, int step,
                     const struct metric_set *values, const char **action,
                     enum trial_state *stopped_state, struct hpod_err *err)
{
    struct mf_rows rows = {0};
    json_t *detail = NULL;
    enum hpod_status st;

    if (d->algo.name == ALGO_MULTISTAGE) {
        st = decide_rows(d, s, NULL, t, step, values, action, stopped_state,
                         &detail, err);
        return st == HPOD_OK ? record_stop(db, t, detail, err)
                             : (json_decref(detail), st);
    }
    *action = "continue";
    *stopped_state = TRIAL_PAUSED;
    if ((st = multifidelity_rows_load(db, s->id, &rows, err)) != HPOD_OK)
        return st;
    st = decide_rows(d, s, &rows, t, step, values, action, stopped_state,
                     &detail, err);
    multifidelity_rows_clear(&rows);
    if (st == HPOD_OK)
        return record_stop(db, t, detail, err);
    json_decref(detail);
    return st;
}

enum hpod_status
multifidelity_prepare_rows(const struct study_def *d, const struct study *s,
                           const struct mf_rows *rows, struct mf_work *w,
                           struct mstage_plan *plan, struct hpod_err *err)
{
    enum hpod_status st;

    memset(w, 0, sizeof *w);
    memset(plan, 0, sizeof *plan);
    w->train_to = -1;
    w->max_new = -1;
    if (d->algo.name != ALGO_MULTISTAGE)
        return HPOD_OK;
    w->multistage = 1;
    if ((st = ms_build(d, s, rows, &w->ms, err)) != HPOD_OK)
        return st;
    /* core/mstage applies the advance to its own state; the caller
     * applies it to the database. */
    mstage_plan(w->ms, plan);
    w->stage = plan->stage;
    w->finished = plan->stage >= d->algo.ms_n;
    w->train_to = w->finished ? -1 : d->algo.ms_steps[plan->stage];
    w->max_new = w->finished ? 0 : (long long)plan->n_new;
    w->obs_at = w->train_to;
    for (size_t i = plan->stage; !w->finished && i-- > 0;) {
        size_t need = d->algo.init > 0 ? (size_t)d->algo.init : 1;
        if (mstage_count_at(w->ms, (size_t)w->obs_at) >= need)
            break;
        w->obs_at = d->algo.ms_steps[i];
    }
    w->n_resume = plan->n_resume;
    w->resume = xcalloc(plan->n_resume + 1, sizeof *w->resume);
    w->resume_from = xcalloc(plan->n_resume + 1, sizeof *w->resume_from);
    for (size_t i = 0; i < plan->n_resume; i++) {
        w->resume[i] = plan->resume[i];
        w->resume_from[i] = (long long)mstage_last_step(w->ms, plan->resume[i]);
    }
    return HPOD_OK;
}

enum hpod_status
multifidelity_prepare(struct db *db, const struct study_def *d,
                      const struct study *s, struct mf_work *w,
                      struct hpod_err *err)
{
    struct mf_rows rows = {0};
    struct mstage_plan plan;
    enum hpod_status st = HPOD_OK;

    memset(&plan, 0, sizeof plan);
    if (d->algo.name == ALGO_MULTISTAGE &&
        (st = multifidelity_rows_load(db, s->id, &rows, err)) != HPOD_OK) {
        memset(w, 0, sizeof *w);
        return st;
    }
    st = multifidelity_prepare_rows(d, s, &rows, w, &plan, err);
    multifidelity_rows_clear(&rows);
    if (st != HPOD_OK)
        return st;
    /* The advance: seeds train to their new stage (still paused), the
     * rest of the stage is pruned. */
    for (size_t i = 0; i < plan.n_seeds && st == HPOD_OK; i++) {
        size_t rank = 1;
        for (size_t j = 0; j < i; j++)
            rank += plan.seed_to[j] == plan.seed_to[i];
        st = trial_store_set_train_to(db, plan.seeds[i],
                                      d->algo.ms_steps[plan.seed_to[i]], err);
        if (st == HPOD_OK)
            st = explain_decision(
                db, plan.seeds[i], "stage",
                json_pack("{s:I, s:I, s:I, s:I}", "stage",
                          (json_int_t)plan.seed_to[i], "steps",
                          (json_int_t)d->algo.ms_steps[plan.seed_to[i]], "rank",
                          (json_int_t)rank, "k", (json_int_t)d->algo.ms_k),
                err);
    }
    for (size_t i = 0; i < plan.n_prune && st == HPOD_OK; i++) {
        long long last = (long long)mstage_last_step(w->ms, plan.prune[i]);
        st = trial_store_stop(db, plan.prune[i], TRIAL_PRUNED,
                              "not in the top k of its stage", err);
        if (st == HPOD_OK)
            st = explain_decision(db, plan.prune[i], "stop",
                                  json_pack("{s:I, s:I, s:I, s:s}", "step",
                                            (json_int_t)last, "stage",
                                            (json_int_t)stage_of(d, last), "k",
                                            (json_int_t)d->algo.ms_k, "reason",
                                            "not in the top k of its stage"),
                                  err);
    }
    mstage_plan_clear(&plan);
    return st;
}

void
multifidelity_work_clear(struct mf_work *w)
{
    if (!w)
        return;
    mstage_free(w->ms);
    free(w->resume);
    free(w->resume_from);
    memset(w, 0, sizeof *w);
}

/* multifidelity_asha_promotion_rows; *detail (may be NULL) receives what
 * explain records of the promotion. */
static enum hpod_status
asha_promotion(const struct study_def *d, const struct study *s,
               const struct mf_rows *rows, int *found, long long *trial_id,
               long long *resume_step, json_t **detail, struct hpod_err *err)
{
    struct asha *a = NULL;
    struct asha_promotion pr;
    enum hpod_status st;

    *found = 0;
    if (d->algo.name != ALGO_ASHA || d->algo.asha_mode != 0)
        return HPOD_OK; /* stopping mode never promotes */
    if ((st = asha_build(d, s, rows, &a, err)) != HPOD_OK)
        return st;
    if (asha_promotable(a, &pr)) {
        *found = 1;
        *trial_id = (long long)pr.config;
        *resume_step = (long long)pr.resume_step;
        struct asha_standing sd;
        if (detail && asha_standing(a, pr.config, pr.rung, &sd))
            *detail =
                json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "rung",
                          (json_int_t)pr.rung, "step", (json_int_t)pr.rung_step,
                          "rank", (json_int_t)sd.position + 1, "of",
                          (json_int_t)sd.k, "cut", (json_int_t)sd.limit,
                          "resume_from_step", (json_int_t)pr.resume_step);
    }
    asha_free(a);
    return HPOD_OK;
}

enum hpod_status
multifidelity_asha_promotion_rows(const struct study_def *d,
                                  const struct study *s,
                                  const struct mf_rows *rows, int *found,
                                  long long *trial_id, long long *resume_step,
                                  struct hpod_err *err)
{
    return asha_promotion(d, s, rows, found, trial_id, resume_step, NULL, err);
}

enum hpod_status
multifidelity_promote(struct db *db, const struct study_def *d,
                      const struct study *s, struct mf_work *w,
                      const char *worker, struct trial *out, int *promoted,
                      struct hpod_err *err)
{
    struct mf_rows rows = {0};
    json_t *detail = NULL;
    long long id = 0, from = 0;
    enum hpod_status st = HPOD_OK;
    int found = 0;

    *promoted = 0;
    if (w->multistage) {
        if (w->next_resume >= w->n_resume)
            return HPOD_OK;
        size_t i = w->next_resume++;
        st = trial_store_resume(db, w->resume[i], worker, s->lease_seconds,
                                w->resume_from[i], w->train_to, out, err);
        *promoted = st == HPOD_OK;
        if (st == HPOD_OK)
            st = explain_decision(
                db, w->resume[i], "promote",
                json_pack("{s:I, s:I, s:I, s:I, s:I}", "stage",
                          (json_int_t)w->stage, "step", (json_int_t)w->train_to,
                          "rank", (json_int_t)i + 1, "of",
                          (json_int_t)w->n_resume, "resume_from_step",
                          (json_int_t)w->resume_from[i]),
                err);
        return st;
    }
    if (d->algo.name != ALGO_ASHA || d->algo.asha_mode != 0)
        return HPOD_OK; /* stopping mode never promotes */
    if ((st = multifidelity_rows_load(db, s->id, &rows, err)) != HPOD_OK)
        return st;
    st = asha_promotion(d, s, &rows, &found, &id, &from, &detail, err);
    multifidelity_rows_clear(&rows);
    if (st == HPOD_OK && found) {
        st = trial_store_resume(db, id, worker, s->lease_seconds, from, -1, out,
                                err);
        *promoted = st == HPOD_OK;
        if (st == HPOD_OK && detail) {
            st = explain_decision(db, id, "promote", detail, err);
            detail = NULL;
        }
    }
    json_decref(detail);
    return st;
}

int
multifidelity_prune_paused(const struct study_def *d, const struct study *s,
                           size_t n_answered)
{
    return d->algo.name == ALGO_ASHA && n_answered == 0 && study_live(s) == 0 &&
           s->counts[TRIAL_PAUSED] > 0 && exhausted(s);
}

int
multifidelity_observation(const struct mf_work *w, const struct trial *t,
                          double *y, int *pending)
{
    *pending = 0;
    if (!w->multistage || w->finished)
        return 0;
    if (mstage_value_at(w->ms, t->id, (size_t)w->obs_at, y))
        return 1;
    *pending = t->train_to == w->train_to &&
               (t->state == TRIAL_PENDING || t->state == TRIAL_RUNNING ||
                t->state == TRIAL_PAUSED);
    return 0;
}
