/*
 * handlers/suggest.c - POST /v1/studies/{id}/suggest: the body
 * {"worker": string?, "count": integer?} -> suggest_trials (study/suggest.c)
 * -> {"trials": [...], "done": bool, "retry_after"?: seconds}.
 */
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/json.h"
#include "handlers/handlers.h"
#include "study/algometrics.h"
#include "study/suggest.h"

#define RETRY_AFTER_SECONDS 1

static enum hpod_status
parse_body(struct req *rq, const char **worker, long long *count)
{
    const char *key;
    json_t *v;
    json_object_foreach(rq->body, key, v)
    {
        if (strcmp(key, "worker") && strcmp(key, "count"))
            return hpod_fail(&rq->err, HPOD_EINVAL, key,
                             "unknown field \"%.60s\"", key);
    }
    v = json_object_get(rq->body, "worker");
    *worker = "default";
    if (v && !json_is_null(v)) {
        if (!json_is_string(v))
            return hpod_fail(&rq->err, HPOD_EINVAL, "worker",
                             "worker must be a string");
        if (json_string_length(v) == 0 || json_string_length(v) > 128)
            return hpod_fail(&rq->err, HPOD_EUNPROC, "worker",
                             "worker must be 1 to 128 characters");
        *worker = json_string_value(v);
    }
    v = json_object_get(rq->body, "count");
    *count = 1;
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v))
            return hpod_fail(&rq->err, HPOD_EINVAL, "count",
                             "count must be an integer");
        *count = json_integer_value(v);
        if (*count < 1 || *count > SUGGEST_MAX_COUNT)
            return hpod_fail(&rq->err, HPOD_EUNPROC, "count",
                             "count must be between 1 and %d",
                             SUGGEST_MAX_COUNT);
    }
    return HPOD_OK;
}

enum hpod_status
handle_suggest(struct req *rq)
{
    const char *worker = NULL;
    long long count = 0;
    struct suggest_answer ans = {0};
    json_t *trials, *reply;
    enum hpod_status st;

    /* No connection is held while the call waits for its study's group
     * or its lab's model slots: it borrows one only when it leads
     * (study/suggest_group.h). */
    struct suggest_group_conn via = {.db = rq->db,
                                     .pool = rq->ctx->pool,
                                     .units = rq->ctx->suggest_conns,
                                     .lab = rq->who.lab};

    if ((st = parse_body(rq, &worker, &count)) != HPOD_OK)
        return st;
    double t0 = hpod_now_s();
    st = suggest_trials(&via, rq->id, worker, count, &ans, &rq->err);
    if (st == HPOD_OK && ans.has_algorithm)
        algometrics_suggest(ans.algorithm, hpod_now_s() - t0);
    if (ans.n_expired)
        atomic_fetch_add(&rq->ctx->leases_expired_total, ans.n_expired);
    atomic_fetch_add(&rq->ctx->suggestions_total, ans.n_new);
    if (st != HPOD_OK)
        goto out;
    trials = json_array();
    for (size_t i = 0; i < ans.n && st == HPOD_OK; i++) {
        /* The params suggest parsed (or built), once. */
        json_t *tj = trial_to_json_params(&ans.trials[i], ans.params[i]);
        ans.params[i] = NULL;
        /* A decoupled study says what to measure (study/measure.h). */
        if (tj && ans.measures && ans.measures[i])
            json_object_set_new(tj, "measure", hj_parse(ans.measures[i]));
        st = hj_append_row(trials, tj, &rq->err);
    }
    if (st != HPOD_OK) {
        json_decref(trials);
        goto out;
    }
    /* done only when nothing will ever be issued again. */
    reply = json_pack("{s:o, s:b}", "trials", trials, "done", ans.done);
    if (ans.n == 0 && !ans.done)
        json_object_set_new(reply, "retry_after",
                            json_integer(RETRY_AFTER_SECONDS));
    st = reply_json(rq, 200, reply);
out:
    suggest_answer_clear(&ans);
    return st;
}
