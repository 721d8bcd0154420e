/*
 * study/algometrics.h - the per-algorithm series of /metrics, kept by
 * this process: hpod_suggest_duration_seconds, how long a suggest call
 * took (from the handler's call to its answer, the wait for its study's
 * group and lock included), and hpod_model_fit_seconds, how long the
 * model took for one configuration it chose (the surrogate's fit and the
 * acquisition search: core/ reads no clock, so the two are timed as
 * one; a random choice, of a random study or of a model study's initial
 * design, is not a model's and is not counted). The label is the study's
 * algorithm ("gp", "asha", ...): a closed set.
 */
#ifndef HPOD_STUDY_ALGOMETRICS_H
#define HPOD_STUDY_ALGOMETRICS_H

#include "common/strbuf.h"
#include "study/algo.h"

/* Counts one suggest of a study of algorithm a that took sec seconds. */
void algometrics_suggest(enum algo_name a, double sec);

/* Counts one model choice of algorithm a that took sec seconds. */
void algometrics_model(enum algo_name a, double sec);

/* Appends both families (HELP, TYPE and a series per algorithm seen). */
void algometrics_text(struct strbuf *b);

#endif
