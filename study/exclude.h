/*
 * study/exclude.h - trials taken out of the model by a user and put back
 * (POST /v1/trials/{id}/exclude, /restore; docs/trainer.md, "Excluded
 * trials").
 *
 * An excluded trial keeps its state and values but is no evidence for
 * the samplers (study/history.c; its candidate stays taken), nor for
 * best, pareto, importance, a warm start from its study or the ASHA rungs.
 * Its JSON says "excluded": {"reason", "by", "at"}. Every process sees
 * the change at its next use: the exclusion writes the trial row, whose
 * changed_xid the history cache and the other caches are checked
 * against, and drops the study's kept GP hyperparameters, so the next
 * suggest fits them on the evidence as it now is.
 */
#ifndef HPOD_STUDY_EXCLUDE_H
#define HPOD_STUDY_EXCLUDE_H

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"
#include "study/access.h"

/*
 * exclude_trial - excludes trial id (any state) with reason, by
 * by's token (NULL or no token: an open server), under its study's row
 * lock; excluding an excluded trial keeps the first exclusion (200).
 * *out is the trial as then stored. Recorded in the audit log as
 * trial.exclude (study/audit.h), in the same transaction.
 */
enum hpod_status exclude_trial(struct db *db, long long id, const char *reason,
                               const struct principal *by, struct trial *out,
                               struct hpod_err *err);

/* exclude_restore - undoes it (reason: optional, for the audit log's
 * trial.restore); a trial not excluded is left as it is. */
enum hpod_status exclude_restore(struct db *db, long long id,
                                 const char *reason, const struct principal *by,
                                 struct trial *out, struct hpod_err *err);

#endif
