/*
 * bench/expand.h - a study body naming a "benchmark" made into a plain
 * study definition: the table's space and rows as candidates (or a curve
 * set's hyperparameters and distinct configurations) and default
 * objectives.
 */
#ifndef HPOD_BENCH_EXPAND_H
#define HPOD_BENCH_EXPAND_H

#include <jansson.h>

#include "bench/tables.h"
#include "common/status.h"
#include "store/db.h"

/*
 * expand_study - for a study body (borrowed) naming a "benchmark"
 * (resolved as catalog_resolve does, against db and pg), *out gets a
 * new reference: a copy with the table's space, its rows as candidates
 * and default objectives; *out is NULL when the body names no benchmark.
 * HPOD_EUNPROC for a benchmark that does not exist or cannot back a
 * study, or a space/candidates given beside it; HPOD_EINVAL for a
 * mistyped "benchmark" or missing objectives an imported table needs.
 */
enum hpod_status expand_study(const struct bench_db *db, struct db *pg,
                              json_t *body, json_t **out, struct hpod_err *err);

#endif
