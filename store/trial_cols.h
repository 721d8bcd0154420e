/*
 * store/trial_cols.h - the columns every trial row is read with (internal
 * to store/: trial_store.c and trial_batch_store.c). The functions of
 * migrations/0020_report_functions.sql return the same columns: a change
 * here is a migration that replaces them too.
 */
#ifndef HPOD_TRIAL_COLS_H
#define HPOD_TRIAL_COLS_H

#define TS(col)                                                                \
    "to_char(" col " AT TIME ZONE 'UTC', "                                     \
    "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

/* One clause per line reads better than clang-format's packing. */
/* clang-format off */
#define TRIAL_COLS \
    " t.id, t.study_id, t.seq, t.state, t.params::text AS params," \
    " t.origin, t.metadata::text AS metadata," \
    " t.candidate, t.worker, t.reason," \
    " t.lease_expired, " TS("t.lease_expires_at") " AS lease_expires_at," \
    " t.resume_from_step, t.train_to," \
    " " TS("t.created_at") " AS created_at," \
    " " TS("t.updated_at") " AS updated_at," \
    " t.excluded_reason, t.excluded_by," \
    " " TS("t.excluded_at") " AS excluded_at"
/* clang-format on */

#endif
