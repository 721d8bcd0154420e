/*
 * tools/decoupled_run.c - the replay of the decoupled policy on a table;
 * see decoupled_run.h.
 */
#include "tools/decoupled_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/decoupled.h"
#include "core/mobo.h"
#include "core/sampler.h"

/* A run's state: what is known of each row, and the observations. */
struct drun {
    const struct simulate_mo_problem *p;
    const unsigned char *dec;
    size_t n, np, nc;
    unsigned char *used; /* probed or trained: not chosen again */
    double *obs_raw, *obs_y, *obs_c, *dc, *dmax;
    unsigned char *dlog;
    size_t *obs_row, n_obs;
    size_t *slot; /* the observation of a row, (size_t)-1 if none */
};

/* Records what an event on row measured. */
static void
observe(struct drun *s, size_t row, int train)
{
    const struct simulate_mo_problem *p = s->p;
    size_t i = s->slot[row];
    if (i == (size_t)-1) {
        i = s->slot[row] = s->n_obs++;
        s->obs_row[i] = row;
        memcpy(s->obs_raw + i * s->np, p->raw + row * s->np,
               s->np * sizeof *s->obs_raw);
        s->obs_y[i] = NAN;
        for (size_t c = 0; c < s->nc; c++)
            s->obs_c[i * s->nc + c] = NAN;
    }
    if (train)
        s->obs_y[i] = p->y[row];
    for (size_t c = 0; c < s->nc; c++)
        if (train || s->dec[c])
            s->obs_c[i * s->nc + c] = p->c[row * s->nc + c];
    s->used[row] = 1;
}

/* Whether a probe of row passed: every decoupled constraint holds. */
static int
probe_passed(const struct drun *s, size_t row)
{
    for (size_t c = 0; c < s->nc; c++)
        if (s->dec[c] && !(s->p->c[row * s->nc + c] <= s->p->con_max[c]))
            return 0;
    return 1;
}

/* The constrained-EI choice of step seq (random while mobo cannot). */
static enum hpod_status
choose(const struct drun *s, const struct simulate_mo_algo *a,
       unsigned long long seed, size_t seq, size_t *row)
{
    double *raw = xmalloc(s->np * sizeof *raw);
    struct simulate_mo_step step = {.used = s->used,
                                    .m = 1,
                                    .n_con = s->nc,
                                    .n_obs = s->n_obs,
                                    .obs_raw = s->obs_raw,
                                    .obs_y = s->obs_y,
                                    .obs_c = s->obs_c,
                                    .obs_cand = s->obs_row};
    enum hpod_status st =
        simulate_mo_choose(s->p, a, seed, seq, &step, raw, row);
    free(raw);
    return st;
}

/* q: the probability that the decoupled constraints hold at row. */
static enum hpod_status
probe_prob(const struct drun *s, const struct simulate_mo_algo *a,
           unsigned long long seed, size_t seq, size_t row, double *q)
{
    const struct simulate_mo_problem *p = s->p;
    size_t nd = 0;
    for (size_t c = 0; c < s->nc; c++) {
        if (!s->dec[c])
            continue;
        /* As the service (study/constraints.c): too few reports of a
         * decoupled constraint vouch for nothing, so q = 0 and it probes. */
        size_t reports = 0;
        for (size_t i = 0; i < s->n_obs; i++)
            reports += isfinite(s->obs_c[i * s->nc + c]) != 0;
        if (reports < MOBO_MIN_CON_REPORTS) {
            *q = 0;
            return HPOD_OK;
        }
        for (size_t i = 0; i < s->n_obs; i++)
            s->dc[i * s->nc + nd] = s->obs_c[i * s->nc + c];
        s->dmax[nd] = p->con_max[c];
        s->dlog[nd] = p->con_log ? p->con_log[c] : 0;
        nd++;
    }
    /* dc holds nd columns at stride nc: repack to stride nd. */
    for (size_t i = 0; i < s->n_obs; i++)
        for (size_t c = 0; c < nd; c++)
            s->dc[i * nd + c] = s->dc[i * s->nc + c];
    double *u = xmalloc((p->space->dim ? p->space->dim : 1) * sizeof *u);
    space_encode(p->space, p->raw + row * s->np, u);
    struct mobo_input mi;
    memset(&mi, 0, sizeof mi);
    mi.space = p->space;
    mi.kernel = a->kernel;
    mi.seed = seed;
    mi.seq = (int)seq;
    mi.m = 1;
    mi.obs_raw = s->obs_raw;
    mi.n_obs = s->n_obs;
    mi.n_con = nd;
    mi.obs_c = s->dc;
    mi.con_max = s->dmax;
    mi.con_log = s->dlog;
    enum hpod_status st = mobo_feasibility(&mi, u, 1, q);
    free(u);
    return st;
}

static enum hpod_status
check_run(const struct simulate_mo_problem *p, const struct simulate_mo_algo *a,
          const unsigned char *dec, const double *cost, double *total)
{
    if (!p || !a || !dec || !cost || !p->space || !p->raw || !p->y || !p->c ||
        !p->con_max || p->m != 1 || p->n_con == 0 || p->n == 0 ||
        p->space->n_params == 0)
        return HPOD_EINVAL;
    *total = 0;
    for (size_t c = 0; c < p->n_con; c++) {
        if (!dec[c])
            continue;
        if (!(cost[c] > 0 && cost[c] <= 1))
            return HPOD_EINVAL;
        *total += cost[c];
    }
    return *total > 0 ? HPOD_OK : HPOD_EINVAL;
}

static void
drun_free(struct drun *s)
{
    free(s->used);
    free(s->obs_raw);
    free(s->obs_y);
    free(s->obs_c);
    free(s->dc);
    free(s->dmax);
    free(s->dlog);
    free(s->obs_row);
    free(s->slot);
}

enum hpod_status
decoupled_run(const struct simulate_mo_problem *p,
              const struct simulate_mo_algo *a, const unsigned char *decoupled,
              const double *cost, unsigned long long seed, size_t init,
              double budget, size_t *rows, unsigned char *kinds,
              size_t *n_events)
{
    double probe_cost = 0, spent = 0;
    enum hpod_status st;
    if (n_events)
        *n_events = 0;
    if (!rows || !kinds || !n_events ||
        (st = check_run(p, a, decoupled, cost, &probe_cost)) != HPOD_OK)
        return HPOD_EINVAL;

    struct drun s = {.p = p, .dec = decoupled, .n = p->n};
    size_t n = p->n, ne = 0, nc = p->n_con, waiting = (size_t)-1;
    s.np = p->space->n_params;
    s.nc = nc;
    s.used = xcalloc(n, 1);
    s.obs_raw = xmalloc(n * s.np * sizeof *s.obs_raw);
    s.obs_y = xmalloc(n * sizeof *s.obs_y);
    s.obs_c = xmalloc(n * nc * sizeof *s.obs_c);
    s.dc = xmalloc(n * nc * sizeof *s.dc);
    s.dmax = xmalloc(nc * sizeof *s.dmax);
    s.dlog = xmalloc(nc * sizeof *s.dlog);
    s.obs_row = xmalloc(n * sizeof *s.obs_row);
    s.slot = xmalloc(n * sizeof *s.slot);
    for (size_t i = 0; i < n; i++)
        s.slot[i] = (size_t)-1;

    /* The initial rows, as simulate_run_mo's, are trained. */
    size_t ninit = init < n ? init : n;
    unsigned char *tmp = xcalloc(n, 1);
    simulate_init_rows(seed, n, ninit, tmp, rows);
    free(tmp);
    st = HPOD_OK;
    for (size_t i = 0; i < ninit && spent + 1 <= budget; i++) {
        observe(&s, rows[i], 1);
        kinds[ne++] = DECOUPLED_TRAIN;
        spent += 1;
    }
    for (size_t seq = ne; st == HPOD_OK && ne < 2 * n; seq++) {
        size_t row = waiting;
        int train = 1;
        if (row == (size_t)-1) {
            st = choose(&s, a, seed, seq, &row);
            if (st == HPOD_ENOTFOUND) {
                st = HPOD_OK;
                break;
            }
            if (st != HPOD_OK)
                break;
            double q = NAN;
            if (!a->random &&
                (st = probe_prob(&s, a, seed, seq, row, &q)) != HPOD_OK)
                break;
            train = a->random || !decoupled_probe_first(q, probe_cost);
        }
        double c = train ? 1 : probe_cost;
        if (spent + c > budget)
            break;
        spent += c;
        observe(&s, row, train);
        rows[ne] = row;
        kinds[ne++] = train ? DECOUPLED_TRAIN : DECOUPLED_PROBE;
        waiting = !train && probe_passed(&s, row) ? row : (size_t)-1;
    }
    *n_events = ne;
    drun_free(&s);
    return st;
}
