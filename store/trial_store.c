/*
 * store/trial_store.c - SQL about trials; see trial_store.h.
 */
#include "store/trial_store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "common/err.h"
#include "store/trial_cols.h"

static const char *SQL_COLS = "SELECT" TRIAL_COLS " FROM trials t";
/* clang-format on */

/* Values (step NULL) and steps of the trials whose ids are in $1 (a
 * bigint[] literal), in one round trip; metric NULL for a step that
 * carried none. */
static const char *SQL_VALUES_STEPS_OF =
    "SELECT trial_id, NULL::integer AS step, metric, value,"
    " NULL::text AS action, NULL::text AS checkpoint FROM trial_values"
    " WHERE trial_id = ANY ($1::bigint[])"
    " UNION ALL"
    " SELECT i.trial_id, i.step, s.metric, s.value, i.action, i.checkpoint"
    " FROM intermediate_values i LEFT JOIN step_values s"
    " ON s.trial_id = i.trial_id AND s.step = i.step"
    " WHERE i.trial_id = ANY ($1::bigint[])"
    " ORDER BY 1, 2 NULLS FIRST, 3";
/* Values of a study's history (trial_store_history). */
static const char *SQL_STUDY_VALUES =
    "SELECT v.trial_id, v.metric, v.value"
    " FROM trial_values v JOIN trials t ON t.id = v.trial_id"
    " WHERE t.study_id = $1 AND NOT t.lease_expired"
    " ORDER BY v.trial_id, v.metric";

/* The predicate of trials_candidate_once, so the index answers alone. */
static const char *SQL_TAKEN =
    "SELECT candidate FROM trials WHERE study_id = $1"
    " AND candidate IS NOT NULL AND NOT lease_expired";

/* The worker's live trials, their leases renewed, in one statement. */
static const char *SQL_RENEW_HELD =
    "WITH t AS (UPDATE trials SET"
    " lease_expires_at = now() + make_interval(secs => $3), updated_at = now()"
    " WHERE study_id = $1 AND worker = $2 AND state IN ('pending', 'running')"
    " RETURNING *) SELECT" TRIAL_COLS " FROM t ORDER BY t.id";
static const char *SQL_STUDY_OF = "SELECT study_id FROM trials WHERE id = $1";
static const char *SQL_NEXT_SEQ =
    "SELECT coalesce(max(seq) + 1, 0) AS seq FROM trials WHERE study_id = $1";
/* A new trial has no values and no steps: the row it returns is all of
 * it, with no second read (a suggest inserts under the study lock). */
static const char *SQL_INSERT =
    "INSERT INTO trials AS t (study_id, seq, state, params, candidate, worker,"
    " lease_expires_at, train_to) VALUES ($1, $2, 'pending', $3::json, $4,"
    " $5, now() + make_interval(secs => $6), $7) RETURNING" TRIAL_COLS;
/* SQL_INSERT with the trial's "suggest" decision ($8, its detail) in the
 * same statement: one round trip instead of two. A trial inserted here has
 * no decision yet, so its seq is 0, as decision_store_add would give. */
static const char *SQL_INSERT_DECIDED =
    "WITH ins AS (INSERT INTO trials AS t (study_id, seq, state, params,"
    " candidate, worker, lease_expires_at, train_to) VALUES ($1, $2,"
    " 'pending', $3::json, $4, $5, now() + make_interval(secs => $6), $7)"
    " RETURNING" TRIAL_COLS "), dec AS (INSERT INTO trial_decisions"
    " (trial_id, seq, kind, detail) SELECT id, 0, 'suggest', $8 FROM ins)"
    " SELECT * FROM ins";
/* A trial a user enqueued ($3 'waiting') or added ($3 'completed'). */
static const char *SQL_INSERT_USER =
    "INSERT INTO trials (study_id, seq, state, params, candidate, worker,"
    " origin, metadata) VALUES ($1, $2, $3, $4::json, $5, '', $6, $7::json)"
    " RETURNING id";
/* The oldest waiting trials of a study, up to $4, handed to worker $2
 * (a preempted one's reason goes with its wait). */
static const char *SQL_CLAIM =
    "UPDATE trials SET state = 'pending', worker = $2, reason = NULL,"
    " lease_expires_at = now() + make_interval(secs => $3), updated_at = now()"
    " WHERE id IN (SELECT id FROM trials WHERE study_id = $1"
    " AND state = 'waiting' ORDER BY seq LIMIT $4) RETURNING id";
static const char *SQL_SET_METADATA =
    "UPDATE trials SET metadata = $2::json, updated_at = now() WHERE id = $1";
static const char *SQL_HISTORY =
    "SELECT id, state, candidate, train_to,"
    " CASE WHEN candidate IS NULL THEN params::text END AS params,"
    " excluded_at IS NOT NULL AS excluded"
    " FROM trials WHERE study_id = $1 AND NOT lease_expired ORDER BY id";
/* $2, $3: text[] and float8[] literals of the same length. */
static const char *SQL_ADD_VALUES =
    "INSERT INTO trial_values (trial_id, metric, value)"
    " SELECT $1, u.m, u.v FROM unnest($2::text[], $3::float8[]) AS u (m, v)";
/* A final report: its new values ($4, $5: arrays, maybe empty) and the
 * trial's state in one statement. */
static const char *SQL_REPORTED =
    "WITH v AS (INSERT INTO trial_values (trial_id, metric, value)"
    " SELECT $1, u.m, u.v FROM unnest($4::text[], $5::float8[]) AS u (m, v))"
    " UPDATE trials AS t SET"
    " state = CASE WHEN $2 THEN 'completed' ELSE 'running' END,"
    " lease_expires_at = CASE WHEN $2 THEN NULL"
    "  ELSE now() + make_interval(secs => $3) END,"
    " updated_at = now() WHERE t.id = $1 RETURNING" TRIAL_COLS;
static const char *SQL_INTERMEDIATE =
    "INSERT INTO intermediate_values (trial_id, step, action, checkpoint)"
    " VALUES ($1, $2, $3, $4) ON CONFLICT (trial_id, step) DO NOTHING"
    " RETURNING action";
static const char *SQL_ADD_STEP_VALUES =
    "INSERT INTO step_values (trial_id, step, metric, value)"
    " SELECT $1, $2, u.m, u.v"
    " FROM unnest($3::text[], $4::float8[]) AS u (m, v)";
static const char *SQL_INTERMEDIATE_OLD =
    "SELECT action FROM intermediate_values WHERE trial_id = $1 AND step = $2";
static const char *SQL_RENEW =
    "UPDATE trials SET state = 'running',"
    " lease_expires_at = now() + make_interval(secs => $2), updated_at = now()"
    " WHERE id = $1 AND state IN ('pending', 'running')";
static const char *SQL_STEPS =
    "SELECT i.trial_id, i.step, s.metric, s.value"
    " FROM intermediate_values i JOIN trials t ON t.id = i.trial_id"
    " LEFT JOIN step_values s ON s.trial_id = i.trial_id AND s.step = i.step"
    " WHERE t.study_id = $1 AND NOT t.lease_expired"
    " AND t.excluded_at IS NULL ORDER BY i.trial_id, i.step, s.metric";
static const char *SQL_STOP =
    "UPDATE trials SET state = $2, reason = $3, lease_expires_at = NULL,"
    " updated_at = now() WHERE id = $1";
static const char *SQL_RESUME =
    "UPDATE trials SET state = 'running', worker = $2, reason = NULL,"
    " lease_expires_at = now() + make_interval(secs => $3),"
    " resume_from_step = $4, train_to = coalesce($5::integer, train_to),"
    " updated_at = now() WHERE id = $1 AND state = 'paused'";
static const char *SQL_SET_TRAIN_TO =
    "UPDATE trials SET train_to = $2, updated_at = now() WHERE id = $1";
static const char *SQL_PRUNE_PAUSED =
    "UPDATE trials SET state = 'pruned', reason = 'not promoted',"
    " updated_at = now() WHERE study_id = $1 AND state = 'paused'";
static const char *SQL_FAIL =
    "UPDATE trials SET state = 'failed', reason = $2, lease_expires_at = NULL,"
    " updated_at = now() WHERE id = $1";

static char *
dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

/*
 * Reads a stored double precision value (PostgreSQL prints the shortest
 * text that reads back to the same double). A value that does not read
 * back is an error that stops the request, never a missing metric.
 */
enum hpod_status
trial_store_read_value(const char *text, long long trial_id, const char *metric,
                       double *out, struct hpod_err *err)
{
    char *end = NULL;
    /* strtod sets ERANGE for subnormals too (5e-324 is a legal value):
     * what matters is that the whole text was a finite number. */
    *out = text ? strtod(text, &end) : NAN;
    if (!text || end == text || *end || !isfinite(*out))
        return hpod_fail(err, HPOD_EINTERNAL, "",
                         "stored value of metric %.64s of trial %lld cannot "
                         "be read",
                         metric ? metric : "?", trial_id);
    return HPOD_OK;
}

/*
 * The text[] and float8[] literals of m's names and values (new strings).
 * Names need no escapes inside quotes: they are [A-Za-z0-9_.-].
 */
void
trial_store_array_literals(const struct metric_set *m, char **names,
                           char **values)
{
    size_t cap = 2 + m->n * (METRIC_NAME_MAX + 4);
    size_t vcap = 2 + m->n * 32;
    size_t a = 0, b = 0;
    *names = xmalloc(cap);
    *values = xmalloc(vcap);
    a += (size_t)snprintf(*names + a, cap - a, "{");
    b += (size_t)snprintf(*values + b, vcap - b, "{");
    for (size_t i = 0; i < m->n; i++) {
        /* %.17g reads back to the same double; float8 input rounds
         * correctly, so the column holds exactly the reported value. */
        a += (size_t)snprintf(*names + a, cap - a, "%s\"%s\"", i ? "," : "",
                              m->v[i].name);
        b += (size_t)snprintf(*values + b, vcap - b, "%s%.17g", i ? "," : "",
                              m->v[i].value);
    }
    snprintf(*names + a, cap - a, "}");
    snprintf(*values + b, vcap - b, "}");
}

/* A bigint[] literal of the ids of t[0..n) (new string). */
static char *
id_array(const struct trial *t, size_t n)
{
    size_t cap = 3 + n * 21, len = 0;
    char *out = xmalloc(cap);
    len += (size_t)snprintf(out + len, cap - len, "{");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%lld", i ? "," : "",
                                t[i].id);
    snprintf(out + len, cap - len, "}");
    return out;
}

/* The trial of t[0..n) (sorted by id or not) with id, or NULL. */
static struct trial *
find_trial(struct trial *t, size_t n, long long id, size_t *hint)
{
    if (*hint < n && t[*hint].id == id)
        return &t[*hint];
    for (size_t i = 0; i < n; i++)
        if (t[i].id == id) {
            *hint = i;
            return &t[i];
        }
    return NULL;
}

/* Attaches the values (rows trial_id, metric, value) to the trials. */
static enum hpod_status
attach_values(const struct db_result *r, struct trial *t, size_t n,
              struct hpod_err *err)
{
    size_t hint = 0;
    for (size_t i = 0; i < db_rows(r); i++) {
        long long id = db_get_ll(r, i, "trial_id", 0);
        const char *metric = db_get(r, i, "metric");
        struct trial *tr = find_trial(t, n, id, &hint);
        double v;
        enum hpod_status st;
        if (!tr)
            continue;
        if ((st = trial_store_read_value(db_get(r, i, "value"), id, metric, &v,
                                         err)) != HPOD_OK)
            return st;
        metric_set_add(&tr->values, metric, v);
    }
    return HPOD_OK;
}

/* Adds one row of SQL_VALUES_STEPS_OF to its trial. */
static enum hpod_status
attach_row(const struct db_result *r, size_t i, struct trial *t, size_t n,
           size_t *hint, struct hpod_err *err)
{
    long long id = db_get_ll(r, i, "trial_id", 0);
    const char *metric = db_get(r, i, "metric");
    struct trial *tr = find_trial(t, n, id, hint);
    double v;
    enum hpod_status st;

    if (!tr)
        return HPOD_OK;
    if (db_get(r, i, "step")) {
        int step = (int)db_get_ll(r, i, "step", 0);
        if (tr->n_steps == 0 || tr->steps[tr->n_steps - 1].step != step) {
            tr->steps =
                xrealloc(tr->steps, (tr->n_steps + 1) * sizeof *tr->steps);
            memset(&tr->steps[tr->n_steps], 0, sizeof *tr->steps);
            const char *action = db_get(r, i, "action");
            tr->steps[tr->n_steps].stop = action && strcmp(action, "stop") == 0;
            tr->steps[tr->n_steps].checkpoint =
                dup_or_null(db_get(r, i, "checkpoint"));
            tr->steps[tr->n_steps++].step = step;
        }
        if (!metric)
            return HPOD_OK;
    }
    if ((st = trial_store_read_value(db_get(r, i, "value"), id, metric, &v,
                                     err)) != HPOD_OK)
        return st;
    metric_set_add(db_get(r, i, "step") ? &tr->steps[tr->n_steps - 1].values
                                        : &tr->values,
                   metric, v);
    return HPOD_OK;
}

/* Fills the values and steps of t[0..n) (one query for all of them). */
static enum hpod_status
load_values(struct db *db, struct trial *t, size_t n, struct hpod_err *err)
{
    struct db_result *r = NULL;
    char *ids;
    size_t hint = 0;
    enum hpod_status st;

    if (n == 0)
        return HPOD_OK;
    ids = id_array(t, n);
    const char *p[] = {ids};
    if ((st = db_exec(db, SQL_VALUES_STEPS_OF, 1, p, &r, err)) != HPOD_OK)
        goto out;
    for (size_t i = 0; i < db_rows(r) && st == HPOD_OK; i++)
        st = attach_row(r, i, t, n, &hint, err);
out:
    db_result_free(r);
    free(ids);
    return st;
}

void
trial_store_row(const struct db_result *r, size_t i, struct trial *t)
{
    const char *le = db_get(r, i, "lease_expired");
    memset(t, 0, sizeof *t);
    t->id = db_get_ll(r, i, "id", 0);
    t->study_id = db_get_ll(r, i, "study_id", 0);
    t->seq = (int)db_get_ll(r, i, "seq", 0);
    t->state = (enum trial_state)trial_state_parse(db_get(r, i, "state"));
    t->params = dup_or_null(db_get(r, i, "params"));
    t->origin = (enum trial_origin)trial_origin_parse(db_get(r, i, "origin"));
    t->metadata = dup_or_null(db_get(r, i, "metadata"));
    t->candidate = db_get_ll(r, i, "candidate", -1);
    t->worker = dup_or_null(db_get(r, i, "worker"));
    t->reason = dup_or_null(db_get(r, i, "reason"));
    t->lease_expired = le && le[0] == 't';
    t->lease_expires_at = dup_or_null(db_get(r, i, "lease_expires_at"));
    t->resume_from_step = db_get_ll(r, i, "resume_from_step", -1);
    t->train_to = db_get_ll(r, i, "train_to", -1);
    t->created_at = dup_or_null(db_get(r, i, "created_at"));
    t->updated_at = dup_or_null(db_get(r, i, "updated_at"));
    t->excluded_at = dup_or_null(db_get(r, i, "excluded_at"));
    t->excluded = t->excluded_at != NULL;
    t->excluded_reason = dup_or_null(db_get(r, i, "excluded_reason"));
    t->excluded_by = dup_or_null(db_get(r, i, "excluded_by"));
}

enum hpod_status
trial_store_query(struct db *db, const char *sql, int np, const char *const *p,
                  struct trial **out, size_t *n, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    *out = NULL;
    *n = 0;
    if ((st = db_exec(db, sql, np, p, &r, err)) != HPOD_OK)
        return st;
    *n = db_rows(r);
    *out = xcalloc(*n ? *n : 1, sizeof **out);
    for (size_t i = 0; i < *n; i++)
        trial_store_row(r, i, &(*out)[i]);
    db_result_free(r);
    if ((st = load_values(db, *out, *n, err)) != HPOD_OK) {
        trials_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return st;
}

/* Runs SQL_COLS + where with params and returns every row as trials. */
static enum hpod_status
select_trials(struct db *db, const char *where, int np, const char *const *p,
              struct trial **out, size_t *n, struct hpod_err *err)
{
    char sql[4096];
    snprintf(sql, sizeof sql, "%s %s", SQL_COLS, where);
    return trial_store_query(db, sql, np, p, out, n, err);
}

static enum hpod_status
exec_affected(struct db *db, const char *sql, int np, const char *const *p,
              long long *affected, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st = db_exec(db, sql, np, p, &r, err);
    if (st == HPOD_OK && affected)
        *affected = db_affected(r);
    db_result_free(r);
    return st;
}

enum hpod_status
trial_store_held(struct db *db, long long study_id, const char *worker,
                 int lease_seconds, struct trial **out, size_t *n,
                 struct hpod_err *err)
{
    char sid[32], ls[32];

    snprintf(sid, sizeof sid, "%lld", study_id);
    snprintf(ls, sizeof ls, "%d", lease_seconds);
    const char *p[] = {sid, worker, ls};
    return trial_store_query(db, SQL_RENEW_HELD, 3, p, out, n, err);
}

enum hpod_status
trial_store_next_seq(struct db *db, long long study_id, int *seq,
                     struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    if ((st = db_exec_id(db, SQL_NEXT_SEQ, study_id, &r, err)) != HPOD_OK)
        return st;
    *seq = (int)db_get_ll(r, 0, "seq", 0);
    db_result_free(r);
    return HPOD_OK;
}

enum hpod_status
trial_store_insert(struct db *db, long long study_id, int seq,
                   const char *params_json, long long candidate,
                   const char *worker, int lease_seconds, long long train_to,
                   struct trial *out, struct hpod_err *err)
{
    return trial_store_insert_decided(db, study_id, seq, params_json, candidate,
                                      worker, lease_seconds, train_to, NULL,
                                      out, err);
}

enum hpod_status
trial_store_insert_decided(struct db *db, long long study_id, int seq,
                           const char *params_json, long long candidate,
                           const char *worker, int lease_seconds,
                           long long train_to, const char *decision,
                           struct trial *out, struct hpod_err *err)
{
    char sid[32], sq[32], cand[32], ls[32], tt[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    snprintf(sid, sizeof sid, "%lld", study_id);
    snprintf(sq, sizeof sq, "%d", seq);
    snprintf(cand, sizeof cand, "%lld", candidate);
    snprintf(ls, sizeof ls, "%d", lease_seconds);
    snprintf(tt, sizeof tt, "%lld", train_to);
    const char *p[] = {sid,
                       sq,
                       params_json,
                       candidate >= 0 ? cand : NULL,
                       worker,
                       ls,
                       train_to >= 1 ? tt : NULL,
                       decision};
    if ((st = db_exec(db, decision ? SQL_INSERT_DECIDED : SQL_INSERT,
                      decision ? 8 : 7, p, &r, err)) != HPOD_OK)
        return st;
    if (db_rows(r) == 1)
        trial_store_row(r, 0, out);
    else
        st = hpod_fail(err, HPOD_EINTERNAL, "",
                       "a trial insert returned no row");
    db_result_free(r);
    return st;
}

enum hpod_status
trial_store_study_of(struct db *db, long long id, long long *study_id,
                     struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    if ((st = db_exec_id(db, SQL_STUDY_OF, id, &r, err)) != HPOD_OK)
        return st;
    if (db_rows(r) == 0)
        st =
            hpod_fail(err, HPOD_ENOTFOUND, "", "trial %lld does not exist", id);
    else
        *study_id = db_get_ll(r, 0, "study_id", 0);
    db_result_free(r);
    return st;
}

enum hpod_status
trial_store_get(struct db *db, long long id, int for_update, struct trial *out,
                struct hpod_err *err)
{
    char sid[32];
    struct trial *t = NULL;
    size_t n = 0;
    enum hpod_status st;

    snprintf(sid, sizeof sid, "%lld", id);
    const char *p[] = {sid};
    st = select_trials(
        db, for_update ? "WHERE t.id = $1 FOR UPDATE OF t" : "WHERE t.id = $1",
        1, p, &t, &n, err);
    if (st != HPOD_OK)
        return st;
    if (n == 0) {
        st =
            hpod_fail(err, HPOD_ENOTFOUND, "", "trial %lld does not exist", id);
    } else {
        *out = t[0];
        memset(&t[0], 0, sizeof t[0]);
    }
    trials_free(t, n);
    return st;
}

enum hpod_status
trial_store_list(struct db *db, long long study_id, int state, long long limit,
                 long long offset, struct trial **out, size_t *n,
                 long long *total, struct hpod_err *err)
{
    char sid[32], sl[32], so[32];
    struct db_result *r = NULL;
    enum hpod_status st;
    const char *state_name = state >= 0 ? trial_state_name(state) : NULL;

    *out = NULL;
    *n = 0;
    snprintf(sid, sizeof sid, "%lld", study_id);
    snprintf(sl, sizeof sl, "%lld", limit);
    snprintf(so, sizeof so, "%lld", offset);
    const char *p[] = {sid, state_name, limit >= 0 ? sl : NULL, so};
    if (total) {
        if ((st = db_exec(db,
                          "SELECT count(*) AS n FROM trials WHERE study_id = $1"
                          " AND ($2::text IS NULL OR state = $2)",
                          2, p, &r, err)) != HPOD_OK)
            return st;
        *total = db_get_ll(r, 0, "n", 0);
        db_result_free(r);
    }
    return select_trials(db,
                         "WHERE t.study_id = $1 AND ($2::text IS NULL OR "
                         "t.state = $2) ORDER BY t.id LIMIT $3 OFFSET $4",
                         4, p, out, n, err);
}

enum hpod_status
trial_store_history(struct db *db, long long study_id, struct trial **out,
                    size_t *n, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    *out = NULL;
    *n = 0;
    if ((st = db_exec_id(db, SQL_HISTORY, study_id, &r, err)) != HPOD_OK)
        return st;
    *n = db_rows(r);
    *out = xcalloc(*n ? *n : 1, sizeof **out);
    for (size_t i = 0; i < *n; i++) {
        struct trial *t = &(*out)[i];
        t->id = db_get_ll(r, i, "id", 0);
        t->study_id = study_id;
        t->state = (enum trial_state)trial_state_parse(db_get(r, i, "state"));
        t->candidate = db_get_ll(r, i, "candidate", -1);
        t->params = dup_or_null(db_get(r, i, "params"));
        t->resume_from_step = -1;
        t->train_to = db_get_ll(r, i, "train_to", -1);
        t->excluded =
            db_get(r, i, "excluded") && *db_get(r, i, "excluded") == 't';
    }
    db_result_free(r);
    r = NULL;
    if ((st = db_exec_id(db, SQL_STUDY_VALUES, study_id, &r, err)) == HPOD_OK)
        st = attach_values(r, *out, *n, err);
    db_result_free(r);
    if (st != HPOD_OK) {
        trials_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return st;
}

enum hpod_status
trial_store_taken(struct db *db, long long study_id, long long **out, size_t *n,
                  struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    *out = NULL;
    *n = 0;
    if ((st = db_exec_id(db, SQL_TAKEN, study_id, &r, err)) != HPOD_OK)
        return st;
    *n = db_rows(r);
    *out = xmalloc((*n ? *n : 1) * sizeof **out);
    for (size_t i = 0; i < *n; i++)
        (*out)[i] = db_get_ll(r, i, "candidate", -1);
    db_result_free(r);
    return HPOD_OK;
}

enum hpod_status
trial_store_report(struct db *db, long long id, const struct metric_set *add,
                   int complete, int lease_seconds, struct trial *row,
                   struct hpod_err *err)
{
    char sid[32], ls[32];
    char *names = NULL, *values = NULL;
    struct db_result *r = NULL;
    enum hpod_status st = HPOD_OK;

    snprintf(sid, sizeof sid, "%lld", id);
    snprintf(ls, sizeof ls, "%d", lease_seconds);
    if (add && add->n > 0)
        trial_store_array_literals(add, &names, &values);
    const char *p[] = {sid, complete ? "true" : "false", ls,
                       names ? names : "{}", values ? values : "{}"};
    st = db_exec(db, SQL_REPORTED, 5, p, &r, err);
    if (st == HPOD_OK && db_rows(r) != 1)
        st =
            hpod_fail(err, HPOD_ENOTFOUND, "", "trial %lld does not exist", id);
    else if (st == HPOD_OK && row)
        trial_store_row(r, 0, row);
    db_result_free(r);
    free(names);
    free(values);
    return st;
}

enum hpod_status
trial_store_intermediate(struct db *db, long long id, int step,
                         const struct metric_set *values, const char *action,
                         const char *checkpoint, int lease_seconds,
                         const char **action_out, struct hpod_err *err)
{
    char sid[32], sstep[32], ls[32];
    char *names = NULL, *vals = NULL;
    struct db_result *r = NULL;
    enum hpod_status st;
    int inserted;

    snprintf(sid, sizeof sid, "%lld", id);
    snprintf(sstep, sizeof sstep, "%d", step);
    snprintf(ls, sizeof ls, "%d", lease_seconds);
    const char *p[] = {sid, sstep, action, checkpoint};
    if ((st = db_exec(db, SQL_INTERMEDIATE, 4, p, &r, err)) != HPOD_OK)
        goto out;
    inserted = db_rows(r) > 0;
    if (!inserted) {
        db_result_free(r);
        r = NULL;
        if ((st = db_exec(db, SQL_INTERMEDIATE_OLD, 2, p, &r, err)) != HPOD_OK)
            goto out;
    } else if (values && values->n > 0) {
        trial_store_array_literals(values, &names, &vals);
        const char *pv[] = {sid, sstep, names, vals};
        if ((st = exec_affected(db, SQL_ADD_STEP_VALUES, 4, pv, NULL, err)) !=
            HPOD_OK)
            goto out;
    }
    const char *a = db_rows(r) ? db_get(r, 0, "action") : NULL;
    *action_out = a && strcmp(a, "stop") == 0 ? "stop" : "continue";
    const char *pr[] = {sid, ls};
    st = exec_affected(db, SQL_RENEW, 2, pr, NULL, err);
out:
    db_result_free(r);
    free(names);
    free(vals);
    return st;
}

enum hpod_status
trial_store_heartbeat(struct db *db, long long id, int lease_seconds,
                      struct hpod_err *err)
{
    char sid[32], ls[32];
    snprintf(sid, sizeof sid, "%lld", id);
    snprintf(ls, sizeof ls, "%d", lease_seconds);
    const char *p[] = {sid, ls};
    return exec_affected(db, SQL_RENEW, 2, p, NULL, err);
}

enum hpod_status
trial_store_fail(struct db *db, long long id, const char *reason,
                 struct hpod_err *err)
{
    char sid[32];
    snprintf(sid, sizeof sid, "%lld", id);
    const char *p[] = {sid, reason};
    return exec_affected(db, SQL_FAIL, 2, p, NULL, err);
}

void
step_rows_free(struct step_row *rows, size_t n)
{
    if (!rows)
        return;
    for (size_t i = 0; i < n; i++)
        metric_set_clear(&rows[i].values);
    free(rows);
}

enum hpod_status
trial_store_study_steps(struct db *db, long long study_id,
                        struct step_row **out, size_t *n, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    *out = NULL;
    *n = 0;
    if ((st = db_exec_id(db, SQL_STEPS, study_id, &r, err)) != HPOD_OK)
        return st;
    *out = xcalloc(db_rows(r) ? db_rows(r) : 1, sizeof **out);
    for (size_t i = 0; i < db_rows(r); i++) {
        long long id = db_get_ll(r, i, "trial_id", 0);
        int step = (int)db_get_ll(r, i, "step", 0);
        const char *metric = db_get(r, i, "metric");
        if (*n == 0 || (*out)[*n - 1].trial_id != id ||
            (*out)[*n - 1].step != step) {
            (*out)[*n].trial_id = id;
            (*out)[*n].step = step;
            (*n)++;
        }
        if (metric) {
            double v;
            if ((st = trial_store_read_value(db_get(r, i, "value"), id, metric,
                                             &v, err)) != HPOD_OK)
                break;
            metric_set_add(&(*out)[*n - 1].values, metric, v);
        }
    }
    db_result_free(r);
    if (st != HPOD_OK) {
        step_rows_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return st;
}

enum hpod_status
trial_store_stop(struct db *db, long long id, enum trial_state state,
                 const char *reason, struct hpod_err *err)
{
    char sid[32];
    snprintf(sid, sizeof sid, "%lld", id);
    const char *p[] = {sid, trial_state_name(state), reason};
    return exec_affected(db, SQL_STOP, 3, p, NULL, err);
}

enum hpod_status
trial_store_resume(struct db *db, long long id, const char *worker,
                   int lease_seconds, long long resume_from_step,
                   long long train_to, struct trial *out, struct hpod_err *err)
{
    char sid[32], ls[32], rs[32], tt[32];
    long long n = 0;
    enum hpod_status st;

    snprintf(sid, sizeof sid, "%lld", id);
    snprintf(ls, sizeof ls, "%d", lease_seconds);
    snprintf(rs, sizeof rs, "%lld", resume_from_step);
    snprintf(tt, sizeof tt, "%lld", train_to);
    const char *p[] = {sid, worker, ls, rs, train_to >= 1 ? tt : NULL};
    if ((st = exec_affected(db, SQL_RESUME, 5, p, &n, err)) != HPOD_OK)
        return st;
    if (n == 0)
        return hpod_fail(err, HPOD_ECONFLICT, "", "trial %lld is not paused",
                         id);
    return trial_store_get(db, id, 0, out, err);
}

enum hpod_status
trial_store_set_train_to(struct db *db, long long id, long long train_to,
                         struct hpod_err *err)
{
    char sid[32], tt[32];
    snprintf(sid, sizeof sid, "%lld", id);
    snprintf(tt, sizeof tt, "%lld", train_to);
    const char *p[] = {sid, tt};
    return exec_affected(db, SQL_SET_TRAIN_TO, 2, p, NULL, err);
}

enum hpod_status
trial_store_prune_paused(struct db *db, long long study_id,
                         struct hpod_err *err)
{
    char sid[32];
    snprintf(sid, sizeof sid, "%lld", study_id);
    const char *p[] = {sid};
    return exec_affected(db, SQL_PRUNE_PAUSED, 1, p, NULL, err);
}

enum hpod_status
trial_store_step_action(struct db *db, long long id, int step, int *found,
                        const char **action, struct hpod_err *err)
{
    char sid[32], sstep[32];
    struct db_result *r = NULL;
    enum hpod_status st;

    snprintf(sid, sizeof sid, "%lld", id);
    snprintf(sstep, sizeof sstep, "%d", step);
    const char *p[] = {sid, sstep};
    if ((st = db_exec(db, SQL_INTERMEDIATE_OLD, 2, p, &r, err)) != HPOD_OK)
        return st;
    *found = db_rows(r) > 0;
    const char *a = *found ? db_get(r, 0, "action") : NULL;
    *action = a && strcmp(a, "stop") == 0 ? "stop" : "continue";
    db_result_free(r);
    return HPOD_OK;
}

enum hpod_status
trial_store_insert_user(struct db *db, long long study_id, int seq,
                        const char *params_json, long long candidate,
                        const char *metadata_json,
                        const struct metric_set *values, struct trial *out,
                        struct hpod_err *err)
{
    char sid[32], sq[32], cand[32], tid[32];
    char *names = NULL, *vals = NULL;
    struct db_result *r = NULL;
    enum hpod_status st;
    long long id;

    snprintf(sid, sizeof sid, "%lld", study_id);
    snprintf(sq, sizeof sq, "%d", seq);
    snprintf(cand, sizeof cand, "%lld", candidate);
    const char *p[] = {
        sid,
        sq,
        values ? "completed" : "waiting",
        params_json,
        candidate >= 0 ? cand : NULL,
        trial_origin_name(values ? ORIGIN_ADDED : ORIGIN_ENQUEUED),
        metadata_json ? metadata_json : "{}"};
    if ((st = db_exec(db, SQL_INSERT_USER, 7, p, &r, err)) != HPOD_OK)
        goto out;
    id = db_get_ll(r, 0, "id", 0);
    if (values && values->n > 0) {
        snprintf(tid, sizeof tid, "%lld", id);
        trial_store_array_literals(values, &names, &vals);
        const char *pv[] = {tid, names, vals};
        if ((st = exec_affected(db, SQL_ADD_VALUES, 3, pv, NULL, err)) !=
            HPOD_OK)
            goto out;
    }
    st = trial_store_get(db, id, 0, out, err);
out:
    db_result_free(r);
    free(names);
    free(vals);
    return st;
}

enum hpod_status
trial_store_claim_waiting(struct db *db, long long study_id, const char *worker,
                          int lease_seconds, long long limit,
                          struct trial **out, size_t *n, struct hpod_err *err)
{
    char sid[32], ls[32], lim[32];
    struct db_result *r = NULL;
    enum hpod_status st;
    size_t cap, len = 0;
    char *ids;

    *out = NULL;
    *n = 0;
    snprintf(sid, sizeof sid, "%lld", study_id);
    snprintf(ls, sizeof ls, "%d", lease_seconds);
    snprintf(lim, sizeof lim, "%lld", limit);
    const char *p[] = {sid, worker, ls, lim};
    if ((st = db_exec(db, SQL_CLAIM, 4, p, &r, err)) != HPOD_OK)
        return st;
    cap = 3 + db_rows(r) * 21;
    ids = xmalloc(cap);
    len += (size_t)snprintf(ids + len, cap - len, "{");
    for (size_t i = 0; i < db_rows(r); i++)
        len += (size_t)snprintf(ids + len, cap - len, "%s%lld", i ? "," : "",
                                db_get_ll(r, i, "id", 0));
    snprintf(ids + len, cap - len, "}");
    db_result_free(r);
    const char *pq[] = {sid, ids};
    st = select_trials(db,
                       "WHERE t.study_id = $1 AND t.id = ANY ($2::bigint[])"
                       " ORDER BY t.seq",
                       2, pq, out, n, err);
    free(ids);
    return st;
}

enum hpod_status
trial_store_set_metadata(struct db *db, long long id, const char *metadata_json,
                         struct hpod_err *err)
{
    char sid[32];
    snprintf(sid, sizeof sid, "%lld", id);
    const char *p[] = {sid, metadata_json};
    return exec_affected(db, SQL_SET_METADATA, 2, p, NULL, err);
}
