/*
 * core/asha.h - rung bookkeeping and the promotion rule of asynchronous
 * successive halving (ASHA: Li et al., "A system for massively parallel
 * hyperparameter tuning", MLSys 2020, Algorithm 2; Xuan Zhang's
 * dissertation ch. 7; docs/ARCHITECTURE.md, "Algorithms").
 *
 * Pure: no I/O, no globals, no clock. A struct asha is built by the caller
 * from the intermediate reports (config, step, values) that have arrived so
 * far, plus the set of configurations that are paused; every answer is a
 * function of that SET only, whatever the order of the asha_observe and
 * asha_pause calls. The server can therefore rebuild it from the database
 * for every decision (under the study's lock) and any hpod process gives
 * the same answer. Scratch memory comes from xmalloc (common/mem.h).
 *
 * Rules (the contract):
 *
 *  Rungs. r, r+u, r+2u, ... up to and including R (asha_rungs). A rung
 *  below R is a DECISION rung; a rung equal to R is the end of training,
 *  where nothing is decided. The TOP rung is the highest decision rung.
 *
 *  Arrival. A configuration reaches rung i at its first reported step
 *  s >= rung_i (trainers that report every step arrive at s = rung_i; one
 *  that skips steps arrives at the first step past the rung). Its value at
 *  the rung is the best-so-far (BSF) of its reports with step <= s, per
 *  objective in the objective's direction (minimum for sense < 0, maximum
 *  otherwise); NaNs are skipped, and an objective that is NaN in every such
 *  report stays NaN. With several objectives the BSF vector may combine
 *  different steps (the best of each objective so far).
 *
 *  Order at a rung. The k configurations that reached rung i are put in a
 *  total order, best first:
 *   - one objective: by value in its direction, then by config id
 *     (smaller first), so ties are broken by age and exactly the first
 *     ⌊k/p⌋ positions are promotable, never more;
 *   - m > 1 objectives: by non-dominated rank (pareto_rank), then within a
 *     rank by decreasing crowding distance computed among that rank's
 *     members (pareto_crowding: a rank's extremes first), then by id;
 *   - a value (vector) holding a NaN ranks after every finite one, by id.
 *
 *  Limit. Position j (0-based) at decision rung i is promotable when
 *  j < limit(i), with
 *      limit(i) = ⌊k_i / p⌋                             (ASHA's top 1/η)
 *      top rung: limit = max(limit, keep)   (the best `keep` configurations
 *                that reached the top rung are never stopped)
 *      exhausted, every rung: limit = max(limit, keep)
 *      stopping mode only: limit = max(limit, 1)
 *  capped at k_i. `exhausted` is the caller's statement that no new
 *  configuration will be started (the study's budget of configurations is
 *  spent). Until then ASHA keeps its rungs strict and lets new arrivals
 *  fill them; once the bottom rung is closed, ⌊k/p⌋ alone would strand
 *  everyone below the top (with p = 2 and 11 rungs, 40 configurations get
 *  no further than rung 6), so the best `keep` of every rung move up and
 *  at least min(keep, configurations) are trained to R (unless their
 *  curves end first). In promotion mode ⌊k/p⌋ = 0 (fewer than p arrivals)
 *  makes nothing promotable, exactly as in the paper: the first arrivals
 *  are paused and wait until enough others have reached the rung. In
 *  stopping mode a stop is final, so the paper's rule would always kill
 *  the first p-1 arrivals at every rung for arriving early; instead the
 *  best of the k so far continues (the rule of Optuna's
 *  SuccessiveHalvingPruner).
 *
 *  Decision (asha_decide). A report at `step` is judged only at a rung
 *  boundary: when `step` is the configuration's arrival step at one or more
 *  decision rungs. It answers STOP if the configuration is not promotable
 *  now at one of them, otherwise CONTINUE (and always CONTINUE between
 *  rungs, at or beyond R, and for steps the state has no report of).
 *  In stopping mode a stopped configuration is final; in promotion mode
 *  the caller records it as paused (asha_pause) and it may be promoted
 *  later (asha_promotable) when more arrivals make it promotable.
 *
 *  Promotion (asha_promotable, promotion mode). A paused configuration
 *  waits at its current rung, the highest decision rung it has reached.
 *  Scanning decision rungs from the top down, the first rung holding a
 *  paused, promotable configuration gives the promotion: the best-ordered
 *  such configuration there. A configuration that is not paused (running,
 *  finished, stopped for good) is never proposed. Promoting is the caller's
 *  act: it resumes the trial and stops calling asha_pause for it.
 *
 *  Inherent to ASHA, not a bug: as more configurations reach a rung its
 *  limit grows and the order changes, so a configuration that was answered
 *  CONTINUE may later rank outside the top 1/p ("mispromotion"), and more
 *  than ⌊k/p⌋ configurations may end up having passed a rung.
 */
#ifndef HPOD_ASHA_H
#define HPOD_ASHA_H

#include <stddef.h>
#include <stdint.h>

#include "common/status.h"

/* Most objectives a struct asha accepts. */
#define ASHA_MAX_OBJECTIVES 16

enum asha_mode {
    ASHA_PROMOTION = 0, /* an unpromising configuration is paused */
    ASHA_STOPPING = 1   /* an unpromising configuration is stopped for good */
};

enum asha_action { ASHA_CONTINUE = 0, ASHA_STOP = 1 };

/* Parameters; copied by asha_create (nothing is kept borrowed). */
struct asha_params {
    size_t r;    /* first rung, in steps (>= 1) */
    size_t u;    /* distance between rungs (>= 1) */
    size_t R;    /* maximum steps (>= r) */
    size_t p;    /* reduction factor η (>= 2) */
    size_t keep; /* configurations never stopped at the top rung (default 2;
                    0 allowed) */
    enum asha_mode mode;
    int exhausted;    /* 1: no new configuration will be started */
    size_t m;         /* objectives, 1..ASHA_MAX_OBJECTIVES */
    const int *sense; /* m goals: < 0 minimize (ppl), else maximize (bleu) */
};

/* A configuration to promote (asha_promotable). */
struct asha_promotion {
    int64_t config;
    size_t rung;        /* decision rung index it is promoted from */
    size_t rung_step;   /* that rung's step */
    size_t resume_step; /* its highest reported step: resume from there */
};

/* A configuration's standing at one rung (asha_standing). */
struct asha_standing {
    size_t arrival;  /* step at which it reached the rung */
    size_t position; /* 0-based place in the rung's order, best first */
    size_t k;        /* configurations that have reached the rung */
    size_t limit;    /* promotable iff position < limit */
    int promotable;  /* position < limit (0 at the rung equal to R) */
};

/*
 * asha_rungs - the rungs r, r+u, r+2u, ... <= R. Writes them to out (may
 * be NULL to count only; otherwise room for the count) and returns how many
 * there are: 0 when r == 0, u == 0 or r > R.
 */
size_t asha_rungs(size_t r, size_t u, size_t R, size_t *out);

struct asha;

/*
 * asha_create - a new empty state for prm (copied). *out receives it
 * (asha_free), or NULL on failure. Return: HPOD_OK; HPOD_EINVAL for
 * NULL pointers, r == 0, u == 0, R < r, p < 2, m == 0 or
 * m > ASHA_MAX_OBJECTIVES, or a mode other than the two above.
 */
enum hpod_status asha_create(const struct asha_params *prm, struct asha **out);

/* Frees a; accepts NULL. */
void asha_free(struct asha *a);

/*
 * asha_observe - adds the report of `config` at `step` with values (m
 * entries, copied). Reports with the same (config, step) all count (the
 * BSF takes the best), so adding a report twice changes nothing.
 * Return: HPOD_OK; HPOD_EINVAL if a or values is NULL.
 */
enum hpod_status asha_observe(struct asha *a, int64_t config, size_t step,
                              const double *values);

/*
 * asha_pause - records that `config` is paused, waiting for a promotion
 * (promotion mode: it was answered STOP and has not been resumed). Idempotent;
 * a paused configuration without any report is ignored.
 */
void asha_pause(struct asha *a, int64_t config);

/* asha_decide - the answer to config's report at step (rules above). */
enum asha_action asha_decide(struct asha *a, int64_t config, size_t step);

/*
 * asha_promotable - the paused configuration to promote next (rules
 * above). Returns 1 and fills *out if there is one, 0 otherwise (always 0
 * in stopping mode).
 */
int asha_promotable(struct asha *a, struct asha_promotion *out);

/*
 * asha_standing - config's standing at rung index `rung` (of asha_rungs,
 * the rung equal to R included). Returns 1 and fills *out if config has
 * reached that rung, 0 otherwise.
 */
int asha_standing(struct asha *a, int64_t config, size_t rung,
                  struct asha_standing *out);

/* asha_n_rungs - the number of rungs (asha_rungs with the state's r, u, R). */
size_t asha_n_rungs(const struct asha *a);

#endif
