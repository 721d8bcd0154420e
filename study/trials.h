/*
 * study/trials.h - one trial's life outside reports: read it, list a
 * study's trials, renew its lease, fail it. Each call that writes locks
 * the trial row, decides from its current state, writes and commits
 * before returning: what is answered is durable.
 */
#ifndef HPOD_STUDY_TRIALS_H
#define HPOD_STUDY_TRIALS_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"
#include "study/access.h"

/* HPOD_ECONFLICT: trial t cannot be acted on (what) in its state. */
enum hpod_status trials_not_live(const struct trial *t, const char *what,
                                 struct hpod_err *err);

/* trials_get - trial id as stored (trial_clear). */
enum hpod_status trials_get(struct db *db, long long id, struct trial *out,
                            struct hpod_err *err);

/*
 * trials_list - a page of study_id's trials (state < 0: any), in
 * issue order; HPOD_ENOTFOUND when the study does not exist. Free with
 * trials_free(*rows, *n).
 */
enum hpod_status trials_list(struct db *db, long long study_id, int state,
                             long long limit, long long offset,
                             struct trial **rows, size_t *n, long long *total,
                             struct hpod_err *err);

/*
 * trials_heartbeat - renews a live trial's lease by its study's
 * lease_seconds (409 when not pending or running); *out is the trial as
 * then stored.
 */
enum hpod_status trials_heartbeat(struct db *db, long long id,
                                  struct trial *out, struct hpod_err *err);

/*
 * trials_fail - marks the trial failed with reason (NULL: "failed");
 * failing a failed trial again changes nothing; 409 for a completed or
 * pruned one. *out is the trial as then stored. A change is recorded in
 * the audit log as by's trial.fail (study/audit.h).
 */
enum hpod_status trials_fail(struct db *db, long long id, const char *reason,
                             const struct principal *by, struct trial *out,
                             struct hpod_err *err);

/* The audit target of trial id, "trial/ID", into buf (48 bytes). */
const char *trials_target(long long id, char buf[48]);

#endif
