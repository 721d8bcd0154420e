/*
 * store/lease_store.c - lease lapses and preemptions; see lease_store.h.
 */
#include "store/lease_store.h"

#include <stdio.h>

#include "store/lease_sql.h"

static const char *SQL_EXPIRE_ONE = "WITH" LEASE_LAPSE(
    "t.study_id = $1 AND") " SELECT count(*) FILTER (WHERE lease_expired) AS "
                           "expired,"
                           " count(*) FILTER (WHERE NOT lease_expired) AS "
                           "requeued FROM e";
static const char *SQL_EXPIRE_ALL = "WITH" LEASE_LAPSE(
    "") " SELECT count(*) FILTER (WHERE lease_expired) AS expired,"
        " count(*) FILTER (WHERE NOT lease_expired) AS requeued FROM e";
static const char *SQL_PREEMPT =
    "UPDATE trials t SET state = 'waiting', worker = '',"
    " lease_expires_at = NULL, updated_at = now(),"
    " reason = 'preempted' || coalesce(': ' || $2, ''),"
    " resume_from_step = coalesce((SELECT max(i.step)"
    "  FROM intermediate_values i WHERE i.trial_id = t.id),"
    "  t.resume_from_step)"
    " WHERE t.id = $1 AND t.state IN ('pending', 'running')";

enum hpod_status
lease_store_expire(struct db *db, long long study_id, long long *expired,
                   long long *requeued, struct hpod_err *err)
{
    char sid[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    snprintf(sid, sizeof sid, "%lld", study_id);
    const char *p[] = {sid};
    st = study_id > 0 ? db_exec(db, SQL_EXPIRE_ONE, 1, p, &r, err)
                      : db_exec(db, SQL_EXPIRE_ALL, 0, NULL, &r, err);
    if (st == HPOD_OK && expired)
        *expired = db_get_ll(r, 0, "expired", 0);
    if (st == HPOD_OK && requeued)
        *requeued = db_get_ll(r, 0, "requeued", 0);
    db_result_free(r);
    return st;
}

enum hpod_status
lease_store_preempt(struct db *db, long long id, const char *reason,
                    struct hpod_err *err)
{
    char sid[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    snprintf(sid, sizeof sid, "%lld", id);
    const char *p[] = {sid, reason};
    st = db_exec(db, SQL_PREEMPT, 2, p, &r, err);
    db_result_free(r);
    return st;
}
