/*
 * handlers/trials.c - /v1/trials/{id}/report|heartbeat|fail,
 * /v1/trials/{id} and /v1/studies/{id}/trials.
 *
 * HTTP mapping only: parse the body, call study/report.h or
 * study/trials.h (each state change is one transaction, committed before
 * the answer: a report answered 200 is durable), answer with the trial.
 */
#include <string.h>

#include "common/err.h"
#include "handlers/handlers.h"
#include "handlers/represent.h"
#include "study/report.h"
#include "study/trials.h"

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

/* Replies {"trial": ..., "action"?, "train_to"?} with trial t as stored. */
static enum hpod_status
reply_trial(struct req *rq, const struct trial *t, const char *action)
{
    json_t *tj = trial_to_json(t);
    json_t *o = tj ? json_pack("{s:o}", "trial", tj) : NULL;
    if (!o)
        return reply_json(rq, 200, NULL); /* an unreadable stored row */
    if (action)
        json_object_set_new(o, "action", json_string(action));
    /* Multistage: the fidelity this trial trains to. */
    if (t->train_to >= 1)
        json_object_set_new(o, "train_to", json_integer(t->train_to));
    return reply_json(rq, 200, o);
}

/*
 * handle_trial_report - POST /v1/trials/{id}/report
 * Body: {"values": {metric: number}, "step": k?}: a final report without
 * step, an intermediate one (answered with an action) with it; the rules
 * are study_report's.
 */
enum hpod_status
handle_trial_report(struct req *rq)
{
    struct report_input in = {0};
    struct study_report_answer a = {0};
    enum hpod_status st;

    if ((st = report_from_json(rq->body, &in, &rq->err)) != HPOD_OK)
        return st;
    if ((st = study_report(rq->db, rq->id, &in, &a, &rq->err)) == HPOD_OK)
        st = reply_trial(rq, &a.trial, a.action);
    study_report_answer_cleanup(&a);
    report_input_cleanup(&in);
    return st;
}

/* handle_trial_heartbeat - POST /v1/trials/{id}/heartbeat */
enum hpod_status
handle_trial_heartbeat(struct req *rq)
{
    struct trial t = {0};
    enum hpod_status st;

    if ((st = only_keys(rq, NULL, NULL)) == HPOD_OK &&
        (st = study_trial_heartbeat(rq->db, rq->id, &t, &rq->err)) == HPOD_OK)
        st = reply_trial(rq, &t, NULL);
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
    if ((st = study_trial_fail(rq->db, rq->id, reason, &t, &rq->err)) ==
        HPOD_OK)
        st = reply_trial(rq, &t, NULL);
    trial_cleanup(&t);
    return st;
}

/* handle_trial_get - GET /v1/trials/{id} */
enum hpod_status
handle_trial_get(struct req *rq)
{
    struct trial t = {0};
    enum hpod_status st = study_trial_get(rq->db, rq->id, &t, &rq->err);
    if (st == HPOD_OK)
        st = reply_json(rq, 200, trial_to_json(&t));
    trial_cleanup(&t);
    return st;
}

/* handle_trial_list - GET /v1/studies/{id}/trials?state=&limit=&offset= */
enum hpod_status
handle_trial_list(struct req *rq)
{
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
    if ((st = study_trial_list(rq->db, rq->id, state, limit, offset, &rows, &n,
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
    return st;
}
