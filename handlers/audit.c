/*
 * handlers/audit.c - GET /v1/audit (admins): the audit log, newest first,
 * filtered by lab, study, token, action and since, paged by the cursor
 * "next" (study/audit.h, docs/audit.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/err.h"
#include "common/json.h"
#include "handlers/handlers.h"
#include "study/audit.h"

#define AUDIT_PAGE_DEFAULT 100
#define AUDIT_PAGE_MAX 1000

static json_t *
event_json(const struct audit_row *e)
{
    json_t *detail = hj_parse(e->detail);
    json_t *token = e->token_id
                        ? json_pack("{s:I, s:s}", "id", (json_int_t)e->token_id,
                                    "note", e->token_note ? e->token_note : "")
                        : json_null();
    if (!json_is_object(detail) || !token) {
        json_decref(detail);
        json_decref(token);
        return NULL;
    }
    return json_pack("{s:I, s:s, s:o, s:o, s:s, s:s, s:o, s:o}", "id",
                     (json_int_t)e->id, "at", e->at, "token", token, "lab",
                     e->lab ? json_string(e->lab) : json_null(), "action",
                     e->action, "target", e->target, "study",
                     e->study_id ? json_integer(e->study_id) : json_null(),
                     "detail", detail);
}

enum hpod_status
handle_audit_list(struct req *rq)
{
    struct audit_filter f = {.lab = rq->query(rq, "lab"),
                             .action = rq->query(rq, "action"),
                             .since = rq->query(rq, "since")};
    struct audit_row *rows = NULL;
    size_t n = 0;
    int more = 0;
    char next[32];
    json_t *arr;
    enum hpod_status st;

    if (f.lab && !access_lab_name_ok(f.lab))
        return hpod_fail(&rq->err, HPOD_EINVAL, "lab",
                         "lab must be 1 to %d characters of [A-Za-z0-9_.-]",
                         ACCESS_LAB_MAX);
    if ((st = query_int(rq->query(rq, "study"), "study", 1, 1LL << 62, 0,
                        &f.study_id, &rq->err)) != HPOD_OK ||
        (st = query_int(rq->query(rq, "token"), "token", 1, 1LL << 62, 0,
                        &f.token_id, &rq->err)) != HPOD_OK ||
        (st = query_int(rq->query(rq, "next"), "next", 1, 1LL << 62, 0,
                        &f.before_id, &rq->err)) != HPOD_OK ||
        (st = query_int(rq->query(rq, "limit"), "limit", 1, AUDIT_PAGE_MAX,
                        AUDIT_PAGE_DEFAULT, &f.limit, &rq->err)) != HPOD_OK ||
        (st = audit_list(rq->db, rq->who.lab, &f, &rows, &n, &more,
                         &rq->err)) != HPOD_OK)
        return st;
    arr = json_array();
    for (size_t i = 0; i < n && st == HPOD_OK; i++)
        st = hj_append_row(arr, event_json(&rows[i]), &rq->err);
    if (more && n > 0)
        snprintf(next, sizeof next, "%lld", rows[n - 1].id);
    audit_rows_free(rows, n);
    if (st != HPOD_OK) {
        json_decref(arr);
        return st;
    }
    return reply_json(
        rq, 200,
        json_pack("{s:o, s:o}", "events", arr, "next",
                  more && n > 0 ? json_string(next) : json_null()));
}
