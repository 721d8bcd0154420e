/*
 * study/histcache.c - a study's history kept in process between suggests;
 * contract in study/histcache.h.
 *
 * Why it never answers from stale rows (several `hpod serve` share one
 * database, and each writes trials the others have not seen):
 *
 * 1. Every row the history reads is stamped with the transaction that
 *    last wrote it: trials.changed_xid is set by a trigger on every
 *    insert and update of a trial, and an insert of its values stamps the
 *    trial too (migrations/0010_history_xid.sql). Trials are never deleted
 *    except with their study, whose id is never reused.
 * 2. Each refresh is one statement, so one snapshot S; it returns S's
 *    xmin X with the rows. Every transaction whose effects S does not see
 *    has an id >= X: ids below X belong to transactions that ended before
 *    S (visible if committed), and a transaction that had no id yet when S
 *    was taken gets one >= S's xmax >= X.
 * 3. The next refresh, in snapshot S', reads the rows with changed_xid >=
 *    X. A row whose version in S' differs from the one in S (inserted,
 *    updated, its values added, its lease expired) was last written by a
 *    transaction S did not see, so its changed_xid >= X and it is read
 *    again; every other row is as the cache holds it. Merging by id
 *    replaces, adds, or drops (lease expired) rows and is idempotent, so
 *    rows read twice do no harm. After the merge the cache equals what a
 *    full read in S' would give, row for row, in id order: history_build
 *    then sees the same input as history_load, and the sampler gives the
 *    same answer (its seed is the study's and the trial's number).
 * 4. A refresh inside a transaction sees that transaction's own writes
 *    (expired leases, claims). If it then rolls back, those rows go back
 *    to versions stamped before X and would never be read again: the
 *    caller destroys the entry instead of putting it back (histcache_put(c,
 *    0)). After a commit the own writes are right; and the X it kept is
 *    at most its own id (the xmin counts the reader's own transaction as
 *    running, and the statement takes the least with its id besides), so
 *    all of its writes, those after the refresh too (the trials a suggest
 *    inserts), are read again by the next refresh.
 * 5. The parsed params depend on the study definition: the entry keeps the
 *    version of the definition it was read for (the study row's version,
 *    which any write of the row changes: store/study_store.h) and starts
 *    over when it differs.
 * 6. xid8 is 64 bits (epoch and xid): no wraparound in practice.
 *
 * Cost: one statement over the index trials_changed (study_id,
 * changed_xid), returning only what changed, instead of every trial and
 * every value parsed again under the study lock.
 * study/suggest.c runs it inside its lease-expiry statement
 * (history_store_expire_changes, one round trip), and a refresh that only
 * updates or appends rows merges in place (merge_in_place). That
 * statement is not quite point 2's snapshot: its UPDATE waits for a
 * transaction that writes a lapsed trial meanwhile (another server's
 * reaper) and then skips the row, which the snapshot still shows lapsed
 * but live. A server without the cache expires, then reads in a new
 * statement, and sees that write; so when the statement says it raced,
 * suggest reads the changes again at once (point 3 covers that write).
 */
#include "study/histcache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "store/history_store.h"
#include "study/modelcache.h"

static int enabled = 1;

void
histcache_set_enabled(int on)
{
    enabled = on;
}

void
histcache_reset(struct hcache *c)
{
    trials_free(c->rows, c->n);
    free(c->raw);
    free(c->ok);
    long long id = c->study_id;
    struct modelcache_entry *e = c->entry;
    memset(c, 0, sizeof *c);
    c->study_id = id;
    c->entry = e;
}

/* The index of the cached row with this id, or c->n. */
static size_t
row_find(const struct hcache *c, long long id)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->rows[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->n && c->rows[lo].id == id ? lo : c->n;
}

/* Moves delta row t into slot i (a new slot when i == c->n). */
static void
row_put(struct hcache *c, size_t i, struct trial *t, const struct study_def *d)
{
    if (i == c->n)
        c->n++;
    else
        trial_clear(&c->rows[i]);
    c->rows[i] = *t;
    c->ok[i] = d && t->candidate < 0 &&
               history_parse_params(d, t->params, c->raw + i * c->np);
}

/*
 * The usual refresh: every row of delta replaces a cached row of its id
 * or comes after the last cached id, and none drops a cached row (lease
 * expiry): merged in place, in O(nd log n) instead of copying all n rows
 * (under the study lock, 0.15-0.3 ms per suggest group at 3,000 trials).
 * 0 when delta is not of that kind (nothing changed).
 */
static int
merge_in_place(struct hcache *c, struct trial *delta, size_t nd,
               const struct study_def *d)
{
    size_t np = d ? d->space.n_params : 0, add = 0;
    long long last;

    if (c->n == 0 || np != c->np)
        return 0;
    last = c->rows[c->n - 1].id;
    for (size_t j = 0; j < nd; j++) {
        if (delta[j].id > last) {
            last = delta[j].id;
            add += !delta[j].lease_expired;
        } else if (delta[j].lease_expired || row_find(c, delta[j].id) == c->n)
            return 0;
    }
    if (c->n + add > c->cap) {
        size_t cap = 2 * c->cap > c->n + add ? 2 * c->cap : c->n + add;
        c->rows = xrealloc(c->rows, cap * sizeof *c->rows);
        c->raw = xrealloc(c->raw, cap * (np ? np : 1) * sizeof *c->raw);
        c->ok = xrealloc(c->ok, cap);
        c->cap = cap;
    }
    last = c->rows[c->n - 1].id;
    for (size_t j = 0; j < nd; j++) {
        struct trial *t = &delta[j];
        if (t->id > last) {
            last = t->id;
            if (t->lease_expired)
                trial_clear(t); /* never cached: nothing to drop */
            else
                row_put(c, c->n, t, d);
        } else {
            row_put(c, row_find(c, t->id), t, d);
        }
    }
    return 1;
}

/* Any refresh: a new array of the rows of both, in id order. */
static void
merge_copy(struct hcache *c, struct trial *delta, size_t nd,
           const struct study_def *d)
{
    size_t np = d ? d->space.n_params : 0, cap = c->n + nd, k = 0;
    struct trial *rows = xcalloc(cap ? cap : 1, sizeof *rows);
    double *raw = xmalloc((cap ? cap : 1) * (np ? np : 1) * sizeof *raw);
    unsigned char *ok = xcalloc(cap ? cap : 1, 1);
    size_t i = 0, j = 0;

    while (i < c->n || j < nd) {
        if (j == nd || (i < c->n && c->rows[i].id < delta[j].id)) {
            rows[k] = c->rows[i];
            if (np && c->ok[i])
                memcpy(raw + k * np, c->raw + i * np, np * sizeof *raw);
            ok[k++] = c->ok[i++];
            continue;
        }
        if (i < c->n && c->rows[i].id == delta[j].id)
            trial_clear(&c->rows[i++]); /* replaced by delta[j] */
        struct trial *t = &delta[j++];
        if (t->lease_expired) {
            trial_clear(t); /* no longer part of the history */
            continue;
        }
        rows[k] = *t;
        ok[k] = d && t->candidate < 0 &&
                history_parse_params(d, t->params, raw + k * np);
        k++;
    }
    free(c->rows);
    free(c->raw);
    free(c->ok);
    c->rows = rows;
    c->raw = raw;
    c->ok = ok;
    c->n = k;
    c->np = np;
    c->cap = cap ? cap : 1;
}

void
histcache_merge(struct hcache *c, struct trial *delta, size_t nd,
                const struct study_def *d)
{
    if (!merge_in_place(c, delta, nd, d))
        merge_copy(c, delta, nd, d);
}

int
histcache_with_values(const struct study_def *d, const struct mf_work *w)
{
    return d->algo.name != ALGO_RANDOM || w->multistage;
}

const char *
histcache_since(struct hcache *c, long long study_id, const char *def_version,
                int with_values)
{
    if (c->study_id != study_id || !c->def_version[0] ||
        strcmp(c->def_version, def_version) != 0 ||
        c->with_values != with_values) {
        histcache_reset(c);
        c->study_id = study_id;
        snprintf(c->def_version, sizeof c->def_version, "%s", def_version);
        c->with_values = with_values;
    }
    return c->xmin[0] ? c->xmin : "0";
}

void
histcache_apply(struct hcache *c, struct trial *delta, size_t nd,
                const struct study_def *d, const char xmin[HISTORY_XID_MAX])
{
    histcache_merge(c, delta, nd, c->with_values ? d : NULL);
    memcpy(c->xmin, xmin, HISTORY_XID_MAX);
}

void
histcache_build(const struct hcache *c, const struct study_def *d,
                const double *cand_raw, size_t n_cand, int finite,
                const struct mf_work *w, struct history *h)
{
    if (!c->with_values)
        history_taken_rows(c->rows, c->n, cand_raw, n_cand, h);
    else
        history_build_parsed(d, c->rows, c->raw, c->ok, c->n, cand_raw, n_cand,
                             finite, w, h);
}

enum hpod_status
histcache_history(struct hcache *c, struct db *db, long long study_id,
                  const char *def_version, const struct study_def *d,
                  const double *cand_raw, size_t n_cand, int finite,
                  const struct mf_work *w, struct history *h,
                  struct hpod_err *err)
{
    int with_values = histcache_with_values(d, w);
    char xmin[HISTORY_XID_MAX];
    struct trial *delta = NULL;
    size_t nd = 0;
    enum hpod_status st;

    if (!enabled || !c || !def_version || !def_version[0])
        return history_load(db, study_id, d, cand_raw, n_cand, finite, w, h,
                            err);
    if (!finite && d->algo.name == ALGO_RANDOM)
        return HPOD_OK; /* random search on a continuous space */
    const char *since = histcache_since(c, study_id, def_version, with_values);
    if ((st = history_store_changes(db, study_id, since, with_values, xmin,
                                    &delta, &nd, err)) != HPOD_OK)
        return st;
    histcache_apply(c, delta, nd, d, xmin);
    free(delta);
    histcache_build(c, d, cand_raw, n_cand, finite, w, h);
    return HPOD_OK;
}

int
histcache_enabled(void)
{
    return enabled;
}

/* The process's entries, in study/modelcache.h. */
static void
histcache_destroy(void *p)
{
    struct hcache *c = p;
    if (!c)
        return;
    histcache_reset(c);
    free(c);
}

size_t
histcache_bytes(const struct hcache *c)
{
    size_t b =
        sizeof *c + c->cap * (sizeof *c->rows + c->np * sizeof(double) + 1);
    for (size_t i = 0; i < c->n; i++) {
        const struct trial *t = &c->rows[i];
        const char *s[] = {t->params,    t->worker,           t->metadata,
                           t->reason,    t->lease_expires_at, t->created_at,
                           t->updated_at};
        for (size_t k = 0; k < sizeof s / sizeof s[0]; k++)
            b += s[k] ? strlen(s[k]) + 1 : 0;
        b += t->values.n * sizeof *t->values.v;
    }
    return b;
}

static void *
histcache_make(long long study_id)
{
    struct hcache *c = xcalloc(1, sizeof *c);
    c->study_id = study_id;
    return c;
}

struct hcache *
histcache_take(long long study_id)
{
    void *obj;
    struct modelcache_entry *e =
        modelcache_take(MODELCACHE_HISTORY, study_id, "", histcache_make,
                        sizeof(struct hcache), histcache_destroy, &obj);
    struct hcache *c = obj;
    c->entry = e;
    return c;
}

void
histcache_put(struct hcache *c, int keep)
{
    if (!c)
        return;
    modelcache_set_size(c->entry, histcache_bytes(c));
    modelcache_put(c->entry, keep && enabled);
}
