/*
 * handlers/health.c - /healthz (process and database), /metrics
 * (Prometheus text), /openapi.json (the spec compiled into the binary).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "handlers/handlers.h"
#include "common/err.h"
#include "study/importance.h"
#include "study/labsched.h"
#include "study/modelcache.h"

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

/* The model work and model memory of this process (study/labsched.h,
 * study/modelcache.h, study/importance.h), appended at p (room n). */
static void
model_metrics(char *p, size_t n)
{
    struct modelcache_stats mc;
    struct labsched_stats ls;

    modelcache_stats(&mc);
    labsched_stats(&ls);
    snprintf(p, n,
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
             "# HELP hpod_model_cache_refused_total Models refused for lack "
             "of room (503).\n"
             "# TYPE hpod_model_cache_refused_total counter\n"
             "hpod_model_cache_refused_total %llu\n"
             "# HELP hpod_model_work_running Model computations running.\n"
             "# TYPE hpod_model_work_running gauge\n"
             "hpod_model_work_running %zu\n"
             "# HELP hpod_model_work_waiting Model computations waiting for "
             "their lab's slot.\n"
             "# TYPE hpod_model_work_waiting gauge\n"
             "hpod_model_work_waiting %zu\n"
             "# HELP hpod_model_work_refused_total Model computations "
             "refused past HPOD_LAB_QUEUE (429).\n"
             "# TYPE hpod_model_work_refused_total counter\n"
             "hpod_model_work_refused_total %llu\n"
             "# HELP hpod_importance_fits_total Importance models fitted (a "
             "kept fit answers unchanged studies).\n"
             "# TYPE hpod_importance_fits_total counter\n"
             "hpod_importance_fits_total %llu\n",
             mc.used, mc.budget, mc.evictions, mc.refused, ls.running,
             ls.waiting, ls.refused, study_importance_fits());
}

enum hpod_status
handle_metrics(struct req *rq)
{
    char *http = rq->ctx->http_metrics_text();
    size_t cap = strlen(http) + 4096, len;
    char *out = xmalloc(cap);
    snprintf(out, cap,
             "%s# HELP hpod_suggestions_total Trials issued by suggest.\n"
             "# TYPE hpod_suggestions_total counter\n"
             "hpod_suggestions_total %lld\n"
             "# HELP hpod_leases_expired_total Trials failed because their "
             "lease lapsed.\n"
             "# TYPE hpod_leases_expired_total counter\n"
             "hpod_leases_expired_total %lld\n",
             http, (long long)atomic_load(&rq->ctx->suggestions_total),
             (long long)atomic_load(&rq->ctx->leases_expired_total));
    len = strlen(out);
    model_metrics(out + len, cap - len);
    free(http);
    rq->status = 200;
    rq->reply_text = out;
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
