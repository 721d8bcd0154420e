/*
 * store/report_store.c - a final report's read and its conditional write;
 * see report_store.h.
 */
#include "store/report_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "store/trial_store.h"

/* The trial, its study's definition and its final values, one row per
 * value (one row with a NULL metric when it has none), in metric order,
 * with the study row's version and its definition only when that is not
 * the version the reader holds ($2, $3); then the write, only if the
 * trial's changed_xid is still the one read, inserting the values only
 * when the UPDATE matched. Both are functions (migrations 0020 and 0022),
 * which PostgreSQL plans once per server connection (0020 says why);
 * their columns are TRIAL_COLS's. $4, $5: text[] and float8[] literals,
 * maybe empty. */
static const char *SQL_READ = "SELECT * FROM hpod_report_read($1, $2, $3)";
/* The fallback's lock, and whether the trial is still as read. */
static const char *SQL_LOCK =
    "SELECT changed_xid::text = $2 AS same FROM trials WHERE id = $1"
    " FOR UPDATE";
static const char *SQL_WRITE =
    "SELECT * FROM hpod_report_write($1, $2, $3, $4, $5, $6)";

void
report_row_clear(struct report_row *r)
{
    if (!r)
        return;
    free(r->definition);
    trial_clear(&r->trial);
    memset(r, 0, sizeof *r);
}

enum hpod_status
report_store_read(struct db *db, long long trial_id, long long known_study,
                  const char *known, struct report_row *out,
                  struct hpod_err *err)
{
    struct db_result *r = NULL;
    const char *v, *def;
    char tid[32], sid[32];
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    snprintf(tid, sizeof tid, "%lld", trial_id);
    snprintf(sid, sizeof sid, "%lld", known_study);
    const char *p[] = {tid, sid, known ? known : ""};
    if ((st = db_exec(db, SQL_READ, 3, p, &r, err)) != HPOD_OK)
        return st;
    if (db_rows(r) == 0) {
        st = hpod_fail(err, HPOD_ENOTFOUND, "", "trial %lld does not exist",
                       trial_id);
        goto out;
    }
    trial_store_row(r, 0, &out->trial);
    out->study_id = out->trial.study_id;
    out->lease_seconds = (int)db_get_ll(r, 0, "lease_seconds", 0);
    def = db_get(r, 0, "definition");
    out->definition = def ? xstrdup(def) : NULL;
    v = db_get(r, 0, "def_version");
    snprintf(out->def_version, sizeof out->def_version, "%s", v ? v : "");
    v = db_get(r, 0, "version");
    snprintf(out->version, sizeof out->version, "%s", v ? v : "");
    v = db_get(r, 0, "has_steps");
    out->has_steps = v && v[0] == 't';
    for (size_t i = 0; i < db_rows(r) && st == HPOD_OK; i++) {
        const char *metric = db_get(r, i, "v_metric");
        double x;
        if (!metric)
            continue;
        if ((st = trial_store_read_value(db_get(r, i, "v_value"), trial_id,
                                         metric, &x, err)) == HPOD_OK)
            metric_set_add(&out->trial.values, metric, x);
    }
out:
    db_result_free(r);
    if (st != HPOD_OK)
        report_row_clear(out);
    return st;
}

enum hpod_status
report_store_lock(struct db *db, long long trial_id, const char *version,
                  int *same, struct hpod_err *err)
{
    char tid[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    *same = 0;
    snprintf(tid, sizeof tid, "%lld", trial_id);
    const char *p[] = {tid, version};
    if ((st = db_exec(db, SQL_LOCK, 2, p, &r, err)) != HPOD_OK)
        return st;
    if (db_rows(r) == 0)
        st = hpod_fail(err, HPOD_ENOTFOUND, "", "trial %lld does not exist",
                       trial_id);
    else
        *same = db_get(r, 0, "same") && db_get(r, 0, "same")[0] == 't';
    db_result_free(r);
    return st;
}

enum hpod_status
report_store_write(struct db *db, long long trial_id, const char *version,
                   const struct metric_set *add, int complete,
                   int lease_seconds, int *written, struct trial *row,
                   struct hpod_err *err)
{
    char sid[32], ls[32];
    char *names = NULL, *values = NULL;
    struct db_result *r = NULL;
    enum hpod_status st;

    *written = 0;
    snprintf(sid, sizeof sid, "%lld", trial_id);
    snprintf(ls, sizeof ls, "%d", lease_seconds);
    if (add && add->n > 0)
        trial_store_array_literals(add, &names, &values);
    const char *p[] = {sid,
                       complete ? "true" : "false",
                       ls,
                       names ? names : "{}",
                       values ? values : "{}",
                       version};
    st = db_exec(db, SQL_WRITE, 6, p, &r, err);
    if (st == HPOD_OK && db_rows(r) == 1) {
        trial_store_row(r, 0, row);
        *written = 1;
    }
    db_result_free(r);
    free(names);
    free(values);
    return st;
}
