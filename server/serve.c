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
#include <unistd.h>

#include "bench/catalog.h"
#include "bench/jobs.h"
#include "bench/tables.h"
#include "handlers/handlers.h"
#include "server/auth.h"
#include "server/config.h"
#include "server/http.h"
#include "store/db.h"
#include "common/log.h"
#include "store/migrate.h"
#include "store/standby.h"
#include "study/deadline.h"
#include "study/histcache.h"
#include "study/importance.h"
#include "study/labsched.h"
#include "study/modelcache.h"
#include "study/reaper.h"
#include "study/simalgo.h"
#include "study/suggest.h"

/* The simulation workers (bench/jobs.h), started before the port opens
 * so that a synchronous simulate always has a pool to wait on. */
struct bench_jobs_opts
serve_jobs_opts(const struct config *cfg, struct hpod_ctx *ctx)
{
    struct bench_jobs_opts o = {.pool = ctx->pool,
                                .bench = ctx->bench,
                                .workers = (size_t)cfg->sim_workers,
                                .lease_ms = cfg->sim_lease_ms,
                                .algo = simalgo_parse,
                                .queue_per_lab = cfg->sim_queue_per_lab,
                                .slice_runs = cfg->sim_slice_runs,
                                .slice_ms = cfg->sim_slice_ms,
                                .sync_wait_ms = cfg->sim_sync_wait_ms,
                                .cgroup = cfg->sim_cgroup};
    return o;
}

static void
sim_jobs_start(const struct config *cfg, struct hpod_ctx *ctx)
{
    struct bench_jobs_opts o = serve_jobs_opts(cfg, ctx);
    ctx->jobs = jobs_start(&o);
    hpod_log(HPOD_LOG_INFO, "%ld simulation workers, lease %ld ms%s%s",
             cfg->sim_workers, cfg->sim_lease_ms,
             cfg->sim_cgroup[0] ? ", cpu cgroup " : "", cfg->sim_cgroup);
}

void
serve_load_tables(const struct config *cfg, struct bench_db *bench)
{
    struct hpod_err err = {0};
    memset(bench, 0, sizeof *bench);
    if (cfg->benchmarks[0] &&
        tables_db_load(cfg->benchmarks, bench, &err) != HPOD_OK) {
        hpod_log(HPOD_LOG_WARN, "benchmarks not loaded from %s: %s",
                 cfg->benchmarks, err.msg);
        memset(bench, 0, sizeof *bench);
    } else if (cfg->benchmarks[0]) {
        hpod_log(HPOD_LOG_INFO, "loaded %zu tables and %zu curve sets from %s",
                 bench->n_tables, bench->n_lc, cfg->benchmarks);
    }
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
    struct reaper *reaper = NULL;
    struct standby *standby = NULL;
    struct hpod_err err = {0};
    struct db_opts opts;
    sigset_t set;
    int sig = 0;

    enum auth_mode mode = AUTH_AUTO;
    auth_mode_parse(cfg->auth, &mode); /* config_load checked the value */
    auth_set_mode(mode);
    auth_set_metrics_open(strcmp(cfg->metrics_auth, "off") == 0);
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
    if (cfg->read_database_url[0])
        standby =
            standby_start(ctx.pool, cfg->database_url, cfg->read_database_url,
                          (size_t)cfg->db_pool, &opts, cfg->read_max_lag_ms);
    ctx.benchmarks_dir = cfg->benchmarks;
    ctx.http_metrics_text = http_metrics_text;
    serve_load_tables(cfg, &bench);
    ctx.bench = &bench;
    if (serve_auth_check(cfg, ctx.pool) != 0) {
        standby_stop(standby);
        db_pool_destroy(ctx.pool);
        tables_db_free(&bench);
        return 1;
    }

    /* Block the stop signals in every thread; main waits for them. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    histcache_set_enabled(cfg->history_cache != 0);
    deadline_set_suggest_ms(cfg->suggest_budget_ms);
    labsched_configure(cfg->lab_model_slots, cfg->lab_queue,
                       sysconf(_SC_NPROCESSORS_ONLN));
    modelcache_configure((size_t)cfg->model_cache_mb << 20);
    sim_jobs_start(cfg, &ctx);
    if (http_start(cfg, &ctx, &http, &err) != HPOD_OK) {
        hpod_log(HPOD_LOG_ERROR, "%s", err.msg);
        jobs_stop(ctx.jobs);
        jobs_free(ctx.jobs);
        standby_stop(standby);
        db_pool_destroy(ctx.pool);
        tables_db_free(&bench);
        return 1;
    }
    reaper = reaper_start(ctx.pool, cfg->reaper_ms, cfg->audit_days,
                          &ctx.leases_expired_total);
    /* http_start has bound and listens: the port is the real one. */
    hpod_log(HPOD_LOG_INFO, "hpod serving on http://%s:%ld", cfg->listen_addr,
             http_bound_port(http));

    sigwait(&set, &sig);
    hpod_log(HPOD_LOG_INFO, "received signal %d, shutting down", sig);

    /* Jobs in flight go back to the queue and synchronous waiters answer
     * 503 before the HTTP server waits for its requests. */
    jobs_stop(ctx.jobs);
    http_stop(http);
    importance_stop(); /* background fits borrow from the pool */
    jobs_free(ctx.jobs);
    reaper_stop(reaper);
    standby_stop(standby);
    db_pool_destroy(ctx.pool);
    suggest_cache_clear();
    catalog_clear();
    tables_db_free(&bench);
    hpod_log(HPOD_LOG_INFO, "stopped");
    return 0;
}
