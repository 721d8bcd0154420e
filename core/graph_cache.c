/*
 * core/graph_cache.c - a graph kept between choices; see graph_cache.h.
 */
#include "core/graph_cache.h"

#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/graph.h"

void
graph_cache_clear(struct graph_cache *c)
{
    if (!c)
        return;
    graph_free(c->graph);
    free(c->x);
    memset(c, 0, sizeof *c);
}

enum hpod_status
graph_cache_get(struct graph_cache *c, const double *x, size_t n, size_t dim,
                int kernel, int tag, graph_cache_build_fn build, void *ctx,
                struct graph **out)
{
    enum hpod_status st;

    if (c->graph && c->n == n && c->dim == dim && c->kernel == kernel &&
        c->tag == tag && memcmp(c->x, x, n * dim * sizeof *x) == 0) {
        *out = c->graph;
        return HPOD_OK;
    }
    graph_cache_clear(c);
    *out = NULL;
    if ((st = build(x, n, dim, ctx, &c->graph)) != HPOD_OK) {
        c->graph = NULL;
        return st;
    }
    c->x = xmalloc(n * dim * sizeof *x);
    memcpy(c->x, x, n * dim * sizeof *x);
    c->n = n;
    c->dim = dim;
    c->kernel = kernel;
    c->tag = tag;
    *out = c->graph;
    return HPOD_OK;
}
