/*
 * bench/lcrun.c - successive halving and ASHA batches on a learning-curve
 * set. See bench/lcrun.h.
 */
#include "bench/lcrun.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "core/rng.h"

static int
size_cmp(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return (a > b) - (a < b);
}

void
lcrun_curves_init(struct lcrun_curves *c, const struct bench_lc_set *set)
{
    size_t n = set->n;
    size_t *lens = xmalloc((n ? n : 1) * sizeof *lens);

    memset(c, 0, sizeof *c);
    c->name = set->name;
    c->n = n;
    c->sh = xmalloc((n ? n : 1) * sizeof *c->sh);
    c->as = xmalloc((n ? n : 1) * sizeof *c->as);
    c->dedup = xmalloc((n ? n : 1) * sizeof *c->dedup);
    for (size_t i = 0; i < n; i++) {
        const struct bench_curve *cu = &set->curves[i];
        c->sh[i].y = cu->ppl;
        c->sh[i].len = cu->len;
        c->sh[i].optimal = cu->ppl_optimal;
        c->as[i].ppl = cu->ppl;
        c->as[i].len = cu->len;
        c->as[i].optimal = cu->ppl_optimal;
        lens[i] = cu->len;
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = memcmp(set->curves[j].hyper, cu->hyper,
                         set->n_hyper * sizeof *cu->hyper) == 0;
        if (!dup)
            c->dedup[c->n_settings++] = c->sh[i];
    }
    if (n) {
        qsort(lens, n, sizeof *lens, size_cmp);
        c->len_min = lens[0];
        c->len_med = lens[n / 2];
        c->len_max = lens[n - 1];
    }
    free(lens);
}

void
lcrun_curves_free(struct lcrun_curves *c)
{
    free(c->sh);
    free(c->as);
    free(c->dedup);
    memset(c, 0, sizeof *c);
}

/* See bench/lcrun.h. */
enum hpod_status
lcrun_sh(const struct lcrun_curves *c, int dedup, const struct sh_params *prm,
         size_t configs, size_t repeats, uint64_t seed, struct sh_result *per,
         struct sh_summary *sum, size_t *draws, struct hpod_err *err)
{
    const struct sh_curve *cv = dedup ? c->dedup : c->sh;
    size_t n = dedup ? c->n_settings : c->n;
    size_t *perm = NULL;
    enum hpod_status st;

    st = sh_simulate_many(cv, n, prm, configs, repeats, seed, per, sum);
    if (st != HPOD_OK)
        return hpod_fail(err, HPOD_EUNPROC, "algorithm",
                         "successive halving cannot run on %s", c->name);
    if (!draws)
        return HPOD_OK;
    /* sh_simulate_many does not return its draws: redo them. */
    perm = xmalloc(n * sizeof *perm);
    for (size_t k = 0; k < repeats; k++) {
        struct rng r;
        int has_final = 0, has_best = 0;
        size_t *d = draws + k * configs;
        rng_seed(&r, seed + k);
        rng_draw(&r, perm, n, configs);
        for (size_t j = 0; j < configs; j++) {
            d[j] = perm[j];
            has_final |= d[j] == per[k].final;
            has_best |= d[j] == per[k].best;
        }
        if (!has_final || !has_best) {
            st = hpod_fail(err, HPOD_EINTERNAL, "",
                           "successive halving run %zu: the draw differs "
                           "from core/sh's",
                           k);
            break;
        }
    }
    free(perm);
    return st;
}

/* See bench/lcrun.h. */
enum hpod_status
lcrun_asha(const struct lcrun_curves *c, const struct asha_params *prm,
           size_t workers, size_t configs, size_t repeats, uint64_t seed,
           struct asha_sim_result *res, size_t *draws, size_t *trained,
           struct lcrun_asha_summary *sum, struct hpod_err *err)
{
    memset(sum, 0, sizeof *sum);
    for (size_t k = 0; k < repeats; k++) {
        struct rng r;
        struct asha_sim_result one;
        rng_seed(&r, seed + k);
        if (asha_sim_trace(c->as, c->n, prm, workers, configs, &r, &one,
                           draws ? draws + k * configs : NULL,
                           trained ? trained + k * configs : NULL) != HPOD_OK)
            return hpod_fail(err, HPOD_EUNPROC, "algorithm",
                             "asha cannot run on %s with these parameters",
                             c->name);
        if (res)
            res[k] = one;
        sum->saved +=
            100.0 * (1.0 - (double)one.steps / (double)one.steps_full);
        sum->steps += (double)one.steps;
        sum->steps_full += (double)one.steps_full;
        sum->n_full += (double)one.n_full;
        sum->best_rank += (double)one.best_rank;
        sum->best_full += one.best_full ? 100.0 : 0.0;
        sum->kept_best += one.best_rank == 1 ? 100.0 : 0.0;
        sum->elapsed += (double)one.elapsed;
        sum->speedup += (double)one.steps_full / (double)workers /
                        (double)(one.elapsed ? one.elapsed : 1);
    }
    double nr = (double)repeats;
    sum->saved /= nr;
    sum->steps /= nr;
    sum->steps_full /= nr;
    sum->n_full /= nr;
    sum->best_rank /= nr;
    sum->best_full /= nr;
    sum->kept_best /= nr;
    sum->elapsed /= nr;
    sum->speedup /= nr;
    return HPOD_OK;
}
