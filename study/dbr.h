/*
 * study/dbr.h - define-by-run: a trial asks for one parameter at a time
 * (POST /v1/trials/{id}/params; docs/trainer.md, "Define-by-run").
 *
 * The entry is any space entry but a conditional one. A name new to the
 * study joins its space (its entry gets "added_in", the definition a new
 * "space_version"; trials without it have it inactive); the same name
 * with another definition is 409. The trial's value is, in this order:
 * the one it has already (asking again answers the same), the one
 * suggest proposed for it (the model's joint choice over every parameter
 * the study knew then, study/suggest.c), or, for a parameter no trial had
 * when it was suggested, a draw from the parameter's prior on the trial's
 * own seeded stream: no trial has it, so every observation has it
 * inactive, and any model's acquisition is then constant along it. The
 * value becomes part of the trial's params, so only the parameters a
 * trial asked for are active in it for the model.
 */
#ifndef HPOD_STUDY_DBR_H
#define HPOD_STUDY_DBR_H

#include <jansson.h>

#include "common/status.h"
#include "store/db.h"

/*
 * dbr_trial_param - entry (borrowed; a space entry) asked by trial id,
 * which must be live (pending or running: 409 otherwise; its lease is
 * renewed), in one transaction under the study's row lock. *value: the
 * trial's value (new reference). 422 for an invalid entry (the field
 * named as in the entry: "low"), 409 for a name defined otherwise or a
 * study with candidates.
 */
enum hpod_status dbr_trial_param(struct db *db, long long id, json_t *entry,
                                 json_t **value, struct hpod_err *err);

#endif
