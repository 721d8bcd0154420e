/*
 * core/graph_cache.h - one graph over a finite study's candidates, kept
 * between choices (core/graph.h caches the factor of its last labeled set
 * inside the graph, so keeping the graph keeps that too). The samplers'
 * per-study states hold one (core/sampler_input.h, core/mobo_ctx.h). It is
 * identified by the encoded points it was built over, the kernel and a
 * tag the caller chooses for anything else that shapes the graph (graph
 * EI and EIF use different lengthscales); it never changes an answer.
 */
#ifndef HPOD_GRAPH_CACHE_H
#define HPOD_GRAPH_CACHE_H

#include <stddef.h>

#include "common/status.h"

struct graph;

/* Caller-owned; all zeroes is an empty cache. */
struct graph_cache {
    struct graph *graph;
    double *x; /* n × dim, the points it was built over */
    size_t n, dim;
    int kernel, tag;
};

/* Builds the graph over x (n × dim) into *out (owned by the caller). */
typedef enum hpod_status (*graph_cache_build_fn)(const double *x, size_t n,
                                                 size_t dim, void *ctx,
                                                 struct graph **out);

/*
 * graph_cache_get - *out = the cached graph if it was built over the same
 * x (n × dim, compared bytewise), kernel and tag; else the cache is
 * emptied, build(x, n, dim, ctx) is called and its graph kept. *out stays
 * the cache's (never free it). Returns HPOD_OK or build's failure (the
 * cache is then empty and *out NULL).
 */
enum hpod_status graph_cache_get(struct graph_cache *c, const double *x,
                                 size_t n, size_t dim, int kernel, int tag,
                                 graph_cache_build_fn build, void *ctx,
                                 struct graph **out);

/* Frees the cached graph and points; the cache is empty after (zero-safe). */
void graph_cache_clear(struct graph_cache *c);

#endif
