/*
 * study/studies.c - studies as a whole; see studies.h. No SQL here
 * (store/study_store.c, store/trial_store.c), no numerics (core/).
 */
#include "study/studies.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "store/dbr_store.h"
#include "store/gp_model_store.h"
#include "store/study_store.h"
#include "store/trial_store.h"
#include "store/warm_store.h"
#include "study/audit.h"
#include "study/auto.h"
#include "study/constraints.h"
#include "study/evolve.h"

enum hpod_status
studies_check_rules(const struct study_def *d, struct hpod_err *err)
{
    if (d->algo.name == ALGO_GREEDY && !d->candidates)
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.name",
                         "greedy needs a finite space: give candidates");
    if (d->algo.name != ALGO_RANDOM && d->algo.name != ALGO_EHVI &&
        d->algo.name != ALGO_GREEDY &&
        !(d->algo.name == ALGO_ASHA && d->algo.base == ALGO_RANDOM) &&
        d->n_objectives > 1)
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.name",
                         "this algorithm optimizes a single objective: use "
                         "ehvi for several");
    return HPOD_OK;
}

/* 1 when a and b have the same JSON text (keys sorted); NULLs are equal. */
static int
json_same(const json_t *a, const json_t *b)
{
    char *ta = a ? hj_dump(a, JSON_SORT_KEYS) : NULL;
    char *tb = b ? hj_dump(b, JSON_SORT_KEYS) : NULL;
    int same = (!ta && !tb) || (ta && tb && strcmp(ta, tb) == 0);
    free(ta);
    free(tb);
    return same;
}

/*
 * The first top-level key of the definitions that differs (old: stored,
 * def: new) into what, "" when they are the same. Without seed_given the
 * new seed was drawn afresh, so the stored one stands for it.
 */
static void
def_diff(const json_t *old, const json_t *def, int seed_given, char *what,
         size_t size)
{
    json_t *nd = json_deep_copy(def);
    json_t *oa = json_object_get(old, "algorithm");
    json_t *na = json_object_get(nd, "algorithm");
    const char *key;
    json_t *v;

    what[0] = '\0';
    if (!seed_given && json_is_object(oa) && json_is_object(na) &&
        json_object_get(oa, "seed"))
        json_object_set(na, "seed", json_object_get(oa, "seed"));
    /* auto (study/auto.h): the user sent the name and maybe the seed; what
     * hpod chose, under the rule of the day the study was created, is not
     * part of what they sent. */
    if (auto_requested(oa) && auto_requested(na) && json_is_object(oa) &&
        json_is_object(na)) {
        static const char *const keys[] = {"chosen", "case", "reason"};
        for (size_t i = 0; i < 3; i++)
            if (json_object_get(oa, keys[i]))
                json_object_set(na, keys[i], json_object_get(oa, keys[i]));
    }
    /* Define-by-run (docs/trainer.md): the stored space grew with the
     * trials' suggest_* calls; a worker that starts later sends the empty
     * space it was created with. */
    if (json_is_true(json_object_get(old, "define_by_run")) &&
        json_is_array(json_object_get(nd, "space")) &&
        json_array_size(json_object_get(nd, "space")) == 0) {
        static const char *const grown[] = {"space", "space_version"};
        for (size_t i = 0; i < 2; i++)
            if (json_object_get(old, grown[i]))
                json_object_set(nd, grown[i], json_object_get(old, grown[i]));
            else
                json_object_del(nd, grown[i]);
    }
    json_object_foreach(nd, key, v)
    {
        if (!json_same(v, json_object_get(old, key))) {
            snprintf(what, size, "%s", key);
            goto out;
        }
    }
    json_object_foreach((json_t *)old, key, v)
    {
        if (!json_object_get(nd, key)) {
            snprintf(what, size, "%s", key);
            goto out;
        }
    }
out:
    json_decref(nd);
}

/* The first difference of d's candidates from study id's (see def_diff). */
static enum hpod_status
cand_diff(struct db *db, const struct study *s, const struct study_def *d,
          char *what, size_t size, struct hpod_err *err)
{
    long long n_new =
        d->candidates ? (long long)json_array_size(d->candidates) : -1;
    char **params = NULL;
    size_t n = 0;
    enum hpod_status st = HPOD_OK;

    if (n_new != s->n_candidates) {
        snprintf(what, size, "candidates");
        return HPOD_OK;
    }
    if (n_new < 0 ||
        (st = study_store_candidates(db, s->id, &params, &n, err)) != HPOD_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        json_t *c = hj_parse(params[i]);
        int same = json_same(c, json_array_get(d->candidates, i));
        json_decref(c);
        if (!same) {
            snprintf(what, size, "candidates");
            break;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(params[i]);
    free(params);
    return st;
}

/*
 * (lab, name) is taken by study *id: the answer of a create. With
 * load_if_exists and the same definition: HPOD_OK (the existing study);
 * otherwise HPOD_ECONFLICT saying why.
 */
static enum hpod_status
create_existing(struct db *db, const struct study_def *d,
                const struct study_create_in *in, long long id,
                struct hpod_err *err)
{
    struct study s = {0};
    json_t *old = NULL;
    char what[128] = "";
    enum hpod_status st;

    if (!in->load_if_exists)
        return hpod_fail(err, HPOD_ECONFLICT, "name",
                         "study %lld of lab %s already has this name", id,
                         in->lab);
    if ((st = study_store_get(db, id, &s, err)) != HPOD_OK)
        goto out;
    old = hj_parse(s.definition); /* json_is_object evaluates it twice */
    if (!json_is_object(old)) {
        st = hpod_fail(err, HPOD_EINTERNAL, "", "stored data cannot be read");
        goto out;
    }
    def_diff(old, d->def, in->seed_given, what, sizeof what);
    if (!what[0] &&
        (st = cand_diff(db, &s, d, what, sizeof what, err)) != HPOD_OK)
        goto out;
    if (what[0])
        st = hpod_fail(err, HPOD_ECONFLICT, what,
                       "study %lld of lab %s has this name and a different "
                       "definition (%s differs)",
                       id, in->lab, what);
out:
    json_decref(old);
    study_clear(&s);
    return st;
}

/* A copy's trials (in->copy_rows) as added trials of study id. */
static enum hpod_status
create_copied_trials(struct db *db, const struct study_create_in *in,
                     long long id, struct hpod_err *err)
{
    enum hpod_status st = HPOD_OK;
    for (size_t i = 0; i < in->n_copy_rows && st == HPOD_OK; i++) {
        const struct trial *t = &in->copy_rows[i];
        struct trial out = {0};
        st = trial_store_insert_user(db, id, (int)i, t->params, t->candidate,
                                     t->metadata, &t->values, &out, err);
        trial_clear(&out);
    }
    return st;
}

/* The audit event of a new study (in its transaction). */
static enum hpod_status
create_audit(struct db *db, const struct study_def *d,
             const struct study_create_in *in, long long id,
             struct hpod_err *err)
{
    char target[48];
    json_t *detail = json_pack("{s:s}", "name", d->name);
    if (d->benchmark)
        json_object_set_new(detail, "benchmark", json_string(d->benchmark));
    if (in->copy_of) {
        json_object_set_new(detail, "from", json_integer(in->copy_of));
        json_object_set_new(detail, "trials",
                            json_integer((json_int_t)in->n_copy_rows));
    }
    snprintf(target, sizeof target, "study/%lld", id);
    return audit_record(db, access_token_of(in->by),
                        in->copy_of ? "study.copy" : "study.create", in->lab,
                        id, target, detail, err);
}

enum hpod_status
studies_create(struct db *db, const struct study_def *d,
               const struct study_create_in *in, long long *id, int *existed,
               struct hpod_err *err)
{
    char *def_text = NULL, *cand_text = NULL;
    struct study_row_in row = {0};
    enum hpod_status st;

    *id = 0;
    *existed = 0;
    if ((st = studies_check_rules(d, err)) != HPOD_OK)
        return st;
    def_text = hj_dump(d->def, 0);
    if (d->candidates)
        cand_text = hj_dump(d->candidates, 0);
    if (!def_text || (d->candidates && !cand_text)) {
        st = hpod_fail(err, HPOD_ENOMEM, "", "could not encode study");
        goto out;
    }
    row.lab = in->lab;
    row.name = d->name;
    row.definition = def_text;
    row.metadata = in->metadata;
    row.budget = d->budget;
    row.lease_seconds = d->lease_seconds;
    row.candidates_json = cand_text;
    row.n_candidates =
        d->candidates ? (long long)json_array_size(d->candidates) : -1;
    row.benchmark = d->benchmark;
    row.created_by = in->by ? in->by->token_id : 0;
    /* The study and its candidates in one transaction; a taken (lab,
     * name) inserts nothing, and the study that has it is then read in
     * the same transaction (a new snapshot: it has committed). */
    if ((st = db_begin(db, err)) != HPOD_OK)
        goto out;
    if ((st = study_store_insert(db, &row, id, err)) != HPOD_OK)
        goto fail;
    if (*id != 0 && in->warm_prior &&
        (st = warm_store_put(db, *id, in->warm_prior, in->n_warm_prior, err)) !=
            HPOD_OK)
        goto fail;
    if (*id != 0 && ((st = create_copied_trials(db, in, *id, err)) != HPOD_OK ||
                     (st = create_audit(db, d, in, *id, err)) != HPOD_OK))
        goto fail;
    if (*id == 0) {
        long long old = 0;
        if ((st = study_store_find(db, in->lab, d->name, &old, err)) != HPOD_OK)
            goto fail;
        if (old == 0) {
            /* Deleted in between: the caller may simply retry. */
            st = hpod_fail(err, HPOD_ECONFLICT, "name",
                           "a concurrent request changed this name; retry");
            goto fail;
        }
        if ((st = create_existing(db, d, in, old, err)) != HPOD_OK)
            goto fail;
        *id = old;
        *existed = 1;
    }
    if ((st = db_commit(db, err)) == HPOD_OK)
        goto out;
fail:
    db_rollback(db);
    if (!*existed)
        *id = 0;
out:
    free(def_text);
    free(cand_text);
    return st;
}

int
studies_state_ok(const char *s)
{
    return s && (strcmp(s, "active") == 0 || strcmp(s, "paused") == 0 ||
                 strcmp(s, "finished") == 0);
}

/*
 * The study's space becomes space (study id, locked): its new definition
 * stored, the kept GP hyperparameters (fitted on the old space's
 * encoding) dropped, and the change in detail. A space it has already
 * writes nothing. The new definition is a new version of the study row,
 * which the definition and history caches are keyed by.
 */
static enum hpod_status
update_space(struct db *db, long long id, json_t *space, json_t *detail,
             struct hpod_err *err)
{
    struct study s = {0};
    struct study_def d = {0};
    char *text = NULL;
    json_t *norm = NULL;
    enum hpod_status st;

    if ((st = study_store_get(db, id, &s, err)) != HPOD_OK ||
        (st = def_from_text(s.definition, &d, err)) != HPOD_OK ||
        (st = evolve_space(&s, &d, space, &text, &norm, err)) != HPOD_OK ||
        !text)
        goto out;
    if ((st = dbr_store_set_definition(db, id, text, err)) != HPOD_OK ||
        (st = gp_model_store_drop(db, id, err)) != HPOD_OK)
        goto out;
    json_object_set(detail, "space", norm);
    json_object_set_new(detail, "space_version",
                        json_integer(d.space_version + 1));
out:
    json_decref(norm);
    free(text);
    def_clear(&d);
    study_clear(&s);
    return st;
}

enum hpod_status
studies_update(struct db *db, long long id, const struct study_update_in *in,
               const struct principal *by, struct hpod_err *err)
{
    char target[48];
    json_t *detail;
    enum hpod_status st;

    if (in->state && !studies_state_ok(in->state))
        return hpod_fail(err, HPOD_EUNPROC, "state",
                         "state must be active, paused or finished");
    detail = json_object();
    if (in->state)
        json_object_set_new(detail, "state", json_string(in->state));
    if (in->metadata)
        json_object_set_new(detail, "metadata", hj_parse(in->metadata));
    snprintf(target, sizeof target, "study/%lld", id);
    if ((st = db_begin(db, err)) != HPOD_OK) {
        json_decref(detail);
        return st;
    }
    if ((st = study_store_lock(db, id, err)) != HPOD_OK ||
        (in->space &&
         (st = update_space(db, id, in->space, detail, err)) != HPOD_OK) ||
        ((in->state || in->metadata) &&
         (st = study_store_update(db, id, in->state, in->metadata, err)) !=
             HPOD_OK))
        goto fail;
    /* A space the study has already, alone: nothing written, no event. */
    if (json_object_size(detail) > 0 &&
        (st = audit_record(db, access_token_of(by), "study.patch", NULL, id,
                           target, json_incref(detail), err)) != HPOD_OK)
        goto fail;
    if ((st = db_commit(db, err)) == HPOD_OK)
        goto out;
fail:
    db_rollback(db);
out:
    json_decref(detail);
    return st;
}

enum hpod_status
studies_get(struct db *db, long long id, struct study *out,
            struct hpod_err *err)
{
    return study_store_get(db, id, out, err);
}

enum hpod_status
studies_list(struct db *db, const struct study_filter *f, long long limit,
             long long offset, struct study **rows, size_t *n, long long *total,
             struct hpod_err *err)
{
    return study_store_list(db, f, limit, offset, rows, n, total, err);
}

enum hpod_status
studies_delete(struct db *db, long long id, const struct principal *by,
               struct hpod_err *err)
{
    struct study s = {0};
    char target[48];
    enum hpod_status st;

    snprintf(target, sizeof target, "study/%lld", id);
    if ((st = db_begin(db, err)) != HPOD_OK)
        return st;
    /* The event names what went: read under the lock, before the delete. */
    if ((st = study_store_lock(db, id, err)) != HPOD_OK ||
        (st = study_store_get_row(db, id, &s, err)) != HPOD_OK ||
        (st = audit_record(db, access_token_of(by), "study.delete", s.lab, id,
                           target, json_pack("{s:s}", "name", s.name), err)) !=
            HPOD_OK ||
        (st = study_store_delete(db, id, err)) != HPOD_OK ||
        (st = db_commit(db, err)) != HPOD_OK)
        db_rollback(db);
    study_clear(&s);
    return st;
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
        double v = constraints_value(d, c, vals);
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
 * constraints. The recommended best must satisfy P(feasible) >=
 * confidence; with several unreported constraints the joint probability
 * is what "feasible" means, so it must reach the strictest confidence
 * asked (which implies P_c >= confidence_c for each).
 */
static enum hpod_status
best_model_verdict(struct db *db, long long study_id, const struct study_def *d,
                   const struct trial *rows, struct best_scan *sc,
                   struct hpod_err *err)
{
    size_t np = d->space.n_params, nc = d->n_constraints, k = sc->n_cand;
    struct trial *all = NULL;
    size_t n_all = 0, n_obs = 0;
    double *obs_raw = NULL, *obs_c = NULL, *q_raw = NULL, *pc = NULL;
    unsigned char *missing = NULL, *parsed = NULL;
    struct hpod_err perr;
    enum hpod_status st;

    if ((st = trial_store_list(db, study_id, -1, -1, 0, &all, &n_all, NULL,
                               err)) != HPOD_OK)
        return st;
    trials_drop_excluded(all, &n_all); /* out of the model */
    obs_raw = xmalloc((n_all ? n_all : 1) * (np ? np : 1) * sizeof *obs_raw);
    obs_c = xmalloc((n_all ? n_all : 1) * nc * sizeof *obs_c);
    for (size_t i = 0; i < n_all; i++) {
        int any = 0;
        for (size_t c = 0; c < nc; c++) {
            obs_c[n_obs * nc + c] = constraints_value(d, c, &all[i].values);
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
            missing[j * nc + c] = isnan(constraints_value(d, c, &t->values));
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
        st = constraints_prob(d, c, obs_raw, obs_c, n_obs, q_raw, k, 0, pc);
        if (st == HPOD_ENUMERIC) {
            /* No GP could be fitted: the model vouches for nothing. */
            for (size_t j = 0; j < k; j++)
                pc[j] = 0;
            st = HPOD_OK;
        }
        if (st != HPOD_OK) {
            st = hpod_fail(err, HPOD_EINTERNAL, "",
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

/* Row i (value y) beats the best so far (index best, value best_v): larger, or
 * equal and earlier. */
static int
beats(size_t i, double y, size_t best, double best_v)
{
    return best == (size_t)-1 || y > best_v || (y == best_v && i < best);
}

/*
 * The observed-feasible best (every constraint reported and met) into
 * best and best_v, and sc->y, sc->may for every row.
 */
static void
best_observed(const struct study_def *d, const struct trial *rows, size_t n,
              struct best_scan *sc, size_t *best, double *best_v)
{
    for (size_t i = 0; i < n; i++) {
        const struct metric_set *vals = &rows[i].values;
        const double *v = metric_set_find(vals, d->obj_names[0]);
        sc->y[i] = NAN;
        if (!v)
            continue;
        sc->y[i] = *v * d->obj_sense[0];
        if (def_trial_feasible(d, vals)) {
            if (*best == (size_t)-1 || sc->y[i] > *best_v) {
                *best = i;
                *best_v = sc->y[i];
            }
        } else {
            sc->may[i] = best_needs_model(d, vals);
        }
    }
}

static void
best_scan_clear(struct best_scan *sc)
{
    free(sc->y);
    free(sc->may);
    free(sc->cand);
    free(sc->p);
    free(sc->ok);
}

/* studies_best: contract in studies.h. */
enum hpod_status
studies_best(struct db *db, long long id, struct studies_best *out,
             struct hpod_err *err)
{
    struct study s = {0};
    struct study_def d = {0};
    struct trial *rows = NULL;
    struct best_scan sc = {0};
    size_t n = 0, best = (size_t)-1;
    double best_v = 0, best_p = 1;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    if ((st = study_store_get(db, id, &s, err)) != HPOD_OK ||
        (st = def_from_text(s.definition, &d, err)) != HPOD_OK)
        goto out;
    if (d.n_objectives != 1) {
        st = hpod_fail(err, HPOD_EUNPROC, "",
                       "study has %zu objectives: use /pareto", d.n_objectives);
        goto out;
    }
    if ((st = trial_store_list(db, id, TRIAL_COMPLETED, -1, 0, &rows, &n, NULL,
                               err)) != HPOD_OK)
        goto out;
    trials_drop_excluded(rows, &n);
    sc.y = xmalloc((n ? n : 1) * sizeof *sc.y);
    sc.may = xcalloc(n ? n : 1, 1);
    best_observed(&d, rows, n, &sc, &best, &best_v);
    /* The trials the model would have to vouch for, if they beat it. */
    sc.cand = xmalloc((n ? n : 1) * sizeof *sc.cand);
    for (size_t i = 0; i < n; i++)
        if (sc.may[i] && beats(i, sc.y[i], best, best_v))
            sc.cand[sc.n_cand++] = i;
    if (sc.n_cand > 0) {
        sc.p = xmalloc(sc.n_cand * sizeof *sc.p);
        sc.ok = xcalloc(sc.n_cand, 1);
        if ((st = best_model_verdict(db, id, &d, rows, &sc, err)) != HPOD_OK)
            goto out;
        for (size_t j = 0; j < sc.n_cand; j++) {
            size_t i = sc.cand[j];
            if (sc.ok[j] && beats(i, sc.y[i], best, best_v)) {
                best = i;
                best_v = sc.y[i];
                best_p = sc.p[j];
            }
        }
    }
    if (best != (size_t)-1) {
        /* Move the row out: rows[best] is left empty for trials_free. */
        out->found = 1;
        out->trial = rows[best];
        memset(&rows[best], 0, sizeof rows[best]);
        out->p_feasible = best_p;
    }
out:
    best_scan_clear(&sc);
    trials_free(rows, n);
    def_clear(&d);
    study_clear(&s);
    return st;
}

void
studies_best_clear(struct studies_best *b)
{
    if (!b)
        return;
    trial_clear(&b->trial);
    memset(b, 0, sizeof *b);
}
