/*
 * study/suggest.c - what a worker trains next; contract in
 * study/suggest.h.
 */
#include "study/suggest.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "store/gp_model_store.h"
#include "store/history_store.h"
#include "store/dbr_store.h"
#include "store/lease_store.h"
#include "store/measure_store.h"
#include "store/study_store.h"
#include "store/trial_batch_store.h"
#include "store/trial_store.h"
#include "store/warm_store.h"
#include "study/choose.h"
#include "study/def.h"
#include "study/defcache.h"
#include "study/explain.h"
#include "study/histcache.h"
#include "study/history.h"
#include "study/labsched.h"
#include "study/measure.h"
#include "study/modelcache.h"
#include "study/multifidelity.h"
#include "study/samplercache.h"
#include "study/suggest_group.h"

void
suggest_cache_clear(void)
{
    modelcache_clear();
}

/* One suggest_trials call: its inputs, what it read, and its answer. */
struct suggest_call {
    struct db *db;
    long long id;
    const char *worker;
    long long count;
    struct hpod_err *err;
    struct study s;
    /* The study's parsed definition (study/defcache.h), d = def.d, and
     * the version of its row as read under the lock. */
    struct defcache_ref def;
    const struct study_def *d;
    char version[STUDY_VERSION_MAX];
    struct mf_work work;
    struct suggest_answer *out;
    int next_seq;        /* the study's next issue number */
    long long issue_seq; /* the next issue number as read under the lock */
    /* What suggest_new read, kept current as it inserts, for the next
     * call of a group (it holds the lock, so nothing else changes it). */
    struct samplercache *entry;
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
    char *ptext;    /* the params text ins[] points into (owned) */
    json_t *params; /* the same params, parsed (owned) */
};

/*
 * Appends t to the answer (moved: t is zeroed) with its params parsed:
 * params (stolen) when the caller built them, else parsed here, once: a
 * trial whose stored params cannot be read fails the call before
 * anything is committed, and the answer is rendered from the parsed ones.
 */
static enum hpod_status
answer_add(struct suggest_call *c, struct trial *t, json_t *params)
{
    struct suggest_answer *a = c->out;

    if (!params)
        params = hj_parse(t->params);
    if (!json_is_object(params)) {
        json_decref(params);
        return hpod_fail(c->err, HPOD_EINTERNAL, "",
                         "a stored row cannot be read");
    }
    if (measure_decoupled(c->d)) {
        /* What the trial measures now, as stored (no row: everything). */
        char *m = NULL;
        enum hpod_status st = measure_store_get(c->db, t->id, &m, c->err);
        if (st != HPOD_OK) {
            json_decref(params);
            return st;
        }
        if (!a->measures)
            a->measures = xcalloc((size_t)c->count, sizeof *a->measures);
        a->measures[a->n] = m ? m : measure_all(c->d);
    }
    a->params[a->n] = params;
    a->trials[a->n++] = *t;
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
suggest_expire(struct suggest_call *c, long long *expired, long long *requeued)
{
    char xmin[HISTORY_XID_MAX];
    struct trial *delta = NULL;
    size_t nd = 0;
    long long raced = 0;
    int with_values = histcache_with_values(c->d, &c->work);
    enum hpod_status st;

    if (multifidelity_enabled(c->d) || !histcache_enabled() ||
        (c->s.n_candidates < 0 && c->d->algo.name == ALGO_RANDOM))
        return lease_store_expire(c->db, c->id, expired, requeued, c->err);
    c->hc = histcache_take(c->id);
    const char *since = histcache_since(c->hc, c->id, c->version, with_values);
    if ((st = history_store_expire_changes(c->db, c->id, since, with_values,
                                           xmin, expired, requeued, &raced,
                                           &delta, &nd, c->err)) != HPOD_OK)
        return st;
    histcache_apply(c->hc, delta, nd, c->d, xmin);
    free(delta);
    /* Another transaction wrote a lapsed trial while the expiry waited
     * for it (another server's reaper): read what it wrote, as a server
     * without the cache would after its expiry. */
    if (raced > 0) {
        since = histcache_since(c->hc, c->id, c->version, with_values);
        if ((st = history_store_changes(c->db, c->id, since, with_values, xmin,
                                        &delta, &nd, c->err)) != HPOD_OK)
            return st;
        histcache_apply(c->hc, delta, nd, c->d, xmin);
        free(delta);
    }
    c->hc_fresh = 1;
    return HPOD_OK;
}

/*
 * Reads the locked study's row once: with the trial counts by state when
 * its rules need them (multi-fidelity; a definition not cached yet
 * might be one), and its definition's text only when the version held
 * (study/defcache.h) is not the row's.
 */
static enum hpod_status
suggest_read_study(struct suggest_call *c)
{
    int full = !c->def.d || multifidelity_enabled(c->def.d);
    enum hpod_status st;

    for (;;) {
        study_clear(&c->s);
        if ((st = study_store_get_issue(c->db, c->id, c->def.version, full,
                                        &c->s, &c->issue_seq, c->version,
                                        c->err)) != HPOD_OK ||
            (st = defcache_resolve(c->id, c->version, c->s.definition, &c->def,
                                   c->err)) != HPOD_OK)
            return st;
        c->d = c->def.d;
        /* A definition that became multi-fidelity (not one that was
         * cached): its rules read the counts, read again. */
        if (full || !multifidelity_enabled(c->d))
            return HPOD_OK;
        full = 1;
    }
}

/* Locks the study, reads it, recovers lapsed leases. */
static enum hpod_status
suggest_begin(struct suggest_call *c)
{
    long long expired = 0, requeued = 0;
    enum hpod_status st;

    defcache_find(c->id, &c->def);
    if ((st = db_begin(c->db, c->err)) != HPOD_OK ||
        (st = study_store_lock(c->db, c->id, c->err)) != HPOD_OK ||
        (st = suggest_read_study(c)) != HPOD_OK ||
        (st = suggest_expire(c, &expired, &requeued)) != HPOD_OK)
        return st;
    c->out->n_expired = expired + requeued;
    /* Multi-fidelity rules read the counts by state, which the expiry
     * changed (pending or running to failed, or to waiting): read them
     * again, then. */
    if (expired + requeued > 0 && multifidelity_enabled(c->d))
        return suggest_read_study(c);
    /* Else it changes none of what was read but n_expired, and pending to
     * waiting for a lapsed trial with a checkpoint, back in the queue
     * (store/lease_sql.h), which the claim below hands out first: n_all
     * is max(seq) + 1. */
    c->s.n_expired += expired;
    c->s.counts[TRIAL_WAITING] += requeued;
    c->s.counts[TRIAL_PENDING] -= requeued;
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
                st = answer_add(c, &c->held[i], NULL), got++;
        return st;
    }
    if ((st = trial_store_held(c->db, c->id, c->worker, c->s.lease_seconds,
                               &held, &n_held, c->err)) != HPOD_OK)
        goto out;
    for (size_t i = 0; i < n_held && (long long)i < c->count; i++)
        if ((st = answer_add(c, &held[i], NULL)) != HPOD_OK)
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
    if ((st = multifidelity_prepare(c->db, c->d, &c->s, &c->work, c->err)) !=
        HPOD_OK)
        return st;
    while (multifidelity_enabled(c->d) && (long long)c->out->n < c->count) {
        struct trial pt = {0};
        int promoted = 0;
        if ((st = multifidelity_promote(c->db, c->d, &c->s, &c->work, c->worker,
                                        &pt, &promoted, c->err)) != HPOD_OK)
            return st;
        if (!promoted)
            break;
        st = answer_add(c, &pt, NULL);
        trial_clear(&pt);
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
        if ((st = answer_add(c, &got[i], NULL)) != HPOD_OK)
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
 * What choosing needs, read once per transaction: the candidates (cached
 * per process), the history and the next issue number. The lock is held
 * and only suggest_new inserts trials, so what it read stays right for
 * the next call of a group as suggest_new keeps it current.
 */
static enum hpod_status
suggest_read(struct suggest_call *c)
{
    const struct study_def *d = c->d;
    struct samplercache *e;
    enum hpod_status st;

    /* The stored definition holds no candidates (they have their own
     * table): the study row says whether the space is finite. */
    if (c->s.n_candidates >= 0) {
        c->entry = e = samplercache_take(c->id);
        if (!e->cand_raw &&
            (st = history_candidates(c->db, c->id, d, &e->cand_raw, &e->n_cand,
                                     c->err)) != HPOD_OK)
            return st;
    }
    e = c->entry;
    if (c->hc_fresh)
        histcache_build(c->hc, d, e ? e->cand_raw : NULL, e ? e->n_cand : 0,
                        e != NULL, &c->work, &c->h);
    else if ((c->hc = histcache_take(c->id)),
             (st = histcache_history(c->hc, c->db, c->id, c->version, d,
                                     e ? e->cand_raw : NULL, e ? e->n_cand : 0,
                                     e != NULL, &c->work, &c->h, c->err)) !=
                 HPOD_OK)
        return st;
    /* Claims move trials from waiting to pending: max(seq) + 1 as read
     * at the start still holds (nothing else inserts under the lock). */
    c->next_seq = (int)c->issue_seq;
    /* The GP's kept hyperparameters: the study's, not this process's. */
    if (choose_sampler(d) == SAMPLER_GP && !history_uses_mobo(d) &&
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

/* Reserves the next answer slot of this call for a new trial (ptext and
 * params, the same configuration as text and parsed, are taken),
 * inserted by batch_flush. */
static void
batch_add(struct suggest_call *c, int seq, char *ptext, json_t *params,
          size_t cand)
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
    c->slot[c->n_ins] = (struct batch_slot){
        .out = c->out, .i = c->out->n++, .ptext = ptext, .params = params};
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
        st = answer_add(c, &t[i], c->slot[i].params);
        c->slot[i].params = NULL;
        out->n = keep;
    }
    trials_free(t, n);
    return st;
}

static void
batch_clear(struct suggest_call *c)
{
    for (size_t i = 0; i < c->n_ins; i++) {
        free(c->slot[i].ptext);
        json_decref(c->slot[i].params);
    }
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
    if (multifidelity_enabled(c->d) || explain_records(c->d) ||
        measure_decoupled(c->d) || c->d->define_by_run)
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
    enum hpod_status st = measure_choose(c->d, &c->h, seq, raw, &m);
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
    const struct study_def *d = c->d;
    size_t np = d->space.n_params;
    struct history *h = &c->h;
    double *raw = NULL;
    int seq = 0;
    struct sampler_explain ex = {0};
    enum hpod_status st = HPOD_OK;

    if (!c->h_loaded && (st = suggest_read(c)) != HPOD_OK)
        return st;
    /* Room in the model-memory budget for what the sampler will hold. */
    if (c->entry &&
        (st = samplercache_reserve(c->entry, d, h->n_cand,
                                   (h->n_obs > h->n_mo ? h->n_obs : h->n_mo) +
                                       h->n_pend + (size_t)need,
                                   c->err)) != HPOD_OK)
        return st;
    seq = c->next_seq;
    raw = xmalloc(np * sizeof *raw);
    for (long long k = 0; k < need; k++) {
        size_t cand;
        struct trial t = {0};
        st = choose_one(d, h, c->entry, &c->gpm, seq, raw, &cand,
                        explain_records(d) ? &ex : NULL, c->prior);
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
        /* The params as stored and as answered: built once. */
        json_t *pj = params_to_json(d, raw);
        char *ptext = hj_dump(pj, 0), *proposal = NULL;
        if (d->define_by_run) {
            /* The trial's params are those it will ask for; the model's
             * joint choice is kept as its proposal (study/dbr.h). */
            proposal = ptext;
            ptext = xstrdup("{}");
            json_decref(pj);
            pj = json_object();
        }
        if (c->batching) {
            free(proposal); /* none: define-by-run does not batch */
            batch_add(c, seq, ptext, pj, cand);
            goto chosen;
        }
        /* The trial and its recorded explanation: one statement. */
        char *dtext = explain_records(d) ? explain_suggest_text(d, &ex) : NULL;
        if (explain_records(d) && !dtext)
            st = hpod_fail(c->err, HPOD_ENOMEM, "",
                           "could not build a decision");
        else
            st = trial_store_insert_decided(
                c->db, c->id, seq, ptext,
                cand == (size_t)-1 ? -1 : (long long)cand, c->worker,
                c->s.lease_seconds, c->work.train_to, dtext, &t, c->err);
        free(dtext);
        free(ptext);
        if (st == HPOD_OK && proposal)
            st = dbr_store_put_proposal(c->db, t.id, proposal, c->err);
        free(proposal);
        if (st == HPOD_OK && measure_decoupled(d))
            st = suggest_measure(c, t.id, seq, raw);
        if (st == HPOD_OK)
            st = answer_add(c, &t, pj);
        else
            json_decref(pj);
        trial_clear(&t);
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
 * After the commit: done only when nothing will ever be issued again.
 * A study that may still issue (budget and candidates left, stages to
 * come) is not done, as read under the lock; only one that may not
 * reads its trial counts by state (live, paused), after the commit.
 * Multistage ends with its last stage, whatever budget is left.
 */
static enum hpod_status
suggest_done(struct suggest_call *c)
{
    enum hpod_status st;

    c->out->done = 0;
    if (c->out->n > 0)
        return HPOD_OK;
    /* finished: done for good (until reopened); paused: ask again. */
    if (c->s.state && strcmp(c->s.state, "active") != 0) {
        c->out->done = strcmp(c->s.state, "finished") == 0;
        return HPOD_OK;
    }
    if (!study_exhausted(&c->s) && !c->work.finished)
        return HPOD_OK;
    study_clear(&c->s);
    if ((st = study_store_get(c->db, c->id, &c->s, c->err)) != HPOD_OK)
        return st;
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
    if (suggest_open(c) && multifidelity_prune_paused(c->d, &c->s, c->out->n) &&
        (st = trial_store_prune_paused(c->db, c->id, c->err)) != HPOD_OK)
        return st;
    return HPOD_OK;
}

/* An empty answer with room for count trials. */
static void
answer_reset(struct suggest_answer *out, long long count)
{
    size_t n = count > 0 ? (size_t)count : 1;
    suggest_answer_clear(out);
    out->trials = xcalloc(n, sizeof *out->trials);
    out->params = xcalloc(n, sizeof *out->params);
}

/*
 * The transaction of a group's calls m[0..k-1] of study id
 * (study/suggest_group.h's suggest_group_fn); sets each m[i]->st.
 * Returns 1 when it committed.
 */
static int
suggest_run(struct db *db, long long id, struct member **m, size_t k)
{
    struct suggest_call c = {.db = db, .id = id, .out = m[0]->out};
    const char *workers[GROUP_MAX];
    size_t i = 0;
    int committed = 0;
    enum hpod_status st;

    for (i = 0; i < k; i++)
        answer_reset(m[i]->out, m[i]->count);
    c.err = m[0]->err;
    if ((st = suggest_begin(&c)) != HPOD_OK)
        goto out;
    for (i = 0; i < k; i++) {
        m[i]->out->has_algorithm = 1;
        m[i]->out->algorithm = c.d->algo.name;
    }
    /* Multi-fidelity decisions read state a call's predecessor changes
     * (the ASHA ladder, the stage): one call per transaction. */
    if (multifidelity_enabled(c.d) && k > 1) {
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
    batch_clear(&c);
    history_clear(&c.h);
    sampler_gp_model_clear(&c.gpm);
    free(c.prior);
    /* Not committed: what it read may hold this transaction's undone
     * writes (study/histcache.c, point 4). */
    histcache_put(c.hc, committed);
    samplercache_put(c.entry, c.d, 1);
    multifidelity_work_clear(&c.work);
    defcache_release(&c.def);
    study_clear(&c.s);
    return committed;
}

/* suggest_trials: contract in study/suggest.h. */
enum hpod_status
suggest_trials(const struct suggest_group_conn *via, long long study_id,
               const char *worker, long long count, struct suggest_answer *out,
               struct hpod_err *err)
{
    struct member me = {.study_id = study_id,
                        .worker = worker,
                        .count = count,
                        .out = out,
                        .err = err};
    struct suggest_group_conn sc = *via;
    char lab[ACCESS_LAB_MAX + 1];
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    /* Model work is admitted per lab (study/labsched.h): the study's
     * owner, which a caller scoped to a lab is (its token was checked
     * against the study's lab before the handler ran). */
    if (!sc.lab || !sc.lab[0]) {
        if ((st = labsched_study_lab(sc.db, sc.pool, study_id, lab, sizeof lab,
                                     err)) != HPOD_OK)
            return st;
        sc.lab = lab;
    }
    return suggest_group_call(&sc, &me, suggest_run);
}

void
suggest_answer_clear(struct suggest_answer *a)
{
    if (!a)
        return;
    for (size_t i = 0; a->measures && i < a->n; i++)
        free(a->measures[i]);
    free(a->measures);
    for (size_t i = 0; a->params && i < a->n; i++)
        json_decref(a->params[i]);
    free(a->params);
    trials_free(a->trials, a->n);
    memset(a, 0, sizeof *a);
}
