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

#include "core/mem.h"
#include "handlers/handlers.h"
#include "handlers/json_model.h"
#include "handlers/multifidelity.h"
#include "store/dtoa.h"
#include "store/err.h"
#include "store/study_store.h"
#include "store/trial_store.h"

#define MAX_METRICS 64
#define MAX_STEP 1000000000LL

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
        json_t *o = json_pack("{s:o}", "trial", trial_to_json(&t));
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

static int
metric_name_ok(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n <= 64 &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_.-") == n;
}

static enum hpod_status
parse_report(struct req *rq, json_t **values, long long *step)
{
    enum hpod_status st;
    json_t *v, *val;
    const char *key;

    if ((st = only_keys(rq, "values", "step")) != HPOD_OK)
        return st;
    v = json_object_get(rq->body, "values");
    if (!v)
        return hpod_fail(&rq->err, HPOD_EINVAL, "values", "values is required");
    if (!json_is_object(v))
        return hpod_fail(&rq->err, HPOD_EINVAL, "values",
                         "values must be an object of metric: number");
    if (json_object_size(v) == 0 || json_object_size(v) > MAX_METRICS)
        return hpod_fail(&rq->err, HPOD_EUNPROC, "values",
                         "values must hold 1 to %d metrics", MAX_METRICS);
    json_object_foreach(v, key, val)
    {
        char f[96];
        snprintf(f, sizeof f, "values.%.64s", key);
        if (!metric_name_ok(key))
            return hpod_fail(&rq->err, HPOD_EUNPROC, f,
                             "metric name must be 1 to 64 letters, digits, "
                             "'_', '.' or '-'");
        if (!json_is_number(val))
            return hpod_fail(&rq->err, HPOD_EINVAL, f, "%s must be a number",
                             f);
        if (!isfinite(json_number_value(val)))
            return hpod_fail(&rq->err, HPOD_EUNPROC, f, "%s must be finite", f);
    }
    *values = v;
    *step = -1;
    v = json_object_get(rq->body, "step");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v))
            return hpod_fail(&rq->err, HPOD_EINVAL, "step",
                             "step must be an integer");
        *step = json_integer_value(v);
        if (*step < 0 || *step > MAX_STEP)
            return hpod_fail(&rq->err, HPOD_EUNPROC, "step",
                             "step must be between 0 and %lld", MAX_STEP);
    }
    return HPOD_OK;
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
 * values, all or some metrics; the trial completes when every objective is
 * in. With step: an intermediate report, answered with an action.
 */
enum hpod_status
handle_trial_report(struct req *rq)
{
    json_t *values = NULL;
    long long step = -1;
    struct trial t = {0};
    struct study s = {0};
    struct study_def d = {0};
    char *vtext = NULL;
    const char *action = NULL;
    json_t *merged = NULL;
    enum hpod_status st;

    /* 1-2. Parse and validate what needs no database. */
    if ((st = parse_report(rq, &values, &step)) != HPOD_OK)
        return st;
    vtext = json_dump_text(values, JSON_SORT_KEYS);

    /* 3. Decide from the locked trial's state. ASHA decisions compare the
     * study's trials, so they are serialized by the study lock, taken
     * before the trial's (the order suggest uses too). */
    if ((st = db_begin(rq->db, &rq->err)) != HPOD_OK ||
        (st = trial_store_get(rq->db, rq->id, 0, &t, &rq->err)) != HPOD_OK ||
        (st = study_store_get(rq->db, t.study_id, &s, &rq->err)) != HPOD_OK ||
        (st = study_def_from_text(s.definition, &d, &rq->err)) != HPOD_OK)
        goto out;
    if (mf_enabled(&d) && step >= 0 &&
        (st = study_store_lock(rq->db, t.study_id, &rq->err)) != HPOD_OK)
        goto out;
    trial_cleanup(&t);
    if ((st = trial_store_get(rq->db, rq->id, 1, &t, &rq->err)) != HPOD_OK)
        goto out;
    if (step < 0) {
        /* Final values, possibly only some metrics (decoupled reports:
         * speed measured on a subset now, BLEU later). They merge into what
         * the trial holds; a metric reported twice must agree. The trial
         * completes once every objective is in. */
        if (t.state != TRIAL_PENDING && t.state != TRIAL_RUNNING &&
            t.state != TRIAL_COMPLETED) {
            st = not_live(rq, &t, "report on");
            goto out;
        }
        merged = json_from_text(t.values);
        if (!json_is_object(merged)) {
            json_decref(merged);
            merged = json_object();
        }
        int added = 0;
        const char *key;
        json_t *val;
        json_object_foreach(values, key, val)
        {
            json_t *old = json_object_get(merged, key);
            if (old && json_number_value(old) != json_number_value(val)) {
                char f[96], num[HPOD_DTOA_SIZE];
                snprintf(f, sizeof f, "values.%s", key);
                hpod_dtoa(json_number_value(old), num);
                st =
                    hpod_fail(&rq->err, HPOD_ECONFLICT, f,
                              "trial %lld already has %s = %s", t.id, key, num);
                goto out;
            }
            if (!old) {
                json_object_set(merged, key, val);
                added = 1;
            }
        }
        int complete = 1;
        for (size_t i = 0; i < d.n_objectives; i++)
            complete &= json_is_number(json_object_get(merged, d.obj_names[i]));
        /* Repeating what is stored changes nothing (idempotent). */
        if (added || (complete && t.state != TRIAL_COMPLETED) ||
            t.state == TRIAL_PENDING) {
            free(vtext);
            vtext = json_dump_text(merged, JSON_SORT_KEYS);
            if ((st = trial_store_set_values(rq->db, t.id, vtext, complete,
                                             s.lease_seconds, &rq->err)) !=
                HPOD_OK)
                goto out;
        }
    } else {
        /* A step already recorded answers as before, whatever happened
         * since (a retried report after a "stop" finds the trial paused). */
        int found = 0;
        if ((st = trial_store_step_action(rq->db, t.id, (int)step, &found,
                                          &action, &rq->err)) != HPOD_OK)
            goto out;
        if (!found) {
            if (t.state != TRIAL_PENDING && t.state != TRIAL_RUNNING) {
                st = not_live(rq, &t, "report on");
                goto out;
            }
            enum trial_state stopped = TRIAL_PAUSED;
            action = "continue";
            if (mf_enabled(&d) &&
                (st = mf_decide(rq, &d, &s, &t, (int)step, values, &action,
                                &stopped)) != HPOD_OK)
                goto out;
            if ((st = trial_store_intermediate(rq->db, t.id, (int)step, vtext,
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
    json_decref(merged);
    free(vtext);
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
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, trial_to_json(&rows[i]));
    st = reply_json(rq, 200,
                    json_pack("{s:o, s:I, s:I, s:I}", "trials", arr, "total",
                              (json_int_t)total, "limit", (json_int_t)limit,
                              "offset", (json_int_t)offset));
out:
    trials_free(rows, n);
    study_cleanup(&s);
    return st;
}
