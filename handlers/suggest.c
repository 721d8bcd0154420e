/*
 * handlers/suggest.c - POST /v1/studies/{id}/suggest.
 *
 * The whole decision runs in one transaction holding the study row lock
 * (SELECT ... FOR UPDATE), so any number of hpod processes on one database
 * issue trials as one would: lapsed leases are recovered, the worker's live
 * trials are handed back first, then new ones are chosen by core/sampler
 * from the history and inserted. The unique index on (study, candidate)
 * backs the lock: a finite candidate can never be held twice.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/mobo.h"
#include "core/pareto.h"
#include "core/sampler.h"
#include "study/constraints.h"
#include "handlers/handlers.h"
#include "study/def.h"
#include "study/multifidelity.h"
#include "common/err.h"
#include "store/study_store.h"
#include "store/trial_store.h"

#define SUGGEST_MAX_COUNT 100
#define RETRY_AFTER_SECONDS 1
#define STATE_CACHE_SIZE 16

/*
 * Per-process cache, keyed by study id, of what never changes or only
 * grows: a finite study's candidates, parsed (they are immutable once the
 * study exists, and ids are never reused), and the sampler state (the graph
 * over the candidates and its factorization). An entry is taken out while a
 * request uses it and put back after, so two threads never share one. The
 * sampler's answer never depends on the cache: a cold process computes the
 * same choice (DESIGN.md §3).
 */
struct study_cache {
    long long study_id;
    double *cand_raw; /* n_cand × n_params, NULL until loaded */
    size_t n_cand;
    struct sampler_state *state;
};

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    struct study_cache *entry;
    unsigned long long used;
} cache[STATE_CACHE_SIZE];
static unsigned long long cache_clock;

static void
study_cache_destroy(struct study_cache *e)
{
    if (!e)
        return;
    free(e->cand_raw);
    sampler_state_destroy(e->state);
    free(e);
}

static struct study_cache *
cache_take(long long study_id)
{
    struct study_cache *e = NULL;
    pthread_mutex_lock(&cache_mu);
    for (size_t i = 0; i < STATE_CACHE_SIZE; i++)
        if (cache[i].entry && cache[i].entry->study_id == study_id) {
            e = cache[i].entry;
            cache[i].entry = NULL;
            break;
        }
    pthread_mutex_unlock(&cache_mu);
    if (!e) {
        e = xcalloc(1, sizeof *e);
        e->study_id = study_id;
        e->state = sampler_state_create();
    }
    return e;
}

static void
cache_put(struct study_cache *e)
{
    size_t victim = 0;
    struct study_cache *old;
    pthread_mutex_lock(&cache_mu);
    for (size_t i = 0; i < STATE_CACHE_SIZE; i++) {
        if (!cache[i].entry) {
            victim = i;
            break;
        }
        if (cache[i].used < cache[victim].used)
            victim = i;
    }
    old = cache[victim].entry;
    cache[victim].entry = e;
    cache[victim].used = ++cache_clock;
    pthread_mutex_unlock(&cache_mu);
    study_cache_destroy(old);
}

void
suggest_cache_clear(void)
{
    pthread_mutex_lock(&cache_mu);
    for (size_t i = 0; i < STATE_CACHE_SIZE; i++) {
        study_cache_destroy(cache[i].entry);
        cache[i].entry = NULL;
    }
    pthread_mutex_unlock(&cache_mu);
}

struct history {
    const double *cand_raw; /* borrowed from the cache entry */
    unsigned char *cand_used;
    size_t n_cand;
    double *obs_raw, *obs_y;
    size_t *obs_cand;
    size_t n_obs;
    double *pend_raw;
    size_t *pend_cand;
    size_t n_pend, cap_pend;
    /* Multi-objective and constrained studies (core/mobo): every trial
     * that reported any objective or constrained metric, with all m
     * objectives (oriented, larger is better) and the constrained metrics
     * (as "<= bound"), NaN where not reported: decoupled reports each
     * teach their own surrogate. */
    double *mo_raw, *mo_y, *mo_c;
    size_t *mo_cand;
    size_t n_mo, n_mo_complete;
};

static void
history_cleanup(struct history *h)
{
    free(h->cand_used);
    free(h->obs_raw);
    free(h->obs_y);
    free(h->obs_cand);
    free(h->pend_raw);
    free(h->pend_cand);
    free(h->mo_raw);
    free(h->mo_y);
    free(h->mo_c);
    free(h->mo_cand);
    memset(h, 0, sizeof *h);
}

static void
add_pending(struct history *h, size_t np, const double *raw, size_t cand)
{
    if (h->n_pend == h->cap_pend) {
        h->cap_pend = h->cap_pend ? 2 * h->cap_pend : 16;
        h->pend_raw = xrealloc(h->pend_raw, h->cap_pend * np * sizeof(double));
        h->pend_cand = xrealloc(h->pend_cand, h->cap_pend * sizeof(size_t));
    }
    memcpy(h->pend_raw + h->n_pend * np, raw, np * sizeof(double));
    h->pend_cand[h->n_pend++] = cand;
}

/* Multi-objective or constrained studies choose through core/mobo. */
static int
uses_mobo(const struct study_def *d)
{
    return d->algo.name == ALGO_EHVI ||
           (d->n_constraints > 0 &&
            (d->algo.name == ALGO_GP || d->algo.name == ALGO_GRAPH));
}

/* Adds one trial's reported metrics (NaN where missing) to h->mo_*. */
static void
add_mo_observation(struct history *h, const struct study_def *d,
                   const struct metric_set *vals, const double *raw,
                   size_t cand)
{
    size_t np = d->space.n_params, m = d->n_objectives;
    size_t nc = d->n_constraints, k = h->n_mo;
    int any = 0, complete = 1;
    for (size_t j = 0; j < m; j++) {
        const double *v = metric_set_find(vals, d->obj_names[j]);
        h->mo_y[k * m + j] = v ? *v * d->obj_sense[j] : NAN;
        any |= v != NULL;
        complete &= v != NULL;
    }
    for (size_t c = 0; c < nc; c++) {
        double x = constraint_value(d, c, vals);
        h->mo_c[k * (nc ? nc : 1) + c] = x;
        any |= !isnan(x);
    }
    if (!any)
        return;
    memcpy(h->mo_raw + k * np, raw, np * sizeof(double));
    h->mo_cand[k] = cand;
    h->n_mo++;
    h->n_mo_complete += complete;
}

/*
 * mobo_choose - the EHVI (or constrained) choice; HPOD_ENUMERIC when the
 * model cannot decide yet (too few observations), so the caller falls
 * back to the random choice.
 */
static enum hpod_status
mobo_choose(const struct study_def *d, const struct history *h, int seq,
            double *raw, size_t *cand)
{
    size_t m = d->n_objectives, nc = d->n_constraints;
    double ref[MODEL_MAX_OBJECTIVES], con_max[MODEL_MAX_CONSTRAINTS];
    unsigned char con_log[MODEL_MAX_CONSTRAINTS];
    int sense[MODEL_MAX_OBJECTIVES];
    enum hpod_status st;

    if (h->n_mo_complete < (size_t)(d->algo.init > 1 ? d->algo.init : 2))
        return HPOD_ENUMERIC;
    /* Reference point in the oriented space: the study's, or the worst
     * complete observation moved out by 10% of the range. */
    double *yc = xmalloc((h->n_mo + 1) * m * sizeof *yc);
    size_t k = 0;
    for (size_t i = 0; i < h->n_mo; i++) {
        size_t j;
        for (j = 0; j < m && !isnan(h->mo_y[i * m + j]); j++)
            ;
        if (j == m)
            memcpy(yc + k++ * m, h->mo_y + i * m, m * sizeof *yc);
    }
    for (size_t j = 0; j < m; j++)
        sense[j] = 1;
    pareto_reference(yc, k, m, sense, 0.1, ref);
    free(yc);
    json_t *given = json_object_get(d->def, "reference");
    for (size_t j = 0; j < m; j++) {
        json_t *v = json_object_get(given, d->obj_names[j]);
        if (json_is_number(v))
            ref[j] = json_number_value(v) * d->obj_sense[j];
    }
    /* Positive metrics under a "max" bound get a log GP (Beck et al.
     * 2016: multiplicative noise); study/constraints.h. */
    constraint_bounds(d, h->mo_c, h->n_mo, con_max, con_log);
    struct mobo_input mi = {
        .space = &d->space,
        .surrogate = d->algo.name == ALGO_EHVI    ? d->algo.surrogate
                     : d->algo.name == ALGO_GRAPH ? 1
                                                  : 0,
        .kernel = d->algo.kernel,
        .seed = d->algo.seed,
        .seq = seq,
        .cand_raw = h->cand_raw,
        .cand_used = h->cand_used,
        .n_cand = h->n_cand,
        .m = m,
        .ref = ref,
        .obs_raw = h->mo_raw,
        .obs_y = h->mo_y,
        .obs_cand = h->mo_cand,
        .n_obs = h->n_mo,
        .pend_raw = h->pend_raw,
        .pend_cand = h->pend_cand,
        .n_pend = h->n_pend,
        .n_con = nc,
        .obs_c = nc ? h->mo_c : NULL,
        .con_max = nc ? con_max : NULL,
        .con_log = nc ? con_log : NULL,
    };
    st = mobo_next(&mi, raw, cand);
    return st;
}

/* Parses a finite study's candidates into the cache entry (once). */
static enum hpod_status
load_candidates(struct req *rq, const struct study_def *d,
                struct study_cache *e)
{
    size_t np = d->space.n_params, n = 0;
    char **text = NULL;
    enum hpod_status st;

    if (e->cand_raw)
        return HPOD_OK;
    if ((st = study_store_candidates(rq->db, rq->id, &text, &n, &rq->err)) !=
        HPOD_OK)
        return st;
    double *raw = xmalloc((n ? n : 1) * np * sizeof(double));
    for (size_t i = 0; i < n && st == HPOD_OK; i++) {
        json_t *o = hj_parse(text[i]);
        if (params_from_json(d, o, raw + i * np, "candidate", &rq->err) !=
            HPOD_OK)
            st = hpod_fail(&rq->err, HPOD_EINTERNAL, "",
                           "stored candidate %zu is invalid", i);
        json_decref(o);
    }
    for (size_t i = 0; i < n; i++)
        free(text[i]);
    free(text);
    if (st != HPOD_OK) {
        free(raw);
        return st;
    }
    e->cand_raw = raw;
    e->n_cand = n;
    return HPOD_OK;
}

/*
 * Loads what the sampler needs: the candidates and which are taken
 * (finite studies), and for model-based samplers the completed trials
 * (configuration and objective, larger is better) and the live ones.
 */
static enum hpod_status
load_history(struct req *rq, const struct study_def *d, struct study_cache *e,
             const struct mf_work *w, struct history *h)
{
    size_t np = d->space.n_params;
    struct trial *rows = NULL;
    size_t n_rows = 0;
    double *raw = NULL;
    enum hpod_status st = HPOD_OK;
    int model = d->algo.name != ALGO_RANDOM;
    int mo = uses_mobo(d);
    size_t m = d->n_objectives, nc = d->n_constraints;

    if (e && (st = load_candidates(rq, d, e)) != HPOD_OK)
        return st;
    if (!e && !model)
        return HPOD_OK; /* random search on a continuous space */
    if ((st = trial_store_history(rq->db, rq->id, &rows, &n_rows, &rq->err)) !=
        HPOD_OK)
        return st;
    if (e) {
        h->cand_raw = e->cand_raw;
        h->n_cand = e->n_cand;
        h->cand_used = xcalloc(e->n_cand ? e->n_cand : 1, 1);
    }
    h->obs_raw = xmalloc((n_rows + 1) * np * sizeof(double));
    h->obs_y = xmalloc((n_rows + 1) * sizeof(double));
    h->obs_cand = xmalloc((n_rows + 1) * sizeof(size_t));
    if (mo) {
        h->mo_raw = xmalloc((n_rows + 1) * np * sizeof(double));
        h->mo_y = xmalloc((n_rows + 1) * m * sizeof(double));
        h->mo_c = xmalloc((n_rows + 1) * (nc ? nc : 1) * sizeof(double));
        h->mo_cand = xmalloc((n_rows + 1) * sizeof(size_t));
    }
    raw = xmalloc((np ? np : 1) * sizeof(double));
    for (size_t i = 0; i < n_rows; i++) {
        const struct trial *t = &rows[i];
        int live = t->state == TRIAL_PENDING || t->state == TRIAL_RUNNING;
        size_t cand = (size_t)-1;
        if (e && t->candidate >= 0 && (size_t)t->candidate < e->n_cand) {
            cand = (size_t)t->candidate;
            h->cand_used[cand] = 1;
        }
        /* Multistage: the evidence is each trial's value at the current
         * stage's fidelity; the stage's members still training to it are
         * pending. */
        double y_stage = NAN;
        if (w->multistage) {
            int pend = 0;
            if (mf_observation(w, t, &y_stage, &pend))
                live = 0;
            else if (pend)
                live = 1;
            else
                continue;
        }
        if (!model || (t->state != TRIAL_COMPLETED && !live && !w->multistage))
            continue;
        if (cand != (size_t)-1) {
            memcpy(raw, e->cand_raw + cand * np, np * sizeof(double));
        } else {
            json_t *p = hj_parse(t->params);
            enum hpod_status pst =
                params_from_json(d, p, raw, "params", &rq->err);
            json_decref(p);
            if (pst != HPOD_OK)
                continue; /* not a point of this space: not evidence */
        }
        if (mo)
            add_mo_observation(h, d, &t->values, raw, cand);
        if (live) {
            add_pending(h, np, raw, cand);
            continue;
        }
        const double *v = metric_set_find(&t->values, d->obj_names[0]);
        if (w->multistage ? !isnan(y_stage) : v != NULL) {
            double y = w->multistage ? y_stage : *v;
            memcpy(h->obs_raw + h->n_obs * np, raw, np * sizeof(double));
            h->obs_y[h->n_obs] = y * d->obj_sense[0];
            h->obs_cand[h->n_obs] = cand;
            h->n_obs++;
        }
    }
    free(raw);
    trials_free(rows, n_rows);
    return HPOD_OK;
}

static enum hpod_status
parse_body(struct req *rq, const char **worker, long long *count)
{
    const char *key;
    json_t *v;
    json_object_foreach(rq->body, key, v)
    {
        if (strcmp(key, "worker") && strcmp(key, "count"))
            return hpod_fail(&rq->err, HPOD_EINVAL, key,
                             "unknown field \"%.60s\"", key);
    }
    v = json_object_get(rq->body, "worker");
    *worker = "default";
    if (v && !json_is_null(v)) {
        if (!json_is_string(v))
            return hpod_fail(&rq->err, HPOD_EINVAL, "worker",
                             "worker must be a string");
        if (json_string_length(v) == 0 || json_string_length(v) > 128)
            return hpod_fail(&rq->err, HPOD_EUNPROC, "worker",
                             "worker must be 1 to 128 characters");
        *worker = json_string_value(v);
    }
    v = json_object_get(rq->body, "count");
    *count = 1;
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v))
            return hpod_fail(&rq->err, HPOD_EINVAL, "count",
                             "count must be an integer");
        *count = json_integer_value(v);
        if (*count < 1 || *count > SUGGEST_MAX_COUNT)
            return hpod_fail(&rq->err, HPOD_EUNPROC, "count",
                             "count must be between 1 and %d",
                             SUGGEST_MAX_COUNT);
    }
    return HPOD_OK;
}

enum hpod_status
handle_suggest(struct req *rq)
{
    const char *worker = NULL;
    long long count = 0, expired = 0;
    struct study s = {0};
    struct study_def d = {0};
    struct trial *held = NULL;
    size_t n_held = 0;
    struct history h = {0};
    json_t *out = json_array();
    double *raw = NULL;
    struct study_cache *entry = NULL;
    struct mf_work work = {0};
    int seq = 0, issued_now = 0;
    enum hpod_status st;

    /* 1-2. Parse and validate the body. */
    if ((st = parse_body(rq, &worker, &count)) != HPOD_OK)
        goto out;

    /* 3. Decide under the study lock. */
    if ((st = db_begin(rq->db, &rq->err)) != HPOD_OK ||
        (st = study_store_lock(rq->db, rq->id, &rq->err)) != HPOD_OK ||
        (st = trial_store_expire(rq->db, rq->id, &expired, &rq->err)) !=
            HPOD_OK ||
        (st = study_store_get(rq->db, rq->id, &s, &rq->err)) != HPOD_OK ||
        (st = study_def_from_text(s.definition, &d, &rq->err)) != HPOD_OK ||
        (st = trial_store_held(rq->db, rq->id, worker, s.lease_seconds, &held,
                               &n_held, &rq->err)) != HPOD_OK)
        goto out;
    if (expired)
        atomic_fetch_add(&rq->ctx->leases_expired_total, expired);
    for (size_t i = 0; i < n_held && (long long)i < count; i++)
        if ((st = hj_append_row(out, trial_to_json(&held[i]), &rq->err)) !=
            HPOD_OK)
            goto out;

    long long need = count - (long long)json_array_size(out);
    /* Multi-fidelity: resuming a paused trial (ASHA: at its next rung;
     * multistage: a seed of the stage) comes before starting a new
     * configuration, and costs no budget (same trial). */
    if ((st = mf_prepare(rq->db, &d, &s, &work, &rq->err)) != HPOD_OK)
        goto out;
    while (mf_enabled(&d) && need > 0) {
        struct trial pt = {0};
        int promoted = 0;
        if ((st = mf_promote(rq->db, &d, &s, &work, worker, &pt, &promoted,
                             &rq->err)) != HPOD_OK)
            goto out;
        if (!promoted)
            break;
        st = hj_append_row(out, trial_to_json(&pt), &rq->err);
        trial_cleanup(&pt);
        if (st != HPOD_OK)
            goto out;
        need--;
    }
    long long room = s.budget >= 0 ? s.budget - study_issued(&s) : need;
    if (need > room)
        need = room;
    if (work.max_new >= 0 && need > work.max_new)
        need = work.max_new; /* multistage: the stage is full */
    if (need > 0) {
        size_t np = d.space.n_params;
        /* The stored definition holds no candidates (they have their own
         * table): the study row says whether the space is finite. */
        if (s.n_candidates >= 0)
            entry = cache_take(rq->id);
        if ((st = load_history(rq, &d, entry, &work, &h)) != HPOD_OK ||
            (st = trial_store_next_seq(rq->db, rq->id, &seq, &rq->err)) !=
                HPOD_OK)
            goto out;
        raw = xmalloc(np * sizeof *raw);
        for (long long k = 0; k < need; k++) {
            struct sampler_input in = {
                .space = &d.space,
                .kind = (enum sampler_kind)(
                    d.algo.name == ALGO_ASHA || d.algo.name == ALGO_MULTISTAGE
                        ? d.algo.base
                        : (int)d.algo.name),
                .seed = d.algo.seed,
                .seq = seq,
                .init = d.algo.init,
                .kernel = d.algo.kernel,
                .acquisition = d.algo.acquisition,
                .cand_raw = h.cand_raw,
                .cand_used = h.cand_used,
                .n_cand = h.n_cand,
                .obs_raw = h.obs_raw,
                .obs_y = h.obs_y,
                .obs_cand = h.obs_cand,
                .n_obs = h.n_obs,
                .pend_raw = h.pend_raw,
                .pend_cand = h.pend_cand,
                .n_pend = h.n_pend,
                .state = entry ? entry->state : NULL,
            };
            size_t cand = (size_t)-1;
            struct trial t = {0};
            char *ptext;
            json_t *pj;
            st = HPOD_ENUMERIC;
            if (uses_mobo(&d))
                st = mobo_choose(&d, &h, seq, raw, &cand);
            if (st != HPOD_OK && st != HPOD_ENOTFOUND) {
                /* Single-objective samplers, or a model that cannot decide
                 * yet (too little data, a fit that failed): the random
                 * choice of the trial's own stream, never an error. */
                if (uses_mobo(&d))
                    in.kind = SAMPLER_RANDOM;
                st = sampler_next(&in, raw, &cand);
            }
            if (st == HPOD_ENOTFOUND) {
                st = HPOD_OK; /* finite study used up */
                break;
            }
            if (st != HPOD_OK) {
                st = hpod_fail(&rq->err, HPOD_EINTERNAL, "",
                               "sampler failed (status %d)", (int)st);
                goto out;
            }
            pj = params_to_json(&d, raw);
            ptext = hj_dump(pj, 0);
            json_decref(pj);
            st = trial_store_insert(rq->db, rq->id, seq, ptext,
                                    cand == (size_t)-1 ? -1 : (long long)cand,
                                    worker, s.lease_seconds, work.train_to, &t,
                                    &rq->err);
            free(ptext);
            if (st != HPOD_OK)
                goto out;
            st = hj_append_row(out, trial_to_json(&t), &rq->err);
            trial_cleanup(&t);
            if (st != HPOD_OK)
                goto out;
            if (cand != (size_t)-1)
                h.cand_used[cand] = 1;
            add_pending(&h, np, raw, cand);
            seq++;
            issued_now++;
        }
    }
    /* ASHA with nothing live, nothing promotable and no new configuration
     * to start: the paused trials will never resume, so they are pruned
     * and the study can finish. */
    if (d.algo.name == ALGO_ASHA && json_array_size(out) == 0 &&
        study_live(&s) == 0 && s.counts[TRIAL_PAUSED] > 0 &&
        ((s.budget >= 0 && study_issued(&s) >= s.budget) ||
         (s.n_candidates >= 0 && study_issued(&s) >= s.n_candidates)) &&
        (st = trial_store_prune_paused(rq->db, rq->id, &rq->err)) != HPOD_OK)
        goto out;
    if ((st = db_commit(rq->db, &rq->err)) != HPOD_OK)
        goto out;
    atomic_fetch_add(&rq->ctx->suggestions_total, issued_now);

    /* 4. Respond. done only when nothing will ever be issued again. */
    json_t *reply = json_object();
    int none = json_array_size(out) == 0;
    json_object_set(reply, "trials", out);
    if (none) {
        study_cleanup(&s);
        if ((st = study_store_get(rq->db, rq->id, &s, &rq->err)) != HPOD_OK) {
            json_decref(reply);
            goto out;
        }
        /* Multistage ends with its last stage, whatever budget is left. */
        int exhausted =
            study_done(&s) || (work.finished && study_live(&s) == 0 &&
                               s.counts[TRIAL_PAUSED] == 0);
        json_object_set_new(reply, "done", json_boolean(exhausted));
        if (!exhausted)
            json_object_set_new(reply, "retry_after",
                                json_integer(RETRY_AFTER_SECONDS));
    } else {
        json_object_set_new(reply, "done", json_false());
    }
    st = reply_json(rq, 200, reply);
out:
    if (st != HPOD_OK)
        db_rollback(rq->db);
    if (entry)
        cache_put(entry);
    json_decref(out);
    free(raw);
    history_cleanup(&h);
    mf_work_cleanup(&work);
    trials_free(held, n_held);
    study_def_cleanup(&d);
    study_cleanup(&s);
    return st;
}
