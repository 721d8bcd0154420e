/*
 * server/main.c - the hpod binary: `hpod serve`, `hpod migrate`,
 * `hpod healthcheck`.
 *
 * serve: read the configuration, apply migrations (under an advisory lock,
 * so several processes may start at once), open the connection pool, start
 * the HTTP daemon and the lease reaper, and wait for SIGINT/SIGTERM; then
 * stop accepting, finish requests in flight, and free everything.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/linalg.h"
#include "common/clock.h"
#include "bench/catalog.h"
#include "bench/jobs.h"
#include "bench/tables.h"
#include "handlers/handlers.h"
#include "handlers/benchmarks.h"
#include "server/auth.h"
#include "server/config.h"
#include "server/healthcheck.h"
#include "server/http.h"
#include "server/token_cli.h"
#include "store/db.h"
#include "common/log.h"
#include "store/migrate.h"
#include "store/trial_store.h"
#include "study/deadline.h"
#include "study/histcache.h"
#include "study/suggest.h"

static const char *
env_lookup(const char *name)
{
    return getenv(name);
}

static void
usage(FILE *out)
{
    fprintf(out, "usage: hpod serve | hpod migrate | hpod token ... | "
                 "hpod healthcheck | hpod --help\n"
                 "  serve        apply migrations, then serve the REST API\n"
                 "  migrate      apply pending migrations and exit "
                 "(idempotent)\n"
                 "  token        create, list or revoke API tokens "
                 "(`hpod token` for usage)\n"
                 "  healthcheck  exit 0 if the local `hpod serve` answers "
                 "GET /healthz with status ok, else 1\n"
                 "(the benchmark reports are a separate program, "
                 "hpod-bench)\n");
    config_print_help(out);
}

static struct db_opts
db_opts_of(const struct config *cfg)
{
    struct db_opts o = {cfg->db_connect_timeout_ms,
                        cfg->db_statement_timeout_ms};
    return o;
}

/*
 * open_db_waiting - the first connection of `serve` and `migrate`.
 * Containers start together, so PostgreSQL may not accept connections yet.
 * What is retried: every failed db_open (libpq says CONNECTION_BAD for all
 * of them) for as long as db_server_down says nothing answers at the URL
 * (refused, no socket, unknown host, no answer) or the server rejects
 * connections for now (starting up), with backoff 0.1 s doubling to 5 s,
 * for at most HPOD_DB_WAIT_SECONDS, one warning per attempt. What is not:
 * a server that answers but will not let us in (password, user, database
 * name), tried twice in case it has just come up, and a bad URL; those
 * fail at once as before. Returns 0 with *db open, or 1 (logged).
 */
static int
open_db_waiting(const struct config *cfg, struct db **db)
{
    struct db_opts opts = db_opts_of(cfg);
    struct hpod_err err = {0};
    long long start = hpod_now_ms();
    long long deadline = start + cfg->db_wait_seconds * 1000;
    long delay = 100;
    int attempt = 1, answered = 0;

    for (;; attempt++) {
        memset(&err, 0, sizeof err);
        if (db_open(cfg->database_url, &opts, db, &err) == HPOD_OK)
            break;
        if (cfg->db_wait_seconds == 0)
            goto fail;
        if (!db_server_down(cfg->database_url, opts.connect_timeout_ms)) {
            if (answered++)
                goto fail;
            continue;
        }
        answered = 0;
        long long now = hpod_now_ms();
        if (now >= deadline)
            goto fail;
        if (now + delay > deadline)
            delay = (long)(deadline - now);
        hpod_log(HPOD_LOG_WARN,
                 "database not accepting connections yet (attempt %d, "
                 "%.1f s of HPOD_DB_WAIT_SECONDS=%ld), retrying in %.1f s: %s",
                 attempt, (double)(now - start) / 1000, cfg->db_wait_seconds,
                 (double)delay / 1000, err.msg);
        struct timespec ts = {delay / 1000, (delay % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        delay = delay * 2 > 5000 ? 5000 : delay * 2;
    }
    if (attempt > 1)
        hpod_log(HPOD_LOG_INFO,
                 "database accepting connections after %d attempts in %.1f s",
                 attempt, (double)(hpod_now_ms() - start) / 1000);
    return 0;
fail:
    if (attempt == 1)
        hpod_log(HPOD_LOG_ERROR, "could not connect to %s: %s",
                 cfg->database_url, err.msg);
    else if (answered)
        hpod_log(HPOD_LOG_ERROR,
                 "could not connect to %s: %s (the server answers but "
                 "refuses the connection: check the user, password and "
                 "database name; not retried)",
                 cfg->database_url, err.msg);
    else
        hpod_log(HPOD_LOG_ERROR,
                 "could not connect to %s: %s (gave up after %d attempts in "
                 "%.1f s: HPOD_DB_WAIT_SECONDS=%ld)",
                 cfg->database_url, err.msg, attempt,
                 (double)(hpod_now_ms() - start) / 1000, cfg->db_wait_seconds);
    return 1;
}

/* Applies pending migrations; `hpod serve` calls it once, before the pool
 * and the HTTP threads exist. hpod_log redacts the URL's password. */
static int
run_migrate(const struct config *cfg)
{
    struct hpod_err err = {0};
    struct db *db = NULL;
    int applied = 0;
    if (open_db_waiting(cfg, &db) != 0)
        return 1;
    enum hpod_status st = migrate_apply(db, cfg->migrations, &applied, &err);
    db_close(db);
    if (st != HPOD_OK) {
        hpod_log(HPOD_LOG_ERROR, "migration failed: %s", err.msg);
        return 1;
    }
    hpod_log(HPOD_LOG_INFO, "migrations up to date (%d applied now)", applied);
    return 0;
}

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

/* Tokens before the port opens: see server/auth.h. */
static int
serve_auth_check(const struct config *cfg, struct db_pool *pool)
{
    struct db *db = NULL;
    struct hpod_err err = {0};
    enum hpod_status st = db_pool_acquire(pool, &db, &err);
    if (st == HPOD_OK)
        st = auth_startup_check(db, cfg->listen_addr, &err);
    db_pool_release(pool, db);
    if (st != HPOD_OK)
        hpod_log(HPOD_LOG_ERROR, "%s", err.msg);
    return st == HPOD_OK ? 0 : 1;
}

static int
run_serve(const struct config *cfg)
{
    struct hpod_ctx ctx;
    struct bench_db bench;
    struct http_server *http = NULL;
    struct reaper reaper;
    struct hpod_err err = {0};
    struct db_opts opts;
    sigset_t set;
    int sig = 0;

    if (run_migrate(cfg) != 0)
        return 1;
    memset(&ctx, 0, sizeof ctx);
    /* One connection per HTTP thread plus one for the reaper and one the
     * simulation workers share for their short statements. */
    opts = db_opts_of(cfg);
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
    deadline_set_suggest_ms(cfg->suggest_budget_ms);
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

int
main(int argc, char **argv)
{
    struct config cfg;
    struct hpod_err err = {0};

    if (argc < 2 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (config_load(&cfg, env_lookup, &err) != HPOD_OK) {
        fprintf(stderr, "hpod: %s\n", err.msg);
        /* Docker reserves a health check's exit status 2. */
        return strcmp(argv[1], "healthcheck") == 0 ? 1 : 2;
    }
    hpod_log_set_level(strcmp(cfg.log_level, "debug") == 0   ? HPOD_LOG_DEBUG
                       : strcmp(cfg.log_level, "warn") == 0  ? HPOD_LOG_WARN
                       : strcmp(cfg.log_level, "error") == 0 ? HPOD_LOG_ERROR
                                                             : HPOD_LOG_INFO);
    /* BLAS threads would fight the HTTP threads for the two cores, and one
     * thread gives reproducible bits (STYLE.md B.7). */
    linalg_set_threads(1);
    enum auth_mode mode = AUTH_AUTO;
    auth_mode_parse(cfg.auth, &mode); /* config_load checked the value */
    auth_set_mode(mode);
    if (strcmp(argv[1], "migrate") == 0)
        return run_migrate(&cfg);
    if (strcmp(argv[1], "token") == 0) {
        struct db_opts opts = db_opts_of(&cfg);
        return token_cli(cfg.database_url, &opts, argc - 2, argv + 2);
    }
    if (strcmp(argv[1], "serve") == 0)
        return run_serve(&cfg);
    if (strcmp(argv[1], "healthcheck") == 0)
        return healthcheck_run(&cfg);
    fprintf(stderr, "hpod: unknown command \"%s\"\n", argv[1]);
    usage(stderr);
    return 2;
}
