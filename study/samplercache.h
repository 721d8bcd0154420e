/*
 * study/samplercache.h - what a study's suggests keep in the process
 * between calls: a finite study's candidates, parsed (immutable once the
 * study exists; ids are never reused), the sampler state (the graph over
 * the candidates and its factorization; the GP's Cholesky factor and the
 * candidates' L^-1 K*) and the multi-objective state (core/mobo.h: each
 * objective's fit and predictions, and the graph), each checked by core
 * against the rows it is asked about. The sampler's answer never depends
 * on the cache: a cold process computes the same choice.
 *
 * Entries live under the model-memory budget (study/modelcache.h), sized
 * from the study's dimensions by samplercache_bytes. An entry is held by
 * one suggest transaction at a time (the study's group leader); a second
 * holder in the same process would get an empty one of its own.
 */
#ifndef HPOD_STUDY_SAMPLERCACHE_H
#define HPOD_STUDY_SAMPLERCACHE_H

#include <stddef.h>

#include "common/status.h"
#include "core/mobo.h"
#include "core/sampler.h"
#include "study/def.h"

struct modelcache_entry;

struct samplercache {
    long long study_id;
    double *cand_raw; /* n_cand × n_params, NULL until loaded */
    size_t n_cand;
    struct sampler_state *state;
    struct mobo_state *mstate; /* NULL until a multi-objective choice */
    size_t n_model;            /* the observations the state was sized for */
    struct modelcache_entry *entry;
};

/* samplercache_take - study_id's entry, held by the caller until
 * samplercache_put (a new, empty one when none is cached). */
struct samplercache *samplercache_take(long long study_id);

/*
 * samplercache_bytes - what an entry of a study with definition d holds,
 * with n_cand candidates (0: continuous) and n points in its model
 * (observations and pending ones): the candidates, a graph's dense n_cand²
 * matrices (about three, core/graph.h), a GP's factor and work (about
 * 3n²) and its predictions at the candidates, per model the study fits.
 * build = 1 adds what a cold build allocates besides (two more n_cand²
 * matrices while a graph is factorized).
 */
size_t samplercache_bytes(const struct study_def *d, size_t n_cand, size_t n,
                          int build);

/*
 * samplercache_reserve - room for e to hold what d's model needs with
 * n_cand candidates and n points (a build's peak when e holds no state
 * yet), before the sampler runs. HPOD_EBUSY (503, Retry-After) when the
 * model-memory budget cannot hold it.
 */
enum hpod_status samplercache_reserve(struct samplercache *e,
                                      const struct study_def *d, size_t n_cand,
                                      size_t n, struct hpod_err *err);

/* samplercache_put - hands e back, sized for what it holds (d: the
 * study's definition, NULL when e was never used); keep 0 drops it. */
void samplercache_put(struct samplercache *e, const struct study_def *d,
                      int keep);

#endif
