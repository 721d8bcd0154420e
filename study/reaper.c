/*
 * study/reaper.c - the lease reaper; see reaper.h.
 */
#include "study/reaper.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"
#include "store/audit_store.h"
#include "store/lease_store.h"

struct reaper {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    long period_ms;
    long audit_days;
    long long audit_next_ms; /* when the audit log is pruned next */
    struct db_pool *pool;
    atomic_llong *expired_total;
};

/* One recovery on a pooled connection. */
static void
reap_once(struct reaper *r)
{
    struct db *db = NULL;
    struct hpod_err err = {0};
    long long failed = 0, requeued = 0, n;
    if (db_pool_acquire(r->pool, &db, &err) != HPOD_OK)
        return;
    if (lease_store_expire(db, 0, &failed, &requeued, &err) == HPOD_OK &&
        (n = failed + requeued) > 0) {
        if (r->expired_total)
            atomic_fetch_add(r->expired_total, n);
        hpod_log(HPOD_LOG_INFO, "recovered %lld expired leases", n);
    }
    if (hpod_now_ms() >= r->audit_next_ms) {
        r->audit_next_ms = hpod_now_ms() + REAPER_AUDIT_EVERY_MS;
        if (audit_store_prune(db, r->audit_days, REAPER_AUDIT_BATCH, &n,
                              &err) == HPOD_OK &&
            n > 0)
            hpod_log(HPOD_LOG_INFO,
                     "deleted %lld audit events older than %ld days "
                     "(HPOD_AUDIT_DAYS)",
                     n, r->audit_days);
    }
    db_pool_release(r->pool, db);
}

static void *
reaper_main(void *arg)
{
    struct reaper *r = arg;
    pthread_mutex_lock(&r->mu);
    while (!r->stop) {
        struct timespec until = hpod_deadline_in(r->period_ms);
        pthread_cond_timedwait(&r->cv, &r->mu, &until);
        if (r->stop)
            break;
        pthread_mutex_unlock(&r->mu);
        reap_once(r);
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

struct reaper *
reaper_start(struct db_pool *pool, long period_ms, long audit_days,
             atomic_llong *expired_total)
{
    struct reaper *r = xcalloc(1, sizeof *r);
    r->pool = pool;
    r->period_ms = period_ms;
    r->audit_days = audit_days;
    r->expired_total = expired_total;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    pthread_create(&r->thread, NULL, reaper_main, r);
    return r;
}

void
reaper_stop(struct reaper *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->thread, NULL);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r);
}
