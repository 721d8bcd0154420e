/*
 * core/sh.c - successive halving replayed on learning curves (contract and
 * definitions in core/sh.h).
 *
 * Pure: no I/O, no globals; scratch from xmalloc, freed before returning.
 */
#include "core/sh.h"

#include <math.h>
#include <stdlib.h>

#include "core/lcfit.h"
#include "common/mem.h"
#include "core/rng.h"

/* A survivor's sort key: BSF, then input position (a total order). */
struct entry {
    double v;
    size_t i;
};

/*
 * Power-law fits cached per (curve, stage) across the runs of
 * sh_simulate_many: row ids[j] of curve j, column stage - 1.
 */
struct fit_memo {
    struct lcfit *fit;   /* rows · stages */
    unsigned char *done; /* 1 where fit holds a result */
    size_t stages;
};

static int entry_cmp(const void *pa, const void *pb);
static size_t keep_count(size_t k, size_t p, int round_up);
static double extrap_key(const struct sh_curve *cv, size_t t, size_t h,
                         size_t stage, size_t id, struct fit_memo *memo);
static enum hpod_status simulate(const struct sh_curve *curves, size_t n,
                                 const struct sh_params *prm, const size_t *ids,
                                 struct fit_memo *memo, struct sh_result *res);

/* NaN sorts after every number; equal values by input position. */
static int
entry_cmp(const void *pa, const void *pb)
{
    const struct entry *a = pa, *b = pb;
    int na = isnan(a->v), nb = isnan(b->v);
    if (na != nb)
        return na - nb;
    if (!na && a->v != b->v)
        return a->v < b->v ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static size_t
keep_count(size_t k, size_t p, int round_up)
{
    size_t q = round_up ? k / p + (k % p != 0) : k / p;
    return q < 1 ? 1 : q;
}

/*
 * The SH_RANK_EXTRAP key of one survivor at checkpoint t with horizon h
 * (definition in core/sh.h): min(BSF at t, the power law's value at h),
 * the BSF alone when the curve has ended, h <= t, or the fit is
 * degenerate.
 */
static double
extrap_key(const struct sh_curve *cv, size_t t, size_t h, size_t stage,
           size_t id, struct fit_memo *memo)
{
    double bsf = sh_bsf(cv->y, cv->len, t);
    if (cv->len <= t || h <= t)
        return bsf;
    struct lcfit local, *f = &local;
    if (memo && stage <= memo->stages) {
        size_t at = id * memo->stages + (stage - 1);
        f = &memo->fit[at];
        if (!memo->done[at]) {
            lcfit_power_from(cv->y, t, t / 2, f);
            memo->done[at] = 1;
        }
    } else {
        lcfit_power_from(cv->y, t, t / 2, f);
    }
    if (!f->ok)
        return bsf;
    double pred = lcfit_predict(f, (double)h);
    return pred < bsf ? pred : bsf;
}

double
sh_bsf(const double *y, size_t len, size_t t)
{
    double best = NAN;
    size_t end = t < len ? t : len;
    for (size_t j = 0; j < end; j++)
        if (!isnan(y[j]) && (isnan(best) || y[j] < best))
            best = y[j];
    return best;
}

enum hpod_status
sh_simulate(const struct sh_curve *curves, size_t n,
            const struct sh_params *prm, struct sh_result *res)
{
    return simulate(curves, n, prm, NULL, NULL, res);
}

/*
 * sh_simulate with, for SH_RANK_EXTRAP, a cache of fits: ids[j] (n
 * entries) is curve j's row in memo; both NULL for no cache.
 */
static enum hpod_status
simulate(const struct sh_curve *curves, size_t n, const struct sh_params *prm,
         const size_t *ids, struct fit_memo *memo, struct sh_result *res)
{
    if (!curves || !prm || !res || n == 0 || prm->p < 2 || prm->c == 0 ||
        (prm->rank != SH_RANK_BSF && prm->rank != SH_RANK_LAST &&
         prm->rank != SH_RANK_EXTRAP))
        return HPOD_EINVAL;
    size_t horizon = prm->horizon;
    for (size_t i = 0; i < n; i++) {
        if (curves[i].len == 0 || !curves[i].y)
            return HPOD_EINVAL;
        if (prm->horizon == 0 && curves[i].len > horizon)
            horizon = curves[i].len;
    }

    struct entry *alive = xmalloc(n * sizeof *alive);
    size_t k = n, stage = 0, best = 0, spent = 0, full = 0;
    double opt = curves[0].optimal;
    size_t best_left; /* survivors holding the lowest optimal */

    /* The truly best by `optimal` (NaN never wins). */
    for (size_t i = 0; i < n; i++) {
        full += curves[i].len;
        alive[i].i = i;
        if (!isnan(curves[i].optimal) &&
            (isnan(opt) || curves[i].optimal < opt)) {
            opt = curves[i].optimal;
            best = i;
        }
    }
    best_left = 0;
    for (size_t i = 0; i < n; i++)
        best_left += curves[i].optimal == opt || (isnan(opt) && i == best);

    res->discarded_at = 0;
    res->complete = 1;
    while (k > 1) {
        stage++;
        /* Stage s looks at checkpoint s·c; saturate rather than wrap. */
        size_t t = prm->c > (size_t)-1 / stage ? (size_t)-1 : stage * prm->c;
        int ended = 1;
        for (size_t j = 0; j < k; j++) {
            const struct sh_curve *cv = &curves[alive[j].i];
            size_t id = ids ? ids[alive[j].i] : alive[j].i;
            if (prm->rank == SH_RANK_BSF)
                alive[j].v = sh_bsf(cv->y, cv->len, t);
            else if (prm->rank == SH_RANK_LAST)
                alive[j].v = cv->y[(t < cv->len ? t : cv->len) - 1];
            else
                alive[j].v = extrap_key(cv, t, horizon, stage, id, memo);
            ended &= cv->len <= t;
        }
        qsort(alive, k, sizeof *alive, entry_cmp);
        /* Once every survivor has ended the order is final: pick one. */
        size_t keep = ended ? 1 : keep_count(k, prm->p, prm->round_up);
        res->complete = ended;
        for (size_t j = keep; j < k; j++) {
            const struct sh_curve *cv = &curves[alive[j].i];
            spent += cv->len < t ? cv->len : t;
            if (cv->optimal == opt || (isnan(opt) && alive[j].i == best))
                if (--best_left == 0)
                    res->discarded_at = stage;
        }
        k = keep;
    }
    res->final = alive[0].i;
    spent += curves[res->final].len;
    res->best = best;
    res->correct =
        curves[res->final].optimal == opt || (isnan(opt) && res->final == best);
    res->stages = stage;
    res->spent = spent;
    res->full = full;
    free(alive);
    return HPOD_OK;
}

enum hpod_status
sh_simulate_many(const struct sh_curve *curves, size_t n,
                 const struct sh_params *prm, size_t configs, size_t runs,
                 uint64_t seed0, struct sh_result *per_run,
                 struct sh_summary *sum)
{
    enum hpod_status st = HPOD_OK;
    size_t *perm = NULL;
    struct sh_curve *sub = NULL;
    double dif = 0, dif_failed = 0, stages = 0, spent = 0, full = 0;
    size_t correct = 0, first = 0, last = 0, complete = 0;
    struct fit_memo memo = {NULL, NULL, 0};

    if (!curves || !prm || !sum || runs == 0 || configs == 0 || configs > n)
        return HPOD_EINVAL;
    perm = xmalloc(n * sizeof *perm);
    sub = xmalloc(configs * sizeof *sub);
    /* A run has at most configs - 1 stages: each one drops a survivor. */
    if (prm->rank == SH_RANK_EXTRAP) {
        memo.stages = configs;
        memo.fit = xmalloc(n * configs * sizeof *memo.fit);
        memo.done = xcalloc(n * configs, sizeof *memo.done);
    }
    for (size_t k = 0; k < runs; k++) {
        struct rng r;
        struct sh_result res;
        rng_seed(&r, seed0 + k);
        rng_draw(&r, perm, n, configs);
        for (size_t j = 0; j < configs; j++)
            sub[j] = curves[perm[j]];
        if ((st = simulate(sub, configs, prm, perm, &memo, &res)) != HPOD_OK)
            goto out;
        res.final = perm[res.final];
        res.best = perm[res.best];
        if (per_run)
            per_run[k] = res;
        if (res.correct) {
            correct++;
        } else {
            double d = (double)(res.stages - res.discarded_at);
            dif += d;
            dif_failed += d;
            first += res.discarded_at == 1;
            last += res.discarded_at == res.stages;
        }
        complete += (size_t)res.complete;
        stages += (double)res.stages;
        spent += (double)res.spent;
        full += (double)res.full;
    }
    sum->runs = runs;
    sum->correct = correct;
    sum->acc = 100.0 * (double)correct / (double)runs;
    sum->dif = dif / (double)runs;
    sum->dif_failed =
        correct == runs ? NAN : dif_failed / (double)(runs - correct);
    sum->stages = stages / (double)runs;
    sum->spent = spent / (double)runs;
    sum->full = full / (double)runs;
    sum->first_stage = first;
    sum->last_stage = last;
    sum->complete = complete;
out:
    free(perm);
    free(sub);
    free(memo.fit);
    free(memo.done);
    return st;
}
