/*
 * handlers/pareto.c - GET /v1/studies/{id}/pareto?ranks=&history=: the
 * query -> study_pareto (study/pareto.h) -> {"front", "hypervolume",
 * "reference", "objectives", "n_completed", "n_feasible", "ranks"?,
 * "history"?}.
 */
#include <string.h>

#include "common/err.h"
#include "handlers/handlers.h"
#include "study/def.h"
#include "study/pareto.h"

/* The front: trial, params and values of each non-dominated trial. */
static enum hpod_status
front_json(struct req *rq, const struct study_pareto_answer *a, json_t **out)
{
    enum hpod_status st = HPOD_OK;

    *out = json_array();
    for (size_t f = 0; f < a->n_front && st == HPOD_OK; f++) {
        const struct trial *t = &a->rows[a->front[f]];
        json_t *params = hj_parse(t->params);
        st = hj_append_row(*out,
                           params ? json_pack("{s:I, s:o, s:o}", "trial",
                                              (json_int_t)t->id, "params",
                                              params, "values",
                                              metric_set_to_json(&t->values))
                                  : NULL,
                           &rq->err);
    }
    return st;
}

static json_t *
ranks_json(const struct study_pareto_answer *a)
{
    json_t *ranks = json_array();
    for (size_t i = 0; i < a->n_completed; i++) {
        const struct study_pareto_rank *r = &a->ranks[i];
        json_array_append_new(
            ranks,
            json_pack("{s:I, s:o, s:b}", "trial", (json_int_t)r->trial, "rank",
                      r->feasible ? json_integer(r->rank) : json_null(),
                      "feasible", r->feasible));
    }
    return ranks;
}

static json_t *
history_json(const struct study_pareto_answer *a)
{
    json_t *hist = json_array();
    for (size_t i = 0; i < a->n_completed; i++) {
        const struct study_pareto_step *p = &a->history[i];
        json_array_append_new(hist, json_pack("{s:I, s:I, s:f}", "n_completed",
                                              (json_int_t)p->n_completed,
                                              "trial", (json_int_t)p->trial,
                                              "hypervolume", p->hypervolume));
    }
    return hist;
}

enum hpod_status
handle_study_pareto(struct req *rq)
{
    struct study_pareto_answer a = {0};
    json_t *front = NULL, *ref = NULL, *reply;
    int want_ranks, want_history;
    enum hpod_status st;

    if ((st = query_bool(rq->query(rq, "ranks"), "ranks", &want_ranks,
                         &rq->err)) != HPOD_OK ||
        (st = query_bool(rq->query(rq, "history"), "history", &want_history,
                         &rq->err)) != HPOD_OK)
        return st;
    if ((st = study_pareto(rq->db, rq->id, want_ranks, want_history, &a,
                           &rq->err)) != HPOD_OK ||
        (st = front_json(rq, &a, &front)) != HPOD_OK)
        goto out;
    if (a.has_reference) {
        ref = json_object();
        for (size_t j = 0; j < a.def.n_objectives; j++)
            json_object_set_new(ref, a.def.obj_names[j],
                                json_real(a.reference[j]));
    }
    reply = json_pack(
        "{s:O, s:f, s:O, s:O, s:I, s:I}", "front", front, "hypervolume",
        a.hypervolume, "reference", ref ? ref : json_null(), "objectives",
        json_object_get(a.def.def, "objectives"), "n_completed",
        (json_int_t)a.n_completed, "n_feasible", (json_int_t)a.n_feasible);
    if (want_ranks)
        json_object_set_new(reply, "ranks", ranks_json(&a));
    if (want_history)
        json_object_set_new(reply, "history", history_json(&a));
    st = reply_json(rq, 200, reply);
out:
    json_decref(front);
    json_decref(ref);
    study_pareto_clear(&a);
    return st;
}
