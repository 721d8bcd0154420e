/*
 * store/measure_store.c - trial_measures rows; see measure_store.h.
 */
#include "store/measure_store.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/mem.h"

static const char *SQL_PUT =
    "INSERT INTO trial_measures (trial_id, measure) VALUES ($1, $2)"
    " ON CONFLICT (trial_id) DO UPDATE SET measure = EXCLUDED.measure";
static const char *SQL_GET =
    "SELECT measure FROM trial_measures WHERE trial_id = $1";

enum hpod_status
measure_store_put(struct db *db, long long trial_id, const char *measure,
                  struct hpod_err *err)
{
    char id[32];
    const char *p[2] = {id, measure};

    snprintf(id, sizeof id, "%lld", trial_id);
    return db_exec(db, SQL_PUT, 2, p, NULL, err);
}

enum hpod_status
measure_store_get(struct db *db, long long trial_id, char **out,
                  struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    *out = NULL;
    if ((st = db_exec_id(db, SQL_GET, trial_id, &r, err)) == HPOD_OK &&
        db_rows(r) > 0)
        *out = xstrdup(db_get(r, 0, "measure"));
    db_result_free(r);
    return st;
}
