/*
 * store/history_store.c - the changed part of a study's history; see
 * history_store.h.
 */
#include "store/history_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "store/lease_sql.h"
#include "store/trial_store.h"

/*
 * One statement, one snapshot: row kind 0 carries the snapshot's xmin
 * (PostgreSQL counts the reader's own transaction as running, so its own
 * later writes are read again; least() says so explicitly),
 * kind 1 the changed trials, kind 2 their values ($3: wanted). The
 * changed rows come from the index trials_changed (study_id,
 * changed_xid), their values from trial_values' primary key by
 * "= ANY (ARRAY(...))": written as a join, the generic plan of the
 * prepared statement hashed the CTE and scanned all of trial_values,
 * every study's, so a suggest cost more the larger the database grew
 * (1.6 ms per refresh at 40,000 trials of other studies).
 */
/* clang-format off */
/* A study's trials changed since $2 (their params when not a candidate). */
#define CHANGED_ROWS \
    "SELECT id, state, candidate, train_to, lease_expired," \
    "  CASE WHEN candidate IS NULL THEN params::text END AS params," \
    "  excluded_at IS NOT NULL AS excluded" \
    "  FROM trials WHERE study_id = $1 AND changed_xid >= $2::xid8"
/* Row kind 0 (the snapshot's xmin for the next refresh, and `expired`,
 * `requeued` and `raced` in the candidate, train_to and metric columns),
 * kind 1 the rows of c, kind 2 their values. */
#define CHANGES_SELECT(expired, requeued, raced) \
    " SELECT 0 AS k, NULL::bigint AS id," \
    "  least(pg_snapshot_xmin(pg_current_snapshot())," \
    "   pg_current_xact_id_if_assigned())::text AS state," \
    "  " expired " AS candidate, " requeued " AS train_to," \
    "  NULL::boolean AS lease_expired, NULL::text AS params," \
    "  NULL::boolean AS excluded," \
    "  " raced "::text AS metric, NULL::float8 AS value" \
    " UNION ALL SELECT 1, id, state, candidate, train_to, lease_expired," \
    "  params, excluded, NULL, NULL FROM c" \
    " UNION ALL SELECT 2, v.trial_id, NULL, NULL, NULL, NULL, NULL, NULL," \
    "  v.metric, v.value FROM trial_values v" \
    "  WHERE $3 AND v.trial_id = ANY (ARRAY(" \
    "   SELECT id FROM c WHERE NOT lease_expired))" \
    " ORDER BY 1, 2, 9"
static const char *SQL_CHANGES =
    "WITH c AS (" CHANGED_ROWS ")"
    CHANGES_SELECT("NULL::integer", "NULL::integer", "NULL");
/*
 * The same read, preceded in the same statement by the study's lease
 * expiry (store/lease_sql.h, as lease_store_expire runs it): one round
 * trip under the study lock instead of two. The rest of the statement
 * reads the snapshot taken before the UPDATE, so the rows it changed (e)
 * replace their old versions; row kind 0 also carries how many it failed
 * and how many it put back in the queue. A requeued row's params are
 * read again (it stays in the history, as a waiting trial). The lapsed
 * rows of that snapshot that the UPDATE did not change were written by
 * another transaction meanwhile (another server's reaper, a report): the
 * UPDATE waited for it and skipped them, but the snapshot still shows
 * them as they were. Row kind 0 counts them (raced): the caller reads
 * again in a statement of its own, which sees that write.
 */
static const char *SQL_EXPIRE_CHANGES =
    "WITH" LEASE_LAPSE("t.study_id = $1 AND") ","
    " c AS (" CHANGED_ROWS
    "  AND id <> ALL (ARRAY(SELECT id FROM e))"
    "  UNION ALL SELECT id, state, candidate, train_to, lease_expired,"
    "  CASE WHEN NOT lease_expired THEN params END, excluded FROM e)"
    CHANGES_SELECT("(SELECT count(*) FROM e WHERE lease_expired)::integer",
                   "(SELECT count(*) FROM e WHERE NOT lease_expired)::integer",
                   "((SELECT count(*) FROM lapsed) - (SELECT count(*) FROM e))"
                   "::integer");
static const char *SQL_COMPLETED_VERSION =
    "SELECT count(*) AS n, coalesce(md5(string_agg(id::text || ':'"
    " || changed_xid::text, ',' ORDER BY id)), '') AS digest"
    " FROM trials WHERE study_id = $1 AND state = 'completed'";
/* clang-format on */

static void
row_to_trial(const struct db_result *r, size_t i, long long study_id,
             struct trial *t)
{
    const char *le = db_get(r, i, "lease_expired");
    const char *p = db_get(r, i, "params");

    memset(t, 0, sizeof *t);
    t->id = db_get_ll(r, i, "id", 0);
    t->study_id = study_id;
    t->state = (enum trial_state)trial_state_parse(db_get(r, i, "state"));
    t->candidate = db_get_ll(r, i, "candidate", -1);
    t->params = p ? xstrdup(p) : NULL;
    t->lease_expired = le && le[0] == 't';
    t->excluded =
        db_get(r, i, "excluded") && db_get(r, i, "excluded")[0] == 't';
    t->resume_from_step = -1;
    t->train_to = db_get_ll(r, i, "train_to", -1);
}

static enum hpod_status
changes_run(struct db *db, const char *sql, long long study_id,
            const char *since, int with_values, char xmin[HISTORY_XID_MAX],
            long long *expired, long long *requeued, long long *raced,
            struct trial **out, size_t *n, struct hpod_err *err)
{
    char sid[32];
    const char *p[] = {sid, since, with_values ? "true" : "false"};
    struct db_result *r = NULL;
    struct trial *t = NULL;
    size_t nt = 0, rows, j = 0;
    enum hpod_status st;

    *out = NULL;
    *n = 0;
    snprintf(sid, sizeof sid, "%lld", study_id);
    if ((st = db_exec(db, sql, 3, p, &r, err)) != HPOD_OK)
        goto out;
    rows = db_rows(r);
    const char *x = rows ? db_get(r, 0, "state") : NULL;
    if (!x || db_get_ll(r, 0, "k", -1) != 0 || strlen(x) >= HISTORY_XID_MAX) {
        st = hpod_fail(err, HPOD_EINTERNAL, "", "no snapshot xmin");
        goto out;
    }
    snprintf(xmin, HISTORY_XID_MAX, "%s", x);
    if (expired)
        *expired = db_get_ll(r, 0, "candidate", 0);
    if (requeued)
        *requeued = db_get_ll(r, 0, "train_to", 0);
    if (raced)
        *raced = db_get_ll(r, 0, "metric", 0);
    t = xcalloc(rows, sizeof *t);
    for (size_t i = 1; i < rows && db_get_ll(r, i, "k", -1) == 1; i++)
        row_to_trial(r, i, study_id, &t[nt++]);
    /* Values follow, in trial id order like the trials. */
    for (size_t i = 1 + nt; i < rows; i++) {
        long long id = db_get_ll(r, i, "id", 0);
        const char *metric = db_get(r, i, "metric");
        double v;
        while (j < nt && t[j].id < id)
            j++;
        if (j == nt || t[j].id != id)
            continue;
        if ((st = trial_store_read_value(db_get(r, i, "value"), id, metric, &v,
                                         err)) != HPOD_OK)
            goto out;
        metric_set_add(&t[j].values, metric, v);
    }
out:
    db_result_free(r);
    if (st != HPOD_OK) {
        trials_free(t, nt);
        return st;
    }
    *out = t;
    *n = nt;
    return HPOD_OK;
}

enum hpod_status
history_store_changes(struct db *db, long long study_id, const char *since,
                      int with_values, char xmin[HISTORY_XID_MAX],
                      struct trial **out, size_t *n, struct hpod_err *err)
{
    return changes_run(db, SQL_CHANGES, study_id, since, with_values, xmin,
                       NULL, NULL, NULL, out, n, err);
}

enum hpod_status
history_store_expire_changes(struct db *db, long long study_id,
                             const char *since, int with_values,
                             char xmin[HISTORY_XID_MAX], long long *expired,
                             long long *requeued, long long *raced,
                             struct trial **out, size_t *n,
                             struct hpod_err *err)
{
    *expired = 0;
    *raced = 0;
    *requeued = 0;
    return changes_run(db, SQL_EXPIRE_CHANGES, study_id, since, with_values,
                       xmin, expired, requeued, raced, out, n, err);
}

enum hpod_status
history_store_completed_version(struct db *db, long long study_id, size_t *n,
                                char digest[HISTORY_DIGEST_MAX],
                                struct hpod_err *err)
{
    struct db_result *r = NULL;
    const char *v;
    enum hpod_status st;

    *n = 0;
    digest[0] = '\0';
    if ((st = db_exec_id(db, SQL_COMPLETED_VERSION, study_id, &r, err)) !=
        HPOD_OK)
        return st;
    *n = (size_t)db_get_ll(r, 0, "n", 0);
    v = db_get(r, 0, "digest");
    snprintf(digest, HISTORY_DIGEST_MAX, "%s", v ? v : "");
    db_result_free(r);
    return HPOD_OK;
}
