/*
 * store/trial_batch_store.c - a suggest group's statements; see
 * trial_batch_store.h.
 */
#include "store/trial_batch_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/strbuf.h"
#include "store/trial_cols.h"
#include "store/trial_store.h"

static const char *SQL_HELD =
    "WITH t AS (UPDATE trials SET"
    " lease_expires_at = now() + make_interval(secs => $3), updated_at = now()"
    " WHERE study_id = $1 AND worker = ANY ($2::text[])"
    " AND state IN ('pending', 'running')"
    " RETURNING *) SELECT" TRIAL_COLS " FROM t ORDER BY t.id";
static const char *SQL_INSERT =
    "INSERT INTO trials AS t (study_id, seq, state, params, candidate, worker,"
    " lease_expires_at, train_to)"
    " SELECT $1, u.seq, 'pending', u.params::json, u.cand, u.worker,"
    " now() + make_interval(secs => $6), $7"
    " FROM unnest($2::integer[], $3::text[], $4::integer[], $5::text[])"
    " AS u (seq, params, cand, worker) RETURNING" TRIAL_COLS;

/* Appends s as one quoted element of an array literal ('"' and '\'
 * escaped by '\'), after a comma unless first. */
static void
sb_elem(struct strbuf *b, const char *s, int first)
{
    if (!first)
        strbuf_put(b, ",", 1);
    strbuf_put(b, "\"", 1);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            strbuf_put(b, "\\", 1);
        strbuf_put(b, s, 1);
    }
    strbuf_put(b, "\"", 1);
}

enum hpod_status
trial_batch_held(struct db *db, long long study_id, const char *const *workers,
                 size_t k, int lease_seconds, struct trial **out, size_t *n,
                 struct hpod_err *err)
{
    char sid[32], ls[32];
    struct strbuf w = {0};
    enum hpod_status st;

    snprintf(sid, sizeof sid, "%lld", study_id);
    snprintf(ls, sizeof ls, "%d", lease_seconds);
    strbuf_put(&w, "{", 1);
    for (size_t i = 0; i < k; i++)
        sb_elem(&w, workers[i], i == 0);
    strbuf_put(&w, "}", 1);
    const char *p[] = {sid, w.p, ls};
    st = trial_store_query(db, SQL_HELD, 3, p, out, n, err);
    free(w.p);
    return st;
}

static int
by_seq(const void *a, const void *b)
{
    const struct trial *x = a, *y = b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

enum hpod_status
trial_batch_insert(struct db *db, long long study_id, const struct trial_new *t,
                   size_t k, int lease_seconds, long long train_to,
                   struct trial **out, size_t *n, struct hpod_err *err)
{
    char sid[32], ls[32], tt[32], num[32];
    struct strbuf seq = {0}, par = {0}, cand = {0}, wrk = {0};
    struct db_result *r = NULL;
    enum hpod_status st;

    *out = NULL;
    *n = 0;
    snprintf(sid, sizeof sid, "%lld", study_id);
    snprintf(ls, sizeof ls, "%d", lease_seconds);
    snprintf(tt, sizeof tt, "%lld", train_to);
    strbuf_put(&seq, "{", 1);
    strbuf_put(&par, "{", 1);
    strbuf_put(&cand, "{", 1);
    strbuf_put(&wrk, "{", 1);
    for (size_t i = 0; i < k; i++) {
        int len = snprintf(num, sizeof num, "%s%d", i ? "," : "", t[i].seq);
        strbuf_put(&seq, num, (size_t)len);
        sb_elem(&par, t[i].params, i == 0);
        len = t[i].candidate >= 0
                  ? snprintf(num, sizeof num, "%s%lld", i ? "," : "",
                             t[i].candidate)
                  : snprintf(num, sizeof num, "%sNULL", i ? "," : "");
        strbuf_put(&cand, num, (size_t)len);
        sb_elem(&wrk, t[i].worker, i == 0);
    }
    strbuf_put(&seq, "}", 1);
    strbuf_put(&par, "}", 1);
    strbuf_put(&cand, "}", 1);
    strbuf_put(&wrk, "}", 1);
    const char *p[] = {
        sid, seq.p, par.p, cand.p, wrk.p, ls, train_to >= 1 ? tt : NULL};
    if ((st = db_exec(db, SQL_INSERT, 7, p, &r, err)) != HPOD_OK)
        goto out;
    if (db_rows(r) != k) {
        st = hpod_fail(err, HPOD_EINTERNAL, "",
                       "a trial insert returned %zu rows for %zu", db_rows(r),
                       k);
        goto out;
    }
    *out = xcalloc(k ? k : 1, sizeof **out);
    for (size_t i = 0; i < k; i++)
        trial_store_row(r, i, &(*out)[i]);
    qsort(*out, k, sizeof **out, by_seq);
    *n = k;
out:
    db_result_free(r);
    free(seq.p);
    free(par.p);
    free(cand.p);
    free(wrk.p);
    return st;
}
