/*
 * store/audit_store.c - SQL about the audit log; see audit_store.h.
 */
#include "store/audit_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

/* The token's note is read in the same statement: the request carries
 * the token's id only. A study event without a lab takes its study's. */
static const char *SQL_INSERT =
    "INSERT INTO audit_events"
    " (token_id, token_note, lab, action, target, study_id, detail)"
    " SELECT $1::bigint, (SELECT k.note FROM tokens k WHERE k.id = $1::bigint),"
    " coalesce($2::text, (SELECT s.lab FROM studies s WHERE s.id = "
    "$5::bigint)),"
    " $3, $4, $5::bigint, $6::json";

static const char *SQL_LIST =
    "SELECT e.id, to_char(e.at AT TIME ZONE 'UTC',"
    " 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') AS at,"
    " e.token_id, e.token_note, e.lab, e.action, e.target, e.study_id,"
    " e.detail::text AS detail"
    " FROM audit_events e"
    " WHERE ($1::text IS NULL OR e.lab = $1)"
    " AND ($2::bigint IS NULL OR e.study_id = $2)"
    " AND ($3::bigint IS NULL OR e.token_id = $3)"
    " AND ($4::text IS NULL OR e.action = $4)"
    " AND ($5::timestamptz IS NULL OR e.at >= $5::timestamptz)"
    " AND ($6::bigint IS NULL OR e.id < $6)"
    " ORDER BY e.id DESC LIMIT $7";

/* Oldest first, a bounded batch: a long retention change never turns
 * into one huge delete. */
static const char *SQL_PRUNE =
    "DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events"
    " WHERE at < now() - make_interval(days => $1::integer)"
    " ORDER BY at LIMIT $2)";

/* The text of v into buf, or NULL when v is 0 (SQL NULL). */
static const char *
ll_or_null(long long v, char *buf, size_t cap)
{
    if (v == 0)
        return NULL;
    snprintf(buf, cap, "%lld", v);
    return buf;
}

enum hpod_status
audit_store_insert(struct db *db, const struct audit_row_in *in,
                   struct hpod_err *err)
{
    char tok[32], sid[32];
    const char *p[] = {ll_or_null(in->token_id, tok, sizeof tok),
                       in->lab,
                       in->action,
                       in->target,
                       ll_or_null(in->study_id, sid, sizeof sid),
                       in->detail ? in->detail : "{}"};
    return db_exec(db, SQL_INSERT, 6, p, NULL, err);
}

static char *
dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

enum hpod_status
audit_store_list(struct db *db, const struct audit_filter *f,
                 struct audit_row **out, size_t *n, struct hpod_err *err)
{
    char sid[32], tok[32], before[32], lim[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    *out = NULL;
    *n = 0;
    snprintf(lim, sizeof lim, "%lld", f->limit);
    const char *p[] = {f->lab,
                       ll_or_null(f->study_id, sid, sizeof sid),
                       ll_or_null(f->token_id, tok, sizeof tok),
                       f->action,
                       f->since,
                       ll_or_null(f->before_id, before, sizeof before),
                       lim};
    if ((st = db_exec(db, SQL_LIST, 7, p, &r, err)) != HPOD_OK)
        return st;
    *n = db_rows(r);
    *out = xcalloc(*n ? *n : 1, sizeof **out);
    for (size_t i = 0; i < *n; i++) {
        struct audit_row *e = &(*out)[i];
        e->id = db_get_ll(r, i, "id", 0);
        e->at = xstrdup(db_get(r, i, "at"));
        e->token_id = db_get_ll(r, i, "token_id", 0);
        e->token_note = dup_or_null(db_get(r, i, "token_note"));
        e->lab = dup_or_null(db_get(r, i, "lab"));
        e->action = xstrdup(db_get(r, i, "action"));
        e->target = xstrdup(db_get(r, i, "target"));
        e->study_id = db_get_ll(r, i, "study_id", 0);
        e->detail = xstrdup(db_get(r, i, "detail"));
    }
    db_result_free(r);
    return HPOD_OK;
}

void
audit_row_clear(struct audit_row *e)
{
    free(e->at);
    free(e->token_note);
    free(e->lab);
    free(e->action);
    free(e->target);
    free(e->detail);
    memset(e, 0, sizeof *e);
}

void
audit_rows_free(struct audit_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++)
        audit_row_clear(&rows[i]);
    free(rows);
}

enum hpod_status
audit_store_prune(struct db *db, long days, long max_rows, long long *deleted,
                  struct hpod_err *err)
{
    char d[32], m[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    *deleted = 0;
    snprintf(d, sizeof d, "%ld", days);
    snprintf(m, sizeof m, "%ld", max_rows);
    const char *p[] = {d, m};
    if ((st = db_exec(db, SQL_PRUNE, 2, p, &r, err)) == HPOD_OK)
        *deleted = db_affected(r);
    db_result_free(r);
    return st;
}
