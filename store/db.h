/*
 * store/db.h - PostgreSQL connections: a small pool, parameterized queries
 * and transactions. The only module besides the *_store.c files that
 * includes libpq-fe.h.
 *
 * A PGconn is used by one thread at a time: a request acquires one from the
 * pool for its duration and releases it. Connections are opened lazily and
 * re-opened after a failure, so a database restart costs some 503s and no
 * restart of hpod. A connection whose statement timed out or broke is
 * dropped, which rolls back its open transaction; later calls on it in the
 * same request fail with HPOD_EDB at once.
 *
 * No session state: statements are unnamed, nothing is SET for the
 * session and advisory locks are transaction-scoped, so hpod works
 * through a pooler in transaction mode (PgBouncer): each statement may
 * run on another server connection, each transaction on one.
 */
#ifndef HPOD_DB_H
#define HPOD_DB_H

#include <stddef.h>

#include "common/status.h"

struct db;      /* one connection, opaque */
struct db_pool; /* opaque */

/*
 * Deadlines. No call waits on the database longer than these: opening a
 * connection gives up after connect_timeout_ms; a statement is cancelled
 * by the server after statement_timeout_ms (its statement_timeout) and,
 * if the server does not answer at all, dropped by us one second later.
 * Either way the caller gets HPOD_EDB (503).
 */
#define DB_CONNECT_TIMEOUT_MS_DEFAULT 5000L
#define DB_STATEMENT_TIMEOUT_MS_DEFAULT 30000L
struct db_opts {
    long connect_timeout_ms;
    long statement_timeout_ms;
};

/* Returns a new pool of at most size connections to url (copied), with
 * opts' deadlines (NULL: the defaults). */
struct db_pool *db_pool_create(const char *url, size_t size,
                               const struct db_opts *opts);
/* Closes every connection; all must have been released. Accepts NULL. */
void db_pool_destroy(struct db_pool *pool);
/*
 * db_pool_acquire - borrows a connection (blocks while all are in use),
 * connecting if needed. Returns HPOD_EDB (message in err) if the database
 * cannot be reached; *out is then NULL. The pool logs one warning when
 * the database becomes unreachable and one line when it is back.
 */
enum hpod_status db_pool_acquire(struct db_pool *pool, struct db **out,
                                 struct hpod_err *err);
/* Gives db back to the pool that lent it (its owner, whichever pool is
 * named: a standby's connection goes back to the standby's pool). */
void db_pool_release(struct db_pool *pool, struct db *db);

/*
 * Reads that tolerate staleness (store/standby.h). A pool may have a
 * stale reader: fn returns a connection of another pool (a streaming
 * standby that is close enough behind) or NULL. db_pool_swap_stale
 * replaces *db, a connection of pool with no transaction open, by one
 * from the reader when it has one (releasing *db), and leaves it as it is
 * otherwise. db_pool_set_quiet: the pool logs no line when its database
 * goes away or comes back (its owner logs what that means).
 */
typedef struct db *(*db_stale_reader_fn)(void *arg);
void db_pool_set_stale_reader(struct db_pool *pool, db_stale_reader_fn fn,
                              void *arg);
void db_pool_swap_stale(struct db_pool *pool, struct db **db);
void db_pool_set_quiet(struct db_pool *pool);

/* What a pool is doing (the /metrics gauges and counters). */
struct db_pool_stats {
    size_t size;              /* connections it may open */
    size_t in_use;            /* lent now */
    size_t waiting;           /* callers of db_pool_acquire waiting now */
    unsigned long long waits; /* acquires that had to wait, in all */
    double wait_seconds;      /* how long they waited, in all */
};
void db_pool_stats(struct db_pool *pool, struct db_pool_stats *out);
/* Closes the connections no one has borrowed (their server went away:
 * the next borrower connects anew instead of finding a dead socket). */
void db_pool_drop_idle(struct db_pool *pool);

/* Opens a single connection outside any pool (migrations, tools); on
 * failure err->msg says why (libpq's text, which never holds a password,
 * and the log redacts one anyway). opts NULL: the defaults. */
enum hpod_status db_open(const char *url, const struct db_opts *opts,
                         struct db **out, struct hpod_err *err);
void db_close(struct db *db);

/*
 * db_server_down - nonzero when nothing at url accepts connections yet: no
 * answer at all (connection refused, no socket, unknown host, no answer
 * within timeout_ms) or a server that rejects every connection for now
 * (starting up, shutting down). Zero when a server answers, so a failed
 * db_open was about the user, password, database name or session setup,
 * and when url cannot be parsed. Uses PQping: it connects, never logs in.
 */
int db_server_down(const char *url, long timeout_ms);

enum hpod_status db_begin(struct db *db, struct hpod_err *err);
enum hpod_status db_commit(struct db *db, struct hpod_err *err);
/* Rolls back if a transaction is open; never fails (errors are logged). */
void db_rollback(struct db *db);

/*
 * Result of a query: rows × cols of text values (NULL for SQL NULL),
 * borrowed from the result until db_result_free.
 */
struct db_result;
/*
 * db_exec - runs sql with nparams text parameters ($1..; a NULL value is
 * SQL NULL). *res (may be NULL when the rows are not needed) receives a new
 * result. SQLSTATE is mapped: 23505 -> HPOD_ECONFLICT, 23503 ->
 * HPOD_ENOTFOUND, connection errors -> HPOD_EDB, other errors -> HPOD_EDB
 * with the details logged and a generic message for the client.
 */
enum hpod_status db_exec(struct db *db, const char *sql, int nparams,
                         const char *const *params, struct db_result **res,
                         struct hpod_err *err);
/* db_exec with one parameter, $1 = id (most queries are about one row). */
enum hpod_status db_exec_id(struct db *db, const char *sql, long long id,
                            struct db_result **res, struct hpod_err *err);
/*
 * db_exec_script - runs several statements of our own (a migration file)
 * as one simple query. Never called with client input.
 */
enum hpod_status db_exec_script(struct db *db, const char *sql,
                                struct hpod_err *err);

size_t db_rows(const struct db_result *r);
/* Text of (row, column name); NULL for SQL NULL or an unknown column. */
const char *db_get(const struct db_result *r, size_t row, const char *col);
long long db_get_ll(const struct db_result *r, size_t row, const char *col,
                    long long dflt);
void db_result_free(struct db_result *r);

/*
 * float8[] parameters and results as text: db_float8_array writes v[0..n)
 * as a literal "{a,b,...}" in shortest round-trip form (a new string);
 * db_parse_float8_array reads one into at most cap finite values, 1 on
 * success, 0 on anything else (a NULL, a bad number, more than cap).
 */
char *db_float8_array(const double *v, size_t n);
int db_parse_float8_array(const char *s, double *v, size_t cap, size_t *n);

/*
 * db_check_settings - HPOD_OK when the server gives what hpod relies on
 * without setting anything for its session: PostgreSQL 12 or later and
 * extra_float_digits >= 1 (PostgreSQL's default: a double's text reads
 * back as the same double). Otherwise HPOD_EINVAL, err saying what to
 * change (a role or database setting, docs/DEPLOY.md).
 */
enum hpod_status db_check_settings(struct db *db, struct hpod_err *err);

/* db_ping - HPOD_OK when the server answers a trivial query. */
enum hpod_status db_ping(struct db *db, struct hpod_err *err);

/* Number of rows a command affected (UPDATE/DELETE) of the last db_exec. */
long long db_affected(const struct db_result *r);

#endif
