/*
 * handlers/health.c - /healthz (process and database), /metrics
 * (Prometheus text), /openapi.json (the spec compiled into the binary).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/histogram.h"
#include "common/mem.h"
#include "common/strbuf.h"
#include "handlers/handlers.h"
#include "store/bench_store.h"
#include "study/algometrics.h"
#include "study/importance.h"
#include "study/labsched.h"
#include "study/modelcache.h"

/* Labs listed by hpod_simulation_queue_depth; the rest sum in one. */
#define METRICS_QUEUE_LABS 100

/* Generated at build time from openapi/openapi.json (scripts/embed.sh). */
extern const unsigned char hpod_openapi_json[];
extern const unsigned long hpod_openapi_json_len;

enum hpod_status
handle_healthz(struct req *rq)
{
    struct db *db = NULL;
    struct hpod_err err = {0};
    int ok = db_pool_acquire(rq->ctx->pool, &db, &err) == HPOD_OK &&
             db_ping(db, &err) == HPOD_OK;
    db_pool_release(rq->ctx->pool, db);
    if (ok)
        return reply_json(
            rq, 200, json_pack("{s:s, s:s}", "status", "ok", "database", "ok"));
    return reply_json(rq, 503,
                      json_pack("{s:s, s:s}", "status", "unavailable",
                                "database", "unreachable"));
}

/* The primary pool of this process (store/db.h db_pool_stats). */
static void
pool_metrics(struct strbuf *b, struct db_pool *pool)
{
    struct db_pool_stats ps;
    db_pool_stats(pool, &ps);
    strbuf_printf(
        b,
        "# HELP hpod_db_pool_connections Database connections this process "
        "may open (HPOD_DB_POOL and its own).\n"
        "# TYPE hpod_db_pool_connections gauge\n"
        "hpod_db_pool_connections %zu\n"
        "# HELP hpod_db_pool_in_use Database connections lent now.\n"
        "# TYPE hpod_db_pool_in_use gauge\nhpod_db_pool_in_use %zu\n"
        "# HELP hpod_db_pool_waiting Callers waiting for a connection now.\n"
        "# TYPE hpod_db_pool_waiting gauge\nhpod_db_pool_waiting %zu\n",
        ps.size, ps.in_use, ps.waiting);
    strbuf_printf(
        b,
        "# HELP hpod_db_pool_waits_total Connection requests that had to "
        "wait.\n"
        "# TYPE hpod_db_pool_waits_total counter\n"
        "hpod_db_pool_waits_total %llu\n"
        "# HELP hpod_db_pool_wait_seconds_total Time spent waiting for a "
        "connection.\n"
        "# TYPE hpod_db_pool_wait_seconds_total counter\n"
        "hpod_db_pool_wait_seconds_total %.6f\n",
        ps.waits, ps.wait_seconds);
}

/* Simulation jobs queued and running per lab, from the database (the
 * same from every process); nothing when it cannot be reached. */
static void
queue_metrics(struct strbuf *b, struct db_pool *pool)
{
    struct db *db = NULL;
    struct hpod_err err = {0};
    struct sim_queue_row *rows = NULL;
    size_t n = 0;
    char lab[200];

    if (db_pool_acquire(pool, &db, &err) != HPOD_OK ||
        sim_store_queue_depth(db, METRICS_QUEUE_LABS, &rows, &n, &err) !=
            HPOD_OK) {
        db_pool_release(pool, db);
        return;
    }
    db_pool_release(pool, db);
    strbuf_printf(
        b, "# HELP hpod_simulation_queue_depth Simulation jobs queued or "
           "running, by lab (\"\": without one) and state.\n"
           "# TYPE hpod_simulation_queue_depth gauge\n");
    for (size_t i = 0; i < n; i++) {
        histogram_escape(rows[i].lab, lab, sizeof lab);
        strbuf_printf(
            b,
            "hpod_simulation_queue_depth{lab=\"%s\",state=\"queued\"} "
            "%lld\n"
            "hpod_simulation_queue_depth{lab=\"%s\",state=\"running\"} "
            "%lld\n",
            lab, rows[i].queued, lab, rows[i].running);
    }
    free(rows);
}

/* The model work and model memory of this process (study/labsched.h,
 * study/modelcache.h, study/importance.h). */
static void
model_metrics(struct strbuf *b)
{
    struct modelcache_stats mc;
    struct labsched_stats ls;

    modelcache_stats(&mc);
    labsched_stats(&ls);
    strbuf_printf(b,
                  "# HELP hpod_model_cache_bytes Model memory kept between "
                  "requests.\n"
                  "# TYPE hpod_model_cache_bytes gauge\n"
                  "hpod_model_cache_bytes %zu\n"
                  "# HELP hpod_model_cache_budget_bytes HPOD_MODEL_CACHE_MB.\n"
                  "# TYPE hpod_model_cache_budget_bytes gauge\n"
                  "hpod_model_cache_budget_bytes %zu\n"
                  "# HELP hpod_model_cache_evictions_total Entries evicted to "
                  "make room.\n"
                  "# TYPE hpod_model_cache_evictions_total counter\n"
                  "hpod_model_cache_evictions_total %llu\n"
                  "# HELP hpod_model_cache_refused_total Models refused for "
                  "lack of room (503).\n"
                  "# TYPE hpod_model_cache_refused_total counter\n"
                  "hpod_model_cache_refused_total %llu\n"
                  "# HELP hpod_model_work_running Model computations "
                  "running.\n"
                  "# TYPE hpod_model_work_running gauge\n"
                  "hpod_model_work_running %zu\n"
                  "# HELP hpod_model_work_waiting Model computations waiting "
                  "for their lab's slot.\n"
                  "# TYPE hpod_model_work_waiting gauge\n"
                  "hpod_model_work_waiting %zu\n"
                  "# HELP hpod_model_work_refused_total Model computations "
                  "refused past HPOD_LAB_QUEUE (429).\n"
                  "# TYPE hpod_model_work_refused_total counter\n"
                  "hpod_model_work_refused_total %llu\n"
                  "# HELP hpod_importance_fits_total Importance models fitted "
                  "(a kept fit answers unchanged studies).\n"
                  "# TYPE hpod_importance_fits_total counter\n"
                  "hpod_importance_fits_total %llu\n",
                  mc.used, mc.budget, mc.evictions, mc.refused, ls.running,
                  ls.waiting, ls.refused, importance_fits());
}

enum hpod_status
handle_metrics(struct req *rq)
{
    struct strbuf b = {0};
    char *http = rq->ctx->http_metrics_text();

    strbuf_put(&b, http, strlen(http));
    free(http);
    strbuf_printf(
        &b,
        "# HELP hpod_suggestions_total Trials issued by suggest.\n"
        "# TYPE hpod_suggestions_total counter\n"
        "hpod_suggestions_total %lld\n"
        "# HELP hpod_leases_expired_total Trials failed because their "
        "lease lapsed.\n"
        "# TYPE hpod_leases_expired_total counter\n"
        "hpod_leases_expired_total %lld\n",
        (long long)atomic_load(&rq->ctx->suggestions_total),
        (long long)atomic_load(&rq->ctx->leases_expired_total));
    algometrics_text(&b);
    model_metrics(&b);
    pool_metrics(&b, rq->ctx->pool);
    queue_metrics(&b, rq->ctx->pool);
    rq->status = 200;
    rq->reply_text = b.p;
    rq->content_type = "text/plain; version=0.0.4";
    return HPOD_OK;
}

enum hpod_status
handle_openapi(struct req *rq)
{
    json_error_t jerr;
    json_t *spec = json_loadb((const char *)hpod_openapi_json,
                              hpod_openapi_json_len, 0, &jerr);
    if (!spec)
        return hpod_fail(&rq->err, HPOD_EINTERNAL, "",
                         "embedded OpenAPI spec is invalid: %s", jerr.text);
    return reply_json(rq, 200, spec);
}
