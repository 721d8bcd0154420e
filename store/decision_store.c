/*
 * store/decision_store.c - trial_decisions rows; see decision_store.h.
 */
#include "store/decision_store.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/err.h"
#include "common/mem.h"

static const char *SQL_ADD =
    "INSERT INTO trial_decisions (trial_id, seq, kind, detail)"
    " SELECT $1, COALESCE(MAX(seq) + 1, 0), $2, $3 FROM trial_decisions"
    " WHERE trial_id = $1";
static const char *SQL_LIST =
    "SELECT seq, to_char(at AT TIME ZONE 'UTC',"
    " 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') AS at, kind, detail"
    " FROM trial_decisions WHERE trial_id = $1 ORDER BY seq";

enum hpod_status
decision_store_add(struct db *db, long long trial_id, const char *kind,
                   const char *detail, struct hpod_err *err)
{
    char id[32];
    const char *p[3] = {id, kind, detail};

    snprintf(id, sizeof id, "%lld", trial_id);
    return db_exec(db, SQL_ADD, 3, p, NULL, err);
}

enum hpod_status
decision_store_list(struct db *db, long long trial_id, struct decision **out,
                    size_t *n, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    *out = NULL;
    *n = 0;
    if ((st = db_exec_id(db, SQL_LIST, trial_id, &r, err)) != HPOD_OK)
        goto out;
    *n = db_rows(r);
    *out = xcalloc(*n ? *n : 1, sizeof **out);
    for (size_t i = 0; i < *n; i++) {
        (*out)[i].seq = (int)db_get_ll(r, i, "seq", 0);
        (*out)[i].at = xstrdup(db_get(r, i, "at"));
        (*out)[i].kind = xstrdup(db_get(r, i, "kind"));
        (*out)[i].detail = xstrdup(db_get(r, i, "detail"));
    }
out:
    db_result_free(r);
    return st;
}

void
decision_list_free(struct decision *d, size_t n)
{
    for (size_t i = 0; d && i < n; i++) {
        free(d[i].at);
        free(d[i].kind);
        free(d[i].detail);
    }
    free(d);
}
