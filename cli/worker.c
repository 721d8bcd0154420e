/*
 * cli/worker.c - `hpod worker`; see worker.h.
 */
#include "cli/worker.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "bench/jobs.h"
#include "bench/tables.h"
#include "common/log.h"
#include "handlers/handlers.h"
#include "server/serve.h"
#include "store/migrate.h"
#include "study/reaper.h"

int
worker_run(const struct config *cfg)
{
    struct db_opts opts = config_db_opts(cfg);
    struct hpod_ctx ctx;
    struct bench_db bench;
    sigset_t set;
    int sig = 0;

    if (cfg->sim_workers < 1) {
        hpod_log(HPOD_LOG_ERROR, "hpod worker runs simulation jobs: "
                                 "HPOD_SIM_WORKERS must be 1 or more");
        return 1;
    }
    if (migrate_run(cfg->migrate_database_url, &opts, cfg->db_wait_seconds,
                    cfg->migrations) != 0)
        return 1;
    memset(&ctx, 0, sizeof ctx);
    serve_load_tables(cfg, &bench);
    /* The jobs' short statements and the reaper. */
    ctx.pool = db_pool_create(cfg->database_url, 2, &opts);
    ctx.benchmarks_dir = cfg->benchmarks;
    ctx.bench = &bench;

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct bench_jobs_opts o = serve_jobs_opts(cfg, &ctx);
    ctx.jobs = jobs_start(&o);
    struct reaper *reaper = reaper_start(
        ctx.pool, cfg->reaper_ms, cfg->audit_days, &ctx.leases_expired_total);
    hpod_log(HPOD_LOG_INFO,
             "hpod worker running %ld simulation workers, lease %ld ms, "
             "%zu tables and %zu curve sets",
             cfg->sim_workers, cfg->sim_lease_ms, bench.n_tables, bench.n_lc);

    sigwait(&set, &sig);
    hpod_log(HPOD_LOG_INFO, "received signal %d, shutting down", sig);
    jobs_stop(ctx.jobs); /* jobs in flight go back to the queue */
    jobs_free(ctx.jobs);
    reaper_stop(reaper);
    db_pool_destroy(ctx.pool);
    tables_db_free(&bench);
    hpod_log(HPOD_LOG_INFO, "stopped");
    return 0;
}
