/*
 * store/warm_store.h - a warm-started study's source prior over its
 * candidates (table study_warm_priors, migration 0013), written with the
 * study in its create transaction and read by suggest.
 */
#ifndef HPOD_WARM_STORE_H
#define HPOD_WARM_STORE_H

#include <stddef.h>

#include "store/db.h"

/* warm_store_put - inserts the study's prior (n values, finite). */
enum hpod_status warm_store_put(struct db *db, long long study_id,
                                const double *prior, size_t n,
                                struct hpod_err *err);

/*
 * warm_store_get - the study's prior: *prior (xmalloc'd, the caller
 * frees) of *n values, or NULL and 0 when the study has none. Every
 * value reads back exactly. HPOD_EINTERNAL on a row that cannot be read.
 */
enum hpod_status warm_store_get(struct db *db, long long study_id,
                                double **prior, size_t *n,
                                struct hpod_err *err);

#endif
