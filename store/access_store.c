/*
 * store/access_store.c - SQL about tokens and owners; see access_store.h.
 */
#include "store/access_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"

#define TS(col)                                                                \
    "to_char(" col " AT TIME ZONE 'UTC', "                                     \
    "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

#define TOKEN_COLS                                                             \
    "id, role, coalesce(lab, '') AS lab, note,"                                \
    " " TS("created_at") " AS created_at,"                                     \
                         " coalesce(" TS(                                      \
                             "expires_at") ", '') AS expires_at,"              \
                                           " coalesce(" TS(                    \
                                               "revoked_at") ", '') AS "       \
                                                             "revoked_at,"     \
                                                             " (revoked_at "   \
                                                             "IS NULL AND "    \
                                                             "(expires_at IS " \
                                                             "NULL OR "        \
                                                             "expires_at > "   \
                                                             "now()))"         \
                                                             "::int AS valid"

/* An arbitrary constant, not migrate.c's: the lock of the first token. */
static const char *TOKEN_LOCK_KEY = "7250477393170116101";

static const char *SQL_INSERT =
    "INSERT INTO tokens (hash, role, lab, note, expires_at)"
    " VALUES (decode($1, 'hex'), $2, $3, $4,"
    " CASE WHEN $5::bigint > 0"
    " THEN now() + make_interval(secs => $5::bigint) END)"
    " RETURNING " TOKEN_COLS;
static const char *SQL_FIND =
    "SELECT " TOKEN_COLS " FROM tokens WHERE hash = decode($1, 'hex')";
static const char *SQL_EXIST = "SELECT EXISTS (SELECT 1 FROM tokens)::int AS e";
static const char *SQL_LIST = "SELECT " TOKEN_COLS " FROM tokens"
                              " WHERE $1::text IS NULL OR lab = $1 ORDER BY id";
/* Only a live token changes: of two concurrent revocations, the second
 * finds the row revoked once the first commits, and changes nothing. */
static const char *SQL_REVOKE =
    "UPDATE tokens SET revoked_at = now()"
    " WHERE id = $1 AND ($2::text IS NULL OR lab = $2) AND revoked_at IS NULL"
    " RETURNING " TOKEN_COLS;
static const char *SQL_GET =
    "SELECT " TOKEN_COLS " FROM tokens"
    " WHERE id = $1 AND ($2::text IS NULL OR lab = $2)";

static void
copy_col(char *dst, size_t size, const struct db_result *r, size_t i,
         const char *col)
{
    const char *v = db_get(r, i, col);
    snprintf(dst, size, "%s", v ? v : "");
}

static void
row_to_token(const struct db_result *r, size_t i, struct token_row *t)
{
    memset(t, 0, sizeof *t);
    t->id = db_get_ll(r, i, "id", 0);
    copy_col(t->role, sizeof t->role, r, i, "role");
    copy_col(t->lab, sizeof t->lab, r, i, "lab");
    copy_col(t->note, sizeof t->note, r, i, "note");
    copy_col(t->created_at, sizeof t->created_at, r, i, "created_at");
    copy_col(t->expires_at, sizeof t->expires_at, r, i, "expires_at");
    copy_col(t->revoked_at, sizeof t->revoked_at, r, i, "revoked_at");
    t->valid = db_get_ll(r, i, "valid", 0) != 0;
}

enum hpod_status
access_store_token_insert(struct db *db, const char *hash_hex, const char *role,
                          const char *lab, const char *note,
                          long long expires_in, struct token_row *out,
                          struct hpod_err *err)
{
    char exp[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    snprintf(exp, sizeof exp, "%lld", expires_in);
    const char *p[] = {hash_hex, role, lab, note ? note : "", exp};
    if ((st = db_exec(db, SQL_INSERT, 5, p, &r, err)) == HPOD_OK)
        row_to_token(r, 0, out);
    db_result_free(r);
    return st;
}

enum hpod_status
access_store_token_lock(struct db *db, struct hpod_err *err)
{
    const char *p[] = {TOKEN_LOCK_KEY};
    return db_exec(db, "SELECT pg_advisory_xact_lock($1::bigint)", 1, p, NULL,
                   err);
}

enum hpod_status
access_store_token_find(struct db *db, const char *hash_hex,
                        struct token_row *out, int *found, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;
    const char *p[] = {hash_hex};

    *found = 0;
    if ((st = db_exec(db, SQL_FIND, 1, p, &r, err)) == HPOD_OK &&
        db_rows(r) > 0) {
        row_to_token(r, 0, out);
        *found = 1;
    }
    db_result_free(r);
    return st;
}

enum hpod_status
access_store_tokens_exist(struct db *db, int *exist, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    *exist = 0;
    if ((st = db_exec(db, SQL_EXIST, 0, NULL, &r, err)) == HPOD_OK)
        *exist = db_get_ll(r, 0, "e", 0) != 0;
    db_result_free(r);
    return st;
}

enum hpod_status
access_store_token_list(struct db *db, const char *lab, struct token_row **out,
                        size_t *n, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;
    const char *p[] = {lab};

    *out = NULL;
    *n = 0;
    if ((st = db_exec(db, SQL_LIST, 1, p, &r, err)) != HPOD_OK)
        return st;
    *n = db_rows(r);
    *out = xcalloc(*n ? *n : 1, sizeof **out);
    for (size_t i = 0; i < *n; i++)
        row_to_token(r, i, &(*out)[i]);
    db_result_free(r);
    return HPOD_OK;
}

enum hpod_status
access_store_token_revoke(struct db *db, long long id, const char *lab,
                          struct token_row *out, int *changed,
                          struct hpod_err *err)
{
    char sid[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    *changed = 0;
    snprintf(sid, sizeof sid, "%lld", id);
    const char *p[] = {sid, lab};
    if ((st = db_exec(db, SQL_REVOKE, 2, p, &r, err)) != HPOD_OK)
        goto out;
    *changed = db_rows(r) > 0;
    if (!*changed) {
        /* Revoked before, or absent: the row as it is. */
        db_result_free(r);
        r = NULL;
        if ((st = db_exec(db, SQL_GET, 2, p, &r, err)) != HPOD_OK)
            goto out;
    }
    if (db_rows(r) == 0)
        st =
            hpod_fail(err, HPOD_ENOTFOUND, "", "token %lld does not exist", id);
    else
        row_to_token(r, 0, out);
out:
    db_result_free(r);
    return st;
}

enum hpod_status
access_store_lab_of(struct db *db, enum access_kind kind, long long id,
                    char *lab, size_t lab_size, int *found,
                    struct hpod_err *err)
{
    static const char *const sql[] = {
        [ACCESS_STUDY] = "SELECT lab FROM studies WHERE id = $1",
        [ACCESS_TRIAL] = "SELECT s.lab FROM trials t"
                         " JOIN studies s ON s.id = t.study_id"
                         " WHERE t.id = $1",
        [ACCESS_SIMULATION] =
            "SELECT coalesce(lab, '') AS lab FROM simulations WHERE id = $1",
        [ACCESS_TOKEN] =
            "SELECT coalesce(lab, '') AS lab FROM tokens WHERE id = $1",
    };
    struct db_result *r = NULL;
    enum hpod_status st;

    *found = 0;
    lab[0] = '\0';
    if ((st = db_exec_id(db, sql[kind], id, &r, err)) == HPOD_OK &&
        db_rows(r) > 0) {
        copy_col(lab, lab_size, r, 0, "lab");
        *found = 1;
    }
    db_result_free(r);
    return st;
}
