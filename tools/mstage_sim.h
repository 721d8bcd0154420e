/*
 * tools/mstage_sim.h - multi-stage Bayesian optimization (Wang et al. 2015;
 * docs/ARCHITECTURE.md, "Algorithms") replayed on recorded learning curves, the
 * way the live server runs `"algorithm": {"name": "multistage", ...}`, so
 * that it can be compared with ASHA (core/asha_sim.h) on the SAME draws
 * (`hpod-bench --multistage` prints the table). It lives beside
 * hpod-bench because the server never runs it.
 *
 * Pure: no I/O, no globals; every stage decision is core/mstage.c's, every
 * new configuration is core/sampler.c's; memory comes from xmalloc
 * (common/mem.h) and is freed before returning. Curves and features are
 * borrowed for the call only.
 *
 * The replay (the contract of mstage_sim_run):
 *
 *  - Draw. `configs` of the n curves are drawn at random without
 *    replacement exactly as asha_sim_run draws them (partial Fisher-Yates:
 *    draw j swaps position j with j + rng_below(r, n - j) of the identity
 *    permutation), so that for the same rng state the two replays see the
 *    same pool and their runs are paired. r advances by `configs` draws.
 *    The drawn pool is the study's finite candidate set: candidate j is the
 *    j-th drawn curve, its raw configuration the curve's row of `features`.
 *
 *  - One worker. Stages are synchronous (a stage completes only when every
 *    member is done), so a second worker would change the wall time, not
 *    the decisions that matter here; the replay uses one. The worker asks
 *    for work as the server's suggest does: the struct mstage is rebuilt
 *    from the "database" (every trial with its stage, state and final
 *    value, every report; `exhausted` once all `configs` candidates have
 *    been issued), mstage_plan is applied (seeds move to their stage,
 *    the other paused members are pruned), then
 *      - the first paused seed of plan.resume is resumed from its last
 *        step, else
 *      - if plan.n_new > 0, a new trial (issue number = trials started so
 *        far) is chosen by sampler_next over the candidates not yet issued
 *        (base kind, seed, init, kernel, acquisition of struct
 *        mstage_sim_base; seq = the issue number). Its observations are,
 *        as in study/suggest.c and study/multifidelity.c, every
 *        trial with an mstage_value_at at the fidelity the model learns
 *        from, oriented larger-is-better (−ppl): the current stage's, or,
 *        while fewer than `init` trials have a value there, the highest
 *        earlier stage's fidelity that `init` trials have reached (stage
 *        0's at the lowest), so that a stage's first new configurations
 *        learn from the previous stage; pending are the stage's live or
 *        paused members without that value (none, with one worker, since
 *        seeds are resumed first);
 *      - when the plan's stage is n the study has finished.
 *
 *  - Training. One checkpoint is one step: step s reports ppl[s-1]
 *    (mstage_observe) and mstage_decide answers; STOP pauses the trial (a
 *    member of a stage < n-1 reached its stage's steps). A member of the
 *    last stage that reaches steps[n-1] sends its final report and is
 *    COMPLETED. A curve that ends before the trial's stage fidelity is a
 *    trainer whose model stopped: after its last checkpoint it sends its
 *    final report and is COMPLETED (it stays a done member of its stage,
 *    core/mstage.h); a paused seed resumed at the end of its curve
 *    completes at once, training nothing. The final value of a completed
 *    trial is its best-so-far (BSF) perplexity: the model one keeps is its
 *    best checkpoint.
 *
 * Outputs (struct mstage_sim_result):
 *   steps        checkpoints trained by all trials together;
 *   steps_full   sum over the drawn configs of min(steps[n-1], len):
 *                training all `configs` to the last stage's fidelity;
 *   started      configurations started (issued);
 *   n_full       trials COMPLETED, i.e. trained to min(steps[n-1], len):
 *                the last stage's members, and curves that ended early;
 *   kept         the completed trial with the lowest final value (BSF;
 *                ties to the earlier issue) is the one kept: its draw index
 *                (MSTAGE_SIM_NONE if nothing completed). It is a member of
 *                the last stage unless a curve ended before its stage's
 *                fidelity (then it was trained to its end, as ASHA's
 *                "finished" configs are);
 *   best_rank    kept's rank by `optimal` among the drawn configs, 1 +
 *                the number with a strictly lower optimal (0 if none kept);
 *   best_full    1 if a config with the lowest optimal of the pool was
 *                completed (trained to min(steps[n-1], len));
 *   best_started 1 if such a config was ever started.
 *
 * The result is a function of the rng state, the curves, the features and
 * the parameters only.
 */
#ifndef HPOD_TOOLS_MSTAGE_SIM_H
#define HPOD_TOOLS_MSTAGE_SIM_H

#include <stddef.h>

#include "core/asha_sim.h"
#include "core/mstage.h"
#include "core/rng.h"
#include "core/sampler.h"
#include "core/space.h"
#include "common/status.h"

#define MSTAGE_SIM_NONE ((size_t)-1)

/* The sampler that proposes a stage's new configurations. */
struct mstage_sim_base {
    enum sampler_kind kind; /* SAMPLER_RANDOM, SAMPLER_GP, SAMPLER_GRAPH */
    unsigned long long seed;
    int init;        /* random choices before the model is used */
    int kernel;      /* enum kernel_kind */
    int acquisition; /* as struct sampler_input */
};

struct mstage_sim_result {
    size_t steps;
    size_t steps_full;
    size_t started;
    size_t n_full;
    size_t kept;
    size_t best_rank;
    int best_full;
    int best_started;
};

/*
 * mstage_sim_run - one replay (rules above). curves: n curves (the
 * asha_sim curve, lower ppl is better); features: n × sp->n_params raw
 * values, row i the configuration of curve i (legal values of sp); prm:
 * the stages (sense and exhausted are set by the replay: minimize, and
 * exhausted once every candidate was issued).
 * Return: HPOD_OK with *out filled; HPOD_EINVAL for NULL pointers, a curve
 * with a NULL ppl or len 0, configs == 0 or configs > n, parameters
 * mstage_create rejects, or what sampler_next rejects; HPOD_EINTERNAL if
 * the stage rules left the single worker without work before the end (a
 * bug).
 */
enum hpod_status mstage_sim_run(const struct asha_sim_curve *curves, size_t n,
                                const double *features, const struct space *sp,
                                const struct mstage_params *prm,
                                const struct mstage_sim_base *base,
                                size_t configs, struct rng *r,
                                struct mstage_sim_result *out);

/*
 * mstage_sim_trace - mstage_sim_run that also writes, for the j-th drawn
 * config (configs entries each, any may be NULL), the curve index
 * drawn[j], the checkpoints it was trained trained[j], and its issue
 * number issued[j] (MSTAGE_SIM_NONE if never started).
 */
enum hpod_status mstage_sim_trace(const struct asha_sim_curve *curves, size_t n,
                                  const double *features,
                                  const struct space *sp,
                                  const struct mstage_params *prm,
                                  const struct mstage_sim_base *base,
                                  size_t configs, struct rng *r,
                                  struct mstage_sim_result *out, size_t *drawn,
                                  size_t *trained, size_t *issued);

#endif
