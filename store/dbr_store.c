/*
 * store/dbr_store.c - define-by-run's writes; see dbr_store.h.
 */
#include "store/dbr_store.h"

#include <stdio.h>

#include "common/mem.h"

static const char *SQL_PUT =
    "INSERT INTO trial_proposals (trial_id, params) VALUES ($1, $2::json)"
    " ON CONFLICT (trial_id) DO UPDATE SET params = EXCLUDED.params";
static const char *SQL_GET =
    "SELECT params::text AS params FROM trial_proposals WHERE trial_id = $1";
static const char *SQL_SET_DEFINITION =
    "UPDATE studies SET definition = $2::json WHERE id = $1";
static const char *SQL_SET_PARAMS =
    "UPDATE trials SET params = $2::json, updated_at = now() WHERE id = $1";

/* Runs sql with (id, text) and drops the result. */
static enum hpod_status
write_text(struct db *db, const char *sql, long long id, const char *text,
           struct hpod_err *err)
{
    char sid[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    snprintf(sid, sizeof sid, "%lld", id);
    const char *p[] = {sid, text};
    st = db_exec(db, sql, 2, p, &r, err);
    db_result_free(r);
    return st;
}

enum hpod_status
dbr_store_put_proposal(struct db *db, long long trial_id, const char *params,
                       struct hpod_err *err)
{
    return write_text(db, SQL_PUT, trial_id, params, err);
}

enum hpod_status
dbr_store_get_proposal(struct db *db, long long trial_id, char **params,
                       struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    *params = NULL;
    if ((st = db_exec_id(db, SQL_GET, trial_id, &r, err)) == HPOD_OK &&
        db_rows(r) > 0 && db_get(r, 0, "params"))
        *params = xstrdup(db_get(r, 0, "params"));
    db_result_free(r);
    return st;
}

enum hpod_status
dbr_store_set_definition(struct db *db, long long id, const char *def,
                         struct hpod_err *err)
{
    return write_text(db, SQL_SET_DEFINITION, id, def, err);
}

enum hpod_status
dbr_store_set_params(struct db *db, long long id, const char *params,
                     struct hpod_err *err)
{
    return write_text(db, SQL_SET_PARAMS, id, params, err);
}
