/*
 * handlers/studies.c - /v1/studies: create, list, get, patch, delete, best.
 *
 * HTTP mapping only: parse the request, call study/studies.h, answer with
 * the representation of handlers/represent.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/expand.h"
#include "common/err.h"
#include "common/json.h"
#include "common/text.h"
#include "common/name.h"
#include "handlers/handlers.h"
#include "handlers/represent.h"
#include "study/copy.h"
#include "study/def.h"
#include "study/related.h"
#include "study/studies.h"
#include "study/warmstart.h"

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
    enum hpod_status st = studies_get(rq->db, id, &s, &rq->err);
    if (st == HPOD_OK)
        st = reply_json(rq, status, study_to_json(&s));
    study_clear(&s);
    return st;
}

/*
 * A lab the caller names (query or body): 1 to 64 name characters, not
 * a built-in table namespace, and the caller's own lab when its token is
 * scoped to one. bad: the status of a malformed name.
 */
static enum hpod_status
lab_check(const struct req *rq, const char *lab, enum hpod_status bad,
          struct hpod_err *err)
{
    if (!access_lab_name_ok(lab))
        return hpod_fail(err, bad, "lab",
                         "lab must be 1 to %d characters of [A-Za-z0-9_.-], "
                         "and not nmthpo or nmtlc (the built-in tables)",
                         ACCESS_LAB_MAX);
    if (!access_sees_lab(&rq->who, lab))
        return hpod_fail(err, HPOD_EDENIED, "lab",
                         "this token may only use the lab %s", rq->who.lab);
    return HPOD_OK;
}

/*
 * The create body's fields that are not part of the definition ("lab",
 * "load_if_exists", "metadata") into in and *meta (a new string), and the
 * body without them into *def_body (a new reference): the stored
 * definition never sees them.
 */
static enum hpod_status
create_opts(struct req *rq, json_t **def_body, struct study_create_in *in,
            char **meta, struct hpod_err *err)
{
    json_t *v;
    enum hpod_status st;

    *def_body = json_copy(rq->body);
    *meta = NULL;
    in->lab = rq->who.lab[0] ? rq->who.lab : ACCESS_DEFAULT_LAB;
    in->by = &rq->who;
    if ((v = json_object_get(rq->body, "lab")) && !json_is_null(v)) {
        if (!json_is_string(v))
            return hpod_fail(err, HPOD_EINVAL, "lab", "lab must be a string");
        if ((st = lab_check(rq, json_string_value(v), HPOD_EUNPROC, err)) !=
            HPOD_OK)
            return st;
        in->lab = json_string_value(v);
    }
    if ((v = json_object_get(rq->body, "load_if_exists")) && !json_is_null(v)) {
        if (!json_is_boolean(v))
            return hpod_fail(err, HPOD_EINVAL, "load_if_exists",
                             "load_if_exists must be true or false");
        in->load_if_exists = json_is_true(v);
    }
    if ((v = json_object_get(rq->body, "metadata")) && !json_is_null(v) &&
        (st = hj_object_text(v, "metadata", METADATA_MAX, meta, err)) !=
            HPOD_OK)
        return st;
    in->metadata = *meta;
    json_object_del(*def_body, "lab");
    json_object_del(*def_body, "load_if_exists");
    json_object_del(*def_body, "metadata");
    return HPOD_OK;
}

/* 1 when the definition body names algorithm.seed. */
static int
seed_given(const json_t *body)
{
    json_t *a = json_object_get(body, "algorithm");
    json_t *seed = json_is_object(a) ? json_object_get(a, "seed") : NULL;
    return seed && !json_is_null(seed);
}

/*
 * handle_study_create - POST /v1/studies
 * Body: the study definition (openapi/openapi.json) with "lab",
 * "load_if_exists" and "metadata" beside it. Replies 201 with the new
 * study, or 200 with the existing one (load_if_exists, same definition);
 * 400/403/409/422 for bad input (nothing is written).
 */
enum hpod_status
handle_study_create(struct req *rq)
{
    struct study_def d = {0};
    struct study_create_in in = {0};
    json_t *body = NULL, *expanded = NULL;
    char *meta = NULL;
    double *prior = NULL;
    long long id = 0;
    int existed = 0;
    enum hpod_status st;

    if ((st = create_opts(rq, &body, &in, &meta, &rq->err)) != HPOD_OK)
        goto out;
    /* A study backed by a benchmark gets its space and candidates from the
     * table; everything is validated before any write. Another lab's
     * table is unknown here, as it is everywhere else. */
    json_t *bn = json_object_get(body, "benchmark");
    if (json_is_string(bn) &&
        !access_sees_table(&rq->who, json_string_value(bn))) {
        st = hpod_fail(&rq->err, HPOD_EUNPROC, "benchmark",
                       "unknown benchmark \"%.100s\"", json_string_value(bn));
        goto out;
    }
    if ((st = expand_study(rq->ctx->bench, rq->db, body, &expanded,
                           &rq->err)) != HPOD_OK ||
        (st = def_from_json(expanded ? expanded : body, &d, &rq->err)) !=
            HPOD_OK)
        goto out;
    in.seed_given = seed_given(expanded ? expanded : body);
    if ((st = warmstart_auto(rq->db, &rq->who, in.lab, &d, &rq->err)) !=
            HPOD_OK ||
        (st = warmstart_prior(rq->db, rq->ctx->bench, &rq->who, &d, &prior,
                              &in.n_warm_prior, &rq->err)) != HPOD_OK)
        goto out;
    in.warm_prior = prior;
    if ((st = studies_create(rq->db, &d, &in, &id, &existed, &rq->err)) !=
        HPOD_OK)
        goto out;
    st = reply_study(rq, id, existed ? 200 : 201);
out:
    json_decref(body);
    json_decref(expanded);
    free(meta);
    free(prior);
    def_clear(&d);
    return st;
}

/*
 * handle_study_list - GET /v1/studies?name=&lab=&limit=&offset= (newest
 * first; name and lab match exactly). A token scoped to a lab lists that
 * lab only.
 */
enum hpod_status
handle_study_list(struct req *rq)
{
    struct study *rows = NULL;
    struct study_filter f = {.lab = rq->query(rq, "lab"),
                             .name = rq->query(rq, "name")};
    size_t n = 0;
    long long limit, offset, total = 0;
    enum hpod_status st;
    json_t *arr;

    if ((st = query_int(rq->query(rq, "limit"), "limit", 1, 1000, 50, &limit,
                        &rq->err)) != HPOD_OK ||
        (st = query_int(rq->query(rq, "offset"), "offset", 0, 1LL << 40, 0,
                        &offset, &rq->err)) != HPOD_OK)
        return st;
    if (f.lab && (st = lab_check(rq, f.lab, HPOD_EINVAL, &rq->err)) != HPOD_OK)
        return st;
    if (!f.lab && rq->who.lab[0])
        f.lab = rq->who.lab;
    /* Names are stored in NFC (common/text.h): so is the one asked for. A
     * name no study may have is looked up as it is, and finds none. */
    struct hpod_err ignored = {0};
    char *nfc = NULL;
    if (f.name && hpod_text_name(f.name, "name", &nfc, &ignored) == HPOD_OK)
        f.name = nfc;
    st = studies_list(rq->db, &f, limit, offset, &rows, &n, &total, &rq->err);
    free(nfc);
    if (st != HPOD_OK)
        return st;
    arr = json_array();
    for (size_t i = 0; i < n; i++) {
        if (st == HPOD_OK)
            st = hj_append_row(arr, study_to_json(&rows[i]), &rq->err);
        study_clear(&rows[i]);
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

/*
 * handle_study_patch - PATCH /v1/studies/{id}: {"state": "active" |
 * "paused" | "finished"}, {"metadata": {...}} (replaces the whole
 * object) and/or {"space": [...]} (the new space, study/evolve.h). 200
 * with the study.
 */
enum hpod_status
handle_study_patch(struct req *rq)
{
    static const char *const keys[] = {"state", "metadata", "space", NULL};
    struct study_update_in in = {0};
    char *meta = NULL;
    json_t *v;
    enum hpod_status st;

    if ((st = hj_check_keys(rq->body, keys, "", &rq->err)) != HPOD_OK)
        return st;
    if (json_object_size(rq->body) == 0)
        return hpod_fail(&rq->err, HPOD_EINVAL, "",
                         "give state, metadata and/or space");
    if ((v = json_object_get(rq->body, "state"))) {
        if (!json_is_string(v))
            return hpod_fail(&rq->err, HPOD_EINVAL, "state",
                             "state must be a string");
        in.state = json_string_value(v);
        if (!studies_state_ok(in.state))
            return hpod_fail(&rq->err, HPOD_EUNPROC, "state",
                             "state must be active, paused or finished");
    }
    if ((v = json_object_get(rq->body, "metadata")) &&
        (st = hj_object_text(v, "metadata", METADATA_MAX, &meta, &rq->err)) !=
            HPOD_OK)
        goto out;
    in.metadata = meta;
    in.space = json_object_get(rq->body, "space");
    if ((st = studies_update(rq->db, rq->id, &in, &rq->who, &rq->err)) !=
        HPOD_OK)
        goto out;
    st = reply_study(rq, rq->id, 200);
out:
    free(meta);
    return st;
}

/*
 * handle_study_copy - POST /v1/studies/{id}/copy: {"name": ..., "lab":
 * ...} (lab: the source's when omitted; a lab the caller may write) ->
 * 201 with the new study (study/copy.h).
 */
enum hpod_status
handle_study_copy(struct req *rq)
{
    static const char *const keys[] = {"name", "lab", NULL};
    const char *name = NULL, *lab = NULL;
    long long id = 0;
    enum hpod_status st;

    if ((st = hj_check_keys(rq->body, keys, "", &rq->err)) != HPOD_OK ||
        (st = hj_get_string(rq->body, "", "name", 1, &name, &rq->err)) !=
            HPOD_OK ||
        (st = hj_get_string(rq->body, "", "lab", 0, &lab, &rq->err)) != HPOD_OK)
        return st;
    if (lab && (st = lab_check(rq, lab, HPOD_EUNPROC, &rq->err)) != HPOD_OK)
        return st;
    if ((st = copy_study(rq->db, rq->ctx->bench, &rq->who, rq->id, name, lab,
                         &id, &rq->err)) != HPOD_OK)
        return st;
    return reply_study(rq, id, 201);
}

/* One related study as the API answers it. */
static json_t *
related_to_json(const struct related_study *r)
{
    json_t *names = json_array();
    for (size_t j = 0; j < r->n_shared; j++)
        json_array_append_new(names, json_string(r->shared[j]));
    return json_pack(
        "{s:I, s:s, s:s, s:o, s:f, s:I, s:o}", "id", (json_int_t)r->id, "name",
        r->name, "objective", r->objective, "shared_params", names, "overlap",
        r->overlap, "n_shared", (json_int_t)r->n_configs, "spearman",
        isnan(r->rho) ? json_null() : json_real(r->rho));
}

/*
 * handle_study_related - GET /v1/studies/{id}/related: {"study": id,
 * "related": [...]}, the study's lab's related studies, ranked
 * (study/related.h).
 */
enum hpod_status
handle_study_related(struct req *rq)
{
    struct study s = {0};
    struct study_def d = {0};
    struct related_list l = {0};
    json_t *arr = NULL;
    enum hpod_status st;

    if ((st = studies_get(rq->db, rq->id, &s, &rq->err)) != HPOD_OK ||
        (st = def_from_text(s.definition, &d, &rq->err)) != HPOD_OK ||
        (st = study_related_list(rq->db, s.lab, &d, rq->id, &l, &rq->err)) !=
            HPOD_OK)
        goto out;
    arr = json_array();
    for (size_t i = 0; i < l.n; i++)
        json_array_append_new(arr, related_to_json(&l.v[i]));
    st = reply_json(
        rq, 200,
        json_pack("{s:I, s:o}", "study", (json_int_t)rq->id, "related", arr));
out:
    study_related_list_clear(&l);
    def_clear(&d);
    study_clear(&s);
    return st;
}

/* handle_study_delete - DELETE /v1/studies/{id}: 204, trials go too. */
enum hpod_status
handle_study_delete(struct req *rq)
{
    enum hpod_status st = studies_delete(rq->db, rq->id, &rq->who, &rq->err);
    if (st != HPOD_OK)
        return st;
    rq->status = 204;
    return HPOD_OK;
}

/*
 * handle_study_best - GET /v1/studies/{id}/best: {"trial": t,
 * "p_feasible": p}, or {"trial": null}; the rules are studies_best's.
 */
enum hpod_status
handle_study_best(struct req *rq)
{
    struct studies_best b = {0};
    enum hpod_status st = studies_best(rq->db, rq->id, &b, &rq->err);
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
    studies_best_clear(&b);
    return st;
}
