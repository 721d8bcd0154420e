/*
 * store/migrate.h - applies migrations/NNNN_name.sql in order.
 *
 * Each file runs in its own transaction and is recorded in
 * schema_migrations(version, name, applied_at) in it. Each of those
 * transactions takes a transaction-scoped advisory lock first, so two hpod
 * processes starting at once apply each migration exactly once, directly
 * or through a pooler in transaction mode. Idempotent: a second run
 * applies nothing.
 */
#ifndef HPOD_MIGRATE_H
#define HPOD_MIGRATE_H

#include "common/status.h"
#include "store/db.h"

/*
 * migrate_apply - applies the pending migrations found in dir.
 * *applied (may be NULL) receives how many were applied now.
 */
enum hpod_status migrate_apply(struct db *db, const char *dir, int *applied,
                               struct hpod_err *err);

/*
 * migrate_run - what `hpod migrate` and the start of `hpod serve` do: open
 * one connection to url, waiting for a database that does not accept
 * connections yet (containers start together), then migrate_apply(dir).
 * What is retried: a failed connection for as long as db_server_down says
 * nothing answers at url (refused, no socket, unknown host, no answer) or
 * the server rejects connections for now (starting up), with backoff
 * 0.1 s doubling to 5 s, for at most wait_seconds, one warning per
 * attempt. What is not: a server that answers but will not let us in
 * (password, user, database name), tried twice in case it has just come
 * up, and a bad URL. Logs the outcome; returns 0, or 1 on failure.
 */
int migrate_run(const char *url, const struct db_opts *opts, long wait_seconds,
                const char *dir);

#endif
