/*
 * core/autoalgo.c - the rule behind "algorithm": {"name": "auto"}; see
 * autoalgo.h.
 */
#include "core/autoalgo.h"

#include "core/kernels.h"
#include "core/mobo.h"

/*
 * THE RULE: one line per case, the configuration auto picks and why, in
 * words a user reads in the study's "reason"; the measurements behind each
 * line are in docs/auto.md. To adopt a better method, change its line here
 * and its row and figures there.
 */
const struct autoalgo_row autoalgo_rows[AUTOALGO_N_CASES] = {
    [AUTOALGO_WARM_START] =
        {{.method = AUTOALGO_GP, .kernel = KERNEL_MATERN52},
         "a GP that starts from the source's results found the best "
         "configuration sooner on every benchmark table"},
    [AUTOALGO_TINY_BUDGET] = {{.method = AUTOALGO_RANDOM},
                              "the budget ends before a model would be used, "
                              "so every trial is random"},
    [AUTOALGO_MO_FINITE] = {{.method = AUTOALGO_EHVI,
                             .kernel = KERNEL_MATERN52,
                             .surrogate = MOBO_SURROGATE_GRAPH,
                             .trust_region = 2,
                             .front_reference = 0.3,
                             .gp_blend = MOBO_BLEND_FIRST,
                             .trust_shape = MOBO_TRUST_STEPS},
                            "EHVI on a graph of the candidates, searching one "
                            "change away from the Pareto front, found the "
                            "front soonest on benchmark tables it was not "
                            "chosen on"},
    [AUTOALGO_MO_HUGE] = {{.method = AUTOALGO_EHVI,
                           .kernel = KERNEL_MATERN52,
                           .surrogate = MOBO_SURROGATE_GP,
                           .front_reference = 0.5},
                          "above 1000 candidates a graph is too large, so EHVI "
                          "uses GPs, measured against the observed front"},
    [AUTOALGO_MO_CONTINUOUS] = {{.method = AUTOALGO_EHVI,
                                 .kernel = KERNEL_MATERN52,
                                 .surrogate = MOBO_SURROGATE_GP,
                                 .front_reference = 0.5},
                                "without a candidate list EHVI uses GPs, "
                                "measured against the observed front"},
    [AUTOALGO_DECOUPLED] =
        {{.method = AUTOALGO_GP, .kernel = KERNEL_MATERN52},
         "constrained EI that measures the decoupled constraints first, where "
         "they are likely to fail, spent the least to reach good feasible "
         "configurations on the benchmark tables"},
    [AUTOALGO_CONSTRAINED] =
        {{.method = AUTOALGO_GP, .kernel = KERNEL_MATERN52},
         "constrained EI reached good feasible configurations far sooner than "
         "random search on every benchmark table"},
    [AUTOALGO_SO_FINITE] = {{.method = AUTOALGO_GP,
                             .kernel = KERNEL_MATERN52,
                             .acquisition = 3,
                             .trust_region = 8,
                             .lengthscale_prior = 1.0,
                             .hedge = 1},
                            "GP-Hedge, which lets the study's own results "
                            "pick between a GP and graph EI, found the best "
                            "configuration sooner than a plain GP on every "
                            "benchmark table it was not chosen on"},
    [AUTOALGO_SO_HUGE] = {{.method = AUTOALGO_GP,
                           .kernel = KERNEL_MATERN52,
                           .acquisition = 3,
                           .trust_region = 8,
                           .lengthscale_prior = 1.0},
                          "above 1000 candidates a graph is too large, so "
                          "the GP of GP-Hedge decides alone"},
    [AUTOALGO_CONTINUOUS] =
        {{.method = AUTOALGO_GP, .kernel = KERNEL_MATERN52},
         "a GP optimizes its acquisition anywhere in a continuous space (no "
         "benchmark table measures this case)"},
};

enum autoalgo_case
autoalgo_case(const struct autoalgo_features *f)
{
    int finite = f->n_candidates > 0 && f->n_candidates <= AUTOALGO_GRAPH_MAX;

    /* The prior picks the first trials too, so even a tiny budget uses it;
     * other uses of warm_start are refused by its validation. */
    if (f->warm_start && f->n_objectives == 1 && f->n_constraints == 0)
        return AUTOALGO_WARM_START;
    if (f->budget >= 0 && f->budget <= f->init)
        return AUTOALGO_TINY_BUDGET;
    if (f->n_objectives > 1)
        return finite                ? AUTOALGO_MO_FINITE
               : f->n_candidates > 0 ? AUTOALGO_MO_HUGE
                                     : AUTOALGO_MO_CONTINUOUS;
    if (f->n_constraints > 0)
        return f->decoupled ? AUTOALGO_DECOUPLED : AUTOALGO_CONSTRAINED;
    if (f->n_candidates == 0)
        return AUTOALGO_CONTINUOUS;
    return finite ? AUTOALGO_SO_FINITE : AUTOALGO_SO_HUGE;
}

enum autoalgo_case
autoalgo_choose(const struct autoalgo_features *f, struct autoalgo_config *out)
{
    enum autoalgo_case c = autoalgo_case(f);
    *out = autoalgo_rows[c].config;
    return c;
}

const char *
autoalgo_case_code(enum autoalgo_case c)
{
    static const char *const codes[AUTOALGO_N_CASES] = {
        [AUTOALGO_WARM_START] = "warm_start",
        [AUTOALGO_TINY_BUDGET] = "tiny_budget",
        [AUTOALGO_MO_FINITE] = "mo_finite",
        [AUTOALGO_MO_HUGE] = "mo_huge",
        [AUTOALGO_MO_CONTINUOUS] = "mo_continuous",
        [AUTOALGO_DECOUPLED] = "decoupled",
        [AUTOALGO_CONSTRAINED] = "constrained",
        [AUTOALGO_SO_FINITE] = "so_finite",
        [AUTOALGO_SO_HUGE] = "so_huge",
        [AUTOALGO_CONTINUOUS] = "continuous",
    };
    return (unsigned)c < AUTOALGO_N_CASES ? codes[c] : "unknown";
}
