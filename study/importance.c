/*
 * study/importance.c - a study's parameter importance, fitted once per
 * version; contracts in study/importance.h.
 *
 * A request reads, on a borrowed connection, the study row (its version,
 * the definition from study/defcache.h) and the version of its completed
 * trials, in that order and before any row a fit uses, so a fit is never
 * kept under a version newer than its rows. The ETag is a hash of both
 * versions and the metric. The kept fit (one per study and metric, in
 * study/modelcache.h) answers while its ETag is the current one. A fit
 * holds no connection: the rows are read, the connection handed back,
 * then the lab's model slot is taken for the fit itself.
 */
#include "study/importance.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/etag.h"
#include "common/mem.h"
#include "common/sha256.h"
#include "store/history_store.h"
#include "store/study_store.h"
#include "store/trial_store.h"
#include "study/defcache.h"
#include "study/labsched.h"
#include "study/modelcache.h"

/* A kept fit: the model and what rendering it needs, owned. */
struct importance_entry {
    char etag[IMPORTANCE_ETAG_MAX];
    struct ebm *model;
    char metric[METRIC_NAME_MAX + 1];
    size_t n, np;
    char **names;
    json_t **choices;
    struct modelcache_entry *mc;
};

void
importance_data(const struct study_def *d, const struct trial *rows,
                size_t n_rows, const char *metric, double **x, double **y,
                size_t *n)
{
    size_t np = d->space.n_params;
    *x = xmalloc((n_rows ? n_rows : 1) * (np ? np : 1) * sizeof **x);
    *y = xmalloc((n_rows ? n_rows : 1) * sizeof **y);
    *n = 0;
    for (size_t i = 0; i < n_rows; i++) {
        const double *v = metric_set_find(&rows[i].values, metric);
        json_t *params = v ? hj_parse(rows[i].params) : NULL;
        struct hpod_err e;
        if (params && params_from_json(d, params, *x + *n * np, "params", &e) ==
                          HPOD_OK) {
            (*y)[*n] = *v;
            (*n)++;
        }
        json_decref(params);
    }
}

/* The metric asked for, as a name borrowed from d (NULL if not d's). */
static const char *
find_metric(const struct study_def *d, const char *metric)
{
    for (size_t j = 0; j < d->n_objectives; j++)
        if (!metric || strcmp(d->obj_names[j], metric) == 0)
            return d->obj_names[j];
    for (size_t j = 0; metric && j < d->n_constraints; j++)
        if (strcmp(d->con_metric[j], metric) == 0)
            return d->con_metric[j];
    return NULL;
}

static void
entry_free(void *p)
{
    struct importance_entry *e = p;
    if (!e)
        return;
    ebm_free(e->model);
    for (size_t j = 0; j < e->np; j++) {
        free(e->names[j]);
        json_decref(e->choices[j]);
    }
    free(e->names);
    free(e->choices);
    free(e);
}

/* What a kept fit holds, in bytes: the model's bins (at most 32 per
 * parameter, each a few doubles) and its three pairs' grids. */
static size_t
entry_bytes(const struct importance_entry *e)
{
    return sizeof *e + e->np * (64 + 32 * 4 * sizeof(double)) +
           3 * 32 * 32 * sizeof(double);
}

/* ---- the versions read before a fit ---- */

/* What a request read: the study, its definition and the versions. */
struct imp_read {
    long long id;
    struct defcache_ref def;
    const char *metric; /* borrowed from def */
    char etag[IMPORTANCE_ETAG_MAX];
    size_t n_completed;
};

static void
imp_read_clear(struct imp_read *r)
{
    defcache_release(&r->def);
}

/* The quoted ETag of (study row version, trials version, metric). */
static void
make_etag(const char *row_version, const char *digest, const char *metric,
          char etag[IMPORTANCE_ETAG_MAX])
{
    char text[STUDY_VERSION_MAX + HISTORY_DIGEST_MAX + METRIC_NAME_MAX + 4];
    uint8_t h[SHA256_LEN];
    char hex[2 * SHA256_LEN + 1];

    snprintf(text, sizeof text, "%s\n%s\n%s", row_version, digest, metric);
    hpod_sha256(text, strlen(text), h);
    hpod_hex(h, SHA256_LEN, hex);
    snprintf(etag, IMPORTANCE_ETAG_MAX, "\"%.32s\"", hex);
}

/* Reads the study's definition and versions on db into r. */
static enum hpod_status
imp_read(struct db *db, long long id, const char *metric, struct imp_read *r,
         struct hpod_err *err)
{
    struct study s = {0};
    char version[STUDY_VERSION_MAX], digest[HISTORY_DIGEST_MAX];
    long long n_all;
    enum hpod_status st;

    r->id = id;
    defcache_find(id, &r->def);
    if ((st = study_store_get_issue(db, id, r->def.version, 0, &s, &n_all,
                                    version, err)) != HPOD_OK ||
        (st = defcache_resolve(id, version, s.definition, &r->def, err)) !=
            HPOD_OK)
        goto out;
    if (!(r->metric = find_metric(r->def.d, metric))) {
        st = hpod_fail(err, HPOD_EUNPROC, "objective",
                       "\"%s\" is neither an objective nor a constrained "
                       "metric of this study",
                       metric ? metric : "");
        goto out;
    }
    if ((st = history_store_completed_version(db, id, &r->n_completed, digest,
                                              err)) != HPOD_OK)
        goto out;
    make_etag(version, digest, r->metric, r->etag);
out:
    study_clear(&s);
    return st;
}

static enum hpod_status
too_few(const char *metric, size_t n, struct hpod_err *err)
{
    return hpod_fail(err, HPOD_ECONFLICT, "",
                     "importance needs at least %d completed trials that "
                     "report \"%s\" (this study has %zu): with fewer, each "
                     "bin of a shape function rests on one or two trials",
                     STUDY_IMPORTANCE_MIN_TRIALS, metric, n);
}

/* ---- the fit ---- */

static pthread_mutex_t fits_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long n_fits;

unsigned long long
importance_fits(void)
{
    pthread_mutex_lock(&fits_mu);
    unsigned long long n = n_fits;
    pthread_mutex_unlock(&fits_mu);
    return n;
}

/*
 * Fits r's study on its completed trials (read on db, which is handed
 * back to pool before the fit when pool is set) in the lab's model slot,
 * and keeps the fit: *out, pinned for the caller.
 */
static enum hpod_status
imp_fit(struct db *db, struct db_pool *pool, size_t units, const char *lab,
        const struct imp_read *r, struct importance_entry **out,
        struct hpod_err *err)
{
    const struct study_def *d = r->def.d;
    size_t np = d->space.n_params, n_rows = 0, n = 0;
    struct trial *rows = NULL;
    double *x = NULL, *y = NULL;
    unsigned char *cat = NULL;
    struct labsched_ticket t = {0};
    struct importance_entry *e = NULL;
    struct ebm *model = NULL;
    enum hpod_status st;

    *out = NULL;
    st = trial_store_list(db, r->id, TRIAL_COMPLETED, -1, 0, &rows, &n_rows,
                          NULL, err);
    if (pool)
        db_pool_release(pool, db);
    if (st != HPOD_OK)
        goto out;
    trials_drop_excluded(rows, &n_rows); /* out of every model */
    importance_data(d, rows, n_rows, r->metric, &x, &y, &n);
    if (n < STUDY_IMPORTANCE_MIN_TRIALS) {
        st = too_few(r->metric, n, err);
        goto out;
    }
    cat = xcalloc(np ? np : 1, 1);
    for (size_t j = 0; j < np; j++)
        cat[j] = d->space.params[j].type == PARAM_CATEGORICAL;
    if ((st = labsched_enter(units, lab, &t, err)) != HPOD_OK)
        goto out;
    st = ebm_fit(x, n, np, cat, y, NULL, &model);
    labsched_leave(&t);
    if (st != HPOD_OK) {
        st = hpod_fail(err, HPOD_EINTERNAL, "", "the importance model failed");
        goto out;
    }
    pthread_mutex_lock(&fits_mu);
    n_fits++;
    pthread_mutex_unlock(&fits_mu);
    e = xcalloc(1, sizeof *e);
    snprintf(e->etag, sizeof e->etag, "%s", r->etag);
    snprintf(e->metric, sizeof e->metric, "%s", r->metric);
    e->model = model;
    e->n = n;
    e->np = np;
    e->names = xcalloc(np ? np : 1, sizeof *e->names);
    e->choices = xcalloc(np ? np : 1, sizeof *e->choices);
    for (size_t j = 0; j < np; j++) {
        e->names[j] = xstrdup(d->names[j]);
        e->choices[j] = d->choices[j] ? json_deep_copy(d->choices[j]) : NULL;
    }
    e->mc = modelcache_add(MODELCACHE_IMPORTANCE, r->id, r->metric, e,
                           entry_bytes(e), entry_free);
    *out = e;
out:
    free(x);
    free(y);
    free(cat);
    trials_free(rows, n_rows);
    return st;
}

/* ---- fits in the background ---- */

struct imp_job {
    struct db_pool *pool;
    size_t units;
    char lab[ACCESS_LAB_MAX + 1];
    long long id;
    char metric[METRIC_NAME_MAX + 1];
    struct imp_job *next;
};

static pthread_mutex_t jobs_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_cv = PTHREAD_COND_INITIALIZER;
static struct imp_job *jobs;
static size_t n_jobs;
static int stopping;

static void *
job_main(void *arg)
{
    struct imp_job *j = arg;
    struct imp_read r = {0};
    struct importance_entry *e = NULL;
    struct hpod_err err = {0};
    struct db *db = NULL;

    /* The versions as they are now: the fit is kept under them. */
    if (db_pool_acquire(j->pool, &db, &err) == HPOD_OK) {
        db_pool_swap_stale(j->pool, &db);
        if (imp_read(db, j->id, j->metric, &r, &err) == HPOD_OK)
            imp_fit(db, j->pool, j->units, j->lab, &r, &e, &err);
        else
            db_pool_release(j->pool, db);
    }
    if (e)
        modelcache_put(e->mc, 1);
    imp_read_clear(&r);
    pthread_mutex_lock(&jobs_mu);
    for (struct imp_job **pp = &jobs; *pp; pp = &(*pp)->next)
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    n_jobs--;
    pthread_cond_broadcast(&jobs_cv);
    pthread_mutex_unlock(&jobs_mu);
    free(j);
    return NULL;
}

/* Starts the fit of (id, metric) in the background unless one runs. */
static enum hpod_status
job_start(const struct importance_where *w, const char *lab, long long id,
          const char *metric, struct hpod_err *err)
{
    struct imp_job *j;
    pthread_attr_t attr;
    pthread_t th;

    pthread_mutex_lock(&jobs_mu);
    for (j = jobs; j; j = j->next)
        if (j->id == id && strcmp(j->metric, metric) == 0)
            break;
    if (j || stopping) {
        pthread_mutex_unlock(&jobs_mu);
        return HPOD_OK;
    }
    if (n_jobs >= IMPORTANCE_JOBS) {
        pthread_mutex_unlock(&jobs_mu);
        return hpod_fail_retry(err, HPOD_EBUSY, IMPORTANCE_RETRY_SECONDS, "",
                               "the server is fitting the importance of %d "
                               "big studies already: try again shortly",
                               IMPORTANCE_JOBS);
    }
    j = xcalloc(1, sizeof *j);
    j->pool = w->pool;
    j->units = w->units;
    snprintf(j->lab, sizeof j->lab, "%s", lab);
    j->id = id;
    snprintf(j->metric, sizeof j->metric, "%s", metric);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&th, &attr, job_main, j) != 0) {
        pthread_attr_destroy(&attr);
        pthread_mutex_unlock(&jobs_mu);
        free(j);
        return hpod_fail_retry(err, HPOD_EBUSY, IMPORTANCE_RETRY_SECONDS, "",
                               "could not start the importance fit");
    }
    pthread_attr_destroy(&attr);
    j->next = jobs;
    jobs = j;
    n_jobs++;
    pthread_mutex_unlock(&jobs_mu);
    return HPOD_OK;
}

void
importance_stop(void)
{
    pthread_mutex_lock(&jobs_mu);
    stopping = 1;
    while (n_jobs > 0)
        pthread_cond_wait(&jobs_cv, &jobs_mu);
    pthread_mutex_unlock(&jobs_mu);
}

/* ---- the answer ---- */

static void
answer_entry(struct importance_compute *out, struct importance_entry *e,
             int stale)
{
    out->status = 200;
    out->entry = e;
    out->stale = stale;
    out->retry_after = stale ? IMPORTANCE_RETRY_SECONDS : 0;
    snprintf(out->etag, sizeof out->etag, "%s", e->etag);
    out->model = e->model;
    out->metric = e->metric;
    out->names = (const char *const *)e->names;
    out->choices = e->choices;
    out->n = e->n;
}

/*
 * After the versions: the kept fit when it is current, else a fit on the
 * request (small studies) or in the background (the last fit meanwhile,
 * stale, or 202). db is handed back to pool on every path.
 */
static enum hpod_status
imp_answer(const struct importance_where *w, const char *lab, struct db *db,
           const struct imp_read *r, struct importance_compute *out,
           struct hpod_err *err)
{
    void *obj;
    struct modelcache_entry *mc =
        modelcache_get(MODELCACHE_IMPORTANCE, r->id, r->metric, &obj);
    struct importance_entry *kept = obj, *e = NULL;
    enum hpod_status st;

    if (kept && strcmp(kept->etag, r->etag) == 0) {
        db_pool_release(w->pool, db);
        answer_entry(out, kept, 0);
        return HPOD_OK;
    }
    if (r->n_completed * r->def.d->space.n_params <= IMPORTANCE_SYNC_CELLS) {
        modelcache_put(mc, 1);
        if ((st = imp_fit(db, w->pool, w->units, lab, r, &e, err)) != HPOD_OK)
            return st;
        answer_entry(out, e, 0);
        return HPOD_OK;
    }
    db_pool_release(w->pool, db);
    if ((st = job_start(w, lab, r->id, r->metric, err)) != HPOD_OK) {
        modelcache_put(mc, 1);
        return st;
    }
    if (kept) {
        answer_entry(out, kept, 1);
        return HPOD_OK;
    }
    out->status = 202;
    out->retry_after = IMPORTANCE_RETRY_SECONDS;
    return HPOD_OK;
}

enum hpod_status
importance_compute(const struct importance_where *w, long long study_id,
                   const char *metric, const char *if_none_match,
                   struct importance_compute *out, struct hpod_err *err)
{
    struct imp_read r = {0};
    char lab[ACCESS_LAB_MAX + 1];
    struct db *db = NULL;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    snprintf(lab, sizeof lab, "%s", w->lab ? w->lab : "");
    if ((st = db_pool_acquire(w->pool, &db, err)) != HPOD_OK)
        return st;
    /* A read that tolerates staleness (server/router.c
     * router_reads_stale) goes to a standby close enough behind, when
     * there is one: its versions are the primary's of a moment ago. */
    db_pool_swap_stale(w->pool, &db);
    if ((!lab[0] && (st = labsched_study_lab(db, NULL, study_id, lab,
                                             sizeof lab, err)) != HPOD_OK) ||
        (st = imp_read(db, study_id, metric, &r, err)) != HPOD_OK)
        goto fail;
    if (if_none_match && etag_listed(if_none_match, r.etag)) {
        out->status = 304;
        snprintf(out->etag, sizeof out->etag, "%s", r.etag);
        goto fail; /* not a failure: nothing to read or fit */
    }
    if (r.n_completed < STUDY_IMPORTANCE_MIN_TRIALS) {
        st = too_few(r.metric, r.n_completed, err);
        goto fail;
    }
    st = imp_answer(w, lab, db, &r, out, err);
    imp_read_clear(&r);
    return st;
fail:
    db_pool_release(w->pool, db);
    imp_read_clear(&r);
    return st;
}

void
importance_clear(struct importance_compute *a)
{
    if (!a)
        return;
    if (a->entry)
        modelcache_put(a->entry->mc, 1);
    memset(a, 0, sizeof *a);
}
