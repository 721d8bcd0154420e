/*
 * study/choose.c - one new configuration from a study's history, by its
 * sampler; see choose.h.
 */
#include "study/choose.h"

#include <stdlib.h>

#include "common/clock.h"
#include "common/mem.h"
#include "core/mobo.h"
#include "core/pareto.h"
#include "study/algometrics.h"
#include "study/constraints.h"
#include "study/deadline.h"
#include "study/explain.h"
#include "study/pareto.h"
#include "study/warmstart.h"

/*
 * choose_mobo - the EHVI (or constrained) choice; HPOD_ENUMERIC when the
 * model cannot decide yet (too few observations), so the caller falls
 * back to the random choice.
 */
static enum hpod_status
choose_mobo(const struct study_def *d, const struct history *h,
            struct samplercache *entry, int seq, double *raw, size_t *cand,
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
    constraints_bounds(d, h->mo_c, h->n_mo, con_max, con_log);
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

enum sampler_kind
choose_sampler(const struct study_def *d)
{
    return (enum sampler_kind)(d->algo.name == ALGO_ASHA ||
                                       d->algo.name == ALGO_MULTISTAGE
                                   ? d->algo.base
                                   : (int)d->algo.name);
}

enum hpod_status
choose_one(const struct study_def *d, const struct history *h,
           struct samplercache *entry, struct sampler_gp_model *gpm, int seq,
           double *raw, size_t *cand, struct sampler_explain *ex,
           const double *prior)
{
    struct deadline dl; /* the choice's compute budget (study/deadline.h) */
    struct compute_budget budget;
    deadline_start(&dl, &budget);
    struct sampler_input in = {
        .space = &d->space,
        .kind = choose_sampler(d),
        .seed = d->algo.seed,
        .seq = seq,
        .init = d->algo.init,
        .kernel = d->algo.kernel,
        .acquisition = d->algo.acquisition,
        .ls_min = d->algo.name == ALGO_GP ? d->algo.ls_min : 0.0,
        .trust_div = d->algo.name == ALGO_GP ? (int)d->algo.gp_trust : 0,
        .ls_prior = d->algo.name == ALGO_GP ? d->algo.ls_prior : 0.0,
        .variant =
            d->algo.name == ALGO_GP && d->algo.gp_hedge ? SAMPLER_V_HEDGE : 0u,
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
    double t0 = hpod_now_s();

    *cand = (size_t)-1;
    if (d->space.n_params == 0)
        return HPOD_OK; /* define-by-run before any parameter: {} */
    if (history_uses_mobo(d))
        st = choose_mobo(d, h, entry, seq, raw, cand, ex, &budget);
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
        explain_mobo(ex, d, h->n_mo, h->n_mo_complete, h->n_pend, by_mobo,
                     *cand);
    /* A model's choice (not a random or greedy one): /metrics. */
    if (st == HPOD_OK &&
        (by_mobo || (ex && ex->chooser == SAMPLER_CHOSE_MODEL)))
        algometrics_model(d->algo.name, hpod_now_s() - t0);
    return st;
}
