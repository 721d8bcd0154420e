/*
 * store/db.c - libpq wrapper: pool, parameterized queries with deadlines,
 * SQLSTATE mapping, database up/down state.
 *
 * Database errors are logged in full (SQLSTATE, primary message, detail)
 * and reported to the client generically, as PostgreSQL's errdetail_log
 * does: internal text never reaches a response.
 *
 * Nothing here waits on the database without a deadline. Connections are
 * opened with PQconnectStart/PQconnectPoll and poll(2) against the connect
 * timeout; queries are sent with PQsendQueryParams on a non-blocking
 * connection and read with PQconsumeInput/PQisBusy against the statement
 * timeout plus a grace period. Each transaction sets the server's own
 * statement_timeout (SET LOCAL, sent with its BEGIN), so a slow query on a
 * live server ends first with SQLSTATE 57014 and the connection stays;
 * when a server does not answer at all (stopped, hung, network gone) the
 * grace runs out and the connection is dropped with PQfinish, without
 * waiting for a cancel. A dropped connection takes its open transaction
 * with it: PostgreSQL rolls it back, so a timed-out request leaves nothing
 * half-written.
 *
 * No session state: every statement is unnamed (PQsendQueryParams: parsed
 * and planned in its own round trip, nothing kept on the server), nothing
 * is SET for the session, and locks are transaction-scoped, so any
 * statement may run on any server connection of a pooler in transaction
 * mode (PgBouncer), and one transaction on one connection
 * (docs/DEPLOY.md, "PgBouncer"). What the code needs from the server's
 * settings is checked once by db_check_settings.
 *
 * A pool remembers whether the database is reachable and logs one warning
 * when it goes away and one line when it is back, not one per request.
 */
#include "store/db.h"
#include "common/clock.h"

#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/dtoa.h"
#include "common/mem.h"
#include "common/err.h"
#include "common/log.h"

/* How long after the server's statement_timeout a query with no answer at
 * all is given up on the client side. */
#define DB_GRACE_MS 1000L

struct db {
    PGconn *conn;
    int in_tx;
    int busy;
    struct db_pool *pool; /* NULL for db_open */
    struct db_opts opts;
};

/* A caller of db_pool_acquire waiting for a connection (on its stack). */
struct pool_waiter {
    pthread_cond_t cv;
    struct db *got; /* handed over by db_pool_release */
    struct pool_waiter *next;
};

struct db_pool {
    char *url;
    size_t size;
    struct db *conns;
    struct db_opts opts;
    pthread_mutex_t mu;
    /* Waiters in arrival order (a condition variable used to wake them
     * in no order, and after a suggest group answered a burst of reports,
     * a report could wait out several others' turns: the report p99). */
    struct pool_waiter *head, *tail;
    /* What /metrics shows (under mu): connections lent, callers waiting,
     * acquires that waited and how long in all (db_pool_stats). */
    size_t in_use, waiting;
    unsigned long long waits;
    double wait_s;
    /* Reachability, for logging state changes only (under mu). */
    atomic_int down;
    struct timespec down_since;
    int quiet; /* no reachability lines: db_pool_set_quiet */
    /* Set before the threads that use the pool start. */
    db_stale_reader_fn stale_reader;
    void *stale_arg;
};

struct db_result {
    PGresult *res;
};

static const struct db_opts default_opts = {DB_CONNECT_TIMEOUT_MS_DEFAULT,
                                            DB_STATEMENT_TIMEOUT_MS_DEFAULT};

/* Copies a libpq message onto one line: white space runs become one
 * space, none at either end. */
static void
one_line(char *out, size_t cap, const char *msg)
{
    size_t o = 0;
    for (; msg && *msg && o + 1 < cap; msg++) {
        int sp = *msg == ' ' || *msg == '\n' || *msg == '\r' || *msg == '\t';
        if (!sp)
            out[o++] = *msg;
        else if (o > 0 && out[o - 1] != ' ')
            out[o++] = ' ';
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
}

/*
 * Waits until c's socket is ready for what events asks, or the deadline
 * (hpod_now_ms() time) passes. Returns 1 when ready, 0 on timeout, -1 on error.
 */
static int
wait_socket(PGconn *c, short events, long long deadline)
{
    struct pollfd pfd;
    pfd.fd = PQsocket(c);
    pfd.events = events;
    if (pfd.fd < 0)
        return -1;
    for (;;) {
        long long left = deadline - hpod_now_ms();
        if (left <= 0)
            return 0;
        pfd.revents = 0;
        int n = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
        if (n > 0)
            return 1; /* ready, or POLLERR/POLLHUP: libpq reports those */
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

/* libpq's notices and warnings (NOTICE: relation exists, skipping) go
 * through our logger, never raw to stderr. */
static void
on_notice(void *arg, const PGresult *res)
{
    const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
    const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    char text[512];
    (void)arg;
    if (!sev)
        sev = PQresultErrorField(res, PG_DIAG_SEVERITY);
    one_line(text, sizeof text, msg ? msg : PQresultErrorMessage(res));
    hpod_log(sev && strcmp(sev, "WARNING") == 0 ? HPOD_LOG_WARN
                                                : HPOD_LOG_DEBUG,
             "postgresql notice: severity=%s sqlstate=%s message=\"%s\"",
             sev ? sev : "NOTICE", state ? state : "none", text);
}

/*
 * Sends sql, unnamed with nparams text parameters, or as one simple query
 * of several statements (script: no parameters), and collects its result
 * within timeout_ms. Returns HPOD_OK with *out set (possibly an error
 * result, for map_error), or HPOD_EDB with why filled when the connection
 * is no longer usable: it timed out or broke.
 */
static enum hpod_status
run(PGconn *c, long timeout_ms, int script, const char *sql, int nparams,
    const char *const *params, PGresult **out, char *why, size_t whycap)
{
    long long deadline = hpod_now_ms() + timeout_ms;
    PGresult *keep = NULL, *r;
    int f, w;

    *out = NULL;
    if (!(script ? PQsendQuery(c, sql)
                 : PQsendQueryParams(c, sql, nparams, NULL, params, NULL, NULL,
                                     0)))
        goto broken;
    /* Non-blocking: send what fits, read meanwhile so the server is never
     * stuck writing to us while we write to it. */
    while ((f = PQflush(c)) == 1) {
        if ((w = wait_socket(c, POLLIN | POLLOUT, deadline)) == 0)
            goto timeout;
        if (w < 0 || !PQconsumeInput(c))
            goto broken;
    }
    if (f < 0)
        goto broken;
    for (;;) {
        while (PQisBusy(c)) {
            if ((w = wait_socket(c, POLLIN, deadline)) == 0)
                goto timeout;
            if (w < 0 || !PQconsumeInput(c))
                goto broken;
        }
        if ((r = PQgetResult(c)) == NULL)
            break;
        /* A script stops at its first error: keep that, else the last. */
        if (keep && PQresultStatus(keep) == PGRES_FATAL_ERROR) {
            PQclear(r);
        } else {
            PQclear(keep);
            keep = r;
        }
    }
    if (PQstatus(c) != CONNECTION_OK)
        goto broken;
    *out = keep;
    return HPOD_OK;
timeout:
    PQclear(keep);
    snprintf(why, whycap, "no answer within %ld ms", timeout_ms);
    return HPOD_EDB;
broken:
    PQclear(keep);
    one_line(why, whycap, PQerrorMessage(c));
    if (!why[0])
        snprintf(why, whycap, "connection lost");
    return HPOD_EDB;
}

/* The client-side deadline of a statement (see the file comment). */
static long
query_deadline_ms(const struct db_opts *o)
{
    return o->statement_timeout_ms + DB_GRACE_MS;
}

/*
 * Opens a connection within o->connect_timeout_ms (nothing is set for the
 * session: see the file comment). On failure *out is NULL and why says
 * why (one line).
 */
static enum hpod_status
connect_db(const char *url, const struct db_opts *o, PGconn **out, char *why,
           size_t whycap)
{
    long long deadline = hpod_now_ms() + o->connect_timeout_ms;
    PostgresPollingStatusType ps = PGRES_POLLING_WRITING;
    PGconn *c = PQconnectStart(url);
    int w;

    *out = NULL;
    if (!c) {
        snprintf(why, whycap, "out of memory");
        return HPOD_EDB;
    }
    PQsetNoticeReceiver(c, on_notice, NULL);
    if (PQstatus(c) == CONNECTION_BAD)
        goto fail;
    while (ps != PGRES_POLLING_OK) {
        if (ps == PGRES_POLLING_FAILED)
            goto fail;
        w = wait_socket(c, ps == PGRES_POLLING_READING ? POLLIN : POLLOUT,
                        deadline);
        if (w == 0) {
            snprintf(why, whycap, "could not connect within %ld ms",
                     o->connect_timeout_ms);
            PQfinish(c);
            return HPOD_EDB;
        }
        if (w < 0)
            goto fail;
        ps = PQconnectPoll(c);
    }
    if (PQsetnonblocking(c, 1) != 0)
        goto fail;
    *out = c;
    return HPOD_OK;
fail:
    one_line(why, whycap, PQerrorMessage(c));
    if (!why[0])
        snprintf(why, whycap, "connection failed");
    PQfinish(c);
    return HPOD_EDB;
}

/* ---- reachability: one line per change of state ---- */

static void
pool_mark_down(struct db_pool *p, const char *why)
{
    if (!p) {
        hpod_log(HPOD_LOG_WARN, "database unreachable: %s", why);
        return;
    }
    pthread_mutex_lock(&p->mu);
    if (!atomic_load(&p->down)) {
        clock_gettime(CLOCK_MONOTONIC, &p->down_since);
        atomic_store(&p->down, 1);
        if (!p->quiet)
            hpod_log(HPOD_LOG_WARN,
                     "database unreachable, answering 503 until it is back: "
                     "%s",
                     why);
    } else {
        hpod_log(HPOD_LOG_DEBUG, "database still unreachable: %s", why);
    }
    pthread_mutex_unlock(&p->mu);
}

static void
pool_mark_up(struct db_pool *p)
{
    struct timespec now;
    if (!p || !atomic_load(&p->down))
        return;
    pthread_mutex_lock(&p->mu);
    if (atomic_load(&p->down)) {
        atomic_store(&p->down, 0);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!p->quiet)
            hpod_log(HPOD_LOG_INFO,
                     "database reachable again after %.1f s unreachable",
                     (double)(now.tv_sec - p->down_since.tv_sec) +
                         (double)(now.tv_nsec - p->down_since.tv_nsec) * 1e-9);
    }
    pthread_mutex_unlock(&p->mu);
}

/* Drops a connection that timed out or broke: PQfinish on a non-blocking
 * connection never waits, and the server rolls back what it had open. */
static void
drop_conn(struct db *db, const char *why)
{
    PQfinish(db->conn);
    db->conn = NULL;
    db->in_tx = 0;
    pool_mark_down(db->pool, why);
}

/* ---- pool ---- */

struct db_pool *
db_pool_create(const char *url, size_t size, const struct db_opts *opts)
{
    struct db_pool *p = xcalloc(1, sizeof *p);
    p->url = xstrdup(url);
    p->size = size ? size : 1;
    p->opts = opts ? *opts : default_opts;
    p->conns = xcalloc(p->size, sizeof *p->conns);
    for (size_t i = 0; i < p->size; i++) {
        p->conns[i].pool = p;
        p->conns[i].opts = p->opts;
    }
    atomic_init(&p->down, 0);
    pthread_mutex_init(&p->mu, NULL);
    return p;
}

void
db_pool_destroy(struct db_pool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->size; i++) {
        PQfinish(p->conns[i].conn);
    }
    pthread_mutex_destroy(&p->mu);
    free(p->conns);
    free(p->url);
    free(p);
}

enum hpod_status
db_pool_acquire(struct db_pool *p, struct db **out, struct hpod_err *err)
{
    struct db *d = NULL;
    char why[256];

    *out = NULL;
    pthread_mutex_lock(&p->mu);
    /* Prefer a slot with an open connection; none is free while others
     * wait (release hands each freed one to the first of them). */
    for (size_t i = 0; i < p->size && !d && !p->head; i++)
        if (!p->conns[i].busy && p->conns[i].conn)
            d = &p->conns[i];
    for (size_t i = 0; i < p->size && !d && !p->head; i++)
        if (!p->conns[i].busy)
            d = &p->conns[i];
    if (d) {
        d->busy = 1;
        p->in_use++;
    } else {
        struct pool_waiter w = {.got = NULL, .next = NULL};
        double t0 = hpod_now_s();
        pthread_cond_init(&w.cv, NULL);
        if (p->tail)
            p->tail->next = &w;
        else
            p->head = &w;
        p->tail = &w;
        p->waiting++;
        while (!w.got)
            pthread_cond_wait(&w.cv, &p->mu);
        pthread_cond_destroy(&w.cv);
        p->waiting--;
        p->waits++;
        p->wait_s += hpod_now_s() - t0;
        d = w.got; /* still busy (and counted in use): handed over */
    }
    pthread_mutex_unlock(&p->mu);

    if (d->conn && PQstatus(d->conn) != CONNECTION_OK) {
        PQfinish(d->conn);
        d->conn = NULL;
    }
    if (!d->conn) {
        if (connect_db(p->url, &p->opts, &d->conn, why, sizeof why) !=
            HPOD_OK) {
            pool_mark_down(p, why);
            db_pool_release(p, d);
            return hpod_fail(err, HPOD_EDB, "", "database unavailable");
        }
        pool_mark_up(p);
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
    if (d->pool)
        p = d->pool; /* its owner: a standby's connection */
    if (d->in_tx)
        db_rollback(d);
    pthread_mutex_lock(&p->mu);
    if (p->head) {
        struct pool_waiter *w = p->head;
        p->head = w->next;
        if (!p->head)
            p->tail = NULL;
        w->got = d;
        pthread_cond_signal(&w->cv);
    } else {
        d->busy = 0;
        p->in_use--;
    }
    pthread_mutex_unlock(&p->mu);
}

void
db_pool_stats(struct db_pool *p, struct db_pool_stats *out)
{
    pthread_mutex_lock(&p->mu);
    out->size = p->size;
    out->in_use = p->in_use;
    out->waiting = p->waiting;
    out->waits = p->waits;
    out->wait_seconds = p->wait_s;
    pthread_mutex_unlock(&p->mu);
}

void
db_pool_set_stale_reader(struct db_pool *p, db_stale_reader_fn fn, void *arg)
{
    p->stale_reader = fn;
    p->stale_arg = arg;
}

void
db_pool_swap_stale(struct db_pool *p, struct db **db)
{
    struct db *other;
    if (!p->stale_reader || !*db || (*db)->in_tx ||
        !(other = p->stale_reader(p->stale_arg)))
        return;
    db_pool_release(p, *db);
    *db = other;
}

void
db_pool_set_quiet(struct db_pool *p)
{
    p->quiet = 1;
}

void
db_pool_drop_idle(struct db_pool *p)
{
    pthread_mutex_lock(&p->mu);
    for (size_t i = 0; i < p->size; i++)
        if (!p->conns[i].busy && p->conns[i].conn) {
            PQfinish(p->conns[i].conn);
            p->conns[i].conn = NULL;
        }
    pthread_mutex_unlock(&p->mu);
}

enum hpod_status
db_open(const char *url, const struct db_opts *opts, struct db **out,
        struct hpod_err *err)
{
    PGconn *c = NULL;
    char why[256];
    const struct db_opts *o = opts ? opts : &default_opts;

    *out = NULL;
    if (connect_db(url, o, &c, why, sizeof why) != HPOD_OK)
        return hpod_fail(err, HPOD_EDB, "", "%s", why);
    *out = xcalloc(1, sizeof **out);
    (*out)->conn = c;
    (*out)->opts = *o;
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

int
db_server_down(const char *url, long timeout_ms)
{
    /* connect_timeout after dbname overrides the URL's own (libpq keeps
     * the last value of a repeated keyword); libpq's minimum is 2 s. */
    const char *const keys[] = {"dbname", "connect_timeout", NULL};
    char secs[32];
    const char *vals[] = {url, secs, NULL};
    long s = (timeout_ms + 999) / 1000;
    snprintf(secs, sizeof secs, "%ld", s < 2 ? 2 : s);
    switch (PQpingParams(keys, vals, 1)) {
    case PQPING_NO_RESPONSE: /* refused, no socket, unknown host, timeout */
    case PQPING_REJECT:      /* starting up, shutting down, recovering */
        return 1;
    default: /* PQPING_OK: it answers; PQPING_NO_ATTEMPT: a bad URL */
        return 0;
    }
}

/* ---- queries ---- */

/* Connection failures: class 08, and the server going down (57P01 admin
 * shutdown, 57P02 crash shutdown, 57P03 cannot connect now). */
static int
is_connection_state(const char *state)
{
    return state &&
           (strncmp(state, "08", 2) == 0 || strncmp(state, "57P0", 4) == 0);
}

static enum hpod_status
map_error(PGresult *res, const char *sql, struct hpod_err *err)
{
    const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    const char *detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
    char msg[512];
    one_line(msg, sizeof msg, PQresultErrorMessage(res));
    hpod_log(
        HPOD_LOG_WARN,
        "query failed: sqlstate=%s error=\"%s\" detail=\"%s\" sql=\"%.80s\"",
        state ? state : "none", msg, detail ? detail : "", sql);
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

/*
 * Sends one statement on db within its deadline. A connection that times
 * out, breaks or is closed by the server is dropped (and the pool marked
 * down) instead of logging the failure per query: HPOD_EDB. Otherwise
 * HPOD_OK with *out the result, which may be an error result.
 */
static enum hpod_status
send_on(struct db *db, int script, const char *sql, int nparams,
        const char *const *params, PGresult **out, struct hpod_err *err)
{
    PGresult *res = NULL;
    const char *state;
    char why[256];

    *out = NULL;
    if (!db->conn) /* dropped earlier in this request */
        return hpod_fail(err, HPOD_EDB, "", "database unavailable");
    if (run(db->conn, query_deadline_ms(&db->opts), script, sql, nparams,
            params, &res, why, sizeof why) != HPOD_OK) {
        drop_conn(db, why);
        return hpod_fail(err, HPOD_EDB, "", "database unavailable");
    }
    state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    if (!res || is_connection_state(state)) {
        one_line(why, sizeof why,
                 res ? PQresultErrorMessage(res) : "no result");
        PQclear(res);
        drop_conn(db, why);
        return hpod_fail(err, HPOD_EDB, "", "database unavailable");
    }
    *out = res;
    return HPOD_OK;
}

static int
result_ok(const PGresult *res)
{
    ExecStatusType es = PQresultStatus(res);
    return es == PGRES_COMMAND_OK || es == PGRES_TUPLES_OK;
}

/* Runs sql on db (unnamed, or a simple query when script); maps errors. */
static enum hpod_status
exec_on(struct db *db, const char *sql, int nparams, const char *const *params,
        int script, PGresult **out, struct hpod_err *err)
{
    PGresult *res = NULL;
    enum hpod_status st;

    *out = NULL;
    if ((st = send_on(db, script, sql, nparams, params, &res, err)) != HPOD_OK)
        return st;
    if (!result_ok(res)) {
        st = map_error(res, sql, err);
        PQclear(res);
        return st;
    }
    pool_mark_up(db->pool);
    *out = res;
    return HPOD_OK;
}

enum hpod_status
db_exec_id(struct db *db, const char *sql, long long id, struct db_result **out,
           struct hpod_err *err)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", id);
    const char *p[] = {text};
    return db_exec(db, sql, 1, p, out, err);
}

enum hpod_status
db_exec(struct db *db, const char *sql, int nparams, const char *const *params,
        struct db_result **out, struct hpod_err *err)
{
    PGresult *res = NULL;
    enum hpod_status st;

    if (out)
        *out = NULL;
    if ((st = exec_on(db, sql, nparams, params, 0, &res, err)) != HPOD_OK)
        return st;
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
db_ping(struct db *db, struct hpod_err *err)
{
    return db_exec(db, "SELECT 1", 0, NULL, NULL, err);
}

enum hpod_status
db_check_settings(struct db *db, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st =
        db_exec(db,
                "SELECT current_setting('server_version_num')::int AS version,"
                " current_setting('extra_float_digits')::int AS efd",
                0, NULL, &r, err);
    if (st != HPOD_OK)
        return st;
    long long version = db_get_ll(r, 0, "version", 0);
    long long efd = db_get_ll(r, 0, "efd", 0);
    db_result_free(r);
    if (version < 120000)
        return hpod_fail(err, HPOD_EINVAL, "",
                         "PostgreSQL %lld.%lld: hpod needs 12 or later",
                         version / 10000, version % 10000);
    if (efd < 1)
        return hpod_fail(err, HPOD_EINVAL, "",
                         "the server's extra_float_digits is %lld: hpod "
                         "reads numbers back exactly only with 1 or more "
                         "(the default); ALTER ROLE ... SET "
                         "extra_float_digits = 1 (docs/DEPLOY.md)",
                         efd);
    return HPOD_OK;
}

enum hpod_status
db_begin(struct db *db, struct hpod_err *err)
{
    /* One round trip: the statement timeout lives as long as the
     * transaction, on whichever server connection a pooler gave it. */
    char sql[96];
    snprintf(sql, sizeof sql, "BEGIN; SET LOCAL statement_timeout = %ld",
             db->opts.statement_timeout_ms);
    enum hpod_status st = db_exec_script(db, sql, err);
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
    PGresult *res = NULL;
    if (!db || !db->in_tx)
        return;
    db->in_tx = 0;
    if (exec_on(db, "ROLLBACK", 0, NULL, 0, &res, NULL) == HPOD_OK)
        PQclear(res);
}

enum hpod_status
db_exec_script(struct db *db, const char *sql, struct hpod_err *err)
{
    PGresult *res = NULL;
    enum hpod_status st = exec_on(db, sql, 0, NULL, 1, &res, err);
    PQclear(res);
    return st;
}

char *
db_float8_array(const double *v, size_t n)
{
    size_t cap = 3 + n * 40, len = 0;
    char *arr = xmalloc(cap);

    arr[len++] = '{';
    for (size_t i = 0; i < n; i++) {
        char num[40];
        hpod_dtoa(v[i], num);
        len +=
            (size_t)snprintf(arr + len, cap - len, "%s%s", i ? "," : "", num);
    }
    snprintf(arr + len, cap - len, "}");
    return arr;
}

int
db_parse_float8_array(const char *s, double *v, size_t cap, size_t *n)
{
    char *end;

    *n = 0;
    if (!s || *s != '{')
        return 0;
    s++;
    while (*s && *s != '}') {
        if (*n == cap)
            return 0;
        errno = 0;
        v[*n] = strtod(s, &end);
        if (end == s || errno != 0 || !isfinite(v[*n]))
            return 0;
        (*n)++;
        s = end;
        if (*s == ',')
            s++;
    }
    return *s == '}' && s[1] == '\0';
}
