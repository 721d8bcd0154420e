/*
 * handlers/trials.c - /v1/trials/{id}/report|heartbeat|fail|preempt|
 * exclude|restore|params,
 * /v1/trials/{id} (GET, PATCH) and /v1/studies/{id}/trials (GET as JSON
 * or CSV, POST: enqueue or add).
 *
 * HTTP mapping only: parse the body, call study/report.h or
 * study/trials.h (each state change is one transaction, committed before
 * the answer: a report answered 200 is durable), answer with the trial.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/err.h"
#include "handlers/handlers.h"
#include "handlers/represent.h"
#include "study/dbr.h"
#include "study/def.h"
#include "study/enqueue.h"
#include "study/exclude.h"
#include "study/explain.h"
#include "study/preempt.h"
#include "study/report.h"
#include "study/studies.h"
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
 * are report_submit's.
 */
enum hpod_status
handle_trial_report(struct req *rq)
{
    struct report_input in = {0};
    struct study_report_answer a = {0};
    enum hpod_status st;

    if ((st = report_from_json(rq->body, &in, &rq->err)) != HPOD_OK)
        return st;
    if ((st = report_submit(rq->db, rq->id, &in, &a, &rq->err)) == HPOD_OK)
        st = reply_trial(rq, &a.trial, a.action);
    report_answer_clear(&a);
    report_input_clear(&in);
    return st;
}

/* handle_trial_heartbeat - POST /v1/trials/{id}/heartbeat */
enum hpod_status
handle_trial_heartbeat(struct req *rq)
{
    struct trial t = {0};
    enum hpod_status st;

    if ((st = only_keys(rq, NULL, NULL)) == HPOD_OK &&
        (st = trials_heartbeat(rq->db, rq->id, &t, &rq->err)) == HPOD_OK)
        st = reply_trial(rq, &t, NULL);
    trial_clear(&t);
    return st;
}

/* Longest reason a trial's change may give (characters). */
#define REASON_MAX 1000

/*
 * The body {"reason": "..."?} of fail, preempt, exclude and restore:
 * *reason is the string
 * (borrowed from the body) or NULL when absent or null.
 */
static enum hpod_status
reason_only(struct req *rq, const char **reason)
{
    json_t *v;
    enum hpod_status st;

    *reason = NULL;
    if ((st = only_keys(rq, "reason", NULL)) != HPOD_OK)
        return st;
    v = json_object_get(rq->body, "reason");
    if (!v || json_is_null(v))
        return HPOD_OK;
    if (!json_is_string(v))
        return hpod_fail(&rq->err, HPOD_EINVAL, "reason",
                         "reason must be a string");
    if (json_string_length(v) > REASON_MAX)
        return hpod_fail(&rq->err, HPOD_EUNPROC, "reason",
                         "reason must be at most %d characters", REASON_MAX);
    *reason = json_string_value(v);
    return HPOD_OK;
}

/* A trial's change with an optional reason (fail, preempt), answered
 * with the trial as then stored. */
static enum hpod_status
reason_call(struct req *rq,
            enum hpod_status (*fn)(struct db *, long long, const char *,
                                   const struct principal *, struct trial *,
                                   struct hpod_err *))
{
    struct trial t = {0};
    const char *reason = NULL;
    enum hpod_status st;

    if ((st = reason_only(rq, &reason)) == HPOD_OK &&
        (st = fn(rq->db, rq->id, reason, &rq->who, &t, &rq->err)) == HPOD_OK)
        st = reply_trial(rq, &t, NULL);
    trial_clear(&t);
    return st;
}

/* handle_trial_fail - POST /v1/trials/{id}/fail {"reason": "..."} */
enum hpod_status
handle_trial_fail(struct req *rq)
{
    return reason_call(rq, trials_fail);
}

/* handle_trial_preempt - POST /v1/trials/{id}/preempt {"reason": "..."} */
enum hpod_status
handle_trial_preempt(struct req *rq)
{
    return reason_call(rq, preempt_trial);
}

/*
 * handle_trial_exclude - POST /v1/trials/{id}/exclude {"reason": "..."}:
 * out of the model, best, pareto and importance, by the caller's token.
 */
enum hpod_status
handle_trial_exclude(struct req *rq)
{
    struct trial t = {0};
    const char *reason = NULL;
    enum hpod_status st;

    if ((st = reason_only(rq, &reason)) != HPOD_OK)
        return st;
    if (!reason)
        return hpod_fail(&rq->err, HPOD_EINVAL, "reason",
                         "reason is required: say why the trial leaves the "
                         "model");
    if ((st = exclude_trial(rq->db, rq->id, reason, &rq->who, &t, &rq->err)) ==
        HPOD_OK)
        st = reply_trial(rq, &t, NULL);
    trial_clear(&t);
    return st;
}

/* handle_trial_restore - POST /v1/trials/{id}/restore {"reason"?: "..."} */
enum hpod_status
handle_trial_restore(struct req *rq)
{
    struct trial t = {0};
    const char *reason = NULL;
    enum hpod_status st;

    if ((st = reason_only(rq, &reason)) == HPOD_OK &&
        (st = exclude_restore(rq->db, rq->id, reason, &rq->who, &t,
                              &rq->err)) == HPOD_OK)
        st = reply_trial(rq, &t, NULL);
    trial_clear(&t);
    return st;
}

/*
 * handle_trial_params - POST /v1/trials/{id}/params with one space entry
 * (define-by-run) -> {"value": v}: the trial's value of that parameter.
 */
enum hpod_status
handle_trial_params(struct req *rq)
{
    json_t *v = NULL;
    enum hpod_status st =
        dbr_trial_param(rq->db, rq->id, rq->body, &v, &rq->err);
    if (st == HPOD_OK)
        st = reply_json(rq, 200, json_pack("{s:o}", "value", v));
    return st;
}

/* handle_trial_get - GET /v1/trials/{id} */
enum hpod_status
handle_trial_get(struct req *rq)
{
    struct trial t = {0};
    enum hpod_status st = trials_get(rq->db, rq->id, &t, &rq->err);
    if (st == HPOD_OK)
        st = reply_json(rq, 200, trial_to_json(&t));
    trial_clear(&t);
    return st;
}

/* handle_trial_explain - GET /v1/trials/{id}/explain */
enum hpod_status
handle_trial_explain(struct req *rq)
{
    json_t *body = NULL;
    enum hpod_status st = explain_trial(rq->db, rq->id, &body, &rq->err);
    if (st == HPOD_OK)
        st = reply_json(rq, 200, body);
    return st;
}

/*
 * 1 when the Accept header's first media range is text/csv: the CSV
 * answer is asked for first; anything else (or no Accept) gets JSON.
 */
static int
wants_csv(const struct req *rq)
{
    const char *a = rq->header ? rq->header(rq, "Accept") : NULL;
    size_t n = strlen("text/csv");
    if (!a)
        return 0;
    while (*a == ' ' || *a == '\t')
        a++;
    return strncasecmp(a, "text/csv", n) == 0 &&
           (a[n] == '\0' || a[n] == ';' || a[n] == ',' || a[n] == ' ');
}

/* The CSV answer of a page of study_id's trials. */
static enum hpod_status
reply_csv(struct req *rq, const struct trial *rows, size_t n)
{
    struct study s = {0};
    struct study_def d = {0};
    enum hpod_status st;

    if ((st = studies_get(rq->db, rq->id, &s, &rq->err)) == HPOD_OK &&
        (st = def_from_text(s.definition, &d, &rq->err)) == HPOD_OK) {
        rq->reply_text = trials_to_csv(&d, rows, n);
        if (!rq->reply_text)
            st = hpod_fail(&rq->err, HPOD_EINTERNAL, "",
                           "a stored row cannot be read");
        rq->content_type = "text/csv; charset=utf-8";
        rq->status = 200;
    }
    def_clear(&d);
    study_clear(&s);
    return st;
}

/*
 * handle_trial_list - GET /v1/studies/{id}/trials?state=&limit=&offset=
 * With Accept: text/csv, the same trials as CSV (every trial unless
 * limit says otherwise).
 */
enum hpod_status
handle_trial_list(struct req *rq)
{
    struct trial *rows = NULL;
    size_t n = 0;
    long long limit, offset, total = 0;
    int state = -1, csv = wants_csv(rq);
    const char *sq = rq->query(rq, "state");
    enum hpod_status st;
    json_t *arr;

    if (sq && (state = trial_state_parse(sq)) < 0)
        return hpod_fail(&rq->err, HPOD_EINVAL, "state",
                         "state must be waiting, pending, running, "
                         "completed, failed, pruned or paused");
    if ((st = query_int(rq->query(rq, "limit"), "limit", 1, 10000,
                        csv ? -1 : 1000, &limit, &rq->err)) != HPOD_OK ||
        (st = query_int(rq->query(rq, "offset"), "offset", 0, 1LL << 40, 0,
                        &offset, &rq->err)) != HPOD_OK)
        return st;
    if ((st = trials_list(rq->db, rq->id, state, limit, offset, &rows, &n,
                          &total, &rq->err)) != HPOD_OK)
        goto out;
    if (csv) {
        st = reply_csv(rq, rows, n);
        goto out;
    }
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

/*
 * handle_trial_enqueue - POST /v1/studies/{id}/trials
 * Body: {"params": {...}, "values"?: {...}, "metadata"?: {...}}: without
 * values the configuration waits for the next suggest; with them it is a
 * completed trial that ran elsewhere. 201 with the trial.
 */
enum hpod_status
handle_trial_enqueue(struct req *rq)
{
    struct enqueue_input in = {0};
    struct trial t = {0};
    enum hpod_status st;

    if ((st = enqueue_from_json(rq->body, &in, &rq->err)) != HPOD_OK)
        return st;
    if ((st = enqueue_add(rq->db, rq->id, &in, &rq->who, &t, &rq->err)) ==
        HPOD_OK)
        st = reply_json(rq, 201, trial_to_json(&t));
    trial_clear(&t);
    enqueue_input_clear(&in);
    return st;
}

/* handle_trial_patch - PATCH /v1/trials/{id} {"metadata": {...}} */
enum hpod_status
handle_trial_patch(struct req *rq)
{
    struct trial t = {0};
    json_t *m;
    enum hpod_status st;

    if ((st = only_keys(rq, "metadata", NULL)) != HPOD_OK)
        return st;
    m = json_object_get(rq->body, "metadata");
    if (!m)
        return hpod_fail(&rq->err, HPOD_EINVAL, "metadata",
                         "metadata is required");
    if ((st = enqueue_set_metadata(rq->db, rq->id, m, &rq->who, &t,
                                   &rq->err)) == HPOD_OK)
        st = reply_json(rq, 200, trial_to_json(&t));
    trial_clear(&t);
    return st;
}
