/*
 * study/suggest_group.c - suggest calls queued per study and answered in
 * groups (study/suggest.h); the transaction is study/suggest.c's
 * suggest_run.
 */
#include "study/suggest.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

#define GROUP_SLOTS 64

static struct group {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int busy; /* a leader runs a transaction for this slot */
    struct member *head, *tail;
} groups[GROUP_SLOTS];
static pthread_once_t groups_once = PTHREAD_ONCE_INIT;

static void
groups_init(void)
{
    for (size_t i = 0; i < GROUP_SLOTS; i++) {
        pthread_mutex_init(&groups[i].mu, NULL);
        pthread_cond_init(&groups[i].cv, NULL);
    }
}

static void
answer_reset(struct suggest_answer *out, long long count)
{
    suggest_answer_cleanup(out);
    out->trials = xcalloc(count > 0 ? (size_t)count : 1, sizeof *out->trials);
}

/*
 * Where a leader gets its connection: the caller's (db), or one borrowed
 * from pool for the transaction, at most max_held at once per process.
 */
struct suggest_conn {
    struct db *db;
    struct db_pool *pool;
    size_t max_held;
};

static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t held_cv = PTHREAD_COND_INITIALIZER;
static size_t held_n;

static enum hpod_status
conn_get(const struct suggest_conn *sc, struct db **out, struct hpod_err *err)
{
    enum hpod_status st;

    if (sc->db) {
        *out = sc->db;
        return HPOD_OK;
    }
    pthread_mutex_lock(&held_mu);
    while (held_n >= sc->max_held)
        pthread_cond_wait(&held_cv, &held_mu);
    held_n++;
    pthread_mutex_unlock(&held_mu);
    if ((st = db_pool_acquire(sc->pool, out, err)) != HPOD_OK) {
        pthread_mutex_lock(&held_mu);
        held_n--;
        pthread_cond_signal(&held_cv);
        pthread_mutex_unlock(&held_mu);
    }
    return st;
}

static void
conn_put(const struct suggest_conn *sc, struct db *db)
{
    if (sc->db || !db)
        return;
    db_pool_release(sc->pool, db);
    pthread_mutex_lock(&held_mu);
    held_n--;
    pthread_cond_signal(&held_cv);
    pthread_mutex_unlock(&held_mu);
}

/* Leads: takes me and up to GROUP_MAX - 1 queued calls of my study. */
static void
group_lead(struct group *g, const struct suggest_conn *sc, struct member *me)
{
    struct member *m[GROUP_MAX], **pp;
    struct db *db = NULL;
    size_t k = 1;
    int committed = 0;
    enum hpod_status st;

    g->busy = 1;
    m[0] = me; /* the leader's connection reads and writes for all */
    for (pp = &g->head; *pp;) {
        struct member *x = *pp;
        if (x == me || (x->study_id == me->study_id && k < GROUP_MAX)) {
            *pp = x->next;
            x->state = M_TAKEN;
            if (x != me)
                m[k++] = x;
            continue;
        }
        pp = &x->next;
    }
    g->tail = NULL;
    for (struct member *x = g->head; x; x = x->next)
        g->tail = x;
    pthread_mutex_unlock(&g->mu);
    for (size_t i = 0; i < k; i++)
        answer_reset(m[i]->out, m[i]->count);
    if ((st = conn_get(sc, &db, me->err)) == HPOD_OK)
        committed = suggest_run(db, me->study_id, m, k);
    if (st != HPOD_OK)
        for (size_t i = 0; i < k; i++) {
            m[i]->st = st;
            if (i > 0)
                *m[i]->err = *me->err;
        }
    conn_put(sc, db);
    pthread_mutex_lock(&g->mu);
    /* A group that failed before its commit: every call runs again
     * alone, on its own connection, so one call's error (or a
     * multi-fidelity study) is never another call's answer. A call
     * that found no connection fails with the leader's error. */
    for (size_t i = 0; i < k; i++)
        m[i]->state = committed || k == 1 || st != HPOD_OK ? M_DONE : M_SOLO;
    g->busy = 0;
    pthread_cond_broadcast(&g->cv);
}

static enum hpod_status
suggest_alone(const struct suggest_conn *sc, struct member *me)
{
    struct member *m[1] = {me};
    struct db *db = NULL;
    enum hpod_status st;

    answer_reset(me->out, me->count);
    if ((st = conn_get(sc, &db, me->err)) != HPOD_OK)
        return st;
    suggest_run(db, me->study_id, m, 1);
    conn_put(sc, db);
    return me->st;
}

static enum hpod_status
suggest_grouped(const struct suggest_conn *sc, long long study_id,
                const char *worker, long long count, struct suggest_answer *out,
                struct hpod_err *err)
{
    struct member me = {.study_id = study_id,
                        .worker = worker,
                        .count = count,
                        .out = out,
                        .err = err,
                        .state = M_QUEUED};
    struct group *g;

    memset(out, 0, sizeof *out);
    pthread_once(&groups_once, groups_init);
    g = &groups[(unsigned long long)study_id % GROUP_SLOTS];
    pthread_mutex_lock(&g->mu);
    if (g->tail)
        g->tail->next = &me;
    else
        g->head = &me;
    g->tail = &me;
    while (me.state == M_QUEUED || me.state == M_TAKEN) {
        if (me.state == M_QUEUED && !g->busy) {
            group_lead(g, sc, &me);
            continue;
        }
        pthread_cond_wait(&g->cv, &g->mu);
    }
    pthread_mutex_unlock(&g->mu);
    if (me.state == M_SOLO)
        return suggest_alone(sc, &me);
    return me.st;
}

enum hpod_status
study_suggest(struct db *db, long long study_id, const char *worker,
              long long count, struct suggest_answer *out, struct hpod_err *err)
{
    struct suggest_conn sc = {.db = db};
    return suggest_grouped(&sc, study_id, worker, count, out, err);
}

enum hpod_status
study_suggest_pooled(struct db_pool *pool, size_t max_held, long long study_id,
                     const char *worker, long long count,
                     struct suggest_answer *out, struct hpod_err *err)
{
    struct suggest_conn sc = {.pool = pool,
                              .max_held = max_held ? max_held : 1};
    return suggest_grouped(&sc, study_id, worker, count, out, err);
}
