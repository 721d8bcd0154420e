/*
 * store/bench_store.c - SQL about benchmarks and simulations; see
 * bench_store.h.
 */
#include "store/bench_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "common/dtoa.h"
#include "common/err.h"

#define TS(col)                                                                \
    "to_char(" col " AT TIME ZONE 'UTC', "                                     \
    "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

static const char *SQL_INSERT =
    "INSERT INTO benchmarks (name, definition, rows)"
    " VALUES ($1, $2::json, $3::json)";
static const char *SQL_GET =
    "SELECT definition::text AS definition, rows::text AS rows"
    " FROM benchmarks WHERE name = $1";
static const char *SQL_NAMES = "SELECT name FROM benchmarks ORDER BY name";
static const char *SQL_SIM_INSERT =
    "INSERT INTO simulations (benchmark, summary, sequences, seconds, lab)"
    " VALUES ($1, $2::json, $3::json, $4, $5) RETURNING id";
static const char *SQL_SIM_GET =
    "SELECT id, benchmark, summary::text AS summary,"
    " sequences::text AS sequences, seconds,"
    " " TS("created_at") " AS created_at FROM simulations WHERE id = $1";
static const char *SQL_SIM_LIST =
    "SELECT id, benchmark, summary::text AS summary, seconds,"
    " " TS("created_at") " AS created_at FROM simulations"
                         " WHERE ($1::text IS NULL OR benchmark = $1)"
                         " AND ($4::text IS NULL OR lab = $4)"
                         " ORDER BY id DESC LIMIT $2 OFFSET $3";
static const char *SQL_SIM_COUNT = "SELECT count(*) AS n FROM simulations"
                                   " WHERE ($1::text IS NULL OR benchmark = $1)"
                                   " AND ($2::text IS NULL OR lab = $2)";

static char *
dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

enum hpod_status
bench_store_insert(struct db *db, const char *name, const char *definition,
                   const char *rows, struct hpod_err *err)
{
    const char *p[] = {name, definition, rows};
    enum hpod_status st = db_exec(db, SQL_INSERT, 3, p, NULL, err);
    if (st == HPOD_ECONFLICT)
        return hpod_fail(err, HPOD_ECONFLICT, "name",
                         "benchmark \"%s\" already exists", name);
    return st;
}

enum hpod_status
bench_store_get(struct db *db, const char *name, char **definition, char **rows,
                struct hpod_err *err)
{
    struct db_result *r = NULL;
    const char *p[] = {name};
    enum hpod_status st;

    *definition = *rows = NULL;
    if ((st = db_exec(db, SQL_GET, 1, p, &r, err)) != HPOD_OK)
        return st;
    if (db_rows(r) == 0) {
        st = hpod_fail(err, HPOD_ENOTFOUND, "",
                       "benchmark \"%s\" does not "
                       "exist",
                       name);
    } else {
        *definition = xstrdup(db_get(r, 0, "definition"));
        *rows = xstrdup(db_get(r, 0, "rows"));
    }
    db_result_free(r);
    return st;
}

enum hpod_status
bench_store_names(struct db *db, char ***names, size_t *n, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    *names = NULL;
    *n = 0;
    if ((st = db_exec(db, SQL_NAMES, 0, NULL, &r, err)) != HPOD_OK)
        return st;
    *n = db_rows(r);
    *names = xcalloc(*n ? *n : 1, sizeof **names);
    for (size_t i = 0; i < *n; i++)
        (*names)[i] = xstrdup(db_get(r, i, "name"));
    db_result_free(r);
    return HPOD_OK;
}

void
sim_row_cleanup(struct sim_row *r)
{
    if (!r)
        return;
    free(r->benchmark);
    free(r->summary);
    free(r->sequences);
    free(r->created_at);
    memset(r, 0, sizeof *r);
}

static void
row_to_sim(const struct db_result *r, size_t i, struct sim_row *s)
{
    const char *sec = db_get(r, i, "seconds");
    memset(s, 0, sizeof *s);
    s->id = db_get_ll(r, i, "id", 0);
    s->benchmark = dup_or_null(db_get(r, i, "benchmark"));
    s->summary = dup_or_null(db_get(r, i, "summary"));
    s->sequences = dup_or_null(db_get(r, i, "sequences"));
    s->seconds = sec ? strtod(sec, NULL) : 0.0;
    s->created_at = dup_or_null(db_get(r, i, "created_at"));
}

enum hpod_status
sim_store_insert(struct db *db, const char *benchmark, const char *lab,
                 const char *summary, const char *sequences, double seconds,
                 long long *id, struct hpod_err *err)
{
    char sec[HPOD_DTOA_SIZE];
    struct db_result *r = NULL;
    enum hpod_status st;

    hpod_dtoa(seconds, sec);
    const char *p[] = {benchmark, summary, sequences, sec, lab};
    if ((st = db_exec(db, SQL_SIM_INSERT, 5, p, &r, err)) != HPOD_OK)
        return st;
    *id = db_get_ll(r, 0, "id", 0);
    db_result_free(r);
    return HPOD_OK;
}

enum hpod_status
sim_store_get(struct db *db, long long id, struct sim_row *out,
              struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    if ((st = db_exec_id(db, SQL_SIM_GET, id, &r, err)) != HPOD_OK)
        return st;
    if (db_rows(r) == 0)
        st = hpod_fail(err, HPOD_ENOTFOUND, "",
                       "simulation %lld does not exist", id);
    else
        row_to_sim(r, 0, out);
    db_result_free(r);
    return st;
}

enum hpod_status
sim_store_list(struct db *db, const char *benchmark, const char *lab,
               long long limit, long long offset, struct sim_row **out,
               size_t *n, long long *total, struct hpod_err *err)
{
    char sl[32], so[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    *out = NULL;
    *n = 0;
    snprintf(sl, sizeof sl, "%lld", limit);
    snprintf(so, sizeof so, "%lld", offset);
    const char *p[] = {benchmark, sl, so, lab};
    const char *pc[] = {benchmark, lab};
    if ((st = db_exec(db, SQL_SIM_COUNT, 2, pc, &r, err)) != HPOD_OK)
        return st;
    *total = db_get_ll(r, 0, "n", 0);
    db_result_free(r);
    r = NULL;
    if ((st = db_exec(db, SQL_SIM_LIST, 4, p, &r, err)) != HPOD_OK)
        return st;
    *n = db_rows(r);
    *out = xcalloc(*n ? *n : 1, sizeof **out);
    for (size_t i = 0; i < *n; i++)
        row_to_sim(r, i, &(*out)[i]);
    db_result_free(r);
    return HPOD_OK;
}
