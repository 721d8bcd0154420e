/*
 * core/simulate.c - seeded simulated runs on a lookup table and their
 * metrics (simulate.h). No I/O and no threads: the table comes from
 * bench/tables.c, threading lives in tools/.
 */
#include "core/simulate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/mobo.h"
#include "core/pareto.h"
#include "core/rng.h"

void
simulate_init_rows(unsigned long long seed, size_t n, size_t count,
                   unsigned char *used, size_t *out)
{
    size_t free_n = n;
    for (size_t i = 0; i < n; i++)
        free_n -= used[i] != 0;
    for (size_t d = 0; d < count && free_n > 0; d++) {
        struct rng r;
        /*
         * One stream per issue number, as sampler_next seeds its random
         * path (rng_seed2(seed, seq)), so that the initial rows of a
         * simulation are those a real study with this seed would get.
         */
        rng_seed2(&r, seed, (uint64_t)d);
        size_t k = (size_t)rng_below(&r, free_n);
        for (size_t i = 0; i < n; i++) {
            if (used[i])
                continue;
            if (k-- == 0) {
                used[i] = 1;
                out[d] = i;
                break;
            }
        }
        free_n--;
    }
}

/* Appends row to the observations of a run. */
static void
observe(const struct simulate_problem *p, size_t row, size_t len,
        double *obs_raw, double *obs_y)
{
    size_t np = p->space->n_params;
    memcpy(obs_raw + len * np, p->raw + row * np, np * sizeof *obs_raw);
    obs_y[len] = p->y[row];
}

/*
 * Appends the sampler's choice to the run: it must be a row of the table
 * not sampled yet (else the sampler broke its contract: HPOD_EINTERNAL).
 */
static enum hpod_status
take_row(unsigned char *used, size_t n, size_t cand, size_t *seq_out,
         size_t len)
{
    if (cand >= n || used[cand])
        return HPOD_EINTERNAL;
    used[cand] = 1;
    seq_out[len] = cand;
    return HPOD_OK;
}

enum hpod_status
simulate_run(const struct simulate_problem *p, const struct simulate_algo *a,
             unsigned long long seed, size_t init, size_t length,
             const struct metric_spec *until, struct sampler_state *state,
             size_t *seq_out, size_t *len_out)
{
    enum hpod_status st = HPOD_OK;
    unsigned char *used = NULL;
    double *obs_raw = NULL, *obs_y = NULL, *raw = NULL;
    struct sampler_state *own = NULL;
    struct sampler_gp_model model = {0};
    size_t len = 0;

    if (len_out)
        *len_out = 0;
    if (!p || !a || !seq_out || !len_out || !p->space || !p->raw || !p->y ||
        p->n == 0 || length == 0 || p->space->n_params == 0)
        return HPOD_EINVAL;

    size_t n = p->n, np = p->space->n_params;
    size_t cap = length < n ? length : n;
    size_t ninit = init < cap ? init : cap;

    used = xcalloc(n, 1);
    obs_raw = xmalloc(cap * np * sizeof *obs_raw);
    obs_y = xmalloc(cap * sizeof *obs_y);
    raw = xmalloc(np * sizeof *raw);

    if (a->prior && a->kind == SAMPLER_GP)
        ninit = 0; /* the sampler draws the initial design from the prior */
    simulate_init_rows(seed, n, ninit, used, seq_out);
    for (; len < ninit; len++) {
        observe(p, seq_out[len], len, obs_raw, obs_y);
        if (until && metric_needed_length(until, seq_out, len + 1) != 0) {
            len++;
            goto out;
        }
    }

    struct sampler_input in;
    memset(&in, 0, sizeof in);
    in.space = p->space;
    in.kind = a->kind;
    in.seed = seed;
    in.init = (int)init;
    in.kernel = a->kernel;
    in.acquisition = a->acquisition;
    in.prior_cand = a->prior;
    in.prior_rule = a->prior_rule;
    in.variant = a->variant;
    in.ls_min = a->ls_min;
    in.trust_div = a->trust_div;
    in.ls_prior = a->ls_prior;
    in.cand_raw = p->raw;
    in.cand_used = used;
    in.n_cand = n;
    in.obs_raw = obs_raw;
    in.obs_y = obs_y;
    in.obs_cand = seq_out;
    /*
     * The graph sampler keeps its graph and factor in the state, so each
     * step downdates instead of refactoring; the answer does not depend on
     * it (sampler.h), only the time. Without a caller's state, a private
     * one lives for this run.
     */
    if (!state)
        state = own = sampler_state_create();
    in.state = state;
    /* The GP's kept hyperparameters, as a study keeps them in its database
     * row: refitted on gp_refit_due's schedule, as hpod serves. */
    in.gp_model = &model;

    while (len < cap) {
        size_t cand = (size_t)-1;
        in.seq = (int)len;
        in.n_obs = len;
        st = sampler_next(&in, raw, &cand);
        if (st != HPOD_OK ||
            (st = take_row(used, n, cand, seq_out, len)) != HPOD_OK)
            goto out;
        observe(p, cand, len, obs_raw, obs_y);
        len++;
        if (until && metric_needed_length(until, seq_out, len) != 0)
            break;
    }

out:
    *len_out = len;
    free(used);
    free(obs_raw);
    free(obs_y);
    free(raw);
    sampler_state_free(own);
    sampler_gp_model_clear(&model);
    return st;
}

enum hpod_status
simulate_many(const struct simulate_problem *p, const struct simulate_algo *a,
              unsigned long long seed0, size_t runs, size_t init, size_t length,
              const struct metric_spec *until, size_t *seqs, size_t *lens)
{
    if (!p || !seqs || !lens || p->n == 0 || length == 0)
        return HPOD_EINVAL;
    size_t stride = length < p->n ? length : p->n;
    enum hpod_status st = HPOD_OK;
    /* One state for all runs: the graph over the table is built once. */
    struct sampler_state *state = sampler_state_create();
    for (size_t r = 0; r < runs; r++)
        lens[r] = 0;
    for (size_t r = 0; r < runs && st == HPOD_OK; r++)
        st = simulate_run(p, a, seed0 + r, init, length, until, state,
                          seqs + r * stride, &lens[r]);
    sampler_state_free(state);
    return st;
}

/*
 * Mean and population std of the reached values v[0..k); missed counts
 * the runs that did not reach the target.
 */
static void
stat_fill(struct simulate_stat *s, const double *v, size_t k, size_t missed)
{
    s->runs = k;
    s->missed = missed;
    if (k == 0) {
        s->mean = s->std = NAN;
        return;
    }
    metric_mean_std(v, k, &s->mean, &s->std);
}

static void
stat_off(struct simulate_stat *s)
{
    s->mean = s->std = NAN;
    s->runs = s->missed = 0;
}

void
simulate_summarize(const struct metric_spec *spec, const size_t *seqs,
                   size_t stride, const size_t *lens, size_t runs,
                   struct simulate_summary *out)
{
    double *v[6];
    size_t k[6] = {0}, miss[6] = {0};

    for (int m = 0; m < 6; m++)
        v[m] = xmalloc((runs ? runs : 1) * sizeof *v[m]);
    for (size_t r = 0; r < runs; r++) {
        const size_t *s = seqs + r * stride;
        size_t len = lens[r];
        double x[6] = {0};
        int on[6] = {0};
        if (metric_spec_measures(spec, METRIC_FTB)) {
            x[0] = (double)metric_ftb(s, len, spec->y, spec->n, spec->ninit);
            on[0] = x[0] != 0 ? 1 : -1;
        }
        if (metric_spec_measures(spec, METRIC_FTC)) {
            x[1] = (double)metric_ftc(s, len, spec->y, spec->n, spec->ninit,
                                      spec->tol);
            on[1] = x[1] != 0 ? 1 : -1;
        }
        if (metric_spec_measures(spec, METRIC_FB)) {
            x[2] = metric_fb(s, len, spec->y, spec->n, spec->fb_budget);
            on[2] = isfinite(x[2]) ? 1 : -1;
        }
        if (metric_spec_measures(spec, METRIC_FTO)) {
            x[3] =
                (double)metric_fto(s, len, spec->pareto, spec->n, spec->ninit);
            on[3] = x[3] != 0 ? 1 : -1;
        }
        if (metric_spec_measures(spec, METRIC_FTA)) {
            x[4] =
                (double)metric_fta(s, len, spec->pareto, spec->n, spec->ninit);
            on[4] = x[4] != 0 ? 1 : -1;
        }
        if (metric_spec_measures(spec, METRIC_FBP)) {
            x[5] = (double)metric_fbp(s, len, spec->pareto, spec->n,
                                      spec->fbp_budget);
            on[5] = 1;
        }
        for (int m = 0; m < 6; m++) {
            if (on[m] > 0)
                v[m][k[m]++] = x[m];
            else if (on[m] < 0)
                miss[m]++;
        }
    }
    struct simulate_stat *dst[6] = {&out->ftb, &out->ftc, &out->fb,
                                    &out->fto, &out->fta, &out->fbp};
    for (int m = 0; m < 6; m++) {
        if (metric_spec_measures(spec, (enum metric_id)m))
            stat_fill(dst[m], v[m], k[m], miss[m]);
        else
            stat_off(dst[m]);
        free(v[m]);
    }
}

void
simulate_rs_ftb_expectation(size_t n, size_t ninit, double *mean, double *std)
{
    /*
     * P is uniform on 1..n; the metric reports max(P, ninit). Sum the
     * first and second moments exactly (n is at most a few thousand).
     */
    double s1 = 0, s2 = 0;
    for (size_t p = 1; p <= n; p++) {
        double x = (double)(p < ninit ? ninit : p);
        s1 += x;
        s2 += x * x;
    }
    double m = n ? s1 / (double)n : NAN;
    double var = n ? s2 / (double)n - m * m : NAN;
    *mean = m;
    *std = sqrt(var > 0 ? var : 0);
}

/*
 * The reference point a study uses (study/pareto.c) for what run step s
 * has observed: the worst value of the complete observations moved out by
 * PARETO_REF_MARGIN of their range, oriented. Never the table's: a study
 * knows only its own trials. Caller frees.
 */
static double *
observed_reference(const struct simulate_mo_step *s)
{
    size_t m = s->m;
    double *y = xmalloc((s->n_obs ? s->n_obs : 1) * m * sizeof *y);
    double *ref = xmalloc(m * sizeof *ref);
    int *ones = xmalloc(m * sizeof *ones);

    for (size_t j = 0; j < m; j++)
        ones[j] = 1;
    size_t k = pareto_complete_rows(s->obs_y, s->n_obs, m, y);
    pareto_reference(y, k, m, ones, PARETO_REF_MARGIN, ref);
    free(ones);
    free(y);
    return ref;
}

enum hpod_status
simulate_mo_choose(const struct simulate_mo_problem *p,
                   const struct simulate_mo_algo *a, unsigned long long seed,
                   size_t seq, const struct simulate_mo_step *s, double *raw,
                   size_t *row)
{
    enum hpod_status st = HPOD_ENUMERIC;
    double *ref = NULL;
    if (!a->random) {
        struct mobo_input mi;
        ref = observed_reference(s);
        memset(&mi, 0, sizeof mi);
        mi.space = p->space;
        mi.surrogate = a->surrogate;
        mi.kernel = a->kernel;
        mi.seed = seed;
        mi.seq = (int)seq;
        mi.cand_raw = p->raw;
        mi.cand_used = s->used;
        mi.n_cand = p->n;
        mi.m = s->m;
        mi.ref = ref;
        mi.obs_raw = s->obs_raw;
        mi.obs_y = s->obs_y;
        mi.obs_cand = s->obs_cand;
        mi.n_obs = s->n_obs;
        mi.n_con = s->n_con;
        mi.obs_c = s->n_con ? s->obs_c : NULL;
        mi.con_max = p->con_max;
        mi.con_log = p->con_log;
        mi.trust_k = a->trust_k;
        mi.front_ref = a->front_ref;
        mi.gp_blend = a->gp_blend;
        mi.trust_shape = a->trust_shape;
        mi.state = s->state;
        st = mobo_next(&mi, raw, row);
    }
    if (st != HPOD_OK && st != HPOD_ENOTFOUND) {
        /* The server's fallback: the step's own random choice. */
        struct sampler_input in;
        memset(&in, 0, sizeof in);
        in.space = p->space;
        in.kind = SAMPLER_RANDOM;
        in.seed = seed;
        in.seq = (int)seq;
        in.cand_raw = p->raw;
        in.cand_used = s->used;
        in.n_cand = p->n;
        st = sampler_next(&in, raw, row);
    }
    free(ref);
    return st;
}

enum hpod_status
simulate_run_mo(const struct simulate_mo_problem *p,
                const struct simulate_mo_algo *a, unsigned long long seed,
                size_t init, size_t length, const struct metric_spec *until,
                size_t *seq_out, size_t *len_out)
{
    enum hpod_status st = HPOD_OK;
    unsigned char *used = NULL;
    double *obs_raw = NULL, *obs_y = NULL, *obs_c = NULL, *raw = NULL;
    struct mobo_state *state = NULL;
    size_t len = 0;

    if (len_out)
        *len_out = 0;
    if (!p || !a || !seq_out || !len_out || !p->space || !p->raw || !p->y ||
        !p->ref || p->n == 0 || p->m == 0 || length == 0 ||
        p->space->n_params == 0 || (p->n_con && (!p->c || !p->con_max)))
        return HPOD_EINVAL;

    size_t n = p->n, np = p->space->n_params, m = p->m, nc = p->n_con;
    size_t cap = length < n ? length : n;
    size_t ninit = init < cap ? init : cap;

    used = xcalloc(n, 1);
    obs_raw = xmalloc(cap * np * sizeof *obs_raw);
    obs_y = xmalloc(cap * m * sizeof *obs_y);
    obs_c = xmalloc(cap * (nc ? nc : 1) * sizeof *obs_c);
    raw = xmalloc(np * sizeof *raw);
    state = a->random ? NULL : mobo_state_create();

    simulate_init_rows(seed, n, ninit, used, seq_out);
    while (len < cap) {
        size_t row;
        if (len < ninit) {
            row = seq_out[len];
        } else {
            size_t cand = (size_t)-1;
            struct simulate_mo_step step = {.used = used,
                                            .m = m,
                                            .n_con = nc,
                                            .n_obs = len,
                                            .obs_raw = obs_raw,
                                            .obs_y = obs_y,
                                            .obs_c = obs_c,
                                            .obs_cand = seq_out,
                                            .state = state};
            st = simulate_mo_choose(p, a, seed, len, &step, raw, &cand);
            if (st != HPOD_OK ||
                (st = take_row(used, n, cand, seq_out, len)) != HPOD_OK)
                goto out;
            row = cand;
        }
        memcpy(obs_raw + len * np, p->raw + row * np, np * sizeof *raw);
        memcpy(obs_y + len * m, p->y + row * m, m * sizeof *obs_y);
        if (nc)
            memcpy(obs_c + len * nc, p->c + row * nc, nc * sizeof *obs_c);
        len++;
        if (until && metric_needed_length(until, seq_out, len) != 0)
            break;
    }
out:
    *len_out = len;
    mobo_state_free(state);
    free(used);
    free(obs_raw);
    free(obs_y);
    free(obs_c);
    free(raw);
    return st;
}
