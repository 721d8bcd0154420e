/*
 * study/suggest.c - what a worker trains next; contract in
 * study/suggest.h.
 */
#include "study/suggest.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "core/mobo.h"
#include "core/pareto.h"
#include "core/sampler.h"
#include "store/gp_model_store.h"
#include "store/history_store.h"
#include "store/trial_batch_store.h"
#include "store/warm_store.h"
#include "study/warmstart.h"
#include "store/measure_store.h"
#include "store/study_store.h"
#include "store/trial_store.h"
#include "study/constraints.h"
#include "study/def.h"
#include "study/deadline.h"
#include "study/explain.h"
#include "study/histcache.h"
#include "study/measure.h"
#include "study/history.h"
#include "study/multifidelity.h"
#include "study/pareto.h"

#define STATE_CACHE_SIZE 16

/*
 * Per-process cache, keyed by study id, of what never changes or only
 * grows: a finite study's candidates, parsed (they are immutable once the
 * study exists, and ids are never reused), the sampler state (the graph
 * over the candidates and its factorization) and the multi-objective
 * state (core/mobo.h: each objective's fit, factor and predictions, and
 * the graph, each checked against the rows it is asked about). An entry is
 * taken out while a request uses it and put back after, so two threads never
 * share one. The sampler's answer never depends on the cache: a cold process
 * computes the same choice: with a seed, the same history gives the same
 * configurations.
 */
struct study_cache {
    long long study_id;
    double *cand_raw; /* n_cand × n_params, NULL until loaded */
    size_t n_cand;
    struct sampler_state *state;
    struct mobo_state *mstate; /* NULL until a multi-objective choice */
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
    sampler_state_free(e->state);
    mobo_state_free(e->mstate);
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
    hcache_clear();
}

/*
 * mobo_choose - the EHVI (or constrained) choice; HPOD_ENUMERIC when the
 * model cannot decide yet (too few observations), so the caller falls
 * back to the random choice.
 */
static enum hpod_status
mobo_choose(const struct study_def *d, const struct history *h,
            struct study_cache *entry, int seq, double *raw, size_t *cand,
            struct sampler_explain *ex, struct compute_budget *budget)
{
    size_t m = d->n_objectives, nc = d->n_constraints;
    double ref[MODEL_MAX_OBJECTIVES], con_max[MODEL_MAX_CONSTRAINTS];
    unsigned char con_log[MODEL_MAX_CONSTRAINTS];
    enum hpod_status st;

    if (h->n_mo_complete < (size_t)(d->algo.init > 1 ? d->algo.init : 2))
        return HPOD_ENUMERIC;
    /* Reference point in the oriented space: the study's, or the worst
     * complete observation moved out by 10% of the range. */
    double *yc = xmalloc((h->n_mo + 1) * m * sizeof *yc);
    size_t k = pareto_complete_rows(h->mo_y, h->n_mo, m, yc);
    study_pareto_reference(d, yc, k, 1, ref);
    free(yc);
    /* Positive metrics under a "max" bound get a log GP (Beck et al.
     * 2016: multiplicative noise); study/constraints.h. */
    constraint_bounds(d, h->mo_c, h->n_mo, con_max, con_log);
    struct mobo_input mi = {
        .space = &d->space,
        .surrogate = d->algo.name == ALGO_EHVI     ? d->algo.surrogate
                     : d->algo.name == ALGO_GRAPH  ? 1
                     : d->algo.name == ALGO_GREEDY ? MOBO_SURROGATE_GREEDY
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
        .log_objectives = d->algo.name == ALGO_EHVI && d->algo.ehvi_log,
        .trust_k = d->algo.name == ALGO_EHVI ? (size_t)d->algo.ehvi_trust : 0,
        .front_ref = d->algo.name == ALGO_EHVI ? d->algo.ehvi_front_ref : 0.0,
        .gp_blend = d->algo.name == ALGO_EHVI ? d->algo.ehvi_gp_blend : 0,
        .trust_shape = d->algo.name == ALGO_EHVI ? d->algo.ehvi_trust_shape : 0,
        .explain = ex,
        .budget = budget,
    };
    if (entry && !entry->mstate)
        entry->mstate = mobo_state_create();
    mi.state = entry ? entry->mstate : NULL;
    st = mobo_next(&mi, raw, cand);
    return st;
}

/* One study_suggest call: its inputs, what it read, and its answer. */
struct suggest_call {
    struct db *db;
    long long id;
    const char *worker;
    long long count;
    struct hpod_err *err;
    struct study s;
    struct study_def d;
    struct mf_work work;
    struct suggest_answer *out;
    int next_seq; /* the study's next issue number */
    /* The next issue number as study_store_get_issue read it (its n_all:
     * pending + waiting there), or -1 when the full counts were read
     * instead (multi-fidelity): then a query asks for it. */
    long long issue_seq;
    /* What suggest_new read, kept current as it inserts, for the next
     * call of a group (it holds the lock, so nothing else changes it). */
    struct study_cache *entry;
    struct hcache *hc; /* the history cache entry (study/histcache.c) */
    int hc_fresh;      /* hc refreshed with the lease expiry (suggest_expire) */
    struct history h;
    int h_loaded;
    struct sampler_gp_model gpm; /* the GP's kept model (GP studies) */
    double *prior; /* warm_start: the source's prior per candidate */
    size_t n_prior;
    /* A batching group (suggest_batching): every worker's held trials,
     * read at once, and the new trials, inserted at once before the
     * commit, each into its reserved answer slot. */
    int batching;
    struct trial *held;
    size_t n_held;
    struct trial_new *ins;
    struct batch_slot *slot;
    size_t n_ins, cap_ins;
};

/* Where a batched new trial goes: answer out, position i. */
struct batch_slot {
    struct suggest_answer *out;
    size_t i;
    char *ptext; /* the params text ins[] points into (owned) */
};

/*
 * Appends t to the answer (moved: t is zeroed). A trial whose stored
 * params cannot be read fails the call before anything is committed.
 */
static enum hpod_status
answer_add(struct suggest_call *c, struct trial *t)
{
    json_t *p = hj_parse(t->params);
    int ok = json_is_object(p);
    json_decref(p);
    if (!ok)
        return hpod_fail(c->err, HPOD_EINTERNAL, "",
                         "a stored row cannot be read");
    if (measure_decoupled(&c->d)) {
        /* What the trial measures now, as stored (no row: everything). */
        char *m = NULL;
        enum hpod_status st = measure_store_get(c->db, t->id, &m, c->err);
        if (st != HPOD_OK)
            return st;
        if (!c->out->measures)
            c->out->measures =
                xcalloc((size_t)c->count, sizeof *c->out->measures);
        c->out->measures[c->out->n] = m ? m : measure_all(&c->d);
    }
    c->out->trials[c->out->n++] = *t;
    memset(t, 0, sizeof *t);
    return HPOD_OK;
}

/*
 * Recovers lapsed leases. When the study's history is read through the
 * history cache (a finite space or a model sampler; no multi-fidelity,
 * whose mf_work is not read yet), the cache's refresh runs in the same
 * statement: one round trip under the study lock instead of two, for
 * every group (a finite random study's groups held the lock about 0.6 ms
 * longer than an open one's for that read; docs/suggest-p99.md).
 */
static enum hpod_status
suggest_expire(struct suggest_call *c, long long *expired)
{
    char xmin[HISTORY_XID_MAX];
    struct trial *delta = NULL;
    size_t nd = 0;
    int with_values = hcache_with_values(&c->d, &c->work);
    enum hpod_status st;

    if (mf_enabled(&c->d) || !hcache_enabled() || !c->s.definition ||
        (c->s.n_candidates < 0 && c->d.algo.name == ALGO_RANDOM))
        return trial_store_expire(c->db, c->id, expired, c->err);
    c->hc = hcache_take(c->id);
    const char *since =
        hcache_since(c->hc, c->id, c->s.definition, with_values);
    if ((st = history_store_expire_changes(c->db, c->id, since, with_values,
                                           xmin, expired, &delta, &nd,
                                           c->err)) != HPOD_OK)
        return st;
    hcache_apply(c->hc, delta, nd, &c->d, xmin);
    free(delta);
    c->hc_fresh = 1;
    return HPOD_OK;
}

/* Locks the study, reads it, recovers lapsed leases. */
static enum hpod_status
suggest_begin(struct suggest_call *c)
{
    long long expired = 0;
    enum hpod_status st;

    if ((st = db_begin(c->db, c->err)) != HPOD_OK ||
        (st = study_store_lock(c->db, c->id, c->err)) != HPOD_OK)
        return st;
    /* What issuing reads, from indexes; the multi-fidelity rules read the
     * full counts, a scan of the study's trials. suggest_done reads the
     * full counts again after the commit. Read before the lease expiry
     * (which needs the definition): the expiry changes none of it but
     * n_expired, added below (n_all is max(seq) + 1, n_waiting counts
     * waiting trials, which never expire). */
    if ((st = study_store_get_issue(c->db, c->id, &c->s, c->err)) != HPOD_OK ||
        (st = study_def_from_text(c->s.definition, &c->d, c->err)) != HPOD_OK ||
        (st = suggest_expire(c, &expired)) != HPOD_OK)
        return st;
    c->out->n_expired = expired;
    c->s.n_expired += expired;
    c->issue_seq = c->s.counts[TRIAL_PENDING] + c->s.counts[TRIAL_WAITING];
    if (mf_enabled(&c->d)) {
        c->issue_seq = -1;
        study_cleanup(&c->s);
        if ((st = study_store_get(c->db, c->id, &c->s, c->err)) != HPOD_OK)
            return st;
    }
    return HPOD_OK;
}

/* Hands the worker back the trials it holds. */
static enum hpod_status
suggest_held(struct suggest_call *c)
{
    struct trial *held = NULL;
    size_t n_held = 0;
    long long got = 0;
    enum hpod_status st = HPOD_OK;

    if (c->batching) {
        /* Read for the whole group; workers are distinct in a batch. */
        for (size_t i = 0; i < c->n_held && got < c->count && st == HPOD_OK;
             i++)
            if (c->held[i].worker && strcmp(c->held[i].worker, c->worker) == 0)
                st = answer_add(c, &c->held[i]), got++;
        return st;
    }
    if ((st = trial_store_held(c->db, c->id, c->worker, c->s.lease_seconds,
                               &held, &n_held, c->err)) != HPOD_OK)
        goto out;
    for (size_t i = 0; i < n_held && (long long)i < c->count; i++)
        if ((st = answer_add(c, &held[i])) != HPOD_OK)
            goto out;
out:
    trials_free(held, n_held);
    return st;
}

/*
 * 1 when the study issues trials: a paused or finished study (its state,
 * set by users) only hands a worker back the trials it holds, so that no
 * work is lost; reports on them keep working.
 */
static int
suggest_open(const struct suggest_call *c)
{
    return !c->s.state || strcmp(c->s.state, "active") == 0;
}

/*
 * Multi-fidelity: resuming a paused trial (ASHA: at its next rung;
 * multistage: a seed of the stage) comes before starting a new
 * configuration, and costs no budget (same trial).
 */
static enum hpod_status
suggest_resume(struct suggest_call *c)
{
    enum hpod_status st;

    if (!suggest_open(c))
        return HPOD_OK;
    if ((st = mf_prepare(c->db, &c->d, &c->s, &c->work, c->err)) != HPOD_OK)
        return st;
    while (mf_enabled(&c->d) && (long long)c->out->n < c->count) {
        struct trial pt = {0};
        int promoted = 0;
        if ((st = mf_promote(c->db, &c->d, &c->s, &c->work, c->worker, &pt,
                             &promoted, c->err)) != HPOD_OK)
            return st;
        if (!promoted)
            break;
        st = answer_add(c, &pt);
        trial_cleanup(&pt);
        if (st != HPOD_OK)
            return st;
    }
    return HPOD_OK;
}

/*
 * Configurations users enqueued come before any new choice, oldest number
 * first: they already count in the budget (counted when enqueued), so
 * claiming one changes neither the budget nor the candidates. ASHA: a
 * claimed trial has no steps, so it starts at rung 0 like a new one.
 */
static enum hpod_status
suggest_claim(struct suggest_call *c)
{
    struct trial *got = NULL;
    size_t n_got = 0;
    long long need = c->count - (long long)c->out->n;
    enum hpod_status st;

    if (need <= 0 || c->s.counts[TRIAL_WAITING] == 0 || !suggest_open(c))
        return HPOD_OK;
    if ((st = trial_store_claim_waiting(c->db, c->id, c->worker,
                                        c->s.lease_seconds, need, &got, &n_got,
                                        c->err)) != HPOD_OK)
        goto out;
    for (size_t i = 0; i < n_got; i++) {
        if ((st = answer_add(c, &got[i])) != HPOD_OK)
            goto out;
        c->out->n_new++;
    }
    /* The next call of a group reads the counts as now written. */
    c->s.counts[TRIAL_WAITING] -= (long long)n_got;
    c->s.counts[TRIAL_PENDING] += (long long)n_got;
out:
    trials_free(got, n_got);
    return st;
}

/* New configurations this call may start: count, budget and stage. */
static long long
suggest_room(const struct suggest_call *c)
{
    long long need = suggest_open(c) ? c->count - (long long)c->out->n : 0;
    long long room =
        c->s.budget >= 0 ? c->s.budget - study_issued(&c->s) : need;
    if (need > room)
        need = room;
    if (c->work.max_new >= 0 && need > c->work.max_new)
        need = c->work.max_new; /* multistage: the stage is full */
    return need;
}

/*
 * One new configuration (raw, its candidate or (size_t)-1) for sequence
 * number seq. HPOD_ENOTFOUND when a finite study is used up.
 */
static enum sampler_kind
sampler_of(const struct study_def *d)
{
    return (enum sampler_kind)(d->algo.name == ALGO_ASHA ||
                                       d->algo.name == ALGO_MULTISTAGE
                                   ? d->algo.base
                                   : (int)d->algo.name);
}

static enum hpod_status
choose_one(const struct study_def *d, const struct history *h,
           struct study_cache *entry, struct sampler_gp_model *gpm, int seq,
           double *raw, size_t *cand, struct sampler_explain *ex,
           const double *prior)
{
    struct deadline dl; /* the choice's compute budget (study/deadline.h) */
    struct compute_budget budget;
    deadline_start(&dl, &budget);
    struct sampler_input in = {
        .space = &d->space,
        .kind = sampler_of(d),
        .seed = d->algo.seed,
        .seq = seq,
        .init = d->algo.init,
        .kernel = d->algo.kernel,
        .acquisition = d->algo.acquisition,
        .ls_min = d->algo.name == ALGO_GP ? d->algo.ls_min : 0.0,
        .trust_div = d->algo.name == ALGO_GP ? (int)d->algo.gp_trust : 0,
        .ls_prior = d->algo.name == ALGO_GP ? d->algo.ls_prior : 0.0,
        .variant = d->algo.name == ALGO_GP && d->algo.gp_hedge
                       ? SAMPLER_V_HEDGE |
                             (d->algo.gp_hedge_judge ? SAMPLER_V_HEDGEOBS : 0u)
                       : 0u,
        .cand_raw = h->cand_raw,
        .cand_used = h->cand_used,
        .n_cand = h->n_cand,
        .obs_raw = h->obs_raw,
        .obs_y = h->obs_y,
        .obs_cand = h->obs_cand,
        .n_obs = h->n_obs,
        .pend_raw = h->pend_raw,
        .pend_cand = h->pend_cand,
        .n_pend = h->n_pend,
        .state = entry ? entry->state : NULL,
        .gp_model = gpm,
        .explain = ex,
        .prior_cand = prior,
        .prior_rule = WARM_RULE,
        .budget = &budget,
    };
    enum hpod_status st = HPOD_ENUMERIC;

    *cand = (size_t)-1;
    if (history_uses_mobo(d))
        st = mobo_choose(d, h, entry, seq, raw, cand, ex, &budget);
    int by_mobo = st == HPOD_OK;
    if (st != HPOD_OK && st != HPOD_ENOTFOUND) {
        /* Single-objective samplers, or a model that cannot decide yet
         * (too little data, a fit that failed): the random choice of the
         * trial's own stream, never an error. */
        if (history_uses_mobo(d))
            in.kind = SAMPLER_RANDOM;
        st = sampler_next(&in, raw, cand);
    }
    if (ex && history_uses_mobo(d) && st == HPOD_OK)
        study_explain_mobo(ex, d, h->n_mo, h->n_mo_complete, h->n_pend, by_mobo,
                           *cand);
    return st;
}

/*
 * What choosing needs, read once per transaction: the candidates (cached
 * per process), the history and the next issue number. The lock is held
 * and only suggest_new inserts trials, so what it read stays right for
 * the next call of a group as suggest_new keeps it current.
 */
static enum hpod_status
suggest_read(struct suggest_call *c)
{
    const struct study_def *d = &c->d;
    struct study_cache *e;
    enum hpod_status st;

    /* The stored definition holds no candidates (they have their own
     * table): the study row says whether the space is finite. */
    if (c->s.n_candidates >= 0) {
        c->entry = e = cache_take(c->id);
        if (!e->cand_raw &&
            (st = history_candidates(c->db, c->id, d, &e->cand_raw, &e->n_cand,
                                     c->err)) != HPOD_OK)
            return st;
    }
    e = c->entry;
    if (c->hc_fresh)
        hcache_build(c->hc, d, e ? e->cand_raw : NULL, e ? e->n_cand : 0,
                     e != NULL, &c->work, &c->h);
    else if ((c->hc = hcache_take(c->id)),
             (st = hcache_history(c->hc, c->db, c->id, c->s.definition, d,
                                  e ? e->cand_raw : NULL, e ? e->n_cand : 0,
                                  e != NULL, &c->work, &c->h, c->err)) !=
                 HPOD_OK)
        return st;
    /* Claims move trials from waiting to pending: the sum read at the
     * start is still max(seq) + 1 (nothing else inserts under the lock). */
    if (c->issue_seq >= 0)
        c->next_seq = (int)c->issue_seq;
    else if ((st = trial_store_next_seq(c->db, c->id, &c->next_seq, c->err)) !=
             HPOD_OK)
        return st;
    /* The GP's kept hyperparameters: the study's, not this process's. */
    if (sampler_of(d) == SAMPLER_GP && !history_uses_mobo(d) &&
        (st = gp_model_store_get(c->db, c->id, &c->gpm, c->err)) != HPOD_OK)
        return st;
    /* warm_start: the prior stored with the study (migration 0013). */
    if (d->warm_study || d->warm_benchmark) {
        free(c->prior);
        if ((st = warm_store_get(c->db, c->id, &c->prior, &c->n_prior,
                                 c->err)) != HPOD_OK)
            return st;
        if (c->n_prior != c->h.n_cand) {
            free(c->prior);
            c->prior = NULL;
        }
    }
    c->h_loaded = 1;
    return HPOD_OK;
}

/* Reserves the next answer slot of this call for a new trial (ptext is
 * taken), inserted by batch_flush. */
static void
batch_add(struct suggest_call *c, int seq, char *ptext, size_t cand)
{
    if (c->n_ins == c->cap_ins) {
        c->cap_ins = c->cap_ins ? 2 * c->cap_ins : 32;
        c->ins = xrealloc(c->ins, c->cap_ins * sizeof *c->ins);
        c->slot = xrealloc(c->slot, c->cap_ins * sizeof *c->slot);
    }
    c->ins[c->n_ins] = (struct trial_new){
        .seq = seq,
        .params = ptext,
        .candidate = cand == (size_t)-1 ? -1 : (long long)cand,
        .worker = c->worker};
    c->slot[c->n_ins] =
        (struct batch_slot){.out = c->out, .i = c->out->n++, .ptext = ptext};
    c->n_ins++;
}

/* Inserts the group's new trials (one statement) into their slots. */
static enum hpod_status
batch_flush(struct suggest_call *c)
{
    struct trial *t = NULL;
    size_t n = 0;
    enum hpod_status st = HPOD_OK;

    if (c->n_ins == 0)
        return HPOD_OK;
    if ((st = trial_batch_insert(c->db, c->id, c->ins, c->n_ins,
                                 c->s.lease_seconds, c->work.train_to, &t, &n,
                                 c->err)) != HPOD_OK)
        return st;
    /* Both in seq order: batch_add takes increasing numbers. */
    for (size_t i = 0; i < n && st == HPOD_OK; i++) {
        struct suggest_answer *out = c->slot[i].out;
        size_t keep = out->n;
        if (t[i].seq != c->ins[i].seq) {
            st = hpod_fail(c->err, HPOD_EINTERNAL, "",
                           "a batched insert came back out of order");
            break;
        }
        c->out = out;
        out->n = c->slot[i].i; /* answer_add fills the reserved slot */
        st = answer_add(c, &t[i]);
        out->n = keep;
    }
    trials_free(t, n);
    return st;
}

static void
batch_cleanup(struct suggest_call *c)
{
    for (size_t i = 0; i < c->n_ins; i++)
        free(c->slot[i].ptext);
    free(c->ins);
    free(c->slot);
    trials_free(c->held, c->n_held);
}

/*
 * 1 when a group's held trials are read and its new trials inserted in
 * one statement each: no multi-fidelity (its steps read what a call
 * before wrote), no recorded explanation and no decoupled constraint
 * (each needs its trial's id as it is inserted), and distinct workers (a
 * worker's second call is answered its first call's new trial, as held, which
 * the batched read would not see).
 */
static int
suggest_batching(const struct suggest_call *c, const char *const *workers,
                 size_t k)
{
    if (mf_enabled(&c->d) || study_explain_records(&c->d) ||
        measure_decoupled(&c->d))
        return 0;
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(workers[i], workers[j]) == 0)
                return 0;
    return 1;
}

/*
 * A decoupled study's new trial (id, issue number seq, at raw): whether
 * it probes its decoupled constraints or trains (study/measure.h), stored
 * in the transaction of its insert.
 */
static enum hpod_status
suggest_measure(struct suggest_call *c, long long id, int seq,
                const double *raw)
{
    char *m = NULL;
    enum hpod_status st = measure_choose(&c->d, &c->h, seq, raw, &m);
    if (st != HPOD_OK)
        return hpod_fail(c->err, HPOD_EINTERNAL, "",
                         "constraint model failed (status %d)", (int)st);
    st = measure_store_put(c->db, id, m, c->err);
    free(m);
    return st;
}

/* Chooses and inserts up to need new trials. */
static enum hpod_status
suggest_new(struct suggest_call *c, long long need)
{
    const struct study_def *d = &c->d;
    size_t np = d->space.n_params;
    struct history *h = &c->h;
    double *raw = NULL;
    int seq = 0;
    struct sampler_explain ex = {0};
    enum hpod_status st = HPOD_OK;

    if (!c->h_loaded && (st = suggest_read(c)) != HPOD_OK)
        return st;
    seq = c->next_seq;
    raw = xmalloc(np * sizeof *raw);
    for (long long k = 0; k < need; k++) {
        size_t cand;
        struct trial t = {0};
        st = choose_one(d, h, c->entry, &c->gpm, seq, raw, &cand,
                        study_explain_records(d) ? &ex : NULL, c->prior);
        if (st == HPOD_ENOTFOUND) {
            st = HPOD_OK; /* finite study used up */
            break;
        }
        if (st == HPOD_OK && c->gpm.changed) {
            /* A refit: stored in this transaction, under the lock. */
            c->gpm.changed = 0;
            st = gp_model_store_put(c->db, c->id, &c->gpm, c->err);
            if (st != HPOD_OK)
                goto out;
        }
        if (st != HPOD_OK) {
            st = hpod_fail(c->err, HPOD_EINTERNAL, "",
                           "sampler failed (status %d)", (int)st);
            goto out;
        }
        json_t *pj = params_to_json(d, raw);
        char *ptext = hj_dump(pj, 0);
        json_decref(pj);
        if (c->batching) {
            batch_add(c, seq, ptext, cand);
            goto chosen;
        }
        /* The trial and its recorded explanation: one statement. */
        char *dtext = study_explain_records(d)
                          ? study_explain_suggest_text(d, &ex)
                          : NULL;
        if (study_explain_records(d) && !dtext)
            st = hpod_fail(c->err, HPOD_ENOMEM, "",
                           "could not build a decision");
        else
            st = trial_store_insert_decided(
                c->db, c->id, seq, ptext,
                cand == (size_t)-1 ? -1 : (long long)cand, c->worker,
                c->s.lease_seconds, c->work.train_to, dtext, &t, c->err);
        free(dtext);
        free(ptext);
        if (st == HPOD_OK && measure_decoupled(d))
            st = suggest_measure(c, t.id, seq, raw);
        if (st == HPOD_OK)
            st = answer_add(c, &t);
        trial_cleanup(&t);
        if (st != HPOD_OK)
            goto out;
    chosen:
        if (cand != (size_t)-1)
            h->cand_used[cand] = 1;
        history_add_pending(h, np, raw, cand);
        c->next_seq = ++seq;
        c->out->n_new++;
        c->s.counts[TRIAL_PENDING]++;
    }
out:
    sampler_explain_clear(&ex);
    free(raw);
    return st;
}

/*
 * After the commit: done only when nothing will ever be issued again
 * (a fresh read of the study). Multistage ends with its last stage,
 * whatever budget is left.
 */
static enum hpod_status
suggest_done(struct suggest_call *c)
{
    enum hpod_status st;

    c->out->done = 0;
    if (c->out->n > 0)
        return HPOD_OK;
    study_cleanup(&c->s);
    if ((st = study_store_get(c->db, c->id, &c->s, c->err)) != HPOD_OK)
        return st;
    /* finished: done for good (until reopened); paused: ask again. */
    if (c->s.state && strcmp(c->s.state, "active") != 0) {
        c->out->done = strcmp(c->s.state, "finished") == 0;
        return HPOD_OK;
    }
    c->out->done =
        study_done(&c->s) || (c->work.finished && study_live(&c->s) == 0 &&
                              c->s.counts[TRIAL_PAUSED] == 0);
    return HPOD_OK;
}

/*
 * Per-member steps of a suggest transaction, after suggest_begin: the
 * worker's held trials, resumed and enqueued ones, then new ones.
 * first: the first member of the transaction (multi-fidelity work is
 * prepared once).
 */
static enum hpod_status
suggest_member(struct suggest_call *c, int first)
{
    long long need;
    enum hpod_status st;

    if ((st = suggest_held(c)) != HPOD_OK ||
        (first && (st = suggest_resume(c)) != HPOD_OK) ||
        (st = suggest_claim(c)) != HPOD_OK)
        return st;
    need = suggest_room(c);
    if (need > 0 && (st = suggest_new(c, need)) != HPOD_OK)
        return st;
    /* ASHA with nothing left to resume or start: prune the paused. */
    if (suggest_open(c) && mf_prune_paused(&c->d, &c->s, c->out->n) &&
        (st = trial_store_prune_paused(c->db, c->id, c->err)) != HPOD_OK)
        return st;
    return HPOD_OK;
}

/* study/suggest_group.h */
int
suggest_run(struct db *db, long long id, struct member **m, size_t k)
{
    struct suggest_call c = {.db = db, .id = id, .out = m[0]->out};
    const char *workers[GROUP_MAX];
    size_t i = 0;
    int committed = 0;
    enum hpod_status st;

    c.err = m[0]->err;
    if ((st = suggest_begin(&c)) != HPOD_OK)
        goto out;
    /* Multi-fidelity decisions read state a call's predecessor changes
     * (the ASHA ladder, the stage): one call per transaction. */
    if (mf_enabled(&c.d) && k > 1) {
        st = HPOD_ECONFLICT;
        goto out;
    }
    /* One round trip each for the group's held and new trials, so the
     * study lock is held for a few statements, not two per call. */
    for (i = 0; i < k; i++)
        workers[i] = m[i]->worker;
    if ((c.batching = suggest_batching(&c, workers, k))) {
        if ((st = trial_batch_held(db, id, workers, k, c.s.lease_seconds,
                                   &c.held, &c.n_held, c.err)) != HPOD_OK)
            goto out;
    }
    for (i = 0; i < k; i++) {
        c.worker = m[i]->worker;
        c.count = m[i]->count;
        c.out = m[i]->out;
        c.err = m[i]->err;
        if ((st = suggest_member(&c, i == 0)) != HPOD_OK)
            goto out;
    }
    if ((st = batch_flush(&c)) != HPOD_OK ||
        (st = db_commit(db, c.err)) != HPOD_OK)
        goto out;
    committed = 1;
    for (i = 0; i < k; i++) {
        c.out = m[i]->out;
        c.err = m[i]->err;
        m[i]->st = suggest_done(&c);
    }
out:
    if (!committed) {
        db_rollback(db);
        for (i = 0; i < k; i++) {
            m[i]->st = st;
            m[i]->out->n_new = 0;
        }
    }
    batch_cleanup(&c);
    history_cleanup(&c.h);
    sampler_gp_model_clear(&c.gpm);
    free(c.prior);
    /* Not committed: what it read may hold this transaction's undone
     * writes (study/histcache.c, point 4). */
    hcache_put(c.hc, committed);
    if (c.entry)
        cache_put(c.entry);
    mf_work_cleanup(&c.work);
    study_def_cleanup(&c.d);
    study_cleanup(&c.s);
    return committed;
}

void
suggest_answer_cleanup(struct suggest_answer *a)
{
    if (!a)
        return;
    for (size_t i = 0; a->measures && i < a->n; i++)
        free(a->measures[i]);
    free(a->measures);
    trials_free(a->trials, a->n);
    memset(a, 0, sizeof *a);
}
