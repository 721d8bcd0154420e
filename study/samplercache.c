/*
 * study/samplercache.c - candidates and sampler state between suggests;
 * see samplercache.h.
 */
#include "study/samplercache.h"

#include <stdlib.h>

#include "common/mem.h"
#include "study/history.h"
#include "study/modelcache.h"

static void
entry_free(void *p)
{
    struct samplercache *e = p;
    if (!e)
        return;
    free(e->cand_raw);
    sampler_state_free(e->state);
    mobo_state_free(e->mstate);
    free(e);
}

static void *
entry_make(long long study_id)
{
    struct samplercache *e = xcalloc(1, sizeof *e);
    e->study_id = study_id;
    e->state = sampler_state_create();
    return e;
}

struct samplercache *
samplercache_take(long long study_id)
{
    void *obj;
    struct modelcache_entry *me =
        modelcache_take(MODELCACHE_SAMPLER, study_id, "", entry_make,
                        sizeof(struct samplercache), entry_free, &obj);
    struct samplercache *e = obj;
    e->entry = me;
    return e;
}

/* Whether d's sampler keeps a graph over the candidates (graph, ehvi's
 * graph surrogate, GP-Hedge's graph arm, a graph base). */
static int
uses_graph(const struct algo_def *a)
{
    return a->name == ALGO_GRAPH || (a->name == ALGO_EHVI && a->surrogate) ||
           (a->name == ALGO_GP && a->gp_hedge) ||
           ((a->name == ALGO_ASHA || a->name == ALGO_MULTISTAGE) &&
            a->base == ALGO_GRAPH);
}

/* How many GPs d's sampler keeps: one per objective and constraint for
 * several objectives or constraints (core/mobo), else one. */
static size_t
gps_of(const struct study_def *d)
{
    const struct algo_def *a = &d->algo;
    int gp = a->name == ALGO_GP || (a->name == ALGO_EHVI && !a->surrogate) ||
             ((a->name == ALGO_ASHA || a->name == ALGO_MULTISTAGE) &&
              a->base == ALGO_GP);
    if (history_uses_mobo(d))
        return d->n_objectives + d->n_constraints;
    return gp ? 1 : 0;
}

size_t
samplercache_bytes(const struct study_def *d, size_t n_cand, size_t n,
                   int build)
{
    size_t np = d->space.n_params, dim = d->space.dim, d8 = sizeof(double);
    size_t bytes = sizeof(struct samplercache) + n_cand * np * d8;

    if (n_cand > 0 && uses_graph(&d->algo))
        bytes += (3 + (build ? 2 : 0)) * n_cand * n_cand * d8 +
                 n_cand * (dim + 16) * d8;
    /* A GP over n points: its factor and work (3n²), the points, and
     * its predictions at the candidates (n each). */
    bytes += gps_of(d) * (3 * n * n + n * (dim + n_cand + 80) + 64) * d8;
    return bytes;
}

enum hpod_status
samplercache_reserve(struct samplercache *e, const struct study_def *d,
                     size_t n_cand, size_t n, struct hpod_err *err)
{
    int cold = e->n_model == 0 && !e->mstate;
    enum hpod_status st = modelcache_reserve(
        e->entry, samplercache_bytes(d, n_cand, n, cold), err);
    if (st == HPOD_OK)
        e->n_model = n > 0 ? n : 1;
    return st;
}

void
samplercache_put(struct samplercache *e, const struct study_def *d, int keep)
{
    if (!e)
        return;
    if (d)
        modelcache_set_size(e->entry,
                            samplercache_bytes(d, e->n_cand, e->n_model, 0));
    modelcache_put(e->entry, keep);
}
