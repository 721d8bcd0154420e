/*
 * store/standby.c - reads on a streaming standby; see standby.h.
 */
#include "store/standby.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"

/* The primary's positions the checker keeps (a period each). */
#define STANDBY_SAMPLES 256

enum sb_state { SB_UNKNOWN, SB_USABLE, SB_LAGGING, SB_DOWN };

struct standby {
    struct db_pool *primary, *pool;
    char *primary_url, *url;
    struct db_opts opts;
    long max_lag_ms, period_ms;
    atomic_int usable;
    pthread_mutex_t mu; /* state; stop, with cv */
    pthread_cond_t cv;
    enum sb_state state;
    int stop;
    pthread_t thread;
    /* The checker's own (its thread only). */
    struct db *pconn, *sconn;
    long long at[STANDBY_SAMPLES];
    unsigned long long lsn_at[STANDBY_SAMPLES];
    size_t n;
};

long
standby_period_ms(long max_lag_ms)
{
    long p = max_lag_ms / 5;
    return p < 20 ? 20 : p > 250 ? 250 : p;
}

unsigned long long
standby_parse_lsn(const char *text)
{
    unsigned hi, lo;
    char end;
    if (!text || sscanf(text, "%X/%X%c", &hi, &lo, &end) != 2)
        return 0;
    return (unsigned long long)hi << 32 | lo;
}

long long
standby_lag_ms(const long long *at, const unsigned long long *lsn_at, size_t n,
               unsigned long long lsn, long long now)
{
    for (size_t i = n; i-- > 0;)
        if (lsn_at[i] <= lsn)
            return now - at[i];
    return -1;
}

/* Moves to state to and logs the change, once; detail says why. */
static void
set_state(struct standby *s, enum sb_state to, long long lag, const char *why)
{
    /* A standby that comes back is behind at first: it stays down (not
     * back yet; reads went to the primary when it went down) until it
     * has caught up. */
    pthread_mutex_lock(&s->mu);
    enum sb_state from = s->state;
    if (from == SB_DOWN && to == SB_LAGGING)
        to = SB_DOWN;
    s->state = to;
    atomic_store(&s->usable, to == SB_USABLE);
    pthread_mutex_unlock(&s->mu);
    if (from == to)
        return;
    if (to == SB_DOWN) /* its idle connections are dead sockets now */
        db_pool_drop_idle(s->pool);
    if (to == SB_USABLE)
        hpod_log(HPOD_LOG_INFO,
                 "standby %s: reads that tolerate staleness go to it (%lld "
                 "ms behind, HPOD_READ_MAX_LAG_MS=%ld)",
                 s->url, lag, s->max_lag_ms);
    else if (to == SB_LAGGING)
        hpod_log(HPOD_LOG_WARN,
                 "standby %s is %s HPOD_READ_MAX_LAG_MS=%ld ms behind: reads "
                 "go to the primary until it catches up",
                 s->url, lag < 0 ? "more than" : "over", s->max_lag_ms);
    else
        hpod_log(HPOD_LOG_WARN,
                 "standby %s unreachable: reads go to the primary until it "
                 "is back: %s",
                 s->url, why);
}

/* One position of the server on *c (opened on url if need be): the
 * primary's current one, or the standby's replayed one (a standby that
 * is no longer in recovery was promoted: it has everything). 0 with *lsn
 * set, -1 with why. */
static int
position(struct standby *s, struct db **c, const char *url, int primary,
         unsigned long long *lsn, char *why, size_t cap)
{
    struct hpod_err err = {0};
    struct db_result *r = NULL;
    const char *sql =
        primary ? "SELECT pg_current_wal_lsn()::text AS lsn, false AS rec"
                : "SELECT pg_last_wal_replay_lsn()::text AS lsn,"
                  " pg_is_in_recovery() AS rec";
    if ((!*c && db_open(url, &s->opts, c, &err) != HPOD_OK) ||
        db_exec(*c, sql, 0, NULL, &r, &err) != HPOD_OK) {
        snprintf(why, cap, "%s", err.msg[0] ? err.msg : "no answer");
        db_close(*c);
        *c = NULL;
        return -1;
    }
    const char *rec = db_get(r, 0, "rec");
    *lsn = rec && rec[0] == 'f' && !primary
               ? ~0ULL
               : standby_parse_lsn(db_get(r, 0, "lsn"));
    db_result_free(r);
    return 0;
}

/* One check: a primary position, then the standby's. */
static void
check_once(struct standby *s)
{
    unsigned long long p, r;
    char why[256];
    if (position(s, &s->pconn, s->primary_url, 1, &p, why, sizeof why) != 0)
        return; /* the primary's own pool says so; nothing to judge by */
    if (s->n == STANDBY_SAMPLES) {
        memmove(s->at, s->at + 1, (s->n - 1) * sizeof s->at[0]);
        memmove(s->lsn_at, s->lsn_at + 1, (s->n - 1) * sizeof s->lsn_at[0]);
        s->n--;
    }
    s->at[s->n] = hpod_now_ms();
    s->lsn_at[s->n++] = p;
    if (position(s, &s->sconn, s->url, 0, &r, why, sizeof why) != 0) {
        set_state(s, SB_DOWN, 0, why);
        return;
    }
    long long lag = standby_lag_ms(s->at, s->lsn_at, s->n, r, hpod_now_ms());
    set_state(s, lag >= 0 && lag <= s->max_lag_ms ? SB_USABLE : SB_LAGGING, lag,
              "");
}

static void *
checker_main(void *arg)
{
    struct standby *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        pthread_mutex_unlock(&s->mu);
        check_once(s);
        pthread_mutex_lock(&s->mu);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        long long ns = until.tv_nsec + s->period_ms * 1000000LL;
        until.tv_sec += (time_t)(ns / 1000000000LL);
        until.tv_nsec = (long)(ns % 1000000000LL);
        if (!s->stop)
            pthread_cond_timedwait(&s->cv, &s->mu, &until);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* The primary pool's stale reader: a standby connection, or NULL. */
static struct db *
stale_reader(void *arg)
{
    struct standby *s = arg;
    struct db *db = NULL;
    struct hpod_err err = {0};
    if (!atomic_load(&s->usable))
        return NULL;
    if (db_pool_acquire(s->pool, &db, &err) != HPOD_OK) {
        set_state(s, SB_DOWN, 0, err.msg);
        return NULL;
    }
    return db;
}

struct standby *
standby_start(struct db_pool *primary, const char *primary_url, const char *url,
              size_t size, const struct db_opts *opts, long max_lag_ms)
{
    struct standby *s = xcalloc(1, sizeof *s);
    s->primary = primary;
    s->primary_url = xstrdup(primary_url);
    s->url = xstrdup(url);
    s->opts = *opts;
    s->max_lag_ms = max_lag_ms;
    s->period_ms = standby_period_ms(max_lag_ms);
    s->pool = db_pool_create(url, size, opts);
    db_pool_set_quiet(s->pool);
    atomic_init(&s->usable, 0);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    db_pool_set_stale_reader(primary, stale_reader, s);
    pthread_create(&s->thread, NULL, checker_main, s);
    return s;
}

void
standby_stop(struct standby *s)
{
    if (!s)
        return;
    db_pool_set_stale_reader(s->primary, NULL, NULL);
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    db_close(s->pconn);
    db_close(s->sconn);
    db_pool_destroy(s->pool);
    free(s->primary_url);
    free(s->url);
    free(s);
}
