/*
 * store/db.c - libpq wrapper: pool, PQexecParams, SQLSTATE mapping.
 *
 * Database errors are logged in full (SQLSTATE, primary message, detail)
 * and reported to the client generically, as PostgreSQL's errdetail_log
 * does: internal text never reaches a response.
 */
#include "store/db.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "store/log.h"
#include "store/err.h"

struct db {
    PGconn *conn;
    int in_tx;
    int busy;
};

struct db_pool {
    char *url;
    size_t size;
    struct db *conns;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

struct db_result {
    PGresult *res;
};

static enum hpod_status
connect_db(const char *url, PGconn **out, struct hpod_err *err)
{
    PGconn *c = PQconnectdb(url);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        hpod_log(HPOD_LOG_WARN, "could not connect to database: %s",
                 c ? PQerrorMessage(c) : "out of memory");
        PQfinish(c);
        *out = NULL;
        return hpod_fail(err, HPOD_EDB, "", "database unavailable");
    }
    /* Server-side timestamps and text formats independent of the lab's
     * postgresql.conf; a bounded statement time so a stuck query cannot
     * hold a worker thread for ever. */
    PGresult *r = PQexec(c, "SET TIME ZONE 'UTC'; SET statement_timeout = '60s'"
                            "; SET extra_float_digits = 3");
    PQclear(r);
    *out = c;
    return HPOD_OK;
}

struct db_pool *
db_pool_create(const char *url, size_t size)
{
    struct db_pool *p = xcalloc(1, sizeof *p);
    p->url = xstrdup(url);
    p->size = size ? size : 1;
    p->conns = xcalloc(p->size, sizeof *p->conns);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    return p;
}

void
db_pool_destroy(struct db_pool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->size; i++)
        PQfinish(p->conns[i].conn);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->conns);
    free(p->url);
    free(p);
}

enum hpod_status
db_pool_acquire(struct db_pool *p, struct db **out, struct hpod_err *err)
{
    struct db *d = NULL;

    *out = NULL;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        /* Prefer a slot with an open connection. */
        for (size_t i = 0; i < p->size && !d; i++)
            if (!p->conns[i].busy && p->conns[i].conn)
                d = &p->conns[i];
        for (size_t i = 0; i < p->size && !d; i++)
            if (!p->conns[i].busy)
                d = &p->conns[i];
        if (d)
            break;
        pthread_cond_wait(&p->cv, &p->mu);
    }
    d->busy = 1;
    pthread_mutex_unlock(&p->mu);

    if (d->conn && PQstatus(d->conn) != CONNECTION_OK) {
        PQfinish(d->conn);
        d->conn = NULL;
    }
    if (!d->conn) {
        enum hpod_status st = connect_db(p->url, &d->conn, err);
        if (st != HPOD_OK) {
            db_pool_release(p, d);
            return st;
        }
    }
    d->in_tx = 0;
    *out = d;
    return HPOD_OK;
}

void
db_pool_release(struct db_pool *p, struct db *d)
{
    if (!d)
        return;
    if (d->in_tx)
        db_rollback(d);
    pthread_mutex_lock(&p->mu);
    d->busy = 0;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

enum hpod_status
db_open(const char *url, struct db **out, struct hpod_err *err)
{
    PGconn *c = NULL;
    enum hpod_status st = connect_db(url, &c, err);
    *out = NULL;
    if (st != HPOD_OK)
        return st;
    *out = xcalloc(1, sizeof **out);
    (*out)->conn = c;
    return HPOD_OK;
}

void
db_close(struct db *db)
{
    if (!db)
        return;
    PQfinish(db->conn);
    free(db);
}

static enum hpod_status
map_error(PGconn *conn, PGresult *res, const char *sql, struct hpod_err *err)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *detail =
        res ? PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL) : NULL;
    hpod_log(
        HPOD_LOG_WARN,
        "query failed: sqlstate=%s error=\"%s\" detail=\"%s\" sql=\"%.80s\"",
        state ? state : "none",
        res ? PQresultErrorMessage(res) : PQerrorMessage(conn),
        detail ? detail : "", sql);
    if (state && strcmp(state, "23505") == 0)
        return hpod_fail(err, HPOD_ECONFLICT, "",
                         "conflicting concurrent "
                         "change, try again");
    if (state && strcmp(state, "23503") == 0)
        return hpod_fail(err, HPOD_ENOTFOUND, "",
                         "referenced object no "
                         "longer exists");
    if (state && (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0))
        return hpod_fail(err, HPOD_ECONFLICT, "",
                         "concurrent update, try again");
    return hpod_fail(err, HPOD_EDB, "", "database unavailable");
}

enum hpod_status
db_exec(struct db *db, const char *sql, int nparams, const char *const *params,
        struct db_result **out, struct hpod_err *err)
{
    PGresult *res;
    ExecStatusType es;

    if (out)
        *out = NULL;
    res = PQexecParams(db->conn, sql, nparams, NULL, params, NULL, NULL, 0);
    es = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (es != PGRES_COMMAND_OK && es != PGRES_TUPLES_OK) {
        enum hpod_status st = map_error(db->conn, res, sql, err);
        PQclear(res);
        return st;
    }
    if (out) {
        *out = xmalloc(sizeof **out);
        (*out)->res = res;
    } else {
        PQclear(res);
    }
    return HPOD_OK;
}

size_t
db_rows(const struct db_result *r)
{
    return r ? (size_t)PQntuples(r->res) : 0;
}

const char *
db_get(const struct db_result *r, size_t row, const char *col)
{
    int c = PQfnumber(r->res, col);
    if (c < 0 || PQgetisnull(r->res, (int)row, c))
        return NULL;
    return PQgetvalue(r->res, (int)row, c);
}

long long
db_get_ll(const struct db_result *r, size_t row, const char *col,
          long long dflt)
{
    const char *v = db_get(r, row, col);
    return v ? strtoll(v, NULL, 10) : dflt;
}

long long
db_affected(const struct db_result *r)
{
    const char *s = r ? PQcmdTuples(r->res) : "";
    return *s ? strtoll(s, NULL, 10) : 0;
}

void
db_result_free(struct db_result *r)
{
    if (!r)
        return;
    PQclear(r->res);
    free(r);
}

enum hpod_status
db_begin(struct db *db, struct hpod_err *err)
{
    enum hpod_status st = db_exec(db, "BEGIN", 0, NULL, NULL, err);
    if (st == HPOD_OK)
        db->in_tx = 1;
    return st;
}

enum hpod_status
db_commit(struct db *db, struct hpod_err *err)
{
    enum hpod_status st = db_exec(db, "COMMIT", 0, NULL, NULL, err);
    db->in_tx = 0;
    return st;
}

void
db_rollback(struct db *db)
{
    if (!db || !db->in_tx)
        return;
    PGresult *r = PQexec(db->conn, "ROLLBACK");
    PQclear(r);
    db->in_tx = 0;
}

enum hpod_status
db_exec_script(struct db *db, const char *sql, struct hpod_err *err)
{
    PGresult *res = PQexec(db->conn, sql);
    ExecStatusType es = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    enum hpod_status st = HPOD_OK;
    if (es != PGRES_COMMAND_OK && es != PGRES_TUPLES_OK)
        st = map_error(db->conn, res, "migration script", err);
    PQclear(res);
    return st;
}
