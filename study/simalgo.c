/*
 * study/simalgo.c - a simulation's algorithm; see simalgo.h.
 */
#include "study/simalgo.h"

#include <string.h>

#include "core/mobo.h"
#include "core/sampler.h"
#include "study/algo.h"
#include "study/auto.h"

/* What core/simulate runs for the algorithm a. */
static void
simulate_algos(const struct algo_def *a, struct simreq_algo *out)
{
    out->single = (struct simulate_algo){
        .kind = (enum sampler_kind)a->name,
        .kernel = a->kernel,
        .acquisition = a->acquisition,
        .ls_min = a->ls_min,
        .trust_div = a->name == ALGO_GP ? (int)a->gp_trust : 0,
        .ls_prior = a->name == ALGO_GP ? a->ls_prior : 0.0,
        .variant = a->name == ALGO_GP && a->gp_hedge ? SAMPLER_V_HEDGE : 0u};
    out->mo = (struct simulate_mo_algo){
        a->name == ALGO_RANDOM,
        a->name == ALGO_EHVI     ? a->surrogate
        : a->name == ALGO_GRAPH  ? MOBO_SURROGATE_GRAPH
        : a->name == ALGO_GREEDY ? MOBO_SURROGATE_GREEDY
                                 : MOBO_SURROGATE_GP,
        a->kernel,
        a->name == ALGO_EHVI ? (size_t)a->ehvi_trust : 0,
        a->name == ALGO_EHVI ? a->ehvi_front_ref : 0.0,
        a->name == ALGO_EHVI ? a->ehvi_gp_blend : 0,
        a->name == ALGO_EHVI ? a->ehvi_trust_shape : 0};
    out->mo_able = a->name != ALGO_GREEDY;
    out->force_mo = a->name == ALGO_EHVI;
    out->not_on_tables = a->name == ALGO_ASHA         ? "asha"
                         : a->name == ALGO_MULTISTAGE ? "multistage"
                                                      : NULL;
}

_Static_assert(ALGO_RANDOM == (int)SAMPLER_RANDOM &&
                   ALGO_GP == (int)SAMPLER_GP &&
                   ALGO_GRAPH == (int)SAMPLER_GRAPH &&
                   ALGO_GREEDY == (int)SAMPLER_GREEDY,
               "the single-objective samplers are the algorithms' names");

/* See simalgo.h. */
enum hpod_status
simalgo_parse(json_t *a, const struct autoalgo_features *f,
              struct simreq_algo *out, json_t **norm, struct hpod_err *err)
{
    struct algo_def algo;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    *norm = NULL;
    /* Omitted, null or {"name": "auto"}: what a study without an
     * algorithm runs, chosen on the table's features (study/auto.h). */
    if (auto_requested(a))
        st = auto_choose(a, f, &algo, norm, err);
    else
        st = algo_from_json(a, &algo, norm, err);
    if (st != HPOD_OK)
        return st;
    simulate_algos(&algo, out);
    return HPOD_OK;
}
