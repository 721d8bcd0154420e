/*
 * store/report_store.h - a final report in two statements and no explicit
 * transaction (a report used to be six round trips, BEGIN, the study
 * row, the locked trial, its values, the UPDATE and COMMIT, and on a
 * saturated machine every round trip is a run-queue wait).
 *
 * report_store_read reads the trial, its final values, its study's
 * definition and the trial's version (trials.changed_xid, migration
 * 0010: the id of the transaction that last wrote the trial or one of
 * its values) in one statement, without a lock. report_store_write then
 * writes the report in one statement, which is its own durable
 * transaction, only if the trial's version is still the one read: a row
 * locked or changed since by another writer is re-checked by PostgreSQL
 * after that writer commits (READ COMMITTED re-evaluates the WHERE on the
 * new row version), finds another version and writes nothing, and the
 * caller reads again. So nothing is merged into values it has not seen,
 * exactly as under the old row lock.
 */
#ifndef HPOD_REPORT_STORE_H
#define HPOD_REPORT_STORE_H

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"
#include "store/study_store.h"

/* What report_store_read returns. */
struct report_row {
    long long study_id;
    int lease_seconds; /* the study's */
    char *definition;  /* the study's definition, JSON text; NULL when its
                          version is the one the reader holds */
    char def_version[STUDY_VERSION_MAX]; /* the study row's version */
    char version[32];                    /* the trial's changed_xid, as text */
    int has_steps;      /* the trial has intermediate reports */
    struct trial trial; /* with its final values; steps not read */
};

void report_row_clear(struct report_row *r);

/* Reads trial trial_id as above; HPOD_ENOTFOUND when there is none.
 * known: the definition version the reader holds of study known_study
 * (store/study_store.h STUDY_VERSION_MAX). */
enum hpod_status report_store_read(struct db *db, long long trial_id,
                                   long long known_study, const char *known,
                                   struct report_row *out,
                                   struct hpod_err *err);

/*
 * report_store_lock - inside a transaction, locks trial trial_id (FOR
 * UPDATE) and says whether its version is still version (*same): a report
 * that falls back to the locked transaction after report_store_read keeps
 * what it read when nothing wrote the trial since. HPOD_ENOTFOUND when
 * the trial is gone.
 */
enum hpod_status report_store_lock(struct db *db, long long trial_id,
                                   const char *version, int *same,
                                   struct hpod_err *err);

/*
 * Adds add (may be empty) to trial trial_id's values and sets its state
 * (completed if complete, else running with a lease of lease_seconds),
 * only if its version is still version. *written is 1 and *row the trial
 * as stored (values not filled) when it did, 0 when the version moved on
 * (or the trial is gone) and nothing was written.
 */
enum hpod_status report_store_write(struct db *db, long long trial_id,
                                    const char *version,
                                    const struct metric_set *add, int complete,
                                    int lease_seconds, int *written,
                                    struct trial *row, struct hpod_err *err);

#endif
