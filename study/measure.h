/*
 * study/measure.h - what a trial of a study with a decoupled constraint
 * measures (docs/ARCHITECTURE.md, "Decoupled constraints"): the choice at
 * suggest time (core/decoupled.h's rule on the constraint GPs), the check
 * of a report against it, and what a report on a probe decides. A measure
 * is the JSON text of an array of metric names, stored per trial
 * (store/measure_store.h); no row means every metric.
 */
#ifndef HPOD_STUDY_MEASURE_H
#define HPOD_STUDY_MEASURE_H

#include "common/err.h"
#include "store/model.h"
#include "study/def.h"
#include "study/history.h"

/* 1 if some constraint of d is decoupled. */
int measure_decoupled(const struct study_def *d);

/*
 * measure_all - every metric of d (objectives, then constrained metrics,
 * each once) as a measure text (caller frees).
 */
char *measure_all(const struct study_def *d);

/*
 * measure_choose - the measure of a new trial at raw (n_params raw
 * values), chosen with the history h the sampler chose from: the
 * decoupled constraints' metrics alone when decoupled_probe_first(q, C),
 * q the product of their P(holds at raw) (study/constraints.h
 * constraints_prob, 0 while a metric has fewer than
 * CONSTRAINT_MIN_REPORTS reports: nothing is known, so probing is
 * cheapest), C the sum of their costs; else measure_all. *out: the text
 * (caller frees). HPOD_ENUMERIC if a GP cannot be fitted.
 */
enum hpod_status measure_choose(const struct study_def *d,
                                const struct history *h, int seq,
                                const double *raw, char **out);

/*
 * measure_check_report - every metric of values must be in measure (a
 * stored measure text; NULL: everything is allowed) or already held by
 * the trial (held: a retried report; report_merge then checks that the
 * value is the same): HPOD_EUNPROC naming values.<metric> otherwise;
 * HPOD_EINTERNAL if measure cannot be read.
 */
enum hpod_status measure_check_report(const char *measure,
                                      const struct metric_set *held,
                                      const struct metric_set *values,
                                      struct hpod_err *err);

/*
 * measure_after_report - what a final report decided about a trial asked
 * for measure (NULL: nothing to decide), holding values once merged. A
 * probe (measure names only decoupled constraints) all of whose metrics
 * are in: *done = 1 if one of them violates its bound (the trial ends as
 * completed, with its constraint values only: there is nothing to train
 * for); else *next is the measure of what it lacks (every other metric,
 * in measure_all's order; caller frees) and the trial stays live for
 * them. Otherwise *done = 0, *next = NULL.
 */
void measure_after_report(const struct study_def *d, const char *measure,
                          const struct metric_set *values, int *done,
                          char **next);

#endif
