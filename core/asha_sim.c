/*
 * core/asha_sim.c - ASHA replayed on learning curves with simulated
 * asynchronous workers (contract in core/asha_sim.h).
 *
 * The rung rule is core/asha.c's, fed the reports as a real server would.
 * core/asha.h defines the state as a function of the SET of reports and
 * paused configs, and has no "unpause": a server rebuilds the state from
 * its database, where a resumed trial is no longer paused. The replay does
 * the same: it keeps the reports and the paused flags itself and rebuilds
 * the struct asha when a config leaves the paused set (a promotion) or
 * when `exhausted` turns on (asha_params are copied at creation).
 *
 * Pure: no I/O, no globals; memory from xmalloc (common/mem.h).
 */
#include "core/asha_sim.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/mem.h"

#define NONE ((size_t)-1)

struct sim {
    const struct asha_sim_curve *cv;
    struct asha_params prm;
    int sense;
    size_t configs;
    size_t *drawn;         /* configs curve indices */
    size_t *trained;       /* configs: last step reported */
    size_t *limit;         /* configs: min(R, len) */
    unsigned char *paused; /* configs */
    int64_t *obs_cfg;      /* reports, in arrival order */
    size_t *obs_step;
    double *obs_val;
    size_t n_obs;
    size_t started;
    struct asha *a;
};

static enum hpod_status sim_rebuild(struct sim *s);
static size_t sim_ask(struct sim *s);
static double curve_bsf(const struct asha_sim_curve *c, size_t t);

/*
 * Recreates the ASHA state from the reports and the paused flags, with the
 * current prm.exhausted. By core/asha.h the answers depend on that set
 * only, so this is the state a server would rebuild from its database.
 */
static enum hpod_status
sim_rebuild(struct sim *s)
{
    struct asha *a = NULL;
    enum hpod_status st = asha_create(&s->prm, &a);
    if (st != HPOD_OK)
        return st;
    for (size_t k = 0; k < s->n_obs; k++)
        asha_observe(a, s->obs_cfg[k], s->obs_step[k], &s->obs_val[k]);
    for (size_t c = 0; c < s->started; c++)
        if (s->paused[c])
            asha_pause(a, (int64_t)c);
    asha_free(s->a);
    s->a = a;
    return HPOD_OK;
}

/* Work for a free worker: a promotion, else a new config, else NONE. */
static size_t
sim_ask(struct sim *s)
{
    struct asha_promotion pr;
    if (asha_promotable(s->a, &pr)) {
        size_t c = (size_t)pr.config;
        s->paused[c] = 0;
        /* Cannot fail: the parameters were accepted before. */
        (void)sim_rebuild(s);
        return c;
    }
    if (s->started < s->configs) {
        size_t c = s->started++;
        if (s->started == s->configs) {
            s->prm.exhausted = 1;
            (void)sim_rebuild(s);
        }
        return c;
    }
    return NONE;
}

/* Minimum of the first t values of a curve, NaNs skipped (NaN if none). */
static double
curve_bsf(const struct asha_sim_curve *c, size_t t)
{
    double b = NAN;
    for (size_t i = 0; i < t && i < c->len; i++)
        if (!isnan(c->ppl[i]) && (isnan(b) || c->ppl[i] < b))
            b = c->ppl[i];
    return b;
}

/*
 * The outcome of a finished run (res: steps and elapsed already counted):
 * the configurations trained to their end, whether the best drawn one is
 * among them, and the rank of the one kept, the finished configuration
 * with the lowest best-so-far at its end.
 */
static void
sim_summarize(const struct sim *s, struct asha_sim_result *res)
{
    size_t kept = NONE;
    double kept_bsf = NAN, opt_min = INFINITY;
    for (size_t c = 0; c < s->configs; c++)
        if (s->cv[s->drawn[c]].optimal < opt_min)
            opt_min = s->cv[s->drawn[c]].optimal;
    for (size_t c = 0; c < s->configs; c++) {
        if (s->trained[c] != s->limit[c])
            continue;
        res->n_full++;
        if (s->cv[s->drawn[c]].optimal <= opt_min)
            res->best_full = 1;
        double b = curve_bsf(&s->cv[s->drawn[c]], s->limit[c]);
        if (kept == NONE || (!isnan(b) && (isnan(kept_bsf) || b < kept_bsf))) {
            kept = c;
            kept_bsf = b;
        }
    }
    if (kept != NONE) {
        res->best_rank = 1;
        for (size_t c = 0; c < s->configs; c++)
            if (s->cv[s->drawn[c]].optimal < s->cv[s->drawn[kept]].optimal)
                res->best_rank++;
    }
}

enum hpod_status
asha_sim_trace(const struct asha_sim_curve *curves, size_t n,
               const struct asha_params *prm, size_t workers, size_t configs,
               struct rng *r, struct asha_sim_result *out, size_t *drawn,
               size_t *trained)
{
    if (!curves || !prm || !r || !out || workers == 0 || configs == 0 ||
        configs > n)
        return HPOD_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!curves[i].ppl || curves[i].len == 0)
            return HPOD_EINVAL;

    struct sim s = {0};
    enum hpod_status st;
    size_t *perm = xmalloc(n * sizeof *perm);
    size_t *wcfg = xmalloc(workers * sizeof *wcfg);
    size_t cap = 0;

    s.cv = curves;
    s.prm = *prm;
    s.sense = -1;
    s.prm.mode = ASHA_PROMOTION;
    s.prm.exhausted = 0;
    s.prm.m = 1;
    s.prm.sense = &s.sense;
    s.configs = configs;
    s.drawn = xmalloc(configs * sizeof *s.drawn);
    s.trained = xcalloc(configs, sizeof *s.trained);
    s.limit = xmalloc(configs * sizeof *s.limit);
    s.paused = xcalloc(configs, 1);

    rng_draw(r, perm, n, configs);
    for (size_t j = 0; j < configs; j++) {
        s.drawn[j] = perm[j];
        size_t len = curves[perm[j]].len;
        s.limit[j] = len < s.prm.R ? len : s.prm.R;
        cap += s.limit[j];
    }
    s.obs_cfg = xmalloc(cap * sizeof *s.obs_cfg);
    s.obs_step = xmalloc(cap * sizeof *s.obs_step);
    s.obs_val = xmalloc(cap * sizeof *s.obs_val);

    st = sim_rebuild(&s);
    if (st != HPOD_OK)
        goto out;

    struct asha_sim_result res = {0};
    res.steps_full = cap;
    for (size_t w = 0; w < workers; w++)
        wcfg[w] = sim_ask(&s);
    for (;;) {
        int busy = 0;
        for (size_t w = 0; w < workers; w++)
            busy |= wcfg[w] != NONE;
        if (!busy)
            break;
        res.elapsed++;
        for (size_t w = 0; w < workers; w++) {
            size_t c = wcfg[w];
            if (c != NONE) {
                size_t step = ++s.trained[c];
                double v = curves[s.drawn[c]].ppl[step - 1];
                res.steps++;
                s.obs_cfg[s.n_obs] = (int64_t)c;
                s.obs_step[s.n_obs] = step;
                s.obs_val[s.n_obs] = v;
                s.n_obs++;
                asha_observe(s.a, (int64_t)c, step, &v);
                if (step >= s.limit[c]) {
                    wcfg[w] = NONE; /* finished */
                } else if (asha_decide(s.a, (int64_t)c, step) == ASHA_STOP) {
                    s.paused[c] = 1;
                    asha_pause(s.a, (int64_t)c);
                    wcfg[w] = NONE;
                }
            }
            if (wcfg[w] == NONE)
                wcfg[w] = sim_ask(&s);
        }
        for (size_t w = 0; w < workers; w++)
            if (wcfg[w] == NONE)
                wcfg[w] = sim_ask(&s);
    }

    sim_summarize(&s, &res);
    *out = res;
    for (size_t c = 0; c < configs; c++) {
        if (drawn)
            drawn[c] = s.drawn[c];
        if (trained)
            trained[c] = s.trained[c];
    }
out:
    asha_free(s.a);
    free(perm);
    free(wcfg);
    free(s.drawn);
    free(s.trained);
    free(s.limit);
    free(s.paused);
    free(s.obs_cfg);
    free(s.obs_step);
    free(s.obs_val);
    return st;
}

enum hpod_status
asha_sim_run(const struct asha_sim_curve *curves, size_t n,
             const struct asha_params *prm, size_t workers, size_t configs,
             struct rng *r, struct asha_sim_result *out)
{
    return asha_sim_trace(curves, n, prm, workers, configs, r, out, NULL, NULL);
}
