/*
 * store/study_store.c - SQL about studies; see study_store.h.
 */
#include "store/study_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "common/err.h"

#define TS(col)                                                                \
    "to_char(" col " AT TIME ZONE 'UTC', "                                     \
    "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

/* A study with its trial counts by state, in one round trip. */
static const char *SQL_SELECT =
    "SELECT s.id, s.name, s.definition::text AS definition, s.budget,"
    " s.lease_seconds, s.n_candidates, s.benchmark,"
    " s.lab, s.state, s.metadata::text AS metadata, s.created_by,"
    " (SELECT k.note FROM tokens k WHERE k.id = s.created_by)"
    " AS created_by_note,"
    " to_char(greatest(s.created_at, max(t.updated_at)) AT TIME ZONE 'UTC',"
    " 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') AS last_activity,"
    " " TS("s.created_at") " AS created_at,"
                           " count(t.id) FILTER (WHERE t.state = 'pending') AS "
                           "n_pending,"
                           " count(t.id) FILTER (WHERE t.state = 'running') AS "
                           "n_running,"
                           " count(t.id) FILTER (WHERE t.state = 'completed') "
                           "AS n_completed,"
                           " count(t.id) FILTER (WHERE t.state = 'failed') AS "
                           "n_failed,"
                           " count(t.id) FILTER (WHERE t.state = 'pruned') AS "
                           "n_pruned,"
                           " count(t.id) FILTER (WHERE t.state = 'paused') AS "
                           "n_paused,"
                           " count(t.id) FILTER (WHERE t.state = 'waiting') AS "
                           "n_waiting,"
                           " count(t.id) FILTER (WHERE t.lease_expired) AS "
                           "n_expired,"
                           " count(t.id) FILTER (WHERE t.origin = 'added') AS "
                           "n_added"
                           " FROM studies s LEFT JOIN trials t ON t.study_id = "
                           "s.id";

/* (lab, name) is unique: a taken name inserts nothing and returns no row,
 * never a unique violation (a concurrent insert of the same name waits
 * for the other transaction and then does nothing). */
static const char *SQL_INSERT =
    "INSERT INTO studies (name, definition, budget, lease_seconds,"
    " n_candidates, benchmark, lab, metadata, created_by)"
    " VALUES ($1, $2::json, $3, $4, $5, $6, $7, $8::json, $9::bigint)"
    " ON CONFLICT (lab, name) DO NOTHING RETURNING id";
static const char *SQL_FIND =
    "SELECT id FROM studies WHERE lab = $1 AND name = $2";
static const char *SQL_UPDATE =
    "UPDATE studies SET state = coalesce($2, state),"
    " metadata = coalesce($3::json, metadata) WHERE id = $1";
/* The list filters: NULL matches every lab or name. */
#define SQL_FILTER                                                             \
    " WHERE ($1::text IS NULL OR s.lab = $1)"                                  \
    " AND ($2::text IS NULL OR s.name = $2)"
static const char *SQL_INSERT_CANDIDATES =
    "INSERT INTO candidates (study_id, idx, params)"
    " SELECT $1, (c.ord - 1)::integer, c.value"
    " FROM json_array_elements($2::json) WITH ORDINALITY AS c(value, ord)";
static const char *SQL_ROW =
    "SELECT s.id, s.name, s.definition::text AS definition, s.budget,"
    " s.lease_seconds, s.n_candidates, s.benchmark,"
    " s.lab, s.state, s.metadata::text AS metadata,"
    " " TS("s.created_at") " AS created_at FROM studies s WHERE s.id = $1";
/* The row's version (STUDY_VERSION_MAX), and its definition only when
 * the version is not the one the reader holds: $2 (of study $3 when the
 * row is found through a trial). */
#define SQL_VERSION STUDY_SQL_VERSION
/* clang-format off */
static const char *SQL_ROW_OF_TRIAL =
    "SELECT s.id, s.name, s.budget,"
    " s.lease_seconds, s.n_candidates, s.benchmark,"
    " s.lab, s.state, s.metadata::text AS metadata,"
    " " TS("s.created_at") " AS created_at,"
    " " SQL_VERSION " AS version,"
    " CASE WHEN s.id = $3 AND " SQL_VERSION " = $2 THEN NULL"
    "  ELSE s.definition::text END AS definition"
    " FROM studies s"
    " WHERE s.id = (SELECT t.study_id FROM trials t WHERE t.id = $1)";
/* What issuing reads, from indexes; with $3 also the counts by state (a
 * scan of the study's trials: c is empty when $3 is false). */
static const char *SQL_ISSUE =
    "SELECT s.id, s.name, s.budget,"
    " s.lease_seconds, s.n_candidates, s.benchmark,"
    " s.lab, s.state, s.metadata::text AS metadata,"
    " " TS("s.created_at") " AS created_at,"
    " " SQL_VERSION " AS version,"
    " CASE WHEN " SQL_VERSION " = $2 THEN NULL"
    "  ELSE s.definition::text END AS definition,"
    " (SELECT coalesce(max(t.seq) + 1, 0) FROM trials t"
    "   WHERE t.study_id = s.id) AS n_all,"
    " (SELECT count(*) FROM trials t WHERE t.study_id = s.id"
    "   AND t.state = 'waiting') AS n_waiting,"
    " (SELECT count(*) FROM trials t WHERE t.study_id = s.id"
    "   AND t.lease_expired) AS n_expired,"
    " (SELECT count(*) FROM trials t WHERE t.study_id = s.id"
    "   AND t.origin = 'added') AS n_added,"
    " c.n_pending, c.n_running, c.n_completed, c.n_failed, c.n_pruned,"
    " c.n_paused"
    " FROM studies s LEFT JOIN LATERAL (SELECT"
    "  count(*) FILTER (WHERE t.state = 'pending') AS n_pending,"
    "  count(*) FILTER (WHERE t.state = 'running') AS n_running,"
    "  count(*) FILTER (WHERE t.state = 'completed') AS n_completed,"
    "  count(*) FILTER (WHERE t.state = 'failed') AS n_failed,"
    "  count(*) FILTER (WHERE t.state = 'pruned') AS n_pruned,"
    "  count(*) FILTER (WHERE t.state = 'paused') AS n_paused"
    "  FROM trials t WHERE t.study_id = s.id AND $3::boolean) c ON true"
    " WHERE s.id = $1";
/* clang-format on */
static const char *SQL_LOCK = "SELECT id FROM studies WHERE id = $1 FOR UPDATE";
static const char *SQL_DELETE = "DELETE FROM studies WHERE id = $1";
static const char *SQL_COUNT = "SELECT count(*) AS n FROM studies s" SQL_FILTER;
static const char *SQL_CANDIDATES =
    "SELECT c.idx, c.params::text AS params"
    " FROM candidates c WHERE c.study_id = $1 ORDER BY c.idx";

static char *
dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

static void
row_to_study(const struct db_result *r, size_t i, struct study *s)
{
    static const char *cols[TRIAL_NSTATES] = {
        "n_pending", "n_running", "n_completed", "n_failed",
        "n_pruned",  "n_paused",  "n_waiting"};
    memset(s, 0, sizeof *s);
    s->id = db_get_ll(r, i, "id", 0);
    s->name = dup_or_null(db_get(r, i, "name"));
    s->definition = dup_or_null(db_get(r, i, "definition"));
    s->budget = db_get_ll(r, i, "budget", -1);
    s->lease_seconds = (int)db_get_ll(r, i, "lease_seconds", 0);
    s->n_candidates = db_get_ll(r, i, "n_candidates", -1);
    s->benchmark = dup_or_null(db_get(r, i, "benchmark"));
    s->created_at = dup_or_null(db_get(r, i, "created_at"));
    s->last_activity = dup_or_null(db_get(r, i, "last_activity"));
    for (int k = 0; k < TRIAL_NSTATES; k++)
        s->counts[k] = db_get_ll(r, i, cols[k], 0);
    s->n_expired = db_get_ll(r, i, "n_expired", 0);
    s->n_added = db_get_ll(r, i, "n_added", 0);
    s->lab = dup_or_null(db_get(r, i, "lab"));
    s->state = dup_or_null(db_get(r, i, "state"));
    s->metadata = dup_or_null(db_get(r, i, "metadata"));
    s->created_by = db_get_ll(r, i, "created_by", 0);
    s->created_by_note = dup_or_null(db_get(r, i, "created_by_note"));
}

enum hpod_status
study_store_insert(struct db *db, const struct study_row_in *in, long long *id,
                   struct hpod_err *err)
{
    char b[32], l[32], nc[32], sid[32], by[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    *id = 0;
    snprintf(b, sizeof b, "%lld", in->budget);
    snprintf(l, sizeof l, "%d", in->lease_seconds);
    snprintf(nc, sizeof nc, "%lld", in->n_candidates);
    snprintf(by, sizeof by, "%lld", in->created_by);
    const char *p[] = {in->name,
                       in->definition,
                       in->budget >= 0 ? b : NULL,
                       l,
                       in->n_candidates >= 0 ? nc : NULL,
                       in->benchmark,
                       in->lab,
                       in->metadata ? in->metadata : "{}",
                       in->created_by > 0 ? by : NULL};
    if ((st = db_exec(db, SQL_INSERT, 9, p, &r, err)) != HPOD_OK)
        goto out;
    if (db_rows(r) == 0)
        goto out; /* (lab, name) taken: *id stays 0 */
    *id = db_get_ll(r, 0, "id", 0);
    if (in->candidates_json) {
        snprintf(sid, sizeof sid, "%lld", *id);
        const char *pc[] = {sid, in->candidates_json};
        st = db_exec(db, SQL_INSERT_CANDIDATES, 2, pc, NULL, err);
    }
out:
    db_result_free(r);
    return st;
}

enum hpod_status
study_store_find(struct db *db, const char *lab, const char *name,
                 long long *id, struct hpod_err *err)
{
    struct db_result *r = NULL;
    const char *p[] = {lab, name};
    enum hpod_status st;

    *id = 0;
    if ((st = db_exec(db, SQL_FIND, 2, p, &r, err)) != HPOD_OK)
        return st;
    if (db_rows(r) > 0)
        *id = db_get_ll(r, 0, "id", 0);
    db_result_free(r);
    return HPOD_OK;
}

enum hpod_status
study_store_update(struct db *db, long long id, const char *state,
                   const char *metadata, struct hpod_err *err)
{
    char sid[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    snprintf(sid, sizeof sid, "%lld", id);
    const char *p[] = {sid, state, metadata};
    if ((st = db_exec(db, SQL_UPDATE, 3, p, &r, err)) != HPOD_OK)
        return st;
    if (db_affected(r) == 0)
        st =
            hpod_fail(err, HPOD_ENOTFOUND, "", "study %lld does not exist", id);
    db_result_free(r);
    return st;
}

/*
 * The one study row sql (parameter: id) reads into out; 404 naming what
 * (a "study" or a "trial") when there is none. On success r (the caller's
 * to free) still holds the row, for columns row_to_study does not read.
 */
static enum hpod_status
get_one(struct db *db, const char *sql, const char *what, long long id,
        struct study *out, struct db_result **r, struct hpod_err *err)
{
    enum hpod_status st;

    *r = NULL;
    if ((st = db_exec_id(db, sql, id, r, err)) != HPOD_OK)
        return st;
    if (db_rows(*r) == 0)
        return hpod_fail(err, HPOD_ENOTFOUND, "", "%s %lld does not exist",
                         what, id);
    row_to_study(*r, 0, out); /* absent count columns read as 0 */
    return HPOD_OK;
}

enum hpod_status
study_store_get(struct db *db, long long id, struct study *out,
                struct hpod_err *err)
{
    char sql[2048];
    struct db_result *r = NULL;
    enum hpod_status st;

    snprintf(sql, sizeof sql, "%s WHERE s.id = $1 GROUP BY s.id", SQL_SELECT);
    st = get_one(db, sql, "study", id, out, &r, err);
    db_result_free(r);
    return st;
}

enum hpod_status
study_store_get_row(struct db *db, long long id, struct study *out,
                    struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st = get_one(db, SQL_ROW, "study", id, out, &r, err);
    db_result_free(r);
    return st;
}

/* The version column of r's row into version. */
static void
get_version(const struct db_result *r, char version[STUDY_VERSION_MAX])
{
    const char *v = db_get(r, 0, "version");
    snprintf(version, STUDY_VERSION_MAX, "%s", v ? v : "");
}

enum hpod_status
study_store_get_row_of_trial(struct db *db, long long trial_id,
                             long long known_study, const char *known,
                             struct study *out, char version[STUDY_VERSION_MAX],
                             struct hpod_err *err)
{
    char tid[32], sid[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    version[0] = '\0';
    snprintf(tid, sizeof tid, "%lld", trial_id);
    snprintf(sid, sizeof sid, "%lld", known_study);
    const char *p[] = {tid, known ? known : "", sid};
    if ((st = db_exec(db, SQL_ROW_OF_TRIAL, 3, p, &r, err)) != HPOD_OK)
        return st;
    if (db_rows(r) == 0) {
        st = hpod_fail(err, HPOD_ENOTFOUND, "", "trial %lld does not exist",
                       trial_id);
        goto out;
    }
    row_to_study(r, 0, out);
    get_version(r, version);
out:
    db_result_free(r);
    return st;
}

enum hpod_status
study_store_get_issue(struct db *db, long long id, const char *known, int full,
                      struct study *out, long long *n_all,
                      char version[STUDY_VERSION_MAX], struct hpod_err *err)
{
    char sid[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    version[0] = '\0';
    snprintf(sid, sizeof sid, "%lld", id);
    const char *p[] = {sid, known ? known : "", full ? "true" : "false"};
    if ((st = db_exec(db, SQL_ISSUE, 3, p, &r, err)) != HPOD_OK)
        return st;
    if (db_rows(r) == 0) {
        st =
            hpod_fail(err, HPOD_ENOTFOUND, "", "study %lld does not exist", id);
        goto out;
    }
    row_to_study(r, 0, out);
    get_version(r, version);
    *n_all = db_get_ll(r, 0, "n_all", 0);
    /* Without the split, every trial but the waiting ones counts as
     * pending: n_all is max(seq) + 1. */
    if (!full)
        out->counts[TRIAL_PENDING] = *n_all - out->counts[TRIAL_WAITING];
out:
    db_result_free(r);
    return st;
}

enum hpod_status
study_store_lock(struct db *db, long long id, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    if ((st = db_exec_id(db, SQL_LOCK, id, &r, err)) != HPOD_OK)
        return st;
    if (db_rows(r) == 0)
        st =
            hpod_fail(err, HPOD_ENOTFOUND, "", "study %lld does not exist", id);
    db_result_free(r);
    return st;
}

enum hpod_status
study_store_list(struct db *db, const struct study_filter *f, long long limit,
                 long long offset, struct study **out, size_t *n,
                 long long *total, struct hpod_err *err)
{
    char sl[32], so[32], sql[2048];
    struct db_result *r = NULL;
    enum hpod_status st;

    *out = NULL;
    *n = 0;
    const char *pf[] = {f ? f->lab : NULL, f ? f->name : NULL};
    if ((st = db_exec(db, SQL_COUNT, 2, pf, &r, err)) != HPOD_OK)
        return st;
    *total = db_get_ll(r, 0, "n", 0);
    db_result_free(r);
    r = NULL;
    snprintf(sl, sizeof sl, "%lld", limit);
    snprintf(so, sizeof so, "%lld", offset);
    snprintf(sql, sizeof sql,
             "%s" SQL_FILTER
             " GROUP BY s.id ORDER BY s.id DESC LIMIT $3 OFFSET $4",
             SQL_SELECT);
    const char *p[] = {pf[0], pf[1], sl, so};
    if ((st = db_exec(db, sql, 4, p, &r, err)) != HPOD_OK)
        return st;
    *n = db_rows(r);
    *out = xcalloc(*n ? *n : 1, sizeof **out);
    for (size_t i = 0; i < *n; i++)
        row_to_study(r, i, &(*out)[i]);
    db_result_free(r);
    return HPOD_OK;
}

enum hpod_status
study_store_delete(struct db *db, long long id, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    if ((st = db_exec_id(db, SQL_DELETE, id, &r, err)) != HPOD_OK)
        return st;
    if (db_affected(r) == 0)
        st =
            hpod_fail(err, HPOD_ENOTFOUND, "", "study %lld does not exist", id);
    db_result_free(r);
    return st;
}

enum hpod_status
study_store_candidates(struct db *db, long long id, char ***params, size_t *n,
                       struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    *params = NULL;
    *n = 0;
    if ((st = db_exec_id(db, SQL_CANDIDATES, id, &r, err)) != HPOD_OK)
        return st;
    *n = db_rows(r);
    *params = xcalloc(*n ? *n : 1, sizeof **params);
    for (size_t i = 0; i < *n; i++)
        (*params)[i] = xstrdup(db_get(r, i, "params"));
    db_result_free(r);
    return HPOD_OK;
}
