/*
 * core/hedge.c - GP-Hedge over the GP and graph EI; see hedge.h.
 */
#include "core/hedge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/gp.h"
#include "core/sampler_gp.h"
#include "core/sampler_graph.h"

/* The arms' nominees (2 per prefix length t, for t = 0..np) and the obs
 * prefix they came from, and the replay's own kept GP model; valid 0:
 * nothing cached. */
struct hedge_cache {
    int valid;
    size_t np, cap;
    unsigned long long seed;
    size_t *obs, *nom;
    double *y;
    struct sampler_gp_model model;
};

void
hedge_cache_free(struct hedge_cache *c)
{
    if (!c)
        return;
    free(c->obs);
    free(c->nom);
    free(c->y);
    sampler_gp_model_clear(&c->model);
    free(c);
}

/* The hedge's graph arm: graph EI (Matérn kernel as given) on a's input.
 * It labels the observations only (pending candidates are still taken):
 * the labeled set is then the replay's, whose factor the graph downdates
 * instead of refactorizing (O(n³)) per suggest. */
static void
hedge_graph_arm(struct sampler_input *a)
{
    a->kind = SAMPLER_GRAPH;
    a->acquisition = 0;
    a->variant = 0;
    a->trust_div = 0;
    a->gp_model = NULL;
    a->prior_cand = NULL;
    a->n_pend = 0;
}

/* The two arms' nominees for the first t observations of in (used: those
 * t marked) without its pending trials, or (t == n_obs, pending) for in
 * as it is; the GP with the replay's kept model. */
static enum hpod_status
hedge_nominate(const struct sampler_input *in, size_t t,
               const unsigned char *used, int pending, size_t *nom)
{
    struct sampler_input a = *in;
    struct rng r;
    enum hpod_status st;

    a.n_obs = t;
    a.n_pend = pending ? in->n_pend : 0;
    a.seq = pending ? in->seq : (int)t;
    a.explain = NULL;
    a.cand_used = used;
    a.gp_model = &in->state->hedge->model;
    a.variant = in->variant & ~SAMPLER_V_HEDGE;
    rng_seed2(&r, in->seed, (uint64_t)a.seq);
    if ((st = sampler_gp_finite(&a, &r, &nom[0])) != HPOD_OK)
        return st;
    hedge_graph_arm(&a);
    return sampler_graph_finite(&a, &nom[1]);
}

/* The explanation of the hedge's pick: the chosen arm run again on in as
 * it is (pending trials included) with the explanation on; it must pick
 * the same candidate (the GP arm's kept model is not due for a refit). */
static enum hpod_status
hedge_explain(const struct sampler_input *in, int arm, size_t cand)
{
    struct sampler_input a = *in;
    struct rng r;
    size_t got = (size_t)-1;
    enum hpod_status st;

    a.gp_model = &in->state->hedge->model;
    rng_seed2(&r, in->seed, (uint64_t)in->seq);
    if (arm == 1) {
        hedge_graph_arm(&a);
        st = sampler_graph_finite(&a, &got);
    } else {
        a.variant = in->variant & ~SAMPLER_V_HEDGE;
        st = sampler_gp_finite(&a, &r, &got);
    }
    return st == HPOD_OK && got != cand ? HPOD_EINTERNAL : st;
}

/* in->cand_used marks exactly the observations' candidates. */
static int
hedge_used_is_obs(const struct sampler_input *in)
{
    size_t held = 0;
    for (size_t i = 0; i < in->n_obs; i++)
        if (!in->cand_used[in->obs_cand[i]])
            return 0;
    for (size_t i = 0; i < in->n_cand; i++)
        held += in->cand_used[i] != 0;
    return held == in->n_obs;
}

/* Brings the state's nominee history up to the n observations of in:
 * keeps the cached prefix that still matches, replays the rest (exactly:
 * in runs unbudgeted). The budget b is checked between replayed steps;
 * once spent the steps replayed so far are kept (the next call goes on
 * from there) and HPOD_EBUSY says the history is short. */
static enum hpod_status
hedge_history(const struct sampler_input *in, size_t init,
              struct compute_budget *b)
{
    struct hedge_cache *s = in->state->hedge;
    size_t n = in->n_obs, t0;
    unsigned char *used = xcalloc(in->n_cand, 1);
    enum hpod_status st = HPOD_OK;

    if (!s->valid || s->seed != in->seed || s->np > n ||
        memcmp(s->obs, in->obs_cand, s->np * sizeof *s->obs) != 0 ||
        memcmp(s->y, in->obs_y, s->np * sizeof *s->y) != 0) {
        s->valid = 0;
        s->np = 0;
        sampler_gp_model_clear(&s->model);
    }
    if (s->cap < n + 1) {
        s->cap = 2 * (n + 1);
        s->obs = xrealloc(s->obs, s->cap * sizeof *s->obs);
        s->nom = xrealloc(s->nom, 2 * s->cap * sizeof *s->nom);
        s->y = xrealloc(s->y, s->cap * sizeof *s->y);
    }
    t0 = s->valid ? s->np + 1 : 0;
    for (size_t i = 0; i < n; i++)
        used[in->obs_cand[i]] = i < t0;
    size_t t = t0;
    for (; t <= n && st == HPOD_OK; t++) {
        if (t > t0 && t >= init && compute_budget_spent(b)) {
            st = HPOD_EBUSY;
            break;
        }
        if (t >= init)
            st = hedge_nominate(in, t, used, 0, s->nom + 2 * t);
        else
            s->nom[2 * t] = s->nom[2 * t + 1] = (size_t)-1;
        if (t < n)
            used[in->obs_cand[t]] = 1;
    }
    if (st == HPOD_OK || (st == HPOD_EBUSY && t > 0)) {
        /* Nominees for the prefixes 0..np: np = n, or the last replayed. */
        s->np = st == HPOD_OK ? n : t - 1;
        memcpy(s->obs, in->obs_cand, s->np * sizeof *s->obs);
        memcpy(s->y, in->obs_y, s->np * sizeof *s->y);
        s->seed = in->seed;
        s->valid = 1;
    } else {
        s->valid = 0;
    }
    free(used);
    return st;
}

/*
 * SAMPLER_V_HEDGE: GP-Hedge (Hoffman, Brochu & de Freitas, UAI 2011) over
 * arm 0, the GP as configured, and arm 1, graph EI (Matérn). At every
 * model step t < n both arms' nominees are replayed from the first t
 * observations (cached in the state; a cold process replays them all);
 * an arm's gain is the sum, over its past nominees, of the current GP's
 * posterior mean there (normal-score units), discounted by
 * SAMPLER_HEDGE_DISCOUNT per step of age. The arm is drawn with
 * probability ∝ exp(η·gain) from a stream of its own.
 */
enum hpod_status
hedge_finite(const struct sampler_input *in, struct rng *r, size_t *cand)
{
    struct sampler_state own = {0};
    struct sampler_input a = *in;
    size_t n = in->n_obs, init = (size_t)(in->init > 0 ? in->init : 1);
    size_t dim = in->space->dim, np = in->space->n_params, nom[2];
    struct gp *gp = NULL;
    int owned = 1;
    double best, gain[2] = {0.0, 0.0};
    double *u = NULL, *mu = NULL;
    enum hpod_status st;

    for (size_t i = 0; i < n + in->n_pend; i++)
        if ((i < n ? in->obs_cand[i] : in->pend_cand[i - n]) >= in->n_cand)
            return HPOD_EINVAL;
    if (!a.state)
        a.state = &own;
    if (!a.state->hedge)
        a.state->hedge = xcalloc(1, sizeof *a.state->hedge);
    /* The arms run unbudgeted: their replay is cached, and the chosen arm
     * must choose alike when run again (hedge_explain). */
    a.budget = NULL;
    if ((st = hedge_history(&a, init, in->budget)) == HPOD_EBUSY) {
        /* The budget ended the replay: the GP arm alone chooses. */
        struct sampler_input f = *in;
        f.variant &= ~SAMPLER_V_HEDGE;
        f.state = a.state;
        st = sampler_gp_finite(&f, r, cand);
        goto out;
    }
    if (st != HPOD_OK)
        goto out;
    memcpy(nom, a.state->hedge->nom + 2 * n, sizeof nom);
    /* The replayed nominees at n saw only the observations as used; with
     * pending trials, or other candidates held (failed trials), the
     * arms choose again from in as it is (not cached). */
    if (in->n_pend > 0 || !hedge_used_is_obs(in)) {
        if ((st = hedge_nominate(&a, n, in->cand_used, 1, nom)) != HPOD_OK)
            goto out;
    }
    if (n > init) {
        size_t m = 2 * (n - init);
        struct sampler_input g = a;
        struct rng gr;
        g.n_pend = 0;
        g.gp_model = &a.state->hedge->model;
        rng_seed2(&gr, in->seed, (uint64_t)n);
        u = xmalloc(m * dim * sizeof *u);
        mu = xmalloc(m * sizeof *mu);
        double *rawp = xmalloc(np * sizeof *rawp);
        for (size_t k = 0; k < m; k++) {
            memcpy(rawp, in->cand_raw + a.state->hedge->nom[2 * init + k] * np,
                   np * sizeof *rawp);
            space_encode(in->space, rawp, u + k * dim);
        }
        free(rawp);
        if ((st = sampler_gp_fit(&g, &gr, &gp, &owned, &best, 0.0, NULL)) !=
                HPOD_OK ||
            (st = gp_predict(gp, u, m, mu, NULL)) != HPOD_OK)
            goto out;
        for (size_t k = 0; k < m; k++) { /* nominee k is from t = init + k/2 */
            size_t t = init + k / 2;
            gain[k % 2] +=
                pow(SAMPLER_HEDGE_DISCOUNT, (double)(n - 1 - t)) * mu[k];
        }
    }
    struct rng hr;
    rng_seed2(&hr, in->seed ^ SAMPLER_HEDGE_STREAM, (uint64_t)in->seq);
    double p1 = 1.0 / (1.0 + exp(SAMPLER_HEDGE_ETA * (gain[0] - gain[1])));
    int arm = rng_uniform(&hr) < p1;
    *cand = nom[arm];
    if (in->cand_used[*cand])
        st = HPOD_EINTERNAL;
    else if (in->explain) {
        st = hedge_explain(&a, arm, *cand);
        in->explain->arm = arm;
    }
out:
    if (owned)
        gp_free(gp);
    free(u);
    free(mu);
    /* A state of our own: its parts, as sampler_state_free frees them. */
    sampler_gp_cache_free(own.gp);
    graph_cache_clear(&own.graph);
    hedge_cache_free(own.hedge);
    return st;
}
