/*
 * core/metrics.h - the benchmark metrics of Zhang & Duh (TACL 2020,
 * section 4), computed on one simulated run, and their aggregation.
 *
 * A run is a sequence seq[0..len) of 0-based row ids of a lookup table with
 * n rows, in sampling order, initial points first. A position is the
 * 1-based count of models evaluated, initial ones included; ninit is the
 * number of initial points (3 in the paper), and a target hit among them
 * counts as found at position ninit (the paper's runtime cannot be below
 * the initial design). Sequences are meant to hold no repeats; ids >= n
 * are skipped (they count as a position but never hit anything).
 *
 * Single objective (y maximized, e.g. BLEU): ftb, ftc, fb. Multi-objective:
 * the caller passes the table's Pareto flags (column `pareto`, 1 = optimal
 * for max bleu / min gpu_time) and gets fto, fta, fbp.
 *
 * Pure: no I/O, no globals. Arrays are borrowed for the call.
 *
 * Not here yet: the successive-halving metrics of the dissertation
 * (Table 6.1: acc = % of runs whose final configuration is the best of its
 * sample, dif = stages between the one that dropped the best and the last);
 * they belong with the successive-halving simulator, which knows the stages.
 */
#ifndef HPOD_METRICS_H
#define HPOD_METRICS_H

#include <stddef.h>

/*
 * metric_oracle_best - the row holding the maximum of y[0..n): the FIRST
 * such row, as numpy's argmax (and so the official scripts) choose; zh-en
 * has three rows tied at 14.66 and the first (id 75) is the target. NaN
 * values are skipped. Returns n if there is no finite row (n == 0).
 */
size_t metric_oracle_best(const double *y, size_t n);

/*
 * metric_ftb - "fixed-target best": the position of the oracle-best row
 * (metric_oracle_best) in seq, but at least ninit. Returns 0 if the row
 * does not appear in seq (or the table has no finite value).
 */
size_t metric_ftb(const size_t *seq, size_t len, const double *y, size_t n,
                  size_t ninit);

/*
 * metric_ftc - "fixed-target close": the first position whose row has
 * y >= max(y) − tol (tol = 0.5 BLEU, 1.0 for en-ja in the paper), at least
 * ninit; 0 if no such row appears. The threshold is computed as the
 * official scripts compute it, max − tol in double precision, so rows at
 * exactly that distance agree with them.
 */
size_t metric_ftc(const size_t *seq, size_t len, const double *y, size_t n,
                  size_t ninit, double tol);

/*
 * metric_fb - "fixed-budget": max(y) − the best y among the first
 * min(budget, len) entries of seq (budget 20 in the paper); 0 when the
 * oracle best was found. +Inf if that prefix holds no valid row.
 */
double metric_fb(const size_t *seq, size_t len, const double *y, size_t n,
                 size_t budget);

/*
 * metric_fto - position of the first Pareto-optimal row (pareto[row] != 0)
 * in seq, at least ninit; 0 if none appears.
 */
size_t metric_fto(const size_t *seq, size_t len, const unsigned char *pareto,
                  size_t n, size_t ninit);

/*
 * metric_fta - position at which the last still-missing Pareto-optimal row
 * appears (all of them found), at least ninit; 0 if some Pareto row never
 * appears in seq, or if the table has no Pareto row.
 */
size_t metric_fta(const size_t *seq, size_t len, const unsigned char *pareto,
                  size_t n, size_t ninit);

/*
 * metric_fbp - number of distinct Pareto-optimal rows among the first
 * min(budget, len) entries of seq (budget 50, or 200 for sw-en and so-en).
 */
size_t metric_fbp(const size_t *seq, size_t len, const unsigned char *pareto,
                  size_t n, size_t budget);

/*
 * metric_mean_std - mean and population standard deviation (divide by k,
 * as the paper's tables do) of v[0..k), by two passes for accuracy.
 * k == 0 gives NaN for both.
 */
void metric_mean_std(const double *v, size_t k, double *mean, double *std);

/*
 * The metrics by number, for metric_spec.skip and for callers that name
 * them (metric_name, metric_from_name).
 */
enum metric_id {
    METRIC_FTB,
    METRIC_FTC,
    METRIC_FB,
    METRIC_FTO,
    METRIC_FTA,
    METRIC_FBP,
    METRIC_COUNT
};
#define METRIC_BIT(id) (1u << (id))
#define METRIC_SINGLE                                                          \
    (METRIC_BIT(METRIC_FTB) | METRIC_BIT(METRIC_FTC) | METRIC_BIT(METRIC_FB))
#define METRIC_PARETO                                                          \
    (METRIC_BIT(METRIC_FTO) | METRIC_BIT(METRIC_FTA) | METRIC_BIT(METRIC_FBP))

/* metric_name - "ftb", "ftc", ...; NULL for an id out of range. */
const char *metric_name(enum metric_id id);

/* metric_from_name - the id of name, or METRIC_COUNT if it is none. */
enum metric_id metric_from_name(const char *name);

/*
 * What a simulation must measure. A NULL y switches off ftb/ftc/fb, a NULL
 * pareto switches off fto/fta/fbp; skip (METRIC_BIT()s) switches off single
 * metrics of an enabled group, so that a sequence need only be long enough
 * for the ones asked (0: every metric its arrays enable, as before).
 * Borrowed: the arrays must outlive every call that uses the struct.
 */
struct metric_spec {
    const double *y;             /* n objective values (maximized), or NULL */
    const unsigned char *pareto; /* n Pareto flags, or NULL */
    size_t n;                    /* table rows */
    size_t ninit;                /* initial points (3) */
    double tol;                  /* ftc tolerance (0.5; 1.0 for en-ja) */
    size_t fb_budget;            /* fb prefix (20) */
    size_t fbp_budget;           /* fbp prefix (50; 200 for sw-en, so-en) */
    unsigned skip;               /* METRIC_BIT()s not measured */
};

/*
 * metric_spec_measures - 1 if spec measures metric id: its array is set
 * and skip does not switch it off.
 */
int metric_spec_measures(const struct metric_spec *spec, enum metric_id id);

/*
 * metric_needed_length - how long seq must be for every enabled metric to
 * be final: the smallest L such that the metrics of seq[0..L) equal those
 * of any longer sequence that starts with it. That is the largest of
 * ninit, the ftb, ftc, fto and fta positions, and the fb and fbp budgets,
 * each budget capped at n (a run cannot outlast the table), counting only
 * the metrics spec measures (metric_spec_measures). Returns that L if
 * seq[0..len) already reaches it (L <= len), else 0: keep sampling. A simulator
 * calls it after each step, or once per batch, and stops on a nonzero answer or
 * when the table is exhausted.
 */
size_t metric_needed_length(const struct metric_spec *spec, const size_t *seq,
                            size_t len);

#endif
