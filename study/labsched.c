/*
 * study/labsched.c - model work admitted per lab; see labsched.h.
 *
 * One mutex guards the whole state: the labs that run or wait (created on
 * demand, freed when idle) and the waiters in arrival order. Each waiter
 * sleeps on its own condition variable, so a grant wakes exactly the
 * thread it is for. dispatch() hands out every free unit at once: a
 * waiter is eligible while its lab runs fewer than its slots; among the
 * eligible, the lab with the fewest running units goes first, then the
 * earliest arrival. A waiter's lab count and its queue position never
 * change while it waits, so the order is decided entirely here.
 */
#include "study/labsched.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "store/access_store.h"

struct lab {
    char name[ACCESS_LAB_MAX + 1];
    size_t running, waiting;
    struct lab *next;
};

struct waiter {
    struct lab *lab;
    int granted;
    pthread_cond_t cv;
    struct waiter *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct lab *lab_list;
static struct waiter *queue_head, *queue_tail;
static size_t units_now = 1, running_total, waiting_total, n_labs;
static long cfg_slots = 0, cfg_queue = 64, cfg_cpus = 0;
static unsigned long long n_admitted, n_refused;

void
labsched_configure(long lab_slots, long lab_queue, long cpus)
{
    pthread_mutex_lock(&mu);
    cfg_slots = lab_slots > 0 ? lab_slots : 0;
    cfg_queue = lab_queue > 0 ? lab_queue : 0;
    cfg_cpus = cpus > 0 ? cpus : 0;
    pthread_mutex_unlock(&mu);
}

/* A lab's slots: configured, or half the units and half the CPUs,
 * whichever is fewer (at least 1). */
static size_t
lab_slots(void)
{
    size_t half = units_now / 2;
    if (cfg_slots > 0)
        return (size_t)cfg_slots;
    if (cfg_cpus > 0 && (size_t)cfg_cpus / 2 < half)
        half = (size_t)cfg_cpus / 2;
    return half > 0 ? half : 1;
}

static struct lab *
lab_get(const char *name)
{
    struct lab *l;
    for (l = lab_list; l; l = l->next)
        if (strcmp(l->name, name) == 0)
            return l;
    l = xcalloc(1, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->next = lab_list;
    lab_list = l;
    n_labs++;
    return l;
}

static void
lab_drop_if_idle(struct lab *l)
{
    if (l->running || l->waiting)
        return;
    for (struct lab **pp = &lab_list; *pp; pp = &(*pp)->next)
        if (*pp == l) {
            *pp = l->next;
            free(l);
            n_labs--;
            return;
        }
}

static void
queue_remove(struct waiter *w)
{
    struct waiter *prev = NULL;
    for (struct waiter *x = queue_head; x; prev = x, x = x->next)
        if (x == w) {
            if (prev)
                prev->next = w->next;
            else
                queue_head = w->next;
            if (queue_tail == w)
                queue_tail = prev;
            return;
        }
}

/* Grants free units to waiters, fewest running lab first. */
static void
dispatch(void)
{
    size_t slots = lab_slots();
    while (running_total < units_now) {
        struct waiter *best = NULL;
        for (struct waiter *w = queue_head; w; w = w->next)
            if (w->lab->running < slots &&
                (!best || w->lab->running < best->lab->running))
                best = w;
        if (!best)
            return;
        queue_remove(best);
        best->granted = 1;
        best->lab->waiting--;
        best->lab->running++;
        waiting_total--;
        running_total++;
        n_admitted++;
        pthread_cond_signal(&best->cv);
    }
}

enum hpod_status
labsched_enter(size_t units, const char *lab, struct labsched_ticket *t,
               struct hpod_err *err)
{
    struct waiter w = {0};

    memset(t, 0, sizeof *t);
    snprintf(t->lab, sizeof t->lab, "%s", lab ? lab : "");
    pthread_cond_init(&w.cv, NULL);
    pthread_mutex_lock(&mu);
    units_now = units > 0 ? units : 1;
    w.lab = lab_get(t->lab);
    w.lab->waiting++;
    waiting_total++;
    if (queue_tail)
        queue_tail->next = &w;
    else
        queue_head = &w;
    queue_tail = &w;
    dispatch();
    if (!w.granted && w.lab->waiting > (size_t)cfg_queue) {
        size_t running = w.lab->running, waiting = w.lab->waiting - 1;
        queue_remove(&w);
        w.lab->waiting--;
        waiting_total--;
        n_refused++;
        lab_drop_if_idle(w.lab);
        pthread_mutex_unlock(&mu);
        pthread_cond_destroy(&w.cv);
        return hpod_fail_retry(
            err, HPOD_ELIMIT, LABSCHED_RETRY_SECONDS, "",
            "lab \"%s\" already has %zu model computations running and %zu "
            "waiting on this server (HPOD_LAB_QUEUE): try again later",
            t->lab, running, waiting);
    }
    while (!w.granted)
        pthread_cond_wait(&w.cv, &mu);
    pthread_mutex_unlock(&mu);
    pthread_cond_destroy(&w.cv);
    t->held = 1;
    return HPOD_OK;
}

void
labsched_leave(struct labsched_ticket *t)
{
    if (!t || !t->held)
        return;
    pthread_mutex_lock(&mu);
    struct lab *l = lab_get(t->lab);
    l->running--;
    running_total--;
    dispatch();
    lab_drop_if_idle(l);
    pthread_mutex_unlock(&mu);
    t->held = 0;
}

void
labsched_stats(struct labsched_stats *out)
{
    pthread_mutex_lock(&mu);
    out->running = running_total;
    out->waiting = waiting_total;
    out->labs = n_labs;
    out->admitted = n_admitted;
    out->refused = n_refused;
    pthread_mutex_unlock(&mu);
}

/* ---- a study's lab, cached ---- */

#define LAB_CACHE_SIZE 4096 /* entries of about 80 bytes */

static pthread_mutex_t lab_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    long long study_id; /* 0: empty */
    char lab[ACCESS_LAB_MAX + 1];
} lab_cache[LAB_CACHE_SIZE];

enum hpod_status
labsched_study_lab(struct db *db, struct db_pool *pool, long long study_id,
                   char *lab, size_t lab_size, struct hpod_err *err)
{
    size_t slot = (size_t)((unsigned long long)study_id % LAB_CACHE_SIZE);
    char found_lab[ACCESS_LAB_MAX + 1];
    struct db *own = NULL;
    int found = 0;
    enum hpod_status st;

    pthread_mutex_lock(&lab_mu);
    if (lab_cache[slot].study_id == study_id && study_id > 0) {
        snprintf(lab, lab_size, "%s", lab_cache[slot].lab);
        pthread_mutex_unlock(&lab_mu);
        return HPOD_OK;
    }
    pthread_mutex_unlock(&lab_mu);
    if (!db && (st = db_pool_acquire(pool, &own, err)) != HPOD_OK)
        return st;
    st = access_store_lab_of(db ? db : own, ACCESS_STUDY, study_id, found_lab,
                             sizeof found_lab, &found, err);
    if (own)
        db_pool_release(pool, own);
    if (st != HPOD_OK)
        return st;
    if (!found)
        return hpod_fail(err, HPOD_ENOTFOUND, "", "study %lld does not exist",
                         study_id);
    pthread_mutex_lock(&lab_mu);
    lab_cache[slot].study_id = study_id;
    snprintf(lab_cache[slot].lab, sizeof lab_cache[slot].lab, "%s", found_lab);
    pthread_mutex_unlock(&lab_mu);
    snprintf(lab, lab_size, "%s", found_lab);
    return HPOD_OK;
}
