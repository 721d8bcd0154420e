/*
 * store/migrate.h - applies migrations/NNNN_name.sql in order.
 *
 * Each file runs in its own transaction and is recorded in
 * schema_migrations(version, name, applied_at). The whole run holds a
 * session advisory lock, so two hpod processes starting at once apply each
 * migration exactly once. Idempotent: a second run applies nothing.
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

#endif
