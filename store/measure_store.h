/*
 * store/measure_store.h - trial_measures rows (migration 0012): what a
 * trial of a study with a decoupled constraint is asked to measure now,
 * as the JSON text of an array of metric names.
 */
#ifndef HPOD_STORE_MEASURE_STORE_H
#define HPOD_STORE_MEASURE_STORE_H

#include "common/err.h"
#include "store/db.h"

/* Sets (inserts or replaces) trial trial_id's measure text. */
enum hpod_status measure_store_put(struct db *db, long long trial_id,
                                   const char *measure, struct hpod_err *err);

/* *out: trial trial_id's measure text (caller frees), NULL if none. */
enum hpod_status measure_store_get(struct db *db, long long trial_id,
                                   char **out, struct hpod_err *err);

#endif
