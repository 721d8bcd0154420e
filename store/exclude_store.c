/*
 * store/exclude_store.c - exclusions; see exclude_store.h. updated_at is
 * left alone: it says when the trial's run last changed, and the
 * exclusion has its own time. The trigger of migration 0010 stamps
 * changed_xid, so the history cache sees the change.
 */
#include "store/exclude_store.h"

#include <stdio.h>

static const char *SQL_SET =
    "UPDATE trials SET excluded_at = now(), excluded_reason = $2,"
    " excluded_by = coalesce((SELECT 'token ' || k.id"
    "  || CASE WHEN k.note <> '' THEN ' (' || k.note || ')' ELSE '' END"
    "  FROM tokens k WHERE k.id = $3::bigint), '')"
    " WHERE id = $1 AND excluded_at IS NULL";
static const char *SQL_CLEAR =
    "UPDATE trials SET excluded_at = NULL, excluded_reason = NULL,"
    " excluded_by = NULL WHERE id = $1 AND excluded_at IS NOT NULL";

static enum hpod_status
run(struct db *db, const char *sql, int np, const char *const *p, int *changed,
    struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st = db_exec(db, sql, np, p, &r, err);
    *changed = st == HPOD_OK && db_affected(r) > 0;
    db_result_free(r);
    return st;
}

enum hpod_status
exclude_store_set(struct db *db, long long id, const char *reason,
                  long long token_id, int *changed, struct hpod_err *err)
{
    char sid[32], tok[32];
    snprintf(sid, sizeof sid, "%lld", id);
    snprintf(tok, sizeof tok, "%lld", token_id);
    const char *p[] = {sid, reason, token_id > 0 ? tok : NULL};
    return run(db, SQL_SET, 3, p, changed, err);
}

enum hpod_status
exclude_store_clear(struct db *db, long long id, int *changed,
                    struct hpod_err *err)
{
    char sid[32];
    snprintf(sid, sizeof sid, "%lld", id);
    const char *p[] = {sid};
    return run(db, SQL_CLEAR, 1, p, changed, err);
}
