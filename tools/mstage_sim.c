/*
 * tools/mstage_sim.c - multi-stage BO replayed on learning curves with one
 * simulated worker (contract in tools/mstage_sim.h).
 *
 * The replay keeps its own "database" (trials with stage, state and final
 * value; every report) and, at each request for work, rebuilds a struct
 * mstage from it and applies mstage_plan, as study/multifidelity.c's
 * multifidelity_prepare does: by core/mstage.h the answers are a function of
 * that set, so this is what a server rebuilding its state would decide.
 *
 * Pure: no I/O, no globals; memory from xmalloc (common/mem.h).
 */
#include "tools/mstage_sim.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

/* One trial of the replayed study; its id is its index (issue number). */
struct trial_rec {
    size_t cand;  /* draw index = candidate index */
    size_t stage; /* the stage it trains in */
    enum mstage_state state;
    double final; /* final value (BSF), NaN until completed */
    size_t last;  /* last step reported */
    double bsf;   /* best-so-far over its reports, NaN if none */
};

struct sim {
    const struct asha_sim_curve *cv;
    const struct space *sp;
    struct mstage_params prm;
    size_t configs, np;
    size_t *drawn;        /* configs curve indices */
    double *cand_raw;     /* configs × np */
    unsigned char *used;  /* configs: candidate issued */
    struct trial_rec *tr; /* configs trials at most */
    size_t n_tr;
    size_t *rep_id; /* reports */
    size_t *rep_step;
    double *rep_val;
    size_t n_rep, cap_rep;
    struct mstage *ms;
    /* The GP's kept hyperparameters, as the study's database row holds
     * them (study_gp_models): a server refits on the same schedule. */
    struct sampler_gp_model gpm;
};

static enum hpod_status sim_rebuild(struct sim *s);
static enum hpod_status sim_new(struct sim *s, const struct mstage_sim_base *b,
                                size_t stage, size_t *id);
static void sim_train(struct sim *s, size_t id, size_t *trained,
                      struct mstage_sim_result *out);

/* The struct mstage a server would rebuild from the database now. */
static enum hpod_status
sim_rebuild(struct sim *s)
{
    struct mstage *ms = NULL;
    s->prm.exhausted = s->n_tr == s->configs;
    enum hpod_status st = mstage_create(&s->prm, &ms);
    if (st != HPOD_OK)
        return st;
    for (size_t i = 0; i < s->n_tr; i++)
        mstage_trial(ms, (int64_t)i, s->tr[i].stage, s->tr[i].state,
                     s->tr[i].final);
    for (size_t k = 0; k < s->n_rep; k++)
        mstage_observe(ms, (int64_t)s->rep_id[k], s->rep_step[k],
                       s->rep_val[k]);
    mstage_free(s->ms);
    s->ms = ms;
    return HPOD_OK;
}

/*
 * A new trial of `stage` chosen by the base sampler, as study/suggest.c
 * and multifidelity_observation build its input for a multistage study:
 * observations are the values at the fidelity the model learns from (larger is
 * better: −ppl), pending the stage's live or paused members without one. That
 * fidelity is the stage's, or, while fewer than `init` trials have reached
 * it, the highest earlier stage's that `init` trials have reached (stage
 * 0's at the lowest), as multifidelity_prepare chooses it.
 */
static enum hpod_status
sim_new(struct sim *s, const struct mstage_sim_base *b, size_t stage,
        size_t *id)
{
    size_t f = s->prm.steps[stage], n_obs = 0, n_pend = 0, np = s->np;
    size_t need = b->init > 0 ? (size_t)b->init : 1;
    for (size_t i = stage; i-- > 0;) {
        if (mstage_count_at(s->ms, f) >= need)
            break;
        f = s->prm.steps[i];
    }
    size_t *obs_cand = xmalloc((s->n_tr + 1) * sizeof *obs_cand);
    size_t *pend_cand = xmalloc((s->n_tr + 1) * sizeof *pend_cand);
    double *obs_raw = xmalloc((s->n_tr + 1) * np * sizeof *obs_raw);
    double *obs_y = xmalloc((s->n_tr + 1) * sizeof *obs_y);
    double *pend_raw = xmalloc((s->n_tr + 1) * np * sizeof *pend_raw);
    double *raw = xmalloc(np * sizeof *raw);
    size_t cand = MSTAGE_SIM_NONE;
    enum hpod_status st;

    for (size_t i = 0; i < s->n_tr; i++) {
        const struct trial_rec *t = &s->tr[i];
        double v;
        if (mstage_value_at(s->ms, (int64_t)i, f, &v)) {
            if (isnan(v))
                continue; /* the server skips a value it cannot use */
            memcpy(obs_raw + n_obs * np, s->cand_raw + t->cand * np,
                   np * sizeof *raw);
            obs_y[n_obs] = -v;
            obs_cand[n_obs++] = t->cand;
        } else if (t->stage == stage &&
                   (t->state == MSTAGE_LIVE || t->state == MSTAGE_PAUSED)) {
            memcpy(pend_raw + n_pend * np, s->cand_raw + t->cand * np,
                   np * sizeof *raw);
            pend_cand[n_pend++] = t->cand;
        }
    }
    struct sampler_input in = {
        .space = s->sp,
        .kind = b->kind,
        .seed = b->seed,
        .seq = (int)s->n_tr,
        .init = b->init,
        .kernel = b->kernel,
        .acquisition = b->acquisition,
        .cand_raw = s->cand_raw,
        .cand_used = s->used,
        .n_cand = s->configs,
        .obs_raw = obs_raw,
        .obs_y = obs_y,
        .obs_cand = obs_cand,
        .n_obs = n_obs,
        .pend_raw = pend_raw,
        .pend_cand = pend_cand,
        .n_pend = n_pend,
        .state = NULL,
        .gp_model = &s->gpm,
    };
    st = sampler_next(&in, raw, &cand);
    if (st == HPOD_OK && (cand >= s->configs || s->used[cand]))
        st = HPOD_EINTERNAL;
    if (st == HPOD_OK) {
        struct trial_rec *t = &s->tr[s->n_tr];
        t->cand = cand;
        t->stage = stage;
        t->state = MSTAGE_LIVE;
        t->final = NAN;
        t->last = 0;
        t->bsf = NAN;
        s->used[cand] = 1;
        *id = s->n_tr++;
        mstage_trial(s->ms, (int64_t)*id, stage, MSTAGE_LIVE, NAN);
    }
    free(obs_cand);
    free(pend_cand);
    free(obs_raw);
    free(obs_y);
    free(pend_raw);
    free(raw);
    return st;
}

/*
 * Trains live trial id from its last step until mstage_decide pauses it,
 * or it completes: the last stage's fidelity reached, or its curve ended
 * (the trainer's model stopped: it sends its final report).
 */
static void
sim_train(struct sim *s, size_t id, size_t *trained,
          struct mstage_sim_result *out)
{
    struct trial_rec *t = &s->tr[id];
    const struct asha_sim_curve *c = &s->cv[s->drawn[t->cand]];
    size_t last_f = s->prm.steps[s->prm.n - 1];
    for (;;) {
        size_t step = t->last + 1;
        if (step > c->len)
            break; /* the curve ended: final report */
        double v = c->ppl[step - 1];
        s->rep_id[s->n_rep] = id;
        s->rep_step[s->n_rep] = step;
        s->rep_val[s->n_rep++] = v;
        mstage_observe(s->ms, (int64_t)id, step, v);
        t->last = step;
        if (!isnan(v) && (isnan(t->bsf) || v < t->bsf))
            t->bsf = v;
        out->steps++;
        if (trained)
            trained[t->cand]++;
        if (mstage_decide(s->ms, (int64_t)id, step) == MSTAGE_STOP) {
            t->state = MSTAGE_PAUSED;
            return;
        }
        if (t->stage == s->prm.n - 1 && step >= last_f)
            break; /* trained to the last fidelity: final report */
    }
    t->state = MSTAGE_COMPLETED;
    t->final = t->bsf;
}

/*
 * The outcome of a finished study (out: steps already counted): the
 * trials started and completed, whether the pool's best was among them,
 * the kept trial (the completed one with the lowest final value) and its
 * rank; issued[cand] (may be NULL) receives the trial id of each started
 * candidate.
 */
static void
sim_summarize(const struct sim *s, struct mstage_sim_result *out,
              size_t *issued)
{
    double opt_min = INFINITY;
    for (size_t j = 0; j < s->configs; j++)
        if (s->cv[s->drawn[j]].optimal < opt_min)
            opt_min = s->cv[s->drawn[j]].optimal;
    double kept_v = NAN;
    size_t kept_id = MSTAGE_SIM_NONE;
    out->started = s->n_tr;
    for (size_t i = 0; i < s->n_tr; i++) {
        const struct trial_rec *t = &s->tr[i];
        double o = s->cv[s->drawn[t->cand]].optimal;
        if (o == opt_min)
            out->best_started = 1;
        if (issued)
            issued[t->cand] = i;
        if (t->state != MSTAGE_COMPLETED)
            continue;
        out->n_full++;
        if (o == opt_min)
            out->best_full = 1;
        if (kept_id == MSTAGE_SIM_NONE ||
            (!isnan(t->final) && (isnan(kept_v) || t->final < kept_v))) {
            kept_id = i;
            kept_v = t->final;
        }
    }
    if (kept_id != MSTAGE_SIM_NONE) {
        double ko = s->cv[s->drawn[s->tr[kept_id].cand]].optimal;
        out->kept = s->tr[kept_id].cand;
        out->best_rank = 1;
        for (size_t j = 0; j < s->configs; j++)
            out->best_rank += s->cv[s->drawn[j]].optimal < ko;
    }
}

enum hpod_status
mstage_sim_trace(const struct asha_sim_curve *curves, size_t n,
                 const double *features, const struct space *sp,
                 const struct mstage_params *prm,
                 const struct mstage_sim_base *base, size_t configs,
                 struct rng *r, struct mstage_sim_result *out, size_t *drawn,
                 size_t *trained, size_t *issued)
{
    if (!curves || !features || !sp || !prm || !base || !r || !out ||
        configs == 0 || configs > n || sp->n_params == 0)
        return HPOD_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!curves[i].ppl || curves[i].len == 0)
            return HPOD_EINVAL;
    {
        /* Reject what mstage_create rejects before drawing. */
        struct mstage *probe = NULL;
        enum hpod_status pst = mstage_create(prm, &probe);
        mstage_free(probe);
        if (pst != HPOD_OK)
            return pst;
    }

    struct sim s;
    enum hpod_status st = HPOD_OK;
    size_t np = sp->n_params;
    size_t *perm = xmalloc(n * sizeof *perm);
    size_t last_f = prm->steps[prm->n - 1];

    memset(&s, 0, sizeof s);
    memset(out, 0, sizeof *out);
    out->kept = MSTAGE_SIM_NONE;
    s.cv = curves;
    s.sp = sp;
    s.prm = *prm;
    s.prm.sense = -1;
    s.configs = configs;
    s.np = np;
    s.drawn = xmalloc(configs * sizeof *s.drawn);
    s.cand_raw = xmalloc(configs * np * sizeof *s.cand_raw);
    s.used = xcalloc(configs, 1);
    s.tr = xcalloc(configs, sizeof *s.tr);
    if (trained)
        memset(trained, 0, configs * sizeof *trained);

    /* asha_sim_run's draw (rng_draw), so the pools are paired. */
    rng_draw(r, perm, n, configs);
    for (size_t j = 0; j < configs; j++) {
        s.drawn[j] = perm[j];
        memcpy(s.cand_raw + j * np, features + perm[j] * np,
               np * sizeof *s.cand_raw);
        size_t len = curves[perm[j]].len;
        s.cap_rep += len < last_f ? len : last_f;
    }
    out->steps_full = s.cap_rep;
    /* A trial reports each step once and never past min(len, last_f). */
    s.rep_id = xmalloc((s.cap_rep + 1) * sizeof *s.rep_id);
    s.rep_step = xmalloc((s.cap_rep + 1) * sizeof *s.rep_step);
    s.rep_val = xmalloc((s.cap_rep + 1) * sizeof *s.rep_val);

    /* Each pass trains one trial a step or more, or issues one, or ends
     * the study; a trial is resumed at most once per stage. */
    size_t guard = configs * (prm->n + 2) + 2;
    for (size_t pass = 0;; pass++) {
        struct mstage_plan plan;
        size_t id = MSTAGE_SIM_NONE;
        if (pass > guard) {
            st = HPOD_EINTERNAL;
            goto out;
        }
        if ((st = sim_rebuild(&s)) != HPOD_OK)
            goto out;
        mstage_plan(s.ms, &plan);
        for (size_t i = 0; i < plan.n_seeds; i++)
            s.tr[plan.seeds[i]].stage = plan.seed_to[i];
        for (size_t i = 0; i < plan.n_prune; i++)
            s.tr[plan.prune[i]].state = MSTAGE_ENDED;
        size_t stage = plan.stage;
        if (stage < prm->n && plan.n_resume > 0) {
            id = (size_t)plan.resume[0];
            s.tr[id].state = MSTAGE_LIVE;
            mstage_trial(s.ms, plan.resume[0], stage, MSTAGE_LIVE, NAN);
        } else if (stage < prm->n && plan.n_new > 0) {
            st = sim_new(&s, base, stage, &id);
        } else if (stage < prm->n) {
            st = HPOD_EINTERNAL; /* one worker, nothing live: a bug */
        }
        mstage_plan_clear(&plan);
        if (st != HPOD_OK)
            goto out;
        if (stage >= prm->n)
            break;
        sim_train(&s, id, trained, out);
    }

    sim_summarize(&s, out, issued);
out:
    if (drawn)
        memcpy(drawn, s.drawn, configs * sizeof *drawn);
    if (issued)
        for (size_t j = 0; j < configs; j++)
            if (!s.used[j])
                issued[j] = MSTAGE_SIM_NONE;
    mstage_free(s.ms);
    free(perm);
    free(s.drawn);
    free(s.cand_raw);
    free(s.used);
    free(s.tr);
    free(s.rep_id);
    free(s.rep_step);
    free(s.rep_val);
    sampler_gp_model_clear(&s.gpm);
    return st;
}

enum hpod_status
mstage_sim_run(const struct asha_sim_curve *curves, size_t n,
               const double *features, const struct space *sp,
               const struct mstage_params *prm,
               const struct mstage_sim_base *base, size_t configs,
               struct rng *r, struct mstage_sim_result *out)
{
    return mstage_sim_trace(curves, n, features, sp, prm, base, configs, r, out,
                            NULL, NULL, NULL);
}
