/*
 * study/constraints.h - a study's constraints in the form core/mobo
 * takes them: reported values oriented as "value <= bound", the bounds
 * and log flags of the constraint GPs, and the probability that one
 * constraint holds at given configurations (for /best, whose recommended
 * trial must hold each unreported constraint with at least its
 * confidence). study/suggest.c builds its mobo_input with the same
 * helpers.
 */
#ifndef HPOD_CONSTRAINTS_H
#define HPOD_CONSTRAINTS_H

#include <jansson.h>
#include <stddef.h>

#include "common/status.h"
#include "core/mobo.h"
#include "study/def.h"

/* Fewest reports of a constrained metric before its GP may vouch for a
 * trial that did not report it: core/mobo.h says why. */
#define CONSTRAINT_MIN_REPORTS MOBO_MIN_CON_REPORTS

/*
 * constraints_value - the value of d's constraint c reported in vals,
 * oriented as core/mobo wants it: the value under a "max" bound, minus the
 * value under a "min" bound; NaN when vals does not carry the metric.
 */
double constraints_value(const struct study_def *d, size_t c,
                         const struct metric_set *vals);

/*
 * constraints_bounds - fills con_max and con_log (d->n_constraints entries
 * each) for a struct mobo_input whose obs_c (n_obs × d->n_constraints,
 * NaN = not reported) holds constraints_value()s: con_max[c] is the bound
 * (negated under "min"); con_log[c] is 1 when the GP should model
 * log(value), i.e. for a "max" bound > 0 on a metric whose every report
 * is > 0 (time, speed and memory have multiplicative noise: Beck et al.
 * 2016).
 */
void constraints_bounds(const struct study_def *d, const double *obs_c,
                        size_t n_obs, double *con_max, unsigned char *con_log);

/*
 * constraints_prob - P(constraint c holds) at the k configurations q_raw
 * (k × n_params, raw values as from params_from_json), written to p (k
 * entries): core/mobo's GP of the metric (kernel d->algo.kernel, Matérn
 * 5/2 if the study's is not a GP kernel), fitted on the n_obs
 * observations obs_raw (n_obs × n_params) whose obs_c entry (n_obs ×
 * d->n_constraints, constraints_value()s, NaN = not reported) for c is a
 * number, seeded from (d->algo.seed, seq): the same inputs give the same
 * answer. Fewer than CONSTRAINT_MIN_REPORTS reports give p = 0: not
 * known to hold.
 * Returns HPOD_OK; HPOD_EINVAL or HPOD_ENUMERIC as mobo_feasibility.
 */
enum hpod_status constraints_prob(const struct study_def *d, size_t c,
                                  const double *obs_raw, const double *obs_c,
                                  size_t n_obs, const double *q_raw, size_t k,
                                  int seq, double *p);

#endif
