/*
 * tools/auto.c - hpod-bench's `auto` method: core/autoalgo's rule, the one
 * an auto study runs (study/auto.c), applied to a table's space, and the
 * chosen configuration as a simulation algorithm (hpod_bench.h).
 */
#include <stdio.h>
#include <string.h>

#include "core/autoalgo.h"
#include "core/kernels.h"
#include "core/mobo.h"
#include "tools/hpod_bench.h"

/* The features of a simulated study: the table's rows as candidates, no
 * budget (a simulation runs until its metrics are known). */
static struct autoalgo_features
table_features(const struct space *sp, size_t n, size_t m, size_t n_con,
               size_t init)
{
    struct autoalgo_features f = {.n_params = sp->n_params,
                                  .n_candidates = n,
                                  .n_objectives = m,
                                  .n_constraints = n_con,
                                  .budget = -1,
                                  .init = (int)init};
    for (size_t i = 0; i < sp->n_params; i++)
        f.n_categorical += sp->params[i].type == PARAM_CATEGORICAL;
    return f;
}

int
hb_auto_algo(const struct space *sp, size_t n, size_t init,
             struct simulate_algo *out, char *label, size_t size)
{
    struct autoalgo_features f = table_features(sp, n, 1, 0, init);
    struct autoalgo_config c;
    autoalgo_choose(&f, &c);
    memset(out, 0, sizeof *out);
    switch (c.method) {
    case AUTOALGO_RANDOM:
        out->kind = SAMPLER_RANDOM;
        break;
    case AUTOALGO_GREEDY:
        out->kind = SAMPLER_GREEDY;
        break;
    case AUTOALGO_GP:
        out->kind = SAMPLER_GP;
        break;
    case AUTOALGO_GRAPH:
        out->kind = SAMPLER_GRAPH;
        break;
    default: /* the rule gives one objective no ehvi */
        return -1;
    }
    if (out->kind == SAMPLER_GP || out->kind == SAMPLER_GRAPH) {
        out->kernel = c.kernel;
        out->acquisition = c.acquisition;
        out->ls_min = c.lengthscale_min;
        out->trust_div = c.method == AUTOALGO_GP ? c.trust_region : 0;
        out->ls_prior = c.method == AUTOALGO_GP ? c.lengthscale_prior : 0.0;
        out->variant =
            c.method == AUTOALGO_GP && c.hedge ? SAMPLER_V_HEDGE : 0u;
    }
    for (size_t m = 0; m < HB_N_METHODS; m++) {
        const struct simulate_algo *a = &hb_methods[m].algo;
        if (strcmp(hb_methods[m].key, "auto") != 0 && a->kind == out->kind &&
            (out->kind == SAMPLER_RANDOM || out->kind == SAMPLER_GREEDY ||
             (a->kernel == out->kernel && a->acquisition == out->acquisition &&
              a->variant == out->variant && a->ls_min == out->ls_min &&
              a->trust_div == out->trust_div &&
              a->ls_prior == out->ls_prior))) {
            snprintf(label, size, "%s", hb_methods[m].label);
            return 0;
        }
    }
    snprintf(label, size, "%s/%s/%d", out->kind == SAMPLER_GP ? "gp" : "graph",
             out->kernel == KERNEL_RBF ? "rbf" : "matern52", out->acquisition);
    return 0;
}

int
hb_auto_mo_algo(const struct space *sp, size_t n, size_t m, size_t n_con,
                size_t init, struct simulate_mo_algo *out, char *label,
                size_t size)
{
    struct autoalgo_features f = table_features(sp, n, m, n_con, init);
    struct autoalgo_config c;
    autoalgo_choose(&f, &c);
    memset(out, 0, sizeof *out);
    out->kernel = c.kernel;
    if (c.method == AUTOALGO_RANDOM) {
        out->random = 1;
        snprintf(label, size, "random");
        return 0;
    }
    /* ehvi, or gp/graph with constraints (constrained EI): core/mobo with
     * that surrogate, as study/suggest.c runs them. */
    if (c.method != AUTOALGO_EHVI && c.method != AUTOALGO_GP &&
        c.method != AUTOALGO_GRAPH)
        return -1;
    out->trust_k = (size_t)c.trust_region;
    out->front_ref = c.front_reference;
    out->gp_blend = c.gp_blend;
    out->trust_shape = c.trust_shape;
    out->surrogate = c.method == AUTOALGO_EHVI    ? c.surrogate
                     : c.method == AUTOALGO_GRAPH ? MOBO_SURROGATE_GRAPH
                                                  : MOBO_SURROGATE_GP;
    snprintf(label, size, "%s/%s/%s",
             c.method == AUTOALGO_EHVI    ? "ehvi"
             : c.method == AUTOALGO_GRAPH ? "graph"
                                          : "gp",
             out->surrogate == MOBO_SURROGATE_GRAPH ? "graph" : "gp",
             out->kernel == KERNEL_RBF ? "rbf" : "matern52");
    return 0;
}
