/*
 * bench/evaluate.h - finds the row of a lookup table or the curve of a
 * learning-curve set a configuration names (POST
 * /v1/benchmarks/{name}/evaluate, the fake trainers' lookup).
 */
#ifndef HPOD_BENCH_EVALUATE_H
#define HPOD_BENCH_EVALUATE_H

#include <jansson.h>
#include <stddef.h>

#include "bench/catalog.h"
#include "common/status.h"

/*
 * evaluate_match_row - *row: the row of ref's table whose parameters are
 * params (an object, borrowed; categorical values by choice). HPOD_EUNPROC
 * (err names the field) for an unknown, missing or mistyped parameter, or
 * when no row matches.
 */
enum hpod_status evaluate_match_row(const struct bench_ref *ref, json_t *params,
                                    size_t *row, struct hpod_err *err);

/*
 * evaluate_match_curve - *row: the first curve of c whose hyperparameters are
 * exactly params (every one, nothing else). HPOD_EUNPROC otherwise.
 */
enum hpod_status evaluate_match_curve(const struct bench_lc_set *c,
                                      json_t *params, size_t *row,
                                      struct hpod_err *err);

#endif
