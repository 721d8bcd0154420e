/*
 * handlers/trials.c - /v1/trials/{id}/report|heartbeat|fail,
 * /v1/trials/{id} and /v1/studies/{id}/trials.
 *
 * State changes lock the trial row (FOR UPDATE) in a transaction, decide
 * from its current state, write, and commit before answering: a report
 * answered 200 is durable, and a crash before the commit loses nothing that
 * was acknowledged. Reports are idempotent (DESIGN.md §2).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "handlers/handlers.h"
#include "study/def.h"
#include "study/multifidelity.h"
#include "common/dtoa.h"
#include "common/err.h"
#include "store/study_store.h"
#include "store/trial_store.h"

static enum hpod_status
only_keys(struct req *rq, const char *a, const char *b)
{
    const char *key;
    json_t *v;
    json_object_foreach(rq->body, key, v)
    {
        if ((!a || strcmp(key, a)) && (!b || strcmp(key, b)))
            return hpod_fail(&rq->err, HPOD_EINVAL, key,
                             "unknown field \"%.60s\"", key);
    }
    return HPOD_OK;
}

/* Replies {"trial": ...} with the trial as now stored. */
static enum hpod_status
reply_trial(struct req *rq, long long id, const char *action)
{
    struct trial t = {0};
    enum hpod_status st = trial_store_get(rq->db, id, 0, &t, &rq->err);
    if (st == HPOD_OK) {
        json_t *tj = trial_to_json(&t);
        json_t *o = tj ? json_pack("{s:o}", "trial", tj) : NULL;
        if (!o) {
            st = reply_json(rq, 200, NULL); /* an unreadable stored row */
            trial_cleanup(&t);
            return st;
        }
        if (action)
            json_object_set_new(o, "action", json_string(action));
        /* Multistage: the fidelity this trial trains to. */
        if (t.train_to >= 1)
            json_object_set_new(o, "train_to", json_integer(t.train_to));
        st = reply_json(rq, 200, o);
    }
    trial_cleanup(&t);
    return st;
}

static enum hpod_status
not_live(struct req *rq, const struct trial *t, const char *what)
{
    return hpod_fail(&rq->err, HPOD_ECONFLICT, "",
                     "cannot %s trial %lld: it is %s%s%s", what, t->id,
                     trial_state_name(t->state), t->reason ? " (" : "",
                     t->reason ? ")" : "");
}

/*
 * handle_trial_report - POST /v1/trials/{id}/report
 * Body: {"values": {metric: number}, "step": k?}. Without step: final
 * values, all or some metrics (decoupled: speed now, BLEU later); the
 * trial completes when every objective is in, and a completed trial
 * accepts only the same values again (409 otherwise). With step: an
 * intermediate report, answered with an action. Every metric must be one
 * of the trial's own study's objectives or constrained metrics (422).
 */
enum hpod_status
handle_trial_report(struct req *rq)
{
    struct report_input in = {0};
    struct trial t = {0};
    struct study s = {0};
    struct study_def d = {0};
    struct metric_set add = {0};
    const char *action = NULL;
    long long study_id = 0;
    enum hpod_status st;

    /* 1-2. Parse and validate what needs no database. */
    if ((st = report_from_json(rq->body, &in, &rq->err)) != HPOD_OK)
        return st;

    /* 3. Decide from the locked trial's state. ASHA decisions compare the
     * study's trials, so they are serialized by the study lock, taken
     * before the trial's (the order suggest uses too). */
    if ((st = db_begin(rq->db, &rq->err)) != HPOD_OK ||
        (st = trial_store_study_of(rq->db, rq->id, &study_id, &rq->err)) !=
            HPOD_OK ||
        (st = study_store_get(rq->db, study_id, &s, &rq->err)) != HPOD_OK ||
        (st = study_def_from_text(s.definition, &d, &rq->err)) != HPOD_OK ||
        (st = report_check_metrics(&d, &in, &rq->err)) != HPOD_OK)
        goto out;
    if (mf_enabled(&d) && in.step >= 0 &&
        (st = study_store_lock(rq->db, study_id, &rq->err)) != HPOD_OK)
        goto out;
    if ((st = trial_store_get(rq->db, rq->id, 1, &t, &rq->err)) != HPOD_OK)
        goto out;
    if (in.step < 0) {
        int complete;
        size_t bad;
        if (t.state != TRIAL_PENDING && t.state != TRIAL_RUNNING &&
            t.state != TRIAL_COMPLETED) {
            st = not_live(rq, &t, "report on");
            goto out;
        }
        report_merge(&d, &t, &in.values, &add, &complete, &bad);
        if (bad != (size_t)-1) {
            const struct metric_value *m = &in.values.v[bad];
            const double *old = metric_set_find(&t.values, m->name);
            char f[96], num[HPOD_DTOA_SIZE];
            snprintf(f, sizeof f, "values.%s", m->name);
            if (old) {
                hpod_dtoa(*old, num);
                st = hpod_fail(&rq->err, HPOD_ECONFLICT, f,
                               "trial %lld already has %s = %s", t.id, m->name,
                               num);
            } else
                st = hpod_fail(&rq->err, HPOD_ECONFLICT, f,
                               "trial %lld is completed: its values cannot "
                               "change",
                               t.id);
            goto out;
        }
        /* Repeating what is stored changes nothing (idempotent). */
        if (add.n > 0 || (complete && t.state != TRIAL_COMPLETED) ||
            t.state == TRIAL_PENDING) {
            if ((st = trial_store_report(rq->db, t.id, &add, complete,
                                         s.lease_seconds, &rq->err)) != HPOD_OK)
                goto out;
        }
    } else {
        /* A step already recorded answers as before, whatever happened
         * since (a retried report after a "stop" finds the trial paused). */
        int found = 0;
        int step = (int)in.step;
        if ((st = trial_store_step_action(rq->db, t.id, step, &found, &action,
                                          &rq->err)) != HPOD_OK)
            goto out;
        if (!found) {
            if (t.state != TRIAL_PENDING && t.state != TRIAL_RUNNING) {
                st = not_live(rq, &t, "report on");
                goto out;
            }
            enum trial_state stopped = TRIAL_PAUSED;
            action = "continue";
            if (mf_enabled(&d) &&
                (st = mf_decide(rq->db, &d, &s, &t, step, &in.values, &action,
                                &stopped, &rq->err)) != HPOD_OK)
                goto out;
            if ((st = trial_store_intermediate(rq->db, t.id, step, &in.values,
                                               action, s.lease_seconds, &action,
                                               &rq->err)) != HPOD_OK)
                goto out;
            /* ASHA's promotion mode and multistage pause (a later suggest
             * may resume it); ASHA's stopping mode prunes. */
            if (strcmp(action, "stop") == 0 &&
                (st = trial_store_stop(rq->db, t.id, stopped,
                                       d.algo.name == ALGO_MULTISTAGE
                                           ? "reached its stage's steps"
                                           : "stopped at a rung",
                                       &rq->err)) != HPOD_OK)
                goto out;
        }
    }
    if ((st = db_commit(rq->db, &rq->err)) != HPOD_OK)
        goto out;
    /* 4. Respond with the trial as stored. */
    st = reply_trial(rq, rq->id, action);
out:
    if (st != HPOD_OK)
        db_rollback(rq->db);
    metric_set_cleanup(&add);
    report_input_cleanup(&in);
    study_def_cleanup(&d);
    study_cleanup(&s);
    trial_cleanup(&t);
    return st;
}

/* handle_trial_heartbeat - POST /v1/trials/{id}/heartbeat */
enum hpod_status
handle_trial_heartbeat(struct req *rq)
{
    struct trial t = {0};
    struct study s = {0};
    enum hpod_status st;

    if ((st = only_keys(rq, NULL, NULL)) != HPOD_OK)
        return st;
    if ((st = db_begin(rq->db, &rq->err)) != HPOD_OK ||
        (st = trial_store_get(rq->db, rq->id, 1, &t, &rq->err)) != HPOD_OK)
        goto out;
    if (t.state != TRIAL_PENDING && t.state != TRIAL_RUNNING) {
        st = not_live(rq, &t, "renew the lease of");
        goto out;
    }
    if ((st = study_store_get(rq->db, t.study_id, &s, &rq->err)) != HPOD_OK ||
        (st = trial_store_heartbeat(rq->db, t.id, s.lease_seconds, &rq->err)) !=
            HPOD_OK ||
        (st = db_commit(rq->db, &rq->err)) != HPOD_OK)
        goto out;
    st = reply_trial(rq, rq->id, NULL);
out:
    if (st != HPOD_OK)
        db_rollback(rq->db);
    study_cleanup(&s);
    trial_cleanup(&t);
    return st;
}

/* handle_trial_fail - POST /v1/trials/{id}/fail {"reason": "..."} */
enum hpod_status
handle_trial_fail(struct req *rq)
{
    struct trial t = {0};
    const char *reason = NULL;
    json_t *v;
    enum hpod_status st;

    if ((st = only_keys(rq, "reason", NULL)) != HPOD_OK)
        return st;
    v = json_object_get(rq->body, "reason");
    if (v && !json_is_null(v)) {
        if (!json_is_string(v))
            return hpod_fail(&rq->err, HPOD_EINVAL, "reason",
                             "reason must be a string");
        if (json_string_length(v) > 1000)
            return hpod_fail(&rq->err, HPOD_EUNPROC, "reason",
                             "reason must be at most 1000 characters");
        reason = json_string_value(v);
    }
    if ((st = db_begin(rq->db, &rq->err)) != HPOD_OK ||
        (st = trial_store_get(rq->db, rq->id, 1, &t, &rq->err)) != HPOD_OK)
        goto out;
    if (t.state == TRIAL_COMPLETED || t.state == TRIAL_PRUNED) {
        st = not_live(rq, &t, "fail");
        goto out;
    }
    if (t.state != TRIAL_FAILED &&
        (st = trial_store_fail(rq->db, t.id, reason ? reason : "failed",
                               &rq->err)) != HPOD_OK)
        goto out;
    if ((st = db_commit(rq->db, &rq->err)) != HPOD_OK)
        goto out;
    st = reply_trial(rq, rq->id, NULL);
out:
    if (st != HPOD_OK)
        db_rollback(rq->db);
    trial_cleanup(&t);
    return st;
}

/* handle_trial_get - GET /v1/trials/{id} */
enum hpod_status
handle_trial_get(struct req *rq)
{
    struct trial t = {0};
    enum hpod_status st = trial_store_get(rq->db, rq->id, 0, &t, &rq->err);
    if (st == HPOD_OK)
        st = reply_json(rq, 200, trial_to_json(&t));
    trial_cleanup(&t);
    return st;
}

/* handle_trial_list - GET /v1/studies/{id}/trials?state=&limit=&offset= */
enum hpod_status
handle_trial_list(struct req *rq)
{
    struct study s = {0};
    struct trial *rows = NULL;
    size_t n = 0;
    long long limit, offset, total = 0;
    int state = -1;
    const char *sq = rq->query(rq, "state");
    enum hpod_status st;
    json_t *arr;

    if (sq && (state = trial_state_parse(sq)) < 0)
        return hpod_fail(&rq->err, HPOD_EINVAL, "state",
                         "state must be pending, running, completed, "
                         "failed, pruned or paused");
    if ((st = query_int(rq->query(rq, "limit"), "limit", 1, 10000, 1000, &limit,
                        &rq->err)) != HPOD_OK ||
        (st = query_int(rq->query(rq, "offset"), "offset", 0, 1LL << 40, 0,
                        &offset, &rq->err)) != HPOD_OK)
        return st;
    if ((st = study_store_get(rq->db, rq->id, &s, &rq->err)) != HPOD_OK)
        goto out;
    if ((st = trial_store_list(rq->db, rq->id, state, limit, offset, &rows, &n,
                               &total, &rq->err)) != HPOD_OK)
        goto out;
    arr = json_array();
    for (size_t i = 0; i < n && st == HPOD_OK; i++)
        st = hj_append_row(arr, trial_to_json(&rows[i]), &rq->err);
    if (st != HPOD_OK) {
        json_decref(arr);
        goto out;
    }
    st = reply_json(rq, 200,
                    json_pack("{s:o, s:I, s:I, s:I}", "trials", arr, "total",
                              (json_int_t)total, "limit", (json_int_t)limit,
                              "offset", (json_int_t)offset));
out:
    trials_free(rows, n);
    study_cleanup(&s);
    return st;
}
