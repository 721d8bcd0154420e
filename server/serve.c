/*
 * server/serve.c - `hpod serve`; see serve.h.
 */
#include "server/serve.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/catalog.h"
#include "bench/jobs.h"
#include "bench/tables.h"
#include "handlers/handlers.h"
#include "handlers/benchmarks.h"
#include "server/auth.h"
#include "server/config.h"
#include "server/http.h"
#include "store/db.h"
#include "common/log.h"
#include "store/migrate.h"
#include "store/trial_store.h"
#include "study/histcache.h"
#include "study/suggest.h"

/* The reaper recovers lapsed leases without any client action. */
struct reaper {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    long period_ms;
    struct hpod_ctx *ctx;
};

static void *
reaper_main(void *arg)
{
    struct reaper *r = arg;
    pthread_mutex_lock(&r->mu);
    while (!r->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += r->period_ms / 1000;
        until.tv_nsec += (r->period_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&r->cv, &r->mu, &until);
        if (r->stop)
            break;
        pthread_mutex_unlock(&r->mu);
        struct db *db = NULL;
        struct hpod_err err = {0};
        long long n = 0;
        if (db_pool_acquire(r->ctx->pool, &db, &err) == HPOD_OK) {
            if (trial_store_expire(db, 0, &n, &err) == HPOD_OK && n > 0) {
                atomic_fetch_add(&r->ctx->leases_expired_total, n);
                hpod_log(HPOD_LOG_INFO, "recovered %lld expired leases", n);
            }
            db_pool_release(r->ctx->pool, db);
        }
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* The simulation workers (bench/jobs.h), started before the port opens
 * so that a synchronous simulate always has a pool to wait on. */
static void
sim_jobs_start(const struct config *cfg, struct hpod_ctx *ctx)
{
    struct bench_jobs_opts o = {.pool = ctx->pool,
                                .bench = ctx->bench,
                                .workers = (size_t)cfg->sim_workers,
                                .lease_ms = cfg->sim_lease_ms,
                                .run = simulation_job_run,
                                .run_arg = ctx,
                                .cgroup = cfg->sim_cgroup};
    ctx->jobs = bench_jobs_start(&o);
    hpod_log(HPOD_LOG_INFO, "%ld simulation workers, lease %ld ms%s%s",
             cfg->sim_workers, cfg->sim_lease_ms,
             cfg->sim_cgroup[0] ? ", cpu cgroup " : "", cfg->sim_cgroup);
}

/* Before the port opens: the server's settings (store/db.h) and the
 * tokens (server/auth.h). */
static int
serve_auth_check(const struct config *cfg, struct db_pool *pool)
{
    struct db *db = NULL;
    struct hpod_err err = {0};
    enum hpod_status st = db_pool_acquire(pool, &db, &err);
    if (st == HPOD_OK)
        st = db_check_settings(db, &err);
    if (st == HPOD_OK)
        st = auth_startup_check(db, cfg->listen_addr, &err);
    db_pool_release(pool, db);
    if (st != HPOD_OK)
        hpod_log(HPOD_LOG_ERROR, "%s", err.msg);
    return st == HPOD_OK ? 0 : 1;
}

int
serve_run(const struct config *cfg)
{
    struct hpod_ctx ctx;
    struct bench_db bench;
    struct http_server *http = NULL;
    struct reaper reaper;
    struct hpod_err err = {0};
    struct db_opts opts;
    sigset_t set;
    int sig = 0;

    enum auth_mode mode = AUTH_AUTO;
    auth_mode_parse(cfg->auth, &mode); /* config_load checked the value */
    auth_set_mode(mode);
    opts = config_db_opts(cfg);
    if (migrate_run(cfg->migrate_database_url, &opts, cfg->db_wait_seconds,
                    cfg->migrations) != 0)
        return 1;
    memset(&ctx, 0, sizeof ctx);
    /* One connection per HTTP thread plus one for the reaper and one the
     * simulation workers share for their short statements. */
    ctx.pool = db_pool_create(cfg->database_url,
                              (size_t)cfg->db_pool + 1 + (cfg->sim_workers > 0),
                              &opts);
    ctx.benchmarks_dir = cfg->benchmarks;
    ctx.http_metrics_text = http_metrics_text;
    /* Lookup tables from files; users' own tables live in PostgreSQL. */
    memset(&bench, 0, sizeof bench);
    if (cfg->benchmarks[0] &&
        bench_db_load(cfg->benchmarks, &bench, &err) != HPOD_OK) {
        hpod_log(HPOD_LOG_WARN, "benchmarks not loaded from %s: %s",
                 cfg->benchmarks, err.msg);
        memset(&bench, 0, sizeof bench);
    } else if (cfg->benchmarks[0]) {
        hpod_log(HPOD_LOG_INFO, "loaded %zu tables and %zu curve sets from %s",
                 bench.n_tables, bench.n_lc, cfg->benchmarks);
    }
    ctx.bench = &bench;
    if (serve_auth_check(cfg, ctx.pool) != 0) {
        db_pool_destroy(ctx.pool);
        bench_db_free(&bench);
        return 1;
    }

    /* Block the stop signals in every thread; main waits for them. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    hcache_set_enabled(cfg->history_cache != 0);
    sim_jobs_start(cfg, &ctx);
    if (http_start(cfg, &ctx, &http, &err) != HPOD_OK) {
        hpod_log(HPOD_LOG_ERROR, "%s", err.msg);
        bench_jobs_stop(ctx.jobs);
        bench_jobs_free(ctx.jobs);
        db_pool_destroy(ctx.pool);
        bench_db_free(&bench);
        return 1;
    }
    memset(&reaper, 0, sizeof reaper);
    pthread_mutex_init(&reaper.mu, NULL);
    pthread_cond_init(&reaper.cv, NULL);
    reaper.period_ms = cfg->reaper_ms;
    reaper.ctx = &ctx;
    pthread_create(&reaper.thread, NULL, reaper_main, &reaper);
    /* http_start has bound and listens: the port is the real one. */
    hpod_log(HPOD_LOG_INFO, "hpod serving on http://%s:%ld", cfg->listen_addr,
             http_bound_port(http));

    sigwait(&set, &sig);
    hpod_log(HPOD_LOG_INFO, "received signal %d, shutting down", sig);

    /* Jobs in flight go back to the queue and synchronous waiters answer
     * 503 before the HTTP server waits for its requests. */
    bench_jobs_stop(ctx.jobs);
    http_stop(http);
    bench_jobs_free(ctx.jobs);
    pthread_mutex_lock(&reaper.mu);
    reaper.stop = 1;
    pthread_cond_signal(&reaper.cv);
    pthread_mutex_unlock(&reaper.mu);
    pthread_join(reaper.thread, NULL);
    pthread_mutex_destroy(&reaper.mu);
    pthread_cond_destroy(&reaper.cv);
    db_pool_destroy(ctx.pool);
    suggest_cache_clear();
    bench_catalog_clear();
    bench_db_free(&bench);
    hpod_log(HPOD_LOG_INFO, "stopped");
    return 0;
}
