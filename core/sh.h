/*
 * core/sh.h - successive halving replayed on recorded learning curves
 * (Xuan Zhang's dissertation, ch. 6, Table 6.1; docs/ARCHITECTURE.md,
 * "Algorithms").
 *
 * Each configuration is a learning curve: its objective (dev perplexity,
 * LOWER is better) at checkpoints 1, 2, ..., len. Successive halving looks
 * at the curves every c checkpoints and keeps the top 1/p of the survivors
 * by their best-so-far (BSF) value, until one remains. The question the
 * dissertation asks is how often that one is the configuration that is
 * truly best when trained to the end.
 *
 * Pure: no I/O, no globals; scratch memory comes from xmalloc (common/mem.h)
 * and is freed before returning. Curves are borrowed for the call only.
 * The learning-curve files are read by bench/tables.c; `hpod-bench
 * --sh` (tools/) prints the table.
 *
 * Definitions (the contract of sh_simulate):
 *
 *  - BSF of a curve at checkpoint t: the minimum of y[0 .. min(t, len)-1],
 *    i.e. over the AVAILABLE prefix. A model that stopped training before t
 *    keeps the BSF it had at its last checkpoint (it has no later values to
 *    compare; it is neither penalized nor extrapolated). Because it is a
 *    running minimum, a restart (the raw curves rise when a model overfits,
 *    then drop when training restarts from a better checkpoint at a lower
 *    learning rate) counts only when it beats the earlier best. NaN values
 *    are skipped; a prefix of NaNs only has BSF NaN, which ranks last.
 *
 *  - Stage s = 1, 2, ... looks at checkpoint t = s·c. The k survivors are
 *    ordered by (BSF at t, position in the input): ties go to the earlier
 *    configuration, a choice uncorrelated with quality when the input
 *    order is random (sh_simulate_many draws it at random). The first
 *    keep(k) stay, the others are discarded, with
 *        keep(k) = max(1, floor(k / p))     (default; ASHA's ⌊k/η⌋)
 *        keep(k) = max(1, ceil(k / p))      (params.round_up = 1)
 *    so 40 configurations with p = 2 go 40, 20, 10, 5, 2, 1 (five stages)
 *    or 40, 20, 10, 5, 3, 2, 1 (six).
 *
 *  - When every survivor's curve has ended at or before t (len <= t), the
 *    ranking can no longer change, so that stage keeps exactly 1 and is the
 *    last ("continue until one remains or the curves end").
 *
 *  - The final configuration is the one left. The truly best is the one
 *    with the lowest `optimal` value (the file's perplexity_optimal); the
 *    run is correct when the final configuration's optimal equals that
 *    minimum (identical twins count as the best). discarded_at is the stage
 *    at which the last configuration holding the minimum was discarded,
 *    0 if one survived; so correct <=> discarded_at == 0.
 *
 *  - Checkpoints spent: a configuration discarded at stage s was trained
 *    min(len, s·c) checkpoints; the final one is trained to its end (len),
 *    since it is the model one keeps. full = the sum of all lens, i.e.
 *    training everything to the end.
 */
#ifndef HPOD_SH_H
#define HPOD_SH_H

#include <stddef.h>
#include <stdint.h>

#include "common/status.h"

/* One configuration's learning curve (borrowed). */
struct sh_curve {
    const double *y; /* len values, lower is better */
    size_t len;      /* checkpoints (>= 1) */
    double optimal;  /* the value that decides the truly best (lower wins) */
};

/*
 * What a stage ranks by. SH_RANK_BSF is the method (dissertation ch. 6);
 * SH_RANK_LAST (the value at the last available checkpoint <= t, NaN if
 * that one is NaN) exists to measure what the running minimum is worth on
 * curves with overfitting and restarts.
 *
 * SH_RANK_EXTRAP "looks forward" where BSF "looks back": at
 * stage checkpoint t, with horizon H (struct sh_params), a survivor is
 * ranked by
 *
 *   - its BSF at its end, if its curve has ended (len <= t): it has no
 *     future to extrapolate, and its BSF is what one would keep;
 *   - its BSF at t, if H <= t: there is no future before the horizon;
 *   - otherwise min(BSF at t, f(H)), f the power law a + b·t^(−α) fitted
 *     by lcfit_power_from (core/lcfit.h) to the running minimum of
 *     y[0 .. t-1] at checkpoints floor(t/2)+1 .. t: the second half of
 *     the prefix, since the first checkpoints are a warm-up transient the
 *     law does not describe (on robust19 at p = 2, c = 10, H = the
 *     longest curve, fitting the whole prefix gave acc 5 and 10 where
 *     the second half gives about 50). The min is there because the
 *     model one keeps is the one at its best checkpoint: its value at H
 *     cannot be worse than its BSF now, so a prediction above the BSF (a
 *     fit that does not pass through the last best) says nothing. When
 *     the fit is degenerate (fewer than LCFIT_MIN_POINTS finite values in
 *     that half, e.g. t < 5) the key falls back to the BSF.
 *
 * All three keep the same keep rule, so the checkpoints spent by a run
 * depend on the rank only through which curves survive.
 */
enum sh_rank { SH_RANK_BSF = 0, SH_RANK_LAST = 1, SH_RANK_EXTRAP = 2 };

struct sh_params {
    size_t p;     /* reduction factor (>= 2) */
    size_t c;     /* checkpoints between stages (>= 1) */
    int round_up; /* 0: keep max(1, floor(k/p)); 1: max(1, ceil(k/p)) */
    enum sh_rank rank;
    /*
     * SH_RANK_EXTRAP only: the checkpoint H at which a survivor's curve is
     * extrapolated. 0 (the default: a zeroed struct, or the old four-field
     * initializers with a trailing 0) means the longest curve among the n
     * configurations of the run, i.e. the most any of them is trained:
     * the budget a user of SH fixes in advance (R in Hyperband). The
     * truly best is decided by each curve's best over its whole training,
     * and a survivor may train that long, so that is where its future is
     * read; extrapolating to each curve's own length instead would use
     * what no real run knows (when training will stop). A fixed H > 0 is
     * used as is. Ignored by the other ranks.
     */
    size_t horizon;
};

/* The outcome of one successive-halving run. */
struct sh_result {
    size_t final;        /* index (into the curves given) of the winner */
    size_t best;         /* index of the first curve with the lowest optimal */
    int correct;         /* curves[final].optimal == curves[best].optimal */
    size_t stages;       /* stages run; 0 when n == 1 */
    size_t discarded_at; /* stage that discarded the best (1-based), 0: none */
    size_t spent;        /* checkpoints trained */
    size_t full;         /* checkpoints to train everything to the end */
    int complete;        /* 1 if the last stage saw every survivor's whole
                            curve (or n == 1): the pick was then exact */
};

/*
 * sh_bsf - the best-so-far (minimum, NaNs skipped) of y over the first
 * min(t, len) checkpoints; NaN when that prefix is empty or all NaN.
 */
double sh_bsf(const double *y, size_t len, size_t t);

/*
 * sh_simulate - one successive-halving run over n curves, as defined
 * above. Inputs: curves (n entries, borrowed), prm. Output: *res.
 * Return: HPOD_OK; HPOD_EINVAL if a pointer is NULL, n == 0, p < 2,
 * c == 0, rank is not one of enum sh_rank, or a curve has len == 0 or
 * y == NULL. With SH_RANK_EXTRAP each survivor that is still running is
 * fitted once per stage (a few thousand exp() per fit on curves of tens
 * of checkpoints); sh_simulate_many caches the fits per (curve, stage).
 */
enum hpod_status sh_simulate(const struct sh_curve *curves, size_t n,
                             const struct sh_params *prm,
                             struct sh_result *res);

/* Aggregates of sh_simulate_many (dissertation Table 6.1: acc, dif). */
struct sh_summary {
    size_t runs;
    size_t correct;     /* runs whose final configuration is the best */
    double acc;         /* 100 · correct / runs */
    double dif;         /* mean over ALL runs of (last stage - the stage that
                           discarded the best); a run in which the best
                           survived counts 0 */
    double dif_failed;  /* the same mean over the failed runs only; NaN
                           when every run was correct */
    double stages;      /* mean number of stages */
    double spent;       /* mean checkpoints spent per run */
    double full;        /* mean checkpoints to train all `configs` to the
                           end, per run */
    size_t first_stage; /* failed runs whose best was discarded at stage 1 */
    size_t last_stage;  /* failed runs whose best was discarded at the last
                           stage (the final choice among the survivors) */
    size_t complete;    /* runs whose last stage saw complete curves */
};

/*
 * sh_simulate_many - `runs` runs with seeds seed0, seed0+1, ...; run k
 * draws `configs` of the n curves uniformly without replacement (partial
 * Fisher-Yates with rng_seed(seed0 + k): draw j swaps position j with
 * j + rng_below(n - j) of the identity permutation) and replays sh_simulate
 * on them in draw order. per_run (runs entries, may be NULL) receives each
 * run's result with final and best mapped back to indices into curves.
 * Output: *sum. Return: HPOD_OK; HPOD_EINVAL for NULL pointers, runs == 0,
 * configs == 0 or configs > n, and for what sh_simulate rejects. With
 * SH_RANK_EXTRAP a fit depends only on the curve and the stage's
 * checkpoint, so the fits are cached across runs (n · configs struct
 * lcfit, freed before returning): the results equal those of calling
 * sh_simulate run by run.
 */
enum hpod_status sh_simulate_many(const struct sh_curve *curves, size_t n,
                                  const struct sh_params *prm, size_t configs,
                                  size_t runs, uint64_t seed0,
                                  struct sh_result *per_run,
                                  struct sh_summary *sum);

#endif
