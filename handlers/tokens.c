/*
 * handlers/tokens.c - POST/GET/DELETE /v1/tokens (admins): the HTTP side
 * of study/access.h. The secret is in the answer of POST only.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "common/text.h"
#include "handlers/handlers.h"

static json_t *
token_to_json(const struct token_row *t)
{
    json_t *o =
        json_pack("{s:I, s:s, s:s, s:s}", "id", (json_int_t)t->id, "role",
                  t->role, "note", t->note, "created_at", t->created_at);
    if (!o)
        return NULL;
    json_object_set_new(o, "lab",
                        t->lab[0] ? json_string(t->lab) : json_null());
    json_object_set_new(o, "expires_at",
                        t->expires_at[0] ? json_string(t->expires_at)
                                         : json_null());
    json_object_set_new(o, "revoked_at",
                        t->revoked_at[0] ? json_string(t->revoked_at)
                                         : json_null());
    json_object_set_new(o, "state",
                        json_string(t->revoked_at[0] ? "revoked"
                                    : t->valid       ? "active"
                                                     : "expired"));
    return o;
}

/* The body of POST /v1/tokens: role, lab?, expires_in?, note?. */
static enum hpod_status
token_body(json_t *body, enum access_role *role, const char **lab,
           long long *expires_in, const char **note, struct hpod_err *err)
{
    static const char *const keys[] = {"role", "lab", "expires_in", "note",
                                       NULL};
    json_t *v;
    enum hpod_status st;

    if ((st = hj_check_keys(body, keys, "", err)) != HPOD_OK)
        return st;
    v = json_object_get(body, "role");
    if (!v)
        return hpod_fail(err, HPOD_EINVAL, "role", "role is required");
    if (!json_is_string(v))
        return hpod_fail(err, HPOD_EINVAL, "role", "role must be a string");
    if ((*role = access_role_parse(json_string_value(v))) == ROLE_NONE)
        return hpod_fail(err, HPOD_EUNPROC, "role",
                         "role must be \"admin\", \"write\" or \"read\"");
    v = json_object_get(body, "lab");
    if (v && !json_is_null(v) && !json_is_string(v))
        return hpod_fail(err, HPOD_EINVAL, "lab", "lab must be a string");
    *lab = json_is_string(v) ? json_string_value(v) : NULL;
    if (*lab && !access_lab_name_ok(*lab))
        return hpod_fail(err, HPOD_EUNPROC, "lab",
                         "lab must be 1 to 64 letters, digits, '_', '.' or "
                         "'-', and not nmthpo or nmtlc");
    v = json_object_get(body, "expires_in");
    *expires_in = 0;
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v))
            return hpod_fail(err, HPOD_EINVAL, "expires_in",
                             "expires_in must be an integer (seconds)");
        *expires_in = json_integer_value(v);
        if (*expires_in < 1 || *expires_in > ACCESS_MAX_EXPIRES)
            return hpod_fail(err, HPOD_EUNPROC, "expires_in",
                             "expires_in must be 1 to %lld seconds",
                             ACCESS_MAX_EXPIRES);
    }
    if ((st = hpod_text_member(body, "note", "note", err)) != HPOD_OK)
        return st;
    v = json_object_get(body, "note");
    if (v && !json_is_string(v))
        return hpod_fail(err, HPOD_EINVAL, "note", "note must be a string");
    *note = v ? json_string_value(v) : "";
    if (json_string_length(v) > 200)
        return hpod_fail(err, HPOD_EUNPROC, "note",
                         "note must be at most 200 bytes");
    return HPOD_OK;
}

enum hpod_status
handle_token_create(struct req *rq)
{
    enum access_role role = ROLE_NONE;
    const char *lab = NULL, *note = "";
    long long expires_in = 0;
    struct access_new_token t;
    int created = 0;
    enum hpod_status st;

    if ((st = token_body(rq->body, &role, &lab, &expires_in, &note,
                         &rq->err)) != HPOD_OK ||
        (st = access_token_create(rq->db, &rq->who, role, lab, note, expires_in,
                                  0, &t, &created, &rq->err)) != HPOD_OK)
        return st;
    json_t *o = token_to_json(&t.row);
    if (o)
        json_object_set_new(o, "token", json_string(t.secret));
    memset(t.secret, 0, sizeof t.secret);
    if (!o)
        return hpod_fail(&rq->err, HPOD_ENOMEM, "", "could not build reply");
    return reply_json(rq, 201, o);
}

enum hpod_status
handle_token_list(struct req *rq)
{
    struct token_row *rows = NULL;
    size_t n = 0;
    json_t *arr;
    enum hpod_status st;

    if ((st = access_token_list(rq->db, &rq->who, &rows, &n, &rq->err)) !=
        HPOD_OK)
        return st;
    arr = json_array();
    for (size_t i = 0; i < n && st == HPOD_OK; i++)
        st = hj_append_row(arr, token_to_json(&rows[i]), &rq->err);
    free(rows);
    if (st != HPOD_OK) {
        json_decref(arr);
        return st;
    }
    return reply_json(rq, 200, json_pack("{s:o}", "tokens", arr));
}

enum hpod_status
handle_token_revoke(struct req *rq)
{
    struct token_row t;
    enum hpod_status st;

    if ((st = access_token_revoke(rq->db, &rq->who, rq->id, 0, &t, &rq->err)) !=
        HPOD_OK)
        return st;
    return reply_json(rq, 200, token_to_json(&t));
}
