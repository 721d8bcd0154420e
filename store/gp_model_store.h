/*
 * store/gp_model_store.h - the GP model a study keeps between suggestions
 * (table study_gp_models, migration 0009): its hyperparameters and the
 * number of observations they were fitted on. The caller holds the study
 * row lock (study/suggest.c) for both calls, in its transaction.
 */
#ifndef HPOD_GP_MODEL_STORE_H
#define HPOD_GP_MODEL_STORE_H

#include "core/sampler.h"
#include "store/db.h"

/*
 * gp_model_store_get - reads the study's model into m (cleared first);
 * m->valid stays 0 when the study has none. Every stored value reads back
 * exactly (float8 text in shortest round-trip form). HPOD_EDB on a
 * database error, HPOD_EINTERNAL on a row that cannot be read.
 */
enum hpod_status gp_model_store_get(struct db *db, long long study_id,
                                    struct sampler_gp_model *m,
                                    struct hpod_err *err);

/* gp_model_store_put - inserts or replaces the study's model (m valid). */
enum hpod_status gp_model_store_put(struct db *db, long long study_id,
                                    const struct sampler_gp_model *m,
                                    struct hpod_err *err);

/*
 * gp_model_store_drop - forgets the study's model: the next suggest fits
 * one on the evidence as it then is (after trials left or rejoined the
 * model: study/exclude.h).
 */
enum hpod_status gp_model_store_drop(struct db *db, long long study_id,
                                     struct hpod_err *err);

#endif
