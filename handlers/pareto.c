/*
 * handlers/pareto.c - GET /v1/studies/{id}/pareto: the non-dominated
 * completed trials for the study's objectives (mixed goals), and the
 * hypervolume they dominate against the reference point (the study's, or
 * the worst observed values moved out by 10% of the range).
 * No SQL here (store/), the numerics are core/pareto.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/pareto.h"
#include "handlers/handlers.h"
#include "handlers/json_model.h"
#include "store/err.h"
#include "store/study_store.h"
#include "store/trial_store.h"

#define PARETO_REF_MARGIN 0.1

enum hpod_status
handle_study_pareto(struct req *rq)
{
    struct study s = {0};
    struct study_def d = {0};
    struct trial *rows = NULL;
    size_t n = 0, k = 0, m, nf;
    double *y = NULL, ref[MODEL_MAX_OBJECTIVES];
    size_t *which = NULL, *front = NULL;
    json_t *front_json = NULL, *ref_json = NULL, *objs;
    enum hpod_status st;

    if ((st = study_store_get(rq->db, rq->id, &s, &rq->err)) != HPOD_OK ||
        (st = study_def_from_text(s.definition, &d, &rq->err)) != HPOD_OK ||
        (st = trial_store_list(rq->db, rq->id, TRIAL_COMPLETED, -1, 0, &rows,
                               &n, NULL, &rq->err)) != HPOD_OK)
        goto out;
    m = d.n_objectives;
    y = xmalloc((n ? n : 1) * m * sizeof *y);
    which = xmalloc((n ? n : 1) * sizeof *which);
    front = xmalloc((n ? n : 1) * sizeof *front);
    /* Completed trials carrying every objective. */
    for (size_t i = 0; i < n; i++) {
        json_t *vals = json_from_text(rows[i].values);
        size_t j;
        for (j = 0; j < m; j++) {
            json_t *v = json_object_get(vals, d.obj_names[j]);
            if (!json_is_number(v))
                break;
            y[k * m + j] = json_number_value(v);
        }
        json_decref(vals);
        if (j == m)
            which[k++] = i;
    }

    front_json = json_array();
    double hv = 0.0;
    if (k > 0) {
        json_t *given = json_object_get(d.def, "reference");
        pareto_reference(y, k, m, d.obj_sense, PARETO_REF_MARGIN, ref);
        if (json_is_object(given))
            for (size_t j = 0; j < m; j++) {
                json_t *v = json_object_get(given, d.obj_names[j]);
                if (json_is_number(v))
                    ref[j] = json_number_value(v);
            }
        nf = pareto_front(y, k, m, d.obj_sense, front);
        for (size_t f = 0; f < nf; f++) {
            const struct trial *t = &rows[which[front[f]]];
            json_array_append_new(
                front_json,
                json_pack("{s:I, s:o, s:o}", "trial", (json_int_t)t->id,
                          "params", json_from_text(t->params), "values",
                          json_from_text(t->values)));
        }
        hv = pareto_hypervolume(y, k, m, d.obj_sense, ref);
        if (!isfinite(hv))
            hv = 0.0;
        ref_json = json_object();
        for (size_t j = 0; j < m; j++)
            json_object_set_new(ref_json, d.obj_names[j], json_real(ref[j]));
    }
    objs = json_object_get(d.def, "objectives");
    st = reply_json(rq, 200,
                    json_pack("{s:O, s:f, s:O, s:O, s:I}", "front", front_json,
                              "hypervolume", hv, "reference",
                              ref_json ? ref_json : json_null(), "objectives",
                              objs, "n_completed", (json_int_t)k));
out:
    json_decref(front_json);
    json_decref(ref_json);
    free(y);
    free(which);
    free(front);
    trials_free(rows, n);
    study_def_cleanup(&d);
    study_cleanup(&s);
    return st;
}
