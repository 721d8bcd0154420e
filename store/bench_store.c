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
#define SIM_COLS                                                               \
    "id, benchmark, summary::text AS summary, seconds, state, runs_done,"      \
    " runs_total, error, error_field, " TS("created_at") " AS created_at"
/* Lock key space (the two-key form) of a lab's enqueues. */
static const char *SQL_SIM_LAB_LOCK =
    "SELECT pg_advisory_xact_lock(720180, hashtext(coalesce($1::text, '')))";
/* The partial index simulations_lab_pending serves the count. */
static const char *SQL_SIM_ENQUEUE =
    "INSERT INTO simulations (benchmark, request, runs_total, lab, state)"
    " SELECT $1, $2::json, $3, $4, 'queued'"
    " WHERE (SELECT count(*) FROM simulations"
    "  WHERE coalesce(lab, '') = coalesce($4::text, '')"
    "  AND state IN ('queued', 'running')) < $5"
    " RETURNING id";
static const char *SQL_SIM_GET =
    "SELECT " SIM_COLS ", sequences::text AS sequences"
    " FROM simulations WHERE id = $1";
static const char *SQL_SIM_LIST = "SELECT " SIM_COLS " FROM simulations"
                                  " WHERE ($1::text IS NULL OR benchmark = $1)"
                                  " AND ($4::text IS NULL OR lab = $4)"
                                  " ORDER BY id DESC LIMIT $2 OFFSET $3";
static const char *SQL_SIM_COUNT = "SELECT count(*) AS n FROM simulations"
                                   " WHERE ($1::text IS NULL OR benchmark = $1)"
                                   " AND ($2::text IS NULL OR lab = $2)";
/* The labs ranked by their jobs; past $1 they fold into one row. */
static const char *SQL_SIM_QUEUE_DEPTH =
    "WITH c AS (SELECT coalesce(lab, '') AS lab,"
    "  count(*) FILTER (WHERE state = 'queued') AS queued,"
    "  count(*) FILTER (WHERE state = 'running') AS running"
    "  FROM simulations WHERE state IN ('queued', 'running')"
    "  GROUP BY coalesce(lab, '')),"
    " r AS (SELECT *, row_number() OVER (ORDER BY queued + running DESC, lab)"
    "  AS k FROM c)"
    " SELECT CASE WHEN k <= $1 THEN lab ELSE '" SIM_QUEUE_OTHER "' END AS lab,"
    " sum(queued) AS queued, sum(running) AS running"
    " FROM r GROUP BY 1 ORDER BY min(k)";
/*
 * Round-robin across labs: the pending job of the lab whose last slice
 * started longest ago (a lab never served first), then its oldest. The
 * partial index simulations_pending serves the scan. In SET, s.state and
 * s.attempt are the values before the update.
 */
static const char *SQL_SIM_CLAIM =
    "WITH pick AS (SELECT s.id FROM simulations s"
    "  LEFT JOIN simulation_turns t ON t.lab = coalesce(s.lab, '')"
    "  WHERE s.state = 'queued'"
    "  OR (s.state = 'running' AND s.lease_expires_at < now())"
    "  ORDER BY t.last_slice_at NULLS FIRST, s.id"
    "  LIMIT 1 FOR UPDATE OF s SKIP LOCKED),"
    " claimed AS (UPDATE simulations s SET state = 'running',"
    "  attempt = CASE WHEN s.state = 'running' OR s.attempt = 0"
    "   THEN s.attempt + 1 ELSE s.attempt END,"
    "  lease_expires_at = now() + $1 * interval '1 millisecond'"
    "  FROM pick WHERE s.id = pick.id"
    "  RETURNING s.id, s.attempt, s.runs_total, s.runs_stored, s.benchmark,"
    "  s.request::text AS request, coalesce(s.lab, '') AS turn_lab),"
    " turn AS (INSERT INTO simulation_turns (lab, last_slice_at)"
    "  SELECT turn_lab, clock_timestamp() FROM claimed"
    "  ON CONFLICT (lab) DO UPDATE SET last_slice_at = excluded.last_slice_at)"
    " SELECT id, attempt, runs_total, runs_stored, benchmark, request"
    " FROM claimed";
static const char *SQL_SIM_PROGRESS =
    "UPDATE simulations SET runs_done = GREATEST(runs_done, $3),"
    " lease_expires_at = now() + $4 * interval '1 millisecond'"
    " WHERE id = $1 AND attempt = $2 AND state = 'running'";
static const char *SQL_SIM_SLICE =
    "WITH own AS (UPDATE simulations SET state = 'queued',"
    "  lease_expires_at = NULL, runs_stored = $3 + $4,"
    "  runs_done = GREATEST(runs_done, $3 + $4)"
    "  WHERE id = $1 AND attempt = $2 AND state = 'running'"
    "  AND runs_stored = $3 RETURNING id)"
    " INSERT INTO simulation_slices"
    " (simulation_id, first_run, runs, sequences, seconds)"
    " SELECT id, $3, $4, $5::json, $6 FROM own";
static const char *SQL_SIM_SLICES =
    "SELECT first_run, runs, sequences::text AS sequences, seconds"
    " FROM simulation_slices WHERE simulation_id = $1 ORDER BY first_run";
static const char *SQL_SIM_FINISH =
    "WITH own AS (UPDATE simulations SET state = 'done', summary = $3::json,"
    "  sequences = $4::json, seconds = $5, runs_done = runs_total,"
    "  runs_stored = runs_total, lease_expires_at = NULL"
    "  WHERE id = $1 AND attempt = $2 AND state = 'running'"
    "  AND runs_stored = $6 RETURNING id),"
    " gone AS (DELETE FROM simulation_slices"
    "  WHERE simulation_id IN (SELECT id FROM own))"
    " SELECT count(*) AS n FROM own";
static const char *SQL_SIM_FAIL =
    "WITH own AS (UPDATE simulations SET state = 'failed', error = $3,"
    "  error_field = $4, lease_expires_at = NULL"
    "  WHERE id = $1 AND attempt = $2 AND state = 'running' RETURNING id),"
    " gone AS (DELETE FROM simulation_slices"
    "  WHERE simulation_id IN (SELECT id FROM own))"
    " SELECT count(*) AS n FROM own";
static const char *SQL_SIM_RELEASE =
    "UPDATE simulations SET state = 'queued', lease_expires_at = NULL"
    " WHERE id = $1 AND attempt = $2 AND state = 'running'";
static const char *SQL_SIM_CANCEL =
    "WITH own AS (UPDATE simulations SET state = 'cancelled',"
    "  lease_expires_at = NULL"
    "  WHERE id = $1 AND state IN ('queued', 'running') RETURNING id),"
    " gone AS (DELETE FROM simulation_slices"
    "  WHERE simulation_id IN (SELECT id FROM own))"
    " SELECT count(*) AS n FROM own";
static const char *SQL_SIM_STATE =
    "SELECT state FROM simulations WHERE id = $1";

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
sim_row_clear(struct sim_row *r)
{
    if (!r)
        return;
    free(r->benchmark);
    free(r->summary);
    free(r->sequences);
    free(r->created_at);
    free(r->error);
    free(r->error_field);
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
    snprintf(s->state, sizeof s->state, "%s",
             db_get(r, i, "state") ? db_get(r, i, "state") : "");
    s->runs_done = db_get_ll(r, i, "runs_done", 0);
    s->runs_total = db_get_ll(r, i, "runs_total", 0);
    s->error = dup_or_null(db_get(r, i, "error"));
    s->error_field = dup_or_null(db_get(r, i, "error_field"));
}

enum hpod_status
sim_store_lab_lock(struct db *db, const char *lab, struct hpod_err *err)
{
    const char *p[] = {lab};
    return db_exec(db, SQL_SIM_LAB_LOCK, 1, p, NULL, err);
}

enum hpod_status
sim_store_enqueue(struct db *db, const char *benchmark, const char *lab,
                  const char *request, long long runs_total, long long cap,
                  long long *id, struct hpod_err *err)
{
    char tot[32], c[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    *id = 0;
    snprintf(tot, sizeof tot, "%lld", runs_total);
    snprintf(c, sizeof c, "%lld", cap);
    const char *p[] = {benchmark, request, tot, lab, c};
    if ((st = db_exec(db, SQL_SIM_ENQUEUE, 5, p, &r, err)) != HPOD_OK)
        return st;
    if (db_rows(r) == 1)
        *id = db_get_ll(r, 0, "id", 0);
    db_result_free(r);
    return HPOD_OK;
}

void
sim_claim_clear(struct sim_claim *c)
{
    if (!c)
        return;
    free(c->benchmark);
    free(c->request);
    memset(c, 0, sizeof *c);
}

enum hpod_status
sim_store_claim(struct db *db, long lease_ms, struct sim_claim *out, int *got,
                struct hpod_err *err)
{
    char ms[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    *got = 0;
    snprintf(ms, sizeof ms, "%ld", lease_ms);
    const char *p[] = {ms};
    if ((st = db_exec(db, SQL_SIM_CLAIM, 1, p, &r, err)) != HPOD_OK)
        return st;
    if (db_rows(r) == 1) {
        *got = 1;
        out->id = db_get_ll(r, 0, "id", 0);
        out->attempt = db_get_ll(r, 0, "attempt", 0);
        out->runs_total = db_get_ll(r, 0, "runs_total", 0);
        out->runs_stored = db_get_ll(r, 0, "runs_stored", 0);
        out->benchmark = dup_or_null(db_get(r, 0, "benchmark"));
        out->request = dup_or_null(db_get(r, 0, "request"));
    }
    db_result_free(r);
    return HPOD_OK;
}

/* Runs one of the fenced statements ($1 id, $2 attempt, then more);
 * *owned (may be NULL) says whether it changed the job: the rows an
 * UPDATE or INSERT changed, or the n of one that answers
 * "SELECT count(*) AS n". */
static enum hpod_status
sim_fenced(struct db *db, const char *sql, long long id, long long attempt,
           int nmore, const char *const *more, int *owned, struct hpod_err *err)
{
    char sid[32], sat[32];
    const char *p[8] = {sid, sat};
    struct db_result *r = NULL;
    enum hpod_status st;

    snprintf(sid, sizeof sid, "%lld", id);
    snprintf(sat, sizeof sat, "%lld", attempt);
    for (int i = 0; i < nmore && i < 6; i++)
        p[2 + i] = more[i];
    if ((st = db_exec(db, sql, 2 + nmore, p, &r, err)) != HPOD_OK)
        return st;
    if (owned)
        *owned =
            db_rows(r) == 1 ? db_get_ll(r, 0, "n", 0) > 0 : db_affected(r) > 0;
    db_result_free(r);
    return HPOD_OK;
}

enum hpod_status
sim_store_progress(struct db *db, long long id, long long attempt,
                   long long done, long lease_ms, int *owned,
                   struct hpod_err *err)
{
    char d[32], ms[32];
    snprintf(d, sizeof d, "%lld", done);
    snprintf(ms, sizeof ms, "%ld", lease_ms);
    const char *more[] = {d, ms};
    return sim_fenced(db, SQL_SIM_PROGRESS, id, attempt, 2, more, owned, err);
}

enum hpod_status
sim_store_slice(struct db *db, long long id, long long attempt, long long first,
                long long runs, const char *sequences, double seconds,
                int *owned, struct hpod_err *err)
{
    char f[32], n[32], sec[HPOD_DTOA_SIZE];
    snprintf(f, sizeof f, "%lld", first);
    snprintf(n, sizeof n, "%lld", runs);
    hpod_dtoa(seconds, sec);
    const char *more[] = {f, n, sequences, sec};
    return sim_fenced(db, SQL_SIM_SLICE, id, attempt, 4, more, owned, err);
}

void
sim_slices_free(struct sim_slice *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        free(s[i].sequences);
    free(s);
}

enum hpod_status
sim_store_slices(struct db *db, long long id, struct sim_slice **out, size_t *n,
                 struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    *out = NULL;
    *n = 0;
    if ((st = db_exec_id(db, SQL_SIM_SLICES, id, &r, err)) != HPOD_OK)
        return st;
    *n = db_rows(r);
    *out = xcalloc(*n ? *n : 1, sizeof **out);
    for (size_t i = 0; i < *n; i++) {
        const char *sec = db_get(r, i, "seconds");
        (*out)[i].first = db_get_ll(r, i, "first_run", 0);
        (*out)[i].runs = db_get_ll(r, i, "runs", 0);
        (*out)[i].sequences = dup_or_null(db_get(r, i, "sequences"));
        (*out)[i].seconds = sec ? strtod(sec, NULL) : 0.0;
    }
    db_result_free(r);
    return HPOD_OK;
}

enum hpod_status
sim_store_finish(struct db *db, long long id, long long attempt,
                 long long first, const char *summary, const char *sequences,
                 double seconds, int *owned, struct hpod_err *err)
{
    char sec[HPOD_DTOA_SIZE], f[32];
    hpod_dtoa(seconds, sec);
    snprintf(f, sizeof f, "%lld", first);
    const char *more[] = {summary, sequences, sec, f};
    return sim_fenced(db, SQL_SIM_FINISH, id, attempt, 4, more, owned, err);
}

enum hpod_status
sim_store_fail(struct db *db, long long id, long long attempt,
               const char *message, const char *field, struct hpod_err *err)
{
    const char *more[] = {message, field};
    return sim_fenced(db, SQL_SIM_FAIL, id, attempt, 2, more, NULL, err);
}

enum hpod_status
sim_store_cancel(struct db *db, long long id, int *changed,
                 struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    *changed = 0;
    if ((st = db_exec_id(db, SQL_SIM_CANCEL, id, &r, err)) != HPOD_OK)
        return st;
    *changed = db_get_ll(r, 0, "n", 0) > 0;
    db_result_free(r);
    return HPOD_OK;
}

enum hpod_status
sim_store_release(struct db *db, long long id, long long attempt,
                  struct hpod_err *err)
{
    return sim_fenced(db, SQL_SIM_RELEASE, id, attempt, 0, NULL, NULL, err);
}

enum hpod_status
sim_store_state(struct db *db, long long id, char *state, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    state[0] = '\0';
    if ((st = db_exec_id(db, SQL_SIM_STATE, id, &r, err)) != HPOD_OK)
        return st;
    if (db_rows(r) == 1)
        snprintf(state, 12, "%s", db_get(r, 0, "state"));
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

enum hpod_status
sim_store_queue_depth(struct db *db, long max_labs, struct sim_queue_row **out,
                      size_t *n, struct hpod_err *err)
{
    char m[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    *out = NULL;
    *n = 0;
    snprintf(m, sizeof m, "%ld", max_labs);
    const char *p[] = {m};
    if ((st = db_exec(db, SQL_SIM_QUEUE_DEPTH, 1, p, &r, err)) != HPOD_OK)
        return st;
    *n = db_rows(r);
    *out = xcalloc(*n ? *n : 1, sizeof **out);
    for (size_t i = 0; i < *n; i++) {
        const char *lab = db_get(r, i, "lab");
        snprintf((*out)[i].lab, sizeof(*out)[i].lab, "%s", lab ? lab : "");
        (*out)[i].queued = db_get_ll(r, i, "queued", 0);
        (*out)[i].running = db_get_ll(r, i, "running", 0);
    }
    db_result_free(r);
    return HPOD_OK;
}
