/*
 * store/dbr_store.h - the writes of define-by-run (docs/trainer.md): the
 * configuration suggest proposed for a trial (trial_proposals, migration
 * 0032), a study's definition as its space grows, and a trial's params as
 * it asks for them. JSON travels as text.
 */
#ifndef HPOD_DBR_STORE_H
#define HPOD_DBR_STORE_H

#include "common/status.h"
#include "store/db.h"

/* dbr_store_put_proposal - keeps params (JSON object text) for trial_id. */
enum hpod_status dbr_store_put_proposal(struct db *db, long long trial_id,
                                        const char *params,
                                        struct hpod_err *err);

/* dbr_store_get_proposal - *params (new string, NULL: none) of trial_id. */
enum hpod_status dbr_store_get_proposal(struct db *db, long long trial_id,
                                        char **params, struct hpod_err *err);

/* dbr_store_set_definition - study id's definition becomes def (JSON
 * object text; call with the study locked). */
enum hpod_status dbr_store_set_definition(struct db *db, long long id,
                                          const char *def,
                                          struct hpod_err *err);

/* dbr_store_set_params - trial id's params become params (JSON object
 * text; call with the trial locked). */
enum hpod_status dbr_store_set_params(struct db *db, long long id,
                                      const char *params, struct hpod_err *err);

#endif
