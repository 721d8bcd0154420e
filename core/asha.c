/*
 * core/asha.c - ASHA rung bookkeeping and the promotion rule (contract
 * and rules in core/asha.h).
 *
 * The state keeps the raw reports and the paused set. Any query first
 * "compiles" them (once per change): reports sorted by (config, step),
 * each configuration's arrival step and BSF vector at every rung, and the
 * order of every rung. Sorting before anything else is what makes every
 * answer independent of the order in which reports were added.
 *
 * Pure: no I/O, no globals; memory from xmalloc (common/mem.h).
 */
#include "core/asha.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/pareto.h"

#define NONE ((size_t)-1)

struct asha {
    struct asha_params prm;
    int sense[ASHA_MAX_OBJECTIVES];
    size_t m;
    size_t *rungs; /* n_rungs steps, ascending */
    size_t n_rungs;
    size_t n_dec; /* decision rungs: those < R */

    /* Raw input. */
    int64_t *obs_cfg;
    size_t *obs_step;
    double *obs_val; /* n_obs × m */
    size_t n_obs, cap_obs;
    int64_t *paused;
    size_t n_paused, cap_paused;

    /* Compiled (valid when !dirty). */
    int dirty;
    int64_t *ids; /* n_cfg distinct configs, ascending */
    size_t n_cfg;
    size_t *maxstep;          /* n_cfg */
    unsigned char *is_paused; /* n_cfg */
    size_t *arrival;          /* n_cfg × n_rungs, NONE if not reached */
    double *value;            /* n_cfg × n_rungs × m */
    size_t *pos;              /* n_cfg × n_rungs, NONE if not reached */
    size_t *k;                /* n_rungs */
};

/* Sort key for a rung's order. */
struct rkey {
    int nan;  /* 1 if the value holds a NaN */
    int rank; /* non-dominated rank (m > 1) */
    double v; /* m == 1: value, sign-flipped so that smaller is better;
                 m > 1: minus the crowding distance */
    int64_t id;
    size_t c; /* config index */
};

static int obs_cmp(const void *pa, const void *pb, void *ctx);
static void msort(size_t *idx, size_t *tmp, size_t n, void *ctx);
static void free_compiled(struct asha *a);
static int rkey_cmp(const void *pa, const void *pb);
static int i64_cmp(const void *pa, const void *pb);
static void compile(struct asha *a);
static void order_rung(struct asha *a, size_t i, struct rkey *keys, double *y,
                       size_t *idx, int *rank, double *dist);
static size_t find_cfg(const struct asha *a, int64_t config);
static size_t limit_at(const struct asha *a, size_t i);
static int better(double x, double best, int sense);

size_t
asha_rungs(size_t r, size_t u, size_t R, size_t *out)
{
    size_t n = 0;
    if (r == 0 || u == 0 || r > R)
        return 0;
    for (size_t s = r;; s += u) {
        if (out)
            out[n] = s;
        n++;
        /* Stop before s + u could pass R or wrap around. */
        if (R - s < u)
            break;
    }
    return n;
}

enum hpod_status
asha_create(const struct asha_params *prm, struct asha **out)
{
    if (!out)
        return HPOD_EINVAL;
    *out = NULL;
    if (!prm || !prm->sense || prm->r == 0 || prm->u == 0 || prm->R < prm->r ||
        prm->p < 2 || prm->m == 0 || prm->m > ASHA_MAX_OBJECTIVES ||
        (prm->mode != ASHA_PROMOTION && prm->mode != ASHA_STOPPING))
        return HPOD_EINVAL;
    struct asha *a = xcalloc(1, sizeof *a);
    a->prm = *prm;
    a->m = prm->m;
    for (size_t j = 0; j < prm->m; j++)
        a->sense[j] = prm->sense[j] < 0 ? -1 : 1;
    a->prm.sense = a->sense;
    a->n_rungs = asha_rungs(prm->r, prm->u, prm->R, NULL);
    a->rungs = xmalloc(a->n_rungs * sizeof *a->rungs);
    asha_rungs(prm->r, prm->u, prm->R, a->rungs);
    a->n_dec = a->n_rungs;
    if (a->rungs[a->n_rungs - 1] == prm->R)
        a->n_dec--;
    a->dirty = 1;
    *out = a;
    return HPOD_OK;
}

static void
free_compiled(struct asha *a)
{
    free(a->ids);
    free(a->maxstep);
    free(a->is_paused);
    free(a->arrival);
    free(a->value);
    free(a->pos);
    free(a->k);
    a->ids = NULL;
    a->maxstep = NULL;
    a->is_paused = NULL;
    a->arrival = NULL;
    a->value = NULL;
    a->pos = NULL;
    a->k = NULL;
    a->n_cfg = 0;
}

void
asha_free(struct asha *a)
{
    if (!a)
        return;
    free_compiled(a);
    free(a->rungs);
    free(a->obs_cfg);
    free(a->obs_step);
    free(a->obs_val);
    free(a->paused);
    free(a);
}

size_t
asha_n_rungs(const struct asha *a)
{
    return a ? a->n_rungs : 0;
}

enum hpod_status
asha_observe(struct asha *a, int64_t config, size_t step, const double *values)
{
    if (!a || !values)
        return HPOD_EINVAL;
    if (a->n_obs == a->cap_obs) {
        a->cap_obs = a->cap_obs ? 2 * a->cap_obs : 64;
        a->obs_cfg = xrealloc(a->obs_cfg, a->cap_obs * sizeof *a->obs_cfg);
        a->obs_step = xrealloc(a->obs_step, a->cap_obs * sizeof *a->obs_step);
        a->obs_val =
            xrealloc(a->obs_val, a->cap_obs * a->m * sizeof *a->obs_val);
    }
    a->obs_cfg[a->n_obs] = config;
    a->obs_step[a->n_obs] = step;
    memcpy(&a->obs_val[a->n_obs * a->m], values, a->m * sizeof *values);
    a->n_obs++;
    a->dirty = 1;
    return HPOD_OK;
}

void
asha_pause(struct asha *a, int64_t config)
{
    if (!a)
        return;
    if (a->n_paused == a->cap_paused) {
        a->cap_paused = a->cap_paused ? 2 * a->cap_paused : 16;
        a->paused = xrealloc(a->paused, a->cap_paused * sizeof *a->paused);
    }
    a->paused[a->n_paused++] = config;
    a->dirty = 1;
}

/* ------------------------------------------------------------------ */
/* Compilation.                                                        */

/* qsort has no context argument in C11: sort an index array by key. */
struct obs_ctx {
    const int64_t *cfg;
    const size_t *step;
};

static int
obs_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct obs_ctx *o = ctx;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    if (o->cfg[a] != o->cfg[b])
        return o->cfg[a] < o->cfg[b] ? -1 : 1;
    if (o->step[a] != o->step[b])
        return o->step[a] < o->step[b] ? -1 : 1;
    return 0;
}

/*
 * A merge sort of idx[0..n) with a context comparator (qsort_r is not
 * C11). Stable, O(n log n), tmp has n entries.
 */
static void
msort(size_t *idx, size_t *tmp, size_t n, void *ctx)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    msort(idx, tmp, h, ctx);
    msort(idx + h, tmp, n - h, ctx);
    size_t i = 0, j = h, o = 0;
    while (i < h && j < n)
        tmp[o++] = obs_cmp(&idx[j], &idx[i], ctx) < 0 ? idx[j++] : idx[i++];
    while (i < h)
        tmp[o++] = idx[i++];
    while (j < n)
        tmp[o++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

static int
i64_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

static int
better(double x, double best, int sense)
{
    if (isnan(x))
        return 0;
    if (isnan(best))
        return 1;
    return sense < 0 ? x < best : x > best;
}

static int
rkey_cmp(const void *pa, const void *pb)
{
    const struct rkey *a = pa, *b = pb;
    if (a->nan != b->nan)
        return a->nan - b->nan;
    if (!a->nan) {
        if (a->rank != b->rank)
            return a->rank - b->rank;
        if (a->v != b->v)
            return a->v < b->v ? -1 : 1;
    }
    return (a->id > b->id) - (a->id < b->id);
}

/*
 * Orders the members of rung i and writes their positions. Scratch: keys
 * (n_cfg), y (n_cfg × m), idx (n_cfg), rank (n_cfg), dist (n_cfg).
 */
static void
order_rung(struct asha *a, size_t i, struct rkey *keys, double *y, size_t *idx,
           int *rank, double *dist)
{
    size_t m = a->m, nr = a->n_rungs, k = 0, nf = 0;
    for (size_t c = 0; c < a->n_cfg; c++) {
        if (a->arrival[c * nr + i] == NONE)
            continue;
        const double *v = &a->value[(c * nr + i) * m];
        struct rkey *key = &keys[k++];
        key->nan = 0;
        for (size_t j = 0; j < m; j++)
            key->nan |= isnan(v[j]);
        key->rank = 0;
        key->v = 0;
        key->id = a->ids[c];
        key->c = c;
        if (key->nan)
            continue;
        if (m == 1) {
            /* Smaller is better after the flip. */
            key->v = a->sense[0] < 0 ? v[0] : -v[0];
        } else {
            memcpy(&y[nf * m], v, m * sizeof *v);
            idx[nf++] = k - 1;
        }
    }
    a->k[i] = k;
    if (m > 1 && nf > 0) {
        /*
         * Non-dominated sorting, then crowding distance within each front
         * (Deb et al. 2002, NSGA-II's crowded-comparison order).
         */
        pareto_rank(y, nf, m, a->sense, rank);
        int max_rank = 0;
        for (size_t f = 0; f < nf; f++) {
            keys[idx[f]].rank = rank[f];
            if (rank[f] > max_rank)
                max_rank = rank[f];
        }
        size_t *members = xmalloc(nf * sizeof *members);
        for (int r = 0; r <= max_rank; r++) {
            size_t nm = 0;
            for (size_t f = 0; f < nf; f++)
                if (rank[f] == r)
                    members[nm++] = f;
            if (nm == 0)
                continue;
            pareto_crowding(y, members, nm, m, dist);
            for (size_t j = 0; j < nm; j++)
                keys[idx[members[j]]].v = -dist[j];
        }
        free(members);
    }
    qsort(keys, k, sizeof *keys, rkey_cmp);
    for (size_t j = 0; j < k; j++)
        a->pos[keys[j].c * nr + i] = j;
}

static void
compile(struct asha *a)
{
    size_t n = a->n_obs, m = a->m, nr = a->n_rungs;
    if (!a->dirty)
        return;
    free_compiled(a);

    size_t *idx = xmalloc((n ? n : 1) * sizeof *idx);
    size_t *tmp = xmalloc((n ? n : 1) * sizeof *tmp);
    for (size_t j = 0; j < n; j++)
        idx[j] = j;
    struct obs_ctx ctx = {a->obs_cfg, a->obs_step};
    msort(idx, tmp, n, &ctx);

    /* Distinct configurations (ascending, since reports are sorted). */
    a->ids = xmalloc((n ? n : 1) * sizeof *a->ids);
    for (size_t j = 0; j < n; j++)
        if (a->n_cfg == 0 || a->ids[a->n_cfg - 1] != a->obs_cfg[idx[j]])
            a->ids[a->n_cfg++] = a->obs_cfg[idx[j]];
    size_t nc = a->n_cfg;
    a->maxstep = xcalloc(nc ? nc : 1, sizeof *a->maxstep);
    a->is_paused = xcalloc(nc ? nc : 1, 1);
    a->arrival = xmalloc((nc ? nc : 1) * nr * sizeof *a->arrival);
    a->value = xmalloc((nc ? nc : 1) * nr * m * sizeof *a->value);
    a->pos = xmalloc((nc ? nc : 1) * nr * sizeof *a->pos);
    a->k = xcalloc(nr, sizeof *a->k);
    for (size_t j = 0; j < nc * nr; j++)
        a->arrival[j] = a->pos[j] = NONE;

    /*
     * One pass per configuration in step order: fold every report of a
     * step into the running best, then that step is the arrival at every
     * rung it reaches for the first time.
     */
    double best[ASHA_MAX_OBJECTIVES];
    size_t j = 0;
    for (size_t c = 0; c < nc; c++) {
        size_t next = 0; /* first rung not reached yet */
        for (size_t d = 0; d < m; d++)
            best[d] = NAN;
        while (j < n && a->obs_cfg[idx[j]] == a->ids[c]) {
            size_t s = a->obs_step[idx[j]];
            while (j < n && a->obs_cfg[idx[j]] == a->ids[c] &&
                   a->obs_step[idx[j]] == s) {
                const double *v = &a->obs_val[idx[j] * m];
                for (size_t d = 0; d < m; d++)
                    if (better(v[d], best[d], a->sense[d]))
                        best[d] = v[d];
                j++;
            }
            a->maxstep[c] = s;
            for (; next < nr && a->rungs[next] <= s; next++) {
                a->arrival[c * nr + next] = s;
                memcpy(&a->value[(c * nr + next) * m], best, m * sizeof *best);
            }
        }
    }

    for (size_t q = 0; q < a->n_paused; q++) {
        size_t c = find_cfg(a, a->paused[q]);
        if (c != NONE)
            a->is_paused[c] = 1;
    }

    struct rkey *keys = xmalloc((nc ? nc : 1) * sizeof *keys);
    double *y = xmalloc((nc ? nc : 1) * m * sizeof *y);
    size_t *ridx = xmalloc((nc ? nc : 1) * sizeof *ridx);
    int *rank = xmalloc((nc ? nc : 1) * sizeof *rank);
    double *dist = xmalloc((nc ? nc : 1) * sizeof *dist);
    for (size_t i = 0; i < nr; i++)
        order_rung(a, i, keys, y, ridx, rank, dist);
    free(keys);
    free(y);
    free(ridx);
    free(rank);
    free(dist);
    free(idx);
    free(tmp);
    a->dirty = 0;
}

/* Index of config in the compiled ids, or NONE (binary search). */
static size_t
find_cfg(const struct asha *a, int64_t config)
{
    const int64_t *hit =
        bsearch(&config, a->ids, a->n_cfg, sizeof *a->ids, i64_cmp);
    return hit ? (size_t)(hit - a->ids) : NONE;
}

static size_t
limit_at(const struct asha *a, size_t i)
{
    size_t k = a->k[i], lim;
    if (i >= a->n_dec)
        return 0;
    lim = k / a->prm.p;
    if ((i + 1 == a->n_dec || a->prm.exhausted) && lim < a->prm.keep)
        lim = a->prm.keep;
    if (a->prm.mode == ASHA_STOPPING && lim < 1)
        lim = 1;
    return lim < k ? lim : k;
}

/* ------------------------------------------------------------------ */
/* Queries.                                                            */

enum asha_action
asha_decide(struct asha *a, int64_t config, size_t step)
{
    if (!a || step >= a->prm.R)
        return ASHA_CONTINUE;
    compile(a);
    size_t c = find_cfg(a, config), nr = a->n_rungs;
    if (c == NONE)
        return ASHA_CONTINUE;
    for (size_t i = 0; i < a->n_dec; i++)
        if (a->arrival[c * nr + i] == step &&
            !(a->pos[c * nr + i] < limit_at(a, i)))
            return ASHA_STOP;
    return ASHA_CONTINUE;
}

int
asha_promotable(struct asha *a, struct asha_promotion *out)
{
    if (!a || !out || a->prm.mode != ASHA_PROMOTION)
        return 0;
    compile(a);
    size_t nr = a->n_rungs;
    for (size_t i = a->n_dec; i-- > 0;) {
        size_t lim = limit_at(a, i), pick = NONE;
        for (size_t c = 0; c < a->n_cfg; c++) {
            if (!a->is_paused[c] || a->arrival[c * nr + i] == NONE ||
                a->maxstep[c] >= a->prm.R)
                continue;
            /* It waits at the highest rung it reached (not one above). */
            if (i + 1 < nr && a->arrival[c * nr + i + 1] != NONE)
                continue;
            size_t pc = a->pos[c * nr + i];
            if (pc < lim && (pick == NONE || pc < a->pos[pick * nr + i]))
                pick = c;
        }
        if (pick != NONE) {
            out->config = a->ids[pick];
            out->rung = i;
            out->rung_step = a->rungs[i];
            out->resume_step = a->maxstep[pick];
            return 1;
        }
    }
    return 0;
}

int
asha_standing(struct asha *a, int64_t config, size_t rung,
              struct asha_standing *out)
{
    if (!a || !out || rung >= a->n_rungs)
        return 0;
    compile(a);
    size_t c = find_cfg(a, config), nr = a->n_rungs;
    if (c == NONE || a->arrival[c * nr + rung] == NONE)
        return 0;
    out->arrival = a->arrival[c * nr + rung];
    out->position = a->pos[c * nr + rung];
    out->k = a->k[rung];
    out->limit = limit_at(a, rung);
    out->promotable = out->position < out->limit;
    return 1;
}
