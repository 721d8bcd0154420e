/*
 * store/history_store.h - the trials of a study's history changed since a
 * snapshot, for the per-process history cache (study/histcache.c; the
 * version rule is in migrations/0010_history_xid.sql).
 */
#ifndef HPOD_HISTORY_STORE_H
#define HPOD_HISTORY_STORE_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"

/* Text of an xid8 (at most 20 digits) and its terminator. */
#define HISTORY_XID_MAX 24

/*
 * history_store_changes - in one statement (so one snapshot): the xmin of
 * that snapshot (*xmin, text of an xid8), and every trial of the study
 * whose changed_xid >= since (text of an xid8; "0": every trial), in id
 * order, with id, state, candidate, train_to, lease_expired and params
 * (NULL when the trial has a candidate) filled, and its values when
 * with_values and the trial is not failed by lease expiry (no steps).
 * Trials failed by lease expiry are returned too (lease_expired set), so
 * that the caller drops them.
 */
enum hpod_status history_store_changes(struct db *db, long long study_id,
                                       const char *since, int with_values,
                                       char xmin[HISTORY_XID_MAX],
                                       struct trial **out, size_t *n,
                                       struct hpod_err *err);

/*
 * history_store_expire_changes - lease_store_expire(study_id) and
 * history_store_changes in one statement (one round trip under the study
 * lock): the trials it fails by lease expiry or puts back in the queue
 * come back as they are after it (lease_expired set for the failed), the
 * others as in the snapshot the statement read; *expired: how many it
 * failed, *requeued: how many it put back. The xmin rule is the same:
 * every row this transaction writes, this statement's included, is read
 * again by the next refresh. *raced: how many trials whose lease had
 * lapsed in that snapshot another transaction wrote before the expiry
 * could (e.g. another server's reaper): the rows returned show them as
 * they were, so when it is not 0 the caller reads the changes again
 * (history_store_changes from the xmin returned, which every such write
 * is above).
 */
enum hpod_status history_store_expire_changes(
    struct db *db, long long study_id, const char *since, int with_values,
    char xmin[HISTORY_XID_MAX], long long *expired, long long *requeued,
    long long *raced, struct trial **out, size_t *n, struct hpod_err *err);

/* Text of an md5 in hex and its terminator. */
#define HISTORY_DIGEST_MAX 33

/*
 * history_store_completed_version - the version of the study's completed
 * trials: how many (*n) and a digest of their (id, changed_xid) pairs in
 * id order. Any write of a completed trial or its values, a trial that
 * completes or stops being completed, changes it (every such write
 * stamps changed_xid with its own transaction), whichever process wrote
 * it: equal versions mean the same rows, so a result computed from them
 * (importance) still holds. Read it before the rows a result is computed
 * from: rows read later are never older than their version.
 */
enum hpod_status
history_store_completed_version(struct db *db, long long study_id, size_t *n,
                                char digest[HISTORY_DIGEST_MAX],
                                struct hpod_err *err);

#endif
