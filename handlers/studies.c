/*
 * handlers/studies.c - /v1/studies: create, list, get, delete, best.
 *
 * Each handler follows parse -> validate -> store -> respond. No SQL here
 * (store/study_store.c), no numerics (core/).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/expand.h"
#include "common/mem.h"
#include "study/constraints.h"
#include "handlers/handlers.h"
#include "study/def.h"
#include "common/err.h"
#include "store/study_store.h"
#include "store/trial_store.h"

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
    if ((st = bench_expand_study(rq->ctx->bench, rq->db, rq->body, &expanded,
                                 &rq->err)) != HPOD_OK ||
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
    def_text = hj_dump(d.def, 0);
    if (d.candidates)
        cand_text = hj_dump(d.candidates, 0);
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
    enum hpod_status st = study_store_delete(rq->db, rq->id, &rq->err);
    if (st != HPOD_OK)
        return st;
    rq->status = 204;
    return HPOD_OK;
}

/* Rows of a /best computation: completed trials and the model's verdict. */
struct best_scan {
    double *y;          /* n: oriented objective (larger is better), NaN */
    unsigned char *may; /* n: no reported violation, something unreported */
    size_t *cand;       /* rows the model must vouch for */
    double *p;          /* n_cand: Π_c P_c over the unreported constraints */
    unsigned char *ok;  /* n_cand: p reaches the confidence asked */
    size_t n_cand;
};

/*
 * 1 when the reported values vals miss no constraint's bound but leave at
 * least one constraint unreported: only the model can then say whether
 * the trial is feasible.
 */
static int
best_needs_model(const struct study_def *d, const struct metric_set *vals)
{
    int missing = 0;
    for (size_t c = 0; c < d->n_constraints; c++) {
        double v = constraint_value(d, c, vals);
        double b = d->con_is_max[c] ? d->con_bound[c] : -d->con_bound[c];
        if (isnan(v))
            missing = 1;
        else if (!(v <= b))
            return 0;
    }
    return missing;
}

/*
 * The model's verdict on the rows sc->cand: for each, the probability
 * that the constraints it did not report hold, Π_c P_c (independent GPs,
 * one per metric, fitted on every trial of the study that reported it,
 * whatever its state: a measurement is a measurement), and whether that
 * joint probability reaches the largest confidence among those
 * constraints. DESIGN.md §3: the recommended best must satisfy P(feasible)
 * >= confidence; with several unreported constraints the joint probability
 * is what "feasible" means, so it must reach the strictest confidence
 * asked (which implies P_c >= confidence_c for each).
 */
static enum hpod_status
best_model_verdict(struct req *rq, const struct study_def *d,
                   const struct trial *rows, struct best_scan *sc)
{
    size_t np = d->space.n_params, nc = d->n_constraints, k = sc->n_cand;
    struct trial *all = NULL;
    size_t n_all = 0, n_obs = 0;
    double *obs_raw = NULL, *obs_c = NULL, *q_raw = NULL, *pc = NULL;
    unsigned char *missing = NULL, *parsed = NULL;
    struct hpod_err perr;
    enum hpod_status st;

    if ((st = trial_store_list(rq->db, rq->id, -1, -1, 0, &all, &n_all, NULL,
                               &rq->err)) != HPOD_OK)
        return st;
    obs_raw = xmalloc((n_all ? n_all : 1) * (np ? np : 1) * sizeof *obs_raw);
    obs_c = xmalloc((n_all ? n_all : 1) * nc * sizeof *obs_c);
    for (size_t i = 0; i < n_all; i++) {
        int any = 0;
        for (size_t c = 0; c < nc; c++) {
            obs_c[n_obs * nc + c] = constraint_value(d, c, &all[i].values);
            any |= !isnan(obs_c[n_obs * nc + c]);
        }
        if (!any)
            continue;
        json_t *pj = hj_parse(all[i].params);
        enum hpod_status pst =
            params_from_json(d, pj, obs_raw + n_obs * np, "params", &perr);
        json_decref(pj);
        if (pst == HPOD_OK)
            n_obs++; /* else: not a point of this space, not evidence */
    }
    /* The configurations to judge, and which constraints each lacks. */
    q_raw = xmalloc((k ? k : 1) * (np ? np : 1) * sizeof *q_raw);
    missing = xcalloc((k ? k : 1) * nc, 1);
    parsed = xcalloc(k ? k : 1, 1);
    for (size_t j = 0; j < k; j++) {
        const struct trial *t = &rows[sc->cand[j]];
        json_t *pj = hj_parse(t->params);
        for (size_t c = 0; c < nc; c++)
            missing[j * nc + c] = isnan(constraint_value(d, c, &t->values));
        parsed[j] =
            params_from_json(d, pj, q_raw + j * np, "params", &perr) == HPOD_OK;
        if (!parsed[j])
            memset(q_raw + j * np, 0, np * sizeof *q_raw);
        json_decref(pj);
        sc->p[j] = parsed[j] ? 1.0 : 0.0;
    }
    pc = xmalloc((k ? k : 1) * sizeof *pc);
    for (size_t c = 0; c < nc; c++) {
        int used = 0;
        for (size_t j = 0; j < k; j++)
            used |= missing[j * nc + c] && parsed[j];
        if (!used)
            continue;
        /* seq 0: the answer is a function of (seed, history) only. */
        st = constraint_prob(d, c, obs_raw, obs_c, n_obs, q_raw, k, 0, pc);
        if (st == HPOD_ENUMERIC) {
            /* No GP could be fitted: the model vouches for nothing. */
            for (size_t j = 0; j < k; j++)
                pc[j] = 0;
            st = HPOD_OK;
        }
        if (st != HPOD_OK) {
            st = hpod_fail(&rq->err, HPOD_EINTERNAL, "",
                           "constraint model failed (status %d)", (int)st);
            goto out;
        }
        for (size_t j = 0; j < k; j++)
            if (missing[j * nc + c])
                sc->p[j] *= pc[j];
    }
    for (size_t j = 0; j < k; j++) {
        double conf = 0;
        for (size_t c = 0; c < nc; c++)
            if (missing[j * nc + c] && d->con_confidence[c] > conf)
                conf = d->con_confidence[c];
        sc->ok[j] = parsed[j] && sc->p[j] >= conf;
    }
out:
    free(obs_raw);
    free(obs_c);
    free(q_raw);
    free(pc);
    free(missing);
    free(parsed);
    trials_free(all, n_all);
    return st;
}

/*
 * handle_study_best - GET /v1/studies/{id}/best
 * The qualifying completed trial with the best value of the single
 * objective (ties: the earliest), or null. A completed trial qualifies when,
 * for every constraint, it reported the metric and the value meets the
 * bound, or it did not report it and the constraint GPs (core/mobo, one
 * per metric, fitted on the trials that reported it; study/constraints.h)
 * give a joint probability Π_c P_c over its unreported constraints of at
 * least the largest confidence among them (DESIGN.md §3, Beck et al. 2016).
 * A metric reported fewer than CONSTRAINT_MIN_REPORTS times vouches for
 * nothing. The answer carries "p_feasible": 1 when every constraint was
 * reported and met (and for unconstrained studies), else the model's
 * product. The GPs are fitted only when a trial that needs them would beat
 * the best observed-feasible one.
 */
enum hpod_status
handle_study_best(struct req *rq)
{
    struct study s = {0};
    struct study_def d = {0};
    struct trial *rows = NULL;
    struct best_scan sc = {0};
    size_t n = 0, best = (size_t)-1;
    double best_v = 0, best_p = 1;
    enum hpod_status st;
    json_t *reply;

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
    sc.y = xmalloc((n ? n : 1) * sizeof *sc.y);
    sc.may = xcalloc(n ? n : 1, 1);
    /* 1. The observed-feasible best: every constraint reported and met. */
    for (size_t i = 0; i < n; i++) {
        const struct metric_set *vals = &rows[i].values;
        const double *v = metric_set_find(vals, d.obj_names[0]);
        sc.y[i] = NAN;
        if (v) {
            sc.y[i] = *v * d.obj_sense[0];
            if (trial_feasible(&d, vals)) {
                if (best == (size_t)-1 || sc.y[i] > best_v) {
                    best = i;
                    best_v = sc.y[i];
                }
            } else {
                sc.may[i] = best_needs_model(&d, vals);
            }
        }
    }
    /* 2. Trials the model would have to vouch for, if they beat it. */
    sc.cand = xmalloc((n ? n : 1) * sizeof *sc.cand);
    for (size_t i = 0; i < n; i++)
        if (sc.may[i] && (best == (size_t)-1 || sc.y[i] > best_v ||
                          (sc.y[i] == best_v && i < best)))
            sc.cand[sc.n_cand++] = i;
    if (sc.n_cand > 0) {
        sc.p = xmalloc(sc.n_cand * sizeof *sc.p);
        sc.ok = xcalloc(sc.n_cand, 1);
        if ((st = best_model_verdict(rq, &d, rows, &sc)) != HPOD_OK)
            goto out;
        for (size_t j = 0; j < sc.n_cand; j++) {
            size_t i = sc.cand[j];
            if (sc.ok[j] && (best == (size_t)-1 || sc.y[i] > best_v ||
                             (sc.y[i] == best_v && i < best))) {
                best = i;
                best_v = sc.y[i];
                best_p = sc.p[j];
            }
        }
    }
    if (best == (size_t)-1) {
        reply = json_pack("{s:o}", "trial", json_null());
    } else {
        reply = json_pack("{s:o, s:f}", "trial", trial_to_json(&rows[best]),
                          "p_feasible", best_p);
    }
    st = reply_json(rq, 200, reply);
out:
    free(sc.y);
    free(sc.may);
    free(sc.cand);
    free(sc.p);
    free(sc.ok);
    trials_free(rows, n);
    study_def_cleanup(&d);
    study_cleanup(&s);
    return st;
}
