/*
 * store/migrate.c - forward-only SQL migrations; see migrate.h.
 *
 * The migration file's SQL is sent as a simple query (several statements,
 * no parameters): it is our own code from the repository, never client
 * input.
 */
#include "store/migrate.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/mem.h"
#include "common/err.h"
#include "common/log.h"

/* An arbitrary constant: the advisory lock key of "hpod migrate". */
#define MIGRATE_LOCK_KEY "7201805213"

static const char *SQL_CREATE =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version integer PRIMARY KEY, name text NOT NULL,"
    " applied_at timestamptz NOT NULL DEFAULT now())";
static const char *SQL_IS_APPLIED =
    "SELECT 1 FROM schema_migrations WHERE version = $1";
static const char *SQL_RECORD =
    "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)";

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *
read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0) {
        buf = xmalloc((size_t)n + 1);
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = '\0';
        }
    }
    fclose(f);
    return buf;
}

/* BEGIN and the migration lock, held until this transaction ends. */
static enum hpod_status
begin_locked(struct db *db, struct hpod_err *err)
{
    const char *key[] = {MIGRATE_LOCK_KEY};
    enum hpod_status st = db_begin(db, err);
    if (st == HPOD_OK)
        st = db_exec(db, "SELECT pg_advisory_xact_lock($1::bigint)", 1, key,
                     NULL, err);
    return st;
}

/* Applies names[i] in dir unless it is recorded: one transaction under
 * the lock, which a concurrent migrate_apply waits for and then finds the
 * file recorded. *done: 1 when it was applied now. */
static enum hpod_status
apply_one(struct db *db, const char *dir, const char *name, int *done,
          struct hpod_err *err)
{
    char version[16], path[4096];
    struct db_result *r = NULL;
    char *sql = NULL;
    enum hpod_status st;

    *done = 0;
    snprintf(version, sizeof version, "%d", atoi(name));
    const char *p1[] = {version};
    const char *p2[] = {version, name};
    if ((st = begin_locked(db, err)) != HPOD_OK ||
        (st = db_exec(db, SQL_IS_APPLIED, 1, p1, &r, err)) != HPOD_OK)
        goto out;
    if (db_rows(r) > 0) { /* another process applied it meanwhile */
        st = db_commit(db, err);
        goto out;
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if ((sql = read_file(path)) == NULL) {
        st = hpod_fail(err, HPOD_EINTERNAL, "", "could not read \"%s\"", path);
        goto out;
    }
    if ((st = db_exec_script(db, sql, err)) == HPOD_OK &&
        (st = db_exec(db, SQL_RECORD, 2, p2, NULL, err)) == HPOD_OK &&
        (st = db_commit(db, err)) == HPOD_OK)
        *done = 1;
out:
    if (st != HPOD_OK)
        db_rollback(db);
    db_result_free(r);
    free(sql);
    return st;
}

/*
 * The lock is transaction-scoped (pg_advisory_xact_lock), never a session
 * lock, so that migrations also run through a pooler in transaction mode:
 * schema_migrations is created under it, and each file is applied in a
 * transaction of its own that takes it first and then checks whether the
 * file is recorded.
 */
enum hpod_status
migrate_apply(struct db *db, const char *dir, int *applied,
              struct hpod_err *err)
{
    enum hpod_status st = HPOD_OK;
    DIR *d = NULL;
    struct dirent *e;
    char **names = NULL;
    size_t n = 0;
    int count = 0, done = 0;

    if (applied)
        *applied = 0;
    if ((d = opendir(dir)) == NULL) {
        st = hpod_fail(err, HPOD_EINTERNAL, "",
                       "could not open migrations directory \"%s\"", dir);
        goto out;
    }
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 9 && strcmp(e->d_name + len - 4, ".sql") == 0 &&
            e->d_name[0] >= '0' && e->d_name[0] <= '9') {
            names = xrealloc(names, (n + 1) * sizeof *names);
            names[n++] = xstrdup(e->d_name);
        }
    }
    qsort(names, n, sizeof *names, cmp_str);

    if ((st = begin_locked(db, err)) != HPOD_OK ||
        (st = db_exec(db, SQL_CREATE, 0, NULL, NULL, err)) != HPOD_OK ||
        (st = db_commit(db, err)) != HPOD_OK) {
        db_rollback(db);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if ((st = apply_one(db, dir, names[i], &done, err)) != HPOD_OK) {
            hpod_log(HPOD_LOG_ERROR, "migration %s failed", names[i]);
            goto out;
        }
        if (done) {
            hpod_log(HPOD_LOG_INFO, "applied migration %s", names[i]);
            count++;
        }
    }
    if (applied)
        *applied = count;
out:
    if (d)
        closedir(d);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return st;
}

/* The first connection of migrate_run; see migrate.h. 0 with *db open,
 * or 1 (logged). */
static int
open_waiting(const char *url, const struct db_opts *opts, long wait_seconds,
             struct db **db)
{
    struct hpod_err err = {0};
    long long start = hpod_now_ms();
    long long deadline = start + wait_seconds * 1000;
    long delay = 100;
    int attempt = 1, answered = 0;

    for (;; attempt++) {
        memset(&err, 0, sizeof err);
        if (db_open(url, opts, db, &err) == HPOD_OK)
            break;
        if (wait_seconds == 0)
            goto fail;
        if (!db_server_down(url, opts->connect_timeout_ms)) {
            if (answered++)
                goto fail;
            continue;
        }
        answered = 0;
        long long now = hpod_now_ms();
        if (now >= deadline)
            goto fail;
        if (now + delay > deadline)
            delay = (long)(deadline - now);
        hpod_log(HPOD_LOG_WARN,
                 "database not accepting connections yet (attempt %d, "
                 "%.1f s of HPOD_DB_WAIT_SECONDS=%ld), retrying in %.1f s: %s",
                 attempt, (double)(now - start) / 1000, wait_seconds,
                 (double)delay / 1000, err.msg);
        struct timespec ts = {delay / 1000, (delay % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        delay = delay * 2 > 5000 ? 5000 : delay * 2;
    }
    if (attempt > 1)
        hpod_log(HPOD_LOG_INFO,
                 "database accepting connections after %d attempts in %.1f s",
                 attempt, (double)(hpod_now_ms() - start) / 1000);
    return 0;
fail:
    if (attempt == 1)
        hpod_log(HPOD_LOG_ERROR, "could not connect to %s: %s", url, err.msg);
    else if (answered)
        hpod_log(HPOD_LOG_ERROR,
                 "could not connect to %s: %s (the server answers but "
                 "refuses the connection: check the user, password and "
                 "database name; not retried)",
                 url, err.msg);
    else
        hpod_log(HPOD_LOG_ERROR,
                 "could not connect to %s: %s (gave up after %d attempts in "
                 "%.1f s: HPOD_DB_WAIT_SECONDS=%ld)",
                 url, err.msg, attempt, (double)(hpod_now_ms() - start) / 1000,
                 wait_seconds);
    return 1;
}

int
migrate_run(const char *url, const struct db_opts *opts, long wait_seconds,
            const char *dir)
{
    struct hpod_err err = {0};
    struct db *db = NULL;
    int applied = 0;
    if (open_waiting(url, opts, wait_seconds, &db) != 0)
        return 1;
    enum hpod_status st = migrate_apply(db, dir, &applied, &err);
    db_close(db);
    if (st != HPOD_OK) {
        hpod_log(HPOD_LOG_ERROR, "migration failed: %s", err.msg);
        return 1;
    }
    hpod_log(HPOD_LOG_INFO, "migrations up to date (%d applied now)", applied);
    return 0;
}
