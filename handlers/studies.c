/*
 * handlers/studies.c - /v1/studies: create, list, get, delete, best.
 *
 * HTTP mapping only: parse the request, call study/studies.h, answer with
 * the representation of handlers/represent.h.
 */
#include <stdlib.h>

#include "bench/expand.h"
#include "common/err.h"
#include "handlers/handlers.h"
#include "handlers/represent.h"
#include "study/def.h"
#include "study/studies.h"

enum hpod_status
reply_json(struct req *rq, int status, json_t *body)
{
    json_decref(rq->reply);
    rq->reply = NULL;
    /* NULL: a *_to_json of a stored row that could not be read. */
    if (!body)
        return hpod_fail(&rq->err, HPOD_EINTERNAL, "",
                         "stored data cannot be read");
    rq->status = status;
    rq->reply = body;
    return HPOD_OK;
}

/* The fetched study as JSON, or a failure status. */
static enum hpod_status
reply_study(struct req *rq, long long id, int status)
{
    struct study s = {0};
    enum hpod_status st = study_get(rq->db, id, &s, &rq->err);
    if (st == HPOD_OK)
        st = reply_json(rq, status, study_to_json(&s));
    study_cleanup(&s);
    return st;
}

/*
 * handle_study_create - POST /v1/studies
 * Body: the study definition (openapi/openapi.json). Replies 201 with the
 * study; 400/422 for bad input (nothing is written).
 */
enum hpod_status
handle_study_create(struct req *rq)
{
    struct study_def d = {0};
    json_t *expanded = NULL;
    long long id = 0;
    enum hpod_status st;

    /* A study backed by a benchmark gets its space and candidates from the
     * table; everything is validated before any write. */
    if ((st = bench_expand_study(rq->ctx->bench, rq->db, rq->body, &expanded,
                                 &rq->err)) != HPOD_OK ||
        (st = study_def_from_json(expanded ? expanded : rq->body, &d,
                                  &rq->err)) != HPOD_OK ||
        (st = study_create(rq->db, &d, &id, &rq->err)) != HPOD_OK)
        goto out;
    st = reply_study(rq, id, 201);
out:
    json_decref(expanded);
    study_def_cleanup(&d);
    return st;
}

/* handle_study_list - GET /v1/studies?limit=&offset= (newest first). */
enum hpod_status
handle_study_list(struct req *rq)
{
    struct study *rows = NULL;
    size_t n = 0;
    long long limit, offset, total = 0;
    enum hpod_status st;
    json_t *arr;

    if ((st = query_int(rq->query(rq, "limit"), "limit", 1, 1000, 50, &limit,
                        &rq->err)) != HPOD_OK ||
        (st = query_int(rq->query(rq, "offset"), "offset", 0, 1LL << 40, 0,
                        &offset, &rq->err)) != HPOD_OK)
        return st;
    if ((st = study_list(rq->db, limit, offset, &rows, &n, &total, &rq->err)) !=
        HPOD_OK)
        return st;
    arr = json_array();
    for (size_t i = 0; i < n; i++) {
        if (st == HPOD_OK)
            st = hj_append_row(arr, study_to_json(&rows[i]), &rq->err);
        study_cleanup(&rows[i]);
    }
    free(rows);
    if (st != HPOD_OK) {
        json_decref(arr);
        return st;
    }
    return reply_json(rq, 200,
                      json_pack("{s:o, s:I, s:I, s:I}", "studies", arr, "total",
                                (json_int_t)total, "limit", (json_int_t)limit,
                                "offset", (json_int_t)offset));
}

/* handle_study_get - GET /v1/studies/{id} */
enum hpod_status
handle_study_get(struct req *rq)
{
    return reply_study(rq, rq->id, 200);
}

/* handle_study_delete - DELETE /v1/studies/{id}: 204, trials go too. */
enum hpod_status
handle_study_delete(struct req *rq)
{
    enum hpod_status st = study_delete(rq->db, rq->id, &rq->err);
    if (st != HPOD_OK)
        return st;
    rq->status = 204;
    return HPOD_OK;
}

/*
 * handle_study_best - GET /v1/studies/{id}/best: {"trial": t,
 * "p_feasible": p}, or {"trial": null}; the rules are study_best's.
 */
enum hpod_status
handle_study_best(struct req *rq)
{
    struct study_best b = {0};
    enum hpod_status st = study_best(rq->db, rq->id, &b, &rq->err);
    json_t *reply;

    if (st != HPOD_OK)
        goto out;
    if (!b.found)
        reply = json_pack("{s:o}", "trial", json_null());
    else
        reply = json_pack("{s:o, s:f}", "trial", trial_to_json(&b.trial),
                          "p_feasible", b.p_feasible);
    st = reply_json(rq, 200, reply);
out:
    study_best_cleanup(&b);
    return st;
}
