/*
 * study/explain.c - recording and answering why a trial was suggested;
 * see explain.h.
 */
#include "study/explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "store/decision_store.h"
#include "store/trial_store.h"
#include "study/studies.h"

int
explain_records(const struct study_def *d)
{
    if (d->algo.name == ALGO_ASHA || d->algo.name == ALGO_MULTISTAGE)
        return d->algo.base != ALGO_RANDOM;
    return d->algo.name != ALGO_RANDOM;
}

/* As history_uses_mobo (study/history.h, which this file cannot include:
 * history -> multifidelity -> explain). */
static int
uses_mobo(const struct study_def *d)
{
    return d->algo.name == ALGO_EHVI ||
           (d->n_constraints > 0 &&
            (d->algo.name == ALGO_GP || d->algo.name == ALGO_GRAPH));
}

static const char *
chooser_name(int c)
{
    static const char *const names[] = {"random", "initial_random",
                                        "fallback_random", "model", "greedy"};
    return c >= 0 && c <= SAMPLER_CHOSE_GREEDY ? names[c] : "random";
}

/* The sampler behind new configurations of d and its acquisition. */
static void
sampler_names(const struct study_def *d, const char **sampler, const char **acq)
{
    static const char *const gp_acq[] = {"ei", "pi", "ucb", "nei"};
    int base = d->algo.name == ALGO_ASHA || d->algo.name == ALGO_MULTISTAGE
                   ? d->algo.base
                   : (int)d->algo.name;
    int a = d->algo.acquisition;

    if (uses_mobo(d)) {
        *sampler = d->n_constraints > 0 ? "constrained" : "ehvi";
        *acq = d->n_constraints > 0 ? "ehvi_feasibility" : "ehvi";
        return;
    }
    *sampler = base == ALGO_GP       ? "gp"
               : base == ALGO_GRAPH  ? "graph"
               : base == ALGO_GREEDY ? "greedy"
                                     : "random";
    *acq = base == ALGO_GP      ? gp_acq[a >= 0 && a <= 3 ? a : 0]
           : base == ALGO_GRAPH ? (a == 1 ? "eif" : "ei")
                                : NULL;
}

void
explain_mobo(struct sampler_explain *ex, const struct study_def *d, size_t n_mo,
             size_t n_mo_complete, size_t n_pend, int by_mobo, size_t cand)
{
    size_t need = (size_t)(d->algo.init > 1 ? d->algo.init : 2);

    if (!by_mobo) {
        ex->chooser =
            n_mo_complete < need ? SAMPLER_CHOSE_INIT : SAMPLER_CHOSE_FALLBACK;
    } else {
        /* core/mobo filled the pick's acquisition and the runners-up. */
        ex->chooser = d->algo.name == ALGO_GREEDY ? SAMPLER_CHOSE_GREEDY
                                                  : SAMPLER_CHOSE_MODEL;
        ex->pick.cand = cand;
    }
    ex->n_obs = n_mo;
    ex->n_pend = n_pend;
}

/* A number, or null where the chooser does not define it. */
static json_t *
num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
point_json(const struct study_def *d, const struct sampler_explain_point *p,
           const double *raw)
{
    json_t *o =
        json_pack("{s:o, s:o, s:o}", "mean", num_or_null(p->mean), "sd",
                  num_or_null(p->sd), "acquisition", num_or_null(p->acq));
    if (p->cand != (size_t)-1)
        json_object_set_new(o, "candidate", json_integer((json_int_t)p->cand));
    if (raw)
        json_object_set_new(o, "params", params_to_json(d, raw));
    return o;
}

static json_t *
suggest_json(const struct study_def *d, const struct sampler_explain *e)
{
    const char *sampler, *acq, *units = NULL;
    int model = e->chooser == SAMPLER_CHOSE_MODEL;
    json_t *runners = json_array(), *o;
    size_t np = d->space.n_params;

    sampler_names(d, &sampler, &acq);
    if (model && e->arm == 1) { /* the hedge's graph-EI arm chose */
        sampler = "graph";
        acq = "ei";
    }
    if (model && !uses_mobo(d))
        units = strcmp(acq ? acq : "", "eif") == 0 ? "propagated top label"
                                                   : "normal scores";
    for (size_t k = 0; k < e->n_runners; k++)
        json_array_append_new(
            runners, point_json(d, &e->runner[k],
                                e->runner_raw ? e->runner_raw + k * np : NULL));
    o = json_pack("{s:s, s:s, s:o, s:o, s:I, s:I, s:o, s:o, s:o}", "chooser",
                  chooser_name(e->chooser), "sampler", sampler, "acquisition",
                  model && acq ? json_string(acq) : json_null(), "units",
                  units ? json_string(units) : json_null(), "n_observations",
                  (json_int_t)e->n_obs, "n_pending", (json_int_t)e->n_pend,
                  "incumbent", num_or_null(model ? e->incumbent : NAN),
                  "chosen", point_json(d, &e->pick, NULL), "runners_up",
                  runners);
    /* The compute budget (HPOD_SUGGEST_BUDGET_MS) ended the search. */
    if (o && e->budget_cut)
        json_object_set_new(o, "budget_cut", json_true());
    return o;
}

enum hpod_status
explain_decision(struct db *db, long long trial_id, const char *kind,
                 json_t *detail, struct hpod_err *err)
{
    char *text = detail ? hj_dump(detail, 0) : NULL;
    enum hpod_status st;

    json_decref(detail);
    if (!text)
        return hpod_fail(err, HPOD_ENOMEM, "", "could not build a decision");
    st = decision_store_add(db, trial_id, kind, text, err);
    free(text);
    return st;
}

char *
explain_suggest_text(const struct study_def *d, const struct sampler_explain *e)
{
    json_t *o = suggest_json(d, e);
    char *text = o ? hj_dump(o, 0) : NULL;

    json_decref(o);
    return text;
}

/* The suggest decision a trial without a recorded one has: from its
 * origin, or the random sampler's seed and stream. */
static json_t *
derived_suggest(const struct study_def *d, const struct trial *t, json_t *algo)
{
    const char *who = t->origin == ORIGIN_ENQUEUED ? "user"
                      : t->origin == ORIGIN_ADDED  ? "added"
                      : explain_records(d)         ? "unrecorded"
                                                   : "random";
    json_t *o = json_pack("{s:n, s:s, s:s, s:b, s:s}", "seq", "at",
                          t->created_at ? t->created_at : "", "kind", "suggest",
                          "recorded", 0, "chooser", who);
    if (strcmp(who, "random") == 0) {
        json_object_set(o, "seed", json_object_get(algo, "seed"));
        json_object_set_new(o, "stream", json_integer(t->seq));
    }
    return o;
}

/* The decisions array: the stored rows, preceded by the derived suggest
 * decision when none was recorded. */
static enum hpod_status
decisions_json(struct db *db, const struct study_def *d, const struct trial *t,
               json_t *algo, json_t *arr, struct hpod_err *err)
{
    struct decision *rows = NULL;
    size_t n = 0;
    int have_suggest = 0;
    enum hpod_status st;

    if ((st = decision_store_list(db, t->id, &rows, &n, err)) != HPOD_OK)
        goto out;
    for (size_t i = 0; i < n; i++)
        have_suggest |= strcmp(rows[i].kind, "suggest") == 0;
    if (!have_suggest)
        json_array_append_new(arr, derived_suggest(d, t, algo));
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_pack("{s:i, s:s, s:s, s:b}", "seq", rows[i].seq, "at",
                              rows[i].at ? rows[i].at : "", "kind",
                              rows[i].kind, "recorded", 1);
        json_t *detail = hj_parse(rows[i].detail);
        if (!json_is_object(detail)) {
            json_decref(detail);
            json_decref(o);
            st = hpod_fail(err, HPOD_EINTERNAL, "",
                           "a stored decision cannot be read");
            goto out;
        }
        json_object_update(o, detail);
        json_decref(detail);
        json_array_append_new(arr, o);
    }
out:
    decision_list_free(rows, n);
    return st;
}

enum hpod_status
explain_trial(struct db *db, long long trial_id, json_t **out,
              struct hpod_err *err)
{
    struct trial t = {0};
    struct study s = {0};
    struct study_def d = {0};
    json_t *def = NULL, *algo, *arr = json_array();
    enum hpod_status st;

    *out = NULL;
    if ((st = trial_store_get(db, trial_id, 0, &t, err)) != HPOD_OK ||
        (st = studies_get(db, t.study_id, &s, err)) != HPOD_OK ||
        (st = def_from_text(s.definition, &d, err)) != HPOD_OK)
        goto out;
    def = hj_parse(s.definition);
    algo = json_object_get(def, "algorithm");
    if (!json_is_object(algo)) {
        st = hpod_fail(err, HPOD_EINTERNAL, "",
                       "stored definition has no algorithm");
        goto out;
    }
    if ((st = decisions_json(db, &d, &t, algo, arr, err)) != HPOD_OK)
        goto out;
    *out = json_pack("{s:I, s:i, s:s, s:O, s:O}", "trial_id", (json_int_t)t.id,
                     "number", t.seq, "origin", trial_origin_name(t.origin),
                     "algorithm", algo, "decisions", arr);
out:
    json_decref(arr);
    json_decref(def);
    def_clear(&d);
    study_clear(&s);
    trial_clear(&t);
    return st;
}
