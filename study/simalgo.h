/*
 * study/simalgo.h - the "algorithm" of a simulation on a lookup table,
 * parsed as a study's is (study/algo, and study/auto for an omitted
 * algorithm or {"name": "auto"}: a simulation runs what a study on the
 * table's rows would run) and turned into what core/simulate runs. It is
 * the simreq_algo_fn that the handler and the job worker hand to
 * bench/simreq, which sits below study/.
 */
#ifndef HPOD_STUDY_SIMALGO_H
#define HPOD_STUDY_SIMALGO_H

#include <jansson.h>

#include "bench/simreq.h"
#include "common/status.h"
#include "core/autoalgo.h"

/* See bench/simreq.h, simreq_algo_fn. */
enum hpod_status simalgo_parse(json_t *a, const struct autoalgo_features *f,
                               struct simreq_algo *out, json_t **norm,
                               struct hpod_err *err);

#endif
