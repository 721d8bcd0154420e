/*
 * handlers/multifidelity.c - ASHA decisions for live studies; see
 * multifidelity.h. Decisions are serialized by the study row lock that
 * the report and suggest handlers take first.
 */
#include "handlers/multifidelity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/asha.h"
#include "core/mem.h"
#include "store/err.h"
#include "store/trial_store.h"

int
mf_enabled(const struct study_def *d)
{
    return d->algo.name == ALGO_ASHA;
}

/* The study's objectives from a values object, NaN where missing. */
static void
objective_values(const struct study_def *d, json_t *vals, double *out)
{
    for (size_t j = 0; j < d->n_objectives; j++) {
        json_t *v = json_object_get(vals, d->obj_names[j]);
        out[j] = json_is_number(v) ? json_number_value(v) : NAN;
    }
}

/* Rebuilds the rungs from every stored report and the paused trials. */
static enum hpod_status
load(struct req *rq, const struct study_def *d, const struct study *s,
     struct asha **out)
{
    struct asha_params prm;
    struct step_row *steps = NULL;
    struct trial *rows = NULL;
    size_t n_steps = 0, n_rows = 0;
    double v[MODEL_MAX_OBJECTIVES];
    enum hpod_status st;
    long long issued = study_issued(s);

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
    prm.exhausted = (s->budget >= 0 && issued >= s->budget) ||
                    (s->n_candidates >= 0 && issued >= s->n_candidates);
    prm.m = d->n_objectives;
    prm.sense = d->obj_sense;
    if (asha_create(&prm, out) != HPOD_OK)
        return hpod_fail(&rq->err, HPOD_EINTERNAL, "",
                         "invalid asha parameters");
    if ((st = trial_store_study_steps(rq->db, s->id, &steps, &n_steps,
                                      &rq->err)) != HPOD_OK ||
        (st = trial_store_history(rq->db, s->id, &rows, &n_rows, &rq->err)) !=
            HPOD_OK)
        goto out;
    for (size_t i = 0; i < n_steps; i++) {
        json_t *vals = json_from_text(steps[i].values);
        objective_values(d, vals, v);
        json_decref(vals);
        asha_observe(*out, steps[i].trial_id, (size_t)steps[i].step, v);
    }
    for (size_t i = 0; i < n_rows; i++)
        if (rows[i].state == TRIAL_PAUSED)
            asha_pause(*out, rows[i].id);
out:
    step_rows_free(steps, n_steps);
    trials_free(rows, n_rows);
    if (st != HPOD_OK) {
        asha_destroy(*out);
        *out = NULL;
    }
    return st;
}

enum hpod_status
mf_decide(struct req *rq, const struct study_def *d, const struct study *s,
          long long trial, int step, json_t *values, const char **action)
{
    struct asha *a = NULL;
    double v[MODEL_MAX_OBJECTIVES];
    enum hpod_status st;

    *action = "continue";
    if ((st = load(rq, d, s, &a)) != HPOD_OK)
        return st;
    objective_values(d, values, v);
    asha_observe(a, trial, (size_t)step, v);
    if (asha_decide(a, trial, (size_t)step) == ASHA_STOP)
        *action = "stop";
    asha_destroy(a);
    return HPOD_OK;
}

enum hpod_status
mf_promote(struct req *rq, const struct study_def *d, const struct study *s,
           const char *worker, struct trial *out, int *promoted)
{
    struct asha *a = NULL;
    struct asha_promotion pr;
    enum hpod_status st;

    *promoted = 0;
    if (d->algo.asha_mode != 0)
        return HPOD_OK; /* stopping mode never promotes */
    if ((st = load(rq, d, s, &a)) != HPOD_OK)
        return st;
    if (asha_promotable(a, &pr)) {
        st = trial_store_resume(rq->db, pr.config, worker, s->lease_seconds,
                                (long long)pr.resume_step, out, &rq->err);
        *promoted = st == HPOD_OK;
    }
    asha_destroy(a);
    return st;
}
