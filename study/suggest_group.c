/*
 * study/suggest_group.c - suggest calls queued per study and answered in
 * groups; see suggest_group.h.
 *
 * The map holds one struct group per study with calls in flight, found by
 * study id under map_mu and freed by the last call that leaves it (users
 * counts the calls that hold a pointer to it). Each group has its own
 * mutex and condition variable, so studies never contend with each
 * other. Lock order: map_mu, then a group's mu (never the other way).
 */
#include "study/suggest_group.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "study/labsched.h"

#define GROUP_BUCKETS 64 /* chains stay short: live groups are few */

struct group {
    long long study_id;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int busy; /* a leader runs a transaction for this study */
    struct member *head, *tail;
    size_t users; /* calls holding this group (under map_mu) */
    struct group *next;
};

static pthread_mutex_t map_mu = PTHREAD_MUTEX_INITIALIZER;
static struct group *buckets[GROUP_BUCKETS];
static size_t n_live;

/* The live group of study id (created on first use); one more user. */
static struct group *
group_get(long long id)
{
    struct group **b = &buckets[(unsigned long long)id % GROUP_BUCKETS], *g;

    pthread_mutex_lock(&map_mu);
    for (g = *b; g && g->study_id != id; g = g->next)
        ;
    if (!g) {
        g = xcalloc(1, sizeof *g);
        g->study_id = id;
        pthread_mutex_init(&g->mu, NULL);
        pthread_cond_init(&g->cv, NULL);
        g->next = *b;
        *b = g;
        n_live++;
    }
    g->users++;
    pthread_mutex_unlock(&map_mu);
    return g;
}

/* One user less; the last one frees the group (its queue is empty). */
static void
group_drop(struct group *g)
{
    struct group **pp;
    int last;

    pthread_mutex_lock(&map_mu);
    last = --g->users == 0;
    if (last) {
        pp = &buckets[(unsigned long long)g->study_id % GROUP_BUCKETS];
        while (*pp != g)
            pp = &(*pp)->next;
        *pp = g->next;
        n_live--;
    }
    pthread_mutex_unlock(&map_mu);
    if (last) {
        pthread_mutex_destroy(&g->mu);
        pthread_cond_destroy(&g->cv);
        free(g);
    }
}

size_t
suggest_group_live(void)
{
    pthread_mutex_lock(&map_mu);
    size_t n = n_live;
    pthread_mutex_unlock(&map_mu);
    return n;
}

/*
 * Runs the transaction of m[0..k-1] once the lab admits it, on the
 * caller's connection or one borrowed for it. Returns 1 when it
 * committed; on a failure to start, every member gets m[0]'s error.
 */
static int
run_admitted(const struct suggest_group_conn *sc, struct member **m, size_t k,
             suggest_group_fn run)
{
    struct labsched_ticket t = {0};
    struct db *db = sc->db;
    int committed = 0;
    enum hpod_status st;

    st = labsched_enter(sc->units, sc->lab, &t, m[0]->err);
    if (st == HPOD_OK && !db)
        st = db_pool_acquire(sc->pool, &db, m[0]->err);
    if (st == HPOD_OK)
        committed = run(db, m[0]->study_id, m, k);
    else
        for (size_t i = 0; i < k; i++) {
            m[i]->st = st;
            if (i > 0)
                *m[i]->err = *m[0]->err;
        }
    if (db && !sc->db)
        db_pool_release(sc->pool, db);
    labsched_leave(&t);
    return committed || st != HPOD_OK;
}

/* Leads: takes me and up to GROUP_MAX - 1 calls queued behind it. */
static void
group_lead(struct group *g, const struct suggest_group_conn *sc,
           struct member *me, suggest_group_fn run)
{
    struct member *m[GROUP_MAX], **pp;
    size_t k = 1;
    int settled;

    g->busy = 1;
    m[0] = me; /* the leader's connection reads and writes for all */
    for (pp = &g->head; *pp;) {
        struct member *x = *pp;
        if (x == me || k < GROUP_MAX) {
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
    settled = run_admitted(sc, m, k, run);
    pthread_mutex_lock(&g->mu);
    /* A group that failed before its commit: every call runs again
     * alone, so one call's error (or a multi-fidelity study) is never
     * another call's answer. A group that could not start (its lab's
     * queue full, no connection) fails every call with that error. */
    for (size_t i = 0; i < k; i++)
        m[i]->state = settled || k == 1 ? M_DONE : M_SOLO;
    g->busy = 0;
    pthread_cond_broadcast(&g->cv);
}

enum hpod_status
suggest_group_call(const struct suggest_group_conn *sc, struct member *me,
                   suggest_group_fn run)
{
    struct group *g = group_get(me->study_id);

    me->state = M_QUEUED;
    me->next = NULL;
    pthread_mutex_lock(&g->mu);
    if (g->tail)
        g->tail->next = me;
    else
        g->head = me;
    g->tail = me;
    while (me->state == M_QUEUED || me->state == M_TAKEN) {
        if (me->state == M_QUEUED && !g->busy) {
            group_lead(g, sc, me, run);
            continue;
        }
        pthread_cond_wait(&g->cv, &g->mu);
    }
    pthread_mutex_unlock(&g->mu);
    group_drop(g);
    if (me->state == M_SOLO) {
        struct member *m[1] = {me};
        run_admitted(sc, m, 1, run);
    }
    return me->st;
}
