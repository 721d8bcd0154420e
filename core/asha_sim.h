/*
 * core/asha_sim.h - asynchronous successive halving (ASHA, promotion mode)
 * replayed on recorded learning curves with simulated workers, to measure
 * what it saves and what it keeps (docs/ARCHITECTURE.md,
 * "Algorithms").
 *
 * Pure: no I/O, no globals; the rung rule is core/asha.c's, memory comes
 * from xmalloc (common/mem.h) and is freed before returning. Curves are
 * borrowed for the call only. `hpod-bench --asha` (tools/)
 * prints the table.
 *
 * The replay (the contract of asha_sim_run):
 *
 *  - Draw. `configs` of the n curves are drawn at random without
 *    replacement (partial Fisher-Yates with rng_below); the j-th drawn is
 *    ASHA config id j, so that ASHA's ties go to the earlier draw, which is
 *    also the earlier start.
 *
 *  - Time. One step (one checkpoint of a curve) takes one time unit on a
 *    worker. At every tick t = 1, 2, ... the workers are visited in index
 *    order: a busy worker finishes its step s of config c, reports
 *    ppl[s-1] (asha_observe, minimize) and then
 *      - if s == min(R, len) the config is finished (trained to R, or to
 *        the end of its curve) and the worker is free;
 *      - else if asha_decide says STOP, the config is paused (asha_pause)
 *        and the worker is free;
 *      - else it goes on with step s+1 at the next tick.
 *    A free worker then asks for work: the promotable paused config of
 *    asha_promotable (resumed from its last step; it is no longer paused),
 *    else the next drawn config, started from step 1, while fewer than
 *    `configs` have started. A second pass over the still-free workers in
 *    index order asks again, so that a promotion made possible by a report
 *    of a later worker at the same tick is not missed. The moment the last
 *    config is started, ASHA's `exhausted` flag is set (prm->exhausted is
 *    ignored).
 *
 *  - End. When, after both passes, no worker is busy: nothing is
 *    promotable and every config has started.
 *
 * Outputs (struct asha_sim_result):
 *   steps       time units trained by all workers together;
 *   steps_full  sum over the drawn configs of min(R, len): training every
 *               config to R;
 *   n_full      configs finished (trained to min(R, len));
 *   best_rank   the finished config with the lowest BSF at its last step
 *               (ties to the earlier draw) is the one ASHA keeps; its rank
 *               by `optimal` among the drawn configs, 1 = best, i.e. 1 +
 *               the number of drawn configs with a strictly lower optimal
 *               (0 if nothing finished);
 *   best_full   1 if a config with the lowest optimal of the drawn ones
 *               was finished;
 *   elapsed     ticks until the end (wall time of the simulated cluster).
 *
 * The result is a function of the rng state, the curves and the
 * parameters only.
 */
#ifndef HPOD_ASHA_SIM_H
#define HPOD_ASHA_SIM_H

#include <stddef.h>

#include "core/asha.h"
#include "core/rng.h"
#include "common/status.h"

/* One learning curve (borrowed). */
struct asha_sim_curve {
    const double *ppl; /* len perplexities, step s is ppl[s-1]; lower is
                          better */
    size_t len;        /* checkpoints (>= 1) */
    double optimal;    /* decides the truly best (lower wins) */
};

struct asha_sim_result {
    size_t steps;
    size_t steps_full;
    size_t n_full;
    size_t best_rank;
    int best_full;
    size_t elapsed;
};

/*
 * asha_sim_run - one replay (rules above) with prm's r, u, R, p and keep
 * (mode, exhausted, m and sense are set by the replay: promotion mode, one
 * objective to minimize). r advances by `configs` draws.
 * Return: HPOD_OK with *out filled; HPOD_EINVAL for NULL pointers, a curve
 * with a NULL ppl or len 0, workers == 0, configs == 0 or configs > n, or
 * parameters asha_create rejects.
 */
enum hpod_status asha_sim_run(const struct asha_sim_curve *curves, size_t n,
                              const struct asha_params *prm, size_t workers,
                              size_t configs, struct rng *r,
                              struct asha_sim_result *out);

/*
 * asha_sim_trace - asha_sim_run that also writes, for the j-th drawn
 * config (configs entries each, either may be NULL), the curve index
 * drawn[j] and the steps it was trained, trained[j].
 */
enum hpod_status asha_sim_trace(const struct asha_sim_curve *curves, size_t n,
                                const struct asha_params *prm, size_t workers,
                                size_t configs, struct rng *r,
                                struct asha_sim_result *out, size_t *drawn,
                                size_t *trained);

#endif
