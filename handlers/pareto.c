/*
 * handlers/pareto.c - GET /v1/studies/{id}/pareto: what a dashboard plots.
 *
 * The non-dominated feasible completed trials for the study's objectives
 * (mixed goals), the hypervolume they dominate against the reference point
 * (the study's, or the worst observed values moved out by 10% of their
 * range), and on request (?ranks=true) the non-dominated rank and the
 * feasibility of every completed trial and (?history=true) the hypervolume
 * after each completed trial, in completion order, against the same
 * reference. Infeasible trials (a constraint not met, or its metric not
 * reported) are never on the front. No SQL here (store/), the numerics are
 * core/pareto.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/pareto.h"
#include "handlers/handlers.h"
#include "study/def.h"
#include "common/err.h"
#include "store/study_store.h"
#include "store/trial_store.h"

#define PARETO_REF_MARGIN 0.1

static enum hpod_status
query_bool(struct req *rq, const char *name, int *out)
{
    const char *v = rq->query(rq, name);
    *out = 0;
    if (!v || strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
        return HPOD_OK;
    if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0) {
        *out = 1;
        return HPOD_OK;
    }
    return hpod_fail(&rq->err, HPOD_EINVAL, name, "%s must be true or false",
                     name);
}

/* Completion order: by the time the trial completed, then by id. */
static const struct trial *order_rows;

static int
cmp_completion(const void *a, const void *b)
{
    const struct trial *x = &order_rows[*(const size_t *)a];
    const struct trial *y = &order_rows[*(const size_t *)b];
    int c = strcmp(x->updated_at ? x->updated_at : "",
                   y->updated_at ? y->updated_at : "");
    if (c)
        return c;
    return (x->id > y->id) - (x->id < y->id);
}

static pthread_mutex_t order_mu = PTHREAD_MUTEX_INITIALIZER;

/*
 * A hypervolume as JSON can carry it: one that overflows (values near
 * ±DBL_MAX) saturates at DBL_MAX, which it is at least, rather than
 * reading as nothing; NaN (no volume to speak of) is 0.
 */
static double
finite_volume(double v)
{
    if (isnan(v))
        return 0.0;
    return isinf(v) ? DBL_MAX : v;
}

enum hpod_status
handle_study_pareto(struct req *rq)
{
    struct study s = {0};
    struct study_def d = {0};
    struct trial *rows = NULL;
    size_t n = 0, k = 0, kf = 0, m;
    double *y = NULL, *yf = NULL, ref[MODEL_MAX_OBJECTIVES];
    size_t *which = NULL, *front = NULL, *fidx = NULL;
    int *feasible = NULL, *rank = NULL, want_ranks, want_history;
    json_t *front_json = NULL, *ref_json = NULL, *objs, *reply;
    enum hpod_status st;

    if ((st = query_bool(rq, "ranks", &want_ranks)) != HPOD_OK ||
        (st = query_bool(rq, "history", &want_history)) != HPOD_OK)
        return st;
    if ((st = study_store_get(rq->db, rq->id, &s, &rq->err)) != HPOD_OK ||
        (st = study_def_from_text(s.definition, &d, &rq->err)) != HPOD_OK ||
        (st = trial_store_list(rq->db, rq->id, TRIAL_COMPLETED, -1, 0, &rows,
                               &n, NULL, &rq->err)) != HPOD_OK)
        goto out;
    m = d.n_objectives;
    y = xmalloc((n ? n : 1) * m * sizeof *y);
    yf = xmalloc((n ? n : 1) * m * sizeof *yf);
    which = xmalloc((n ? n : 1) * sizeof *which);
    front = xmalloc((n ? n : 1) * sizeof *front);
    fidx = xmalloc((n ? n : 1) * sizeof *fidx);
    feasible = xcalloc(n ? n : 1, sizeof *feasible);
    rank = xcalloc(n ? n : 1, sizeof *rank);
    /* Completed trials carrying every objective; the feasible ones apart. */
    for (size_t i = 0; i < n; i++) {
        const struct metric_set *vals = &rows[i].values;
        size_t j;
        for (j = 0; j < m; j++) {
            const double *v = metric_set_find(vals, d.obj_names[j]);
            if (!v)
                break;
            y[k * m + j] = *v;
        }
        if (j == m) {
            feasible[k] = trial_feasible(&d, vals);
            if (feasible[k]) {
                memcpy(yf + kf * m, y + k * m, m * sizeof *y);
                fidx[kf++] = k;
            }
            which[k++] = i;
        }
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
        size_t nf = pareto_front(yf, kf, m, d.obj_sense, front);
        for (size_t f = 0; f < nf && st == HPOD_OK; f++) {
            const struct trial *t = &rows[which[fidx[front[f]]]];
            json_t *params = hj_parse(t->params);
            st = hj_append_row(
                front_json,
                params ? json_pack("{s:I, s:o, s:o}", "trial",
                                   (json_int_t)t->id, "params", params,
                                   "values", metric_set_to_json(&t->values))
                       : NULL,
                &rq->err);
        }
        if (st != HPOD_OK)
            goto out;
        hv = pareto_hypervolume(yf, kf, m, d.obj_sense, ref);
        hv = finite_volume(hv);
        ref_json = json_object();
        for (size_t j = 0; j < m; j++)
            json_object_set_new(ref_json, d.obj_names[j], json_real(ref[j]));
    }
    objs = json_object_get(d.def, "objectives");
    reply = json_pack(
        "{s:O, s:f, s:O, s:O, s:I, s:I}", "front", front_json, "hypervolume",
        hv, "reference", ref_json ? ref_json : json_null(), "objectives", objs,
        "n_completed", (json_int_t)k, "n_feasible", (json_int_t)kf);
    if (want_ranks) {
        /* Rank among the feasible trials; infeasible ones get null. */
        json_t *ranks = json_array();
        int *frank = xcalloc(kf ? kf : 1, sizeof *frank);
        pareto_rank(yf, kf, m, d.obj_sense, frank);
        for (size_t f = 0; f < kf; f++)
            rank[fidx[f]] = frank[f] + 1;
        free(frank);
        for (size_t i = 0; i < k; i++)
            json_array_append_new(
                ranks,
                json_pack("{s:I, s:o, s:b}", "trial",
                          (json_int_t)rows[which[i]].id, "rank",
                          feasible[i] ? json_integer(rank[i] - 1) : json_null(),
                          "feasible", feasible[i]));
        json_object_set_new(reply, "ranks", ranks);
    }
    if (want_history) {
        /* Hypervolume of the feasible trials completed so far, after each
         * completion; the same reference point throughout. */
        json_t *hist = json_array();
        size_t *ord = xmalloc((k ? k : 1) * sizeof *ord);
        double *acc = xmalloc((k ? k : 1) * m * sizeof *acc);
        size_t na = 0;
        for (size_t i = 0; i < k; i++)
            ord[i] = which[i];
        pthread_mutex_lock(&order_mu);
        order_rows = rows;
        qsort(ord, k, sizeof *ord, cmp_completion);
        pthread_mutex_unlock(&order_mu);
        for (size_t i = 0; i < k; i++) {
            size_t pos = 0;
            while (which[pos] != ord[i])
                pos++;
            if (feasible[pos]) {
                memcpy(acc + na * m, y + pos * m, m * sizeof *y);
                na++;
            }
            double h = pareto_hypervolume(acc, na, m, d.obj_sense, ref);
            json_array_append_new(hist,
                                  json_pack("{s:I, s:I, s:f}", "n_completed",
                                            (json_int_t)(i + 1), "trial",
                                            (json_int_t)rows[ord[i]].id,
                                            "hypervolume", finite_volume(h)));
        }
        free(ord);
        free(acc);
        json_object_set_new(reply, "history", hist);
    }
    st = reply_json(rq, 200, reply);
out:
    json_decref(front_json);
    json_decref(ref_json);
    free(y);
    free(yf);
    free(which);
    free(front);
    free(fidx);
    free(feasible);
    free(rank);
    trials_free(rows, n);
    study_def_cleanup(&d);
    study_cleanup(&s);
    return st;
}
