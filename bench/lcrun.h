/*
 * bench/lcrun.h - successive halving (core/sh) and ASHA (core/asha_sim)
 * repeated on a learning-curve set (bench/tables.h): the one
 * implementation behind POST /v1/benchmarks/{set}/simulate and
 * `hpod-bench --sh/--asha`. Plain C: no JSON, no request.
 *
 * Run k of a batch uses rng_seed(seed + k), so both callers agree for
 * the same seeds.
 */
#ifndef HPOD_LCRUN_H
#define HPOD_LCRUN_H

#include <stddef.h>
#include <stdint.h>

#include "bench/tables.h"
#include "common/status.h"
#include "core/asha_sim.h"
#include "core/sh.h"

/* The curves of a set in the forms core/sh and core/asha_sim take. */
struct lcrun_curves {
    const char *name;          /* borrowed: the set's name */
    size_t n;                  /* curves */
    struct sh_curve *sh;       /* n, file order */
    struct asha_sim_curve *as; /* n, file order */
    /* The first curve of every distinct hyperparameter setting, in file
     * order (n_settings of them). */
    struct sh_curve *dedup;
    size_t n_settings;
    size_t len_min, len_med, len_max; /* curve lengths: min, n/2-th, max */
};

/* lcrun_curves_init - fills c from set (borrowed; set must outlive c). */
void lcrun_curves_init(struct lcrun_curves *c, const struct bench_lc_set *set);
void lcrun_curves_free(struct lcrun_curves *c);

/*
 * lcrun_sh - sh_simulate_many on c's curves (dedup: on c->dedup) with
 * seeds seed .. seed+repeats-1. per (repeats entries) and sum as
 * sh_simulate_many's (per may be NULL unless draws is given). draws, when
 * not NULL, receives repeats × configs curve indices, the curves run k
 * drew in draw order (core/sh.h's draw: partial Fisher-Yates on
 * rng_seed(seed + k)), checked against the runs' final and best.
 * Return: HPOD_OK; HPOD_EUNPROC when SH cannot run on the set; HPOD_EINTERNAL
 * when a redone draw disagrees with core/sh's. err is filled on failure.
 */
enum hpod_status lcrun_sh(const struct lcrun_curves *c, int dedup,
                          const struct sh_params *prm, size_t configs,
                          size_t repeats, uint64_t seed, struct sh_result *per,
                          struct sh_summary *sum, size_t *draws,
                          struct hpod_err *err);

/* Means over the runs of an ASHA batch (percentages in 0..100). */
struct lcrun_asha_summary {
    double steps;      /* checkpoints trained */
    double steps_full; /* checkpoints if every config was trained to R */
    double saved;      /* mean of the runs' 100·(1 - steps/steps_full) */
    double best_full;  /* % of runs that trained a best config to R */
    double best_rank;  /* rank of the config kept (1 = best) */
    double kept_best;  /* % of runs whose kept config has rank 1 */
    double n_full;     /* configs trained to R */
    double elapsed;    /* ticks of the simulated cluster */
    double speedup;    /* (steps_full / workers) / max(elapsed, 1) */
};

/*
 * lcrun_asha - `repeats` ASHA replays with `workers` simulated workers,
 * run k on rng_seed(seed + k). Optional outputs (NULL to skip): res
 * (repeats results), draws and trained (repeats × configs each, as
 * asha_sim_trace's drawn and trained). sum gets the means.
 * Return: HPOD_OK; HPOD_EUNPROC when ASHA cannot run with these
 * parameters (err filled).
 */
enum hpod_status lcrun_asha(const struct lcrun_curves *c,
                            const struct asha_params *prm, size_t workers,
                            size_t configs, size_t repeats, uint64_t seed,
                            struct asha_sim_result *res, size_t *draws,
                            size_t *trained, struct lcrun_asha_summary *sum,
                            struct hpod_err *err);

#endif
