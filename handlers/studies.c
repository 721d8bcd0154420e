/*
 * handlers/studies.c - /v1/studies: create, list, get, delete, best.
 *
 * Each handler follows parse -> validate -> store -> respond. No SQL here
 * (store/study_store.c), no numerics (core/).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "handlers/handlers.h"
#include "handlers/json_model.h"
#include "store/err.h"
#include "store/study_store.h"
#include "store/trial_store.h"

enum hpod_status
reply_json(struct req *rq, int status, json_t *body)
{
    json_decref(rq->reply);
    rq->status = status;
    rq->reply = body;
    return HPOD_OK;
}

/* The fetched study as JSON, or a failure status. */
static enum hpod_status
reply_study(struct req *rq, long long id, int status)
{
    struct study s = {0};
    enum hpod_status st = study_store_get(rq->db, id, &s, &rq->err);
    if (st == HPOD_OK)
        st = reply_json(rq, status, study_to_json(&s));
    study_cleanup(&s);
    return st;
}

/*
 * handle_study_create - POST /v1/studies
 * Body: the study definition (DESIGN.md §2). Replies 201 with the study;
 * 400/422 for bad input (nothing is written).
 */
enum hpod_status
handle_study_create(struct req *rq)
{
    struct study_def d = {0};
    char *def_text = NULL, *cand_text = NULL;
    json_t *expanded = NULL;
    long long id = 0;
    enum hpod_status st;

    /* 1-2. Parse and validate everything before any write. A study backed
     * by a benchmark gets its space and candidates from the table. */
    if ((st = benchmark_expand_study(rq, rq->body, &expanded)) != HPOD_OK ||
        (st = study_def_from_json(expanded ? expanded : rq->body, &d,
                                  &rq->err)) != HPOD_OK)
        goto out;
    if (d.algo.name == ALGO_GREEDY && !d.candidates) {
        st = hpod_fail(&rq->err, HPOD_EUNPROC, "algorithm.name",
                       "greedy needs a finite space: give candidates");
        goto out;
    }
    if (d.algo.name != ALGO_RANDOM && d.algo.name != ALGO_EHVI &&
        !(d.algo.name == ALGO_ASHA && d.algo.base == ALGO_RANDOM) &&
        d.n_objectives > 1) {
        st = hpod_fail(&rq->err, HPOD_EUNPROC, "algorithm.name",
                       "this algorithm optimizes a single objective: use "
                       "ehvi for several");
        goto out;
    }
    def_text = json_dump_text(d.def, 0);
    if (d.candidates)
        cand_text = json_dump_text(d.candidates, 0);
    if (!def_text || (d.candidates && !cand_text)) {
        st = hpod_fail(&rq->err, HPOD_ENOMEM, "", "could not encode study");
        goto out;
    }
    /* 3. Store: study and candidates in one transaction. */
    if ((st = study_store_insert(
             rq->db, d.name, def_text, d.budget, d.lease_seconds, cand_text,
             d.candidates ? (long long)json_array_size(d.candidates) : -1,
             d.benchmark, &id, &rq->err)) != HPOD_OK)
        goto out;
    /* 4. Respond with the stored study. */
    st = reply_study(rq, id, 201);
out:
    free(def_text);
    free(cand_text);
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
    if ((st = study_store_list(rq->db, limit, offset, &rows, &n, &total,
                               &rq->err)) != HPOD_OK)
        return st;
    arr = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(arr, study_to_json(&rows[i]));
        study_cleanup(&rows[i]);
    }
    free(rows);
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
    enum hpod_status st = study_store_delete(rq->db, rq->id, &rq->err);
    if (st != HPOD_OK)
        return st;
    rq->status = 204;
    return HPOD_OK;
}

/*
 * handle_study_best - GET /v1/studies/{id}/best
 * The feasible completed trial with the best value of the single objective
 * (ties: the earliest), or null.
 */
enum hpod_status
handle_study_best(struct req *rq)
{
    struct study s = {0};
    struct study_def d = {0};
    struct trial *rows = NULL;
    size_t n = 0, best = (size_t)-1;
    double best_v = 0;
    enum hpod_status st;

    if ((st = study_store_get(rq->db, rq->id, &s, &rq->err)) != HPOD_OK ||
        (st = study_def_from_text(s.definition, &d, &rq->err)) != HPOD_OK)
        goto out;
    if (d.n_objectives != 1) {
        st = hpod_fail(&rq->err, HPOD_EUNPROC, "",
                       "study has %zu objectives: use /pareto", d.n_objectives);
        goto out;
    }
    if ((st = trial_store_list(rq->db, rq->id, TRIAL_COMPLETED, -1, 0, &rows,
                               &n, NULL, &rq->err)) != HPOD_OK)
        goto out;
    for (size_t i = 0; i < n; i++) {
        json_t *vals = json_from_text(rows[i].values);
        json_t *v = json_object_get(vals, d.obj_names[0]);
        /* Only trials whose constraints were observed to hold. */
        if (json_is_number(v) && trial_feasible(&d, vals)) {
            double x = json_number_value(v) * d.obj_sense[0];
            if (best == (size_t)-1 || x > best_v) {
                best = i;
                best_v = x;
            }
        }
        json_decref(vals);
    }
    st = reply_json(rq, 200,
                    json_pack("{s:o}", "trial",
                              best == (size_t)-1 ? json_null()
                                                 : trial_to_json(&rows[best])));
out:
    trials_free(rows, n);
    study_def_cleanup(&d);
    study_cleanup(&s);
    return st;
}
