/*
 * handlers/handlers.h - the handler contract and one declaration per route.
 *
 * A handler reads a struct req (path id, parsed JSON body, query lookup, a
 * database connection borrowed for the request) and either sets
 * rq->status/rq->reply and returns HPOD_OK, or returns a failure status
 * with rq->err filled (hpod_fail); server/http.c turns that into the error
 * JSON of openapi/openapi.json. Handlers never touch libmicrohttpd or
 * libpq. Shape of every handler: parse -> study_* -> respond.
 */
#ifndef HPOD_HANDLERS_H
#define HPOD_HANDLERS_H

#include <jansson.h>
#include <stdatomic.h>

#include "common/status.h"
#include "handlers/represent.h" /* *_to_json, query_int for every handler */
#include "store/db.h"
#include "study/access.h"

/* Process-wide state the handlers may use (owned by server/main.c). */
struct bench_db;
struct bench_jobs;

struct hpod_ctx {
    struct db_pool *pool;
    size_t suggest_conns; /* most pooled connections suggests hold at once
                             (set by server/http.c) */
    const char *benchmarks_dir;
    const struct bench_db *bench; /* tables loaded at start-up (may be
                                     empty, never NULL) */
    struct bench_jobs *jobs;      /* the simulation workers (bench/jobs.h) */
    atomic_llong suggestions_total;
    atomic_llong leases_expired_total;
    /* Prometheus text of the HTTP metrics, built by server/ (new string). */
    char *(*http_metrics_text)(void);
};

struct req {
    const char *method;
    const char *path;
    long long id;   /* the {id} path segment, 0 if none */
    char name[160]; /* the {name} path segments ("nmthpo/zh-en"), or "" */
    json_t *body;   /* borrowed: parsed body, {} when empty */
    /* Query parameter value (borrowed) or NULL. */
    const char *(*query)(const struct req *rq, const char *name);
    /* Request header value (borrowed) or NULL; the hook may be NULL. */
    const char *(*header)(const struct req *rq, const char *name);
    void *conn;    /* opaque, for query() and header() */
    struct db *db; /* borrowed for the request (NULL for routes without DB) */
    struct hpod_ctx *ctx;
    struct principal who; /* set by server/auth.c before the handler */
    struct hpod_err err;
    /* Output. reply: new reference, stolen by the server. */
    int status;
    json_t *reply;
    char *reply_text; /* non-JSON reply (malloc'd), e.g. /metrics */
    const char *content_type;
    char location[96];         /* a Location header, or "" */
    const char *etag;          /* an ETag header (static string), or NULL */
    char etag_buf[48];         /* an ETag the handler composed (etag may
                                  point here) */
    const char *cache_control; /* a Cache-Control header, or NULL */
};

typedef enum hpod_status (*handler_fn)(struct req *rq);

/* Sets a JSON reply (takes ownership of body). Returns HPOD_OK. */
enum hpod_status reply_json(struct req *rq, int status, json_t *body);

enum hpod_status handle_study_create(struct req *rq);
enum hpod_status handle_study_list(struct req *rq);
enum hpod_status handle_study_get(struct req *rq);
enum hpod_status handle_study_patch(struct req *rq);
enum hpod_status handle_study_delete(struct req *rq);
enum hpod_status handle_study_copy(struct req *rq);
enum hpod_status handle_study_related(struct req *rq);
enum hpod_status handle_suggest(struct req *rq);
enum hpod_status handle_trial_report(struct req *rq);
enum hpod_status handle_trial_heartbeat(struct req *rq);
enum hpod_status handle_trial_fail(struct req *rq);
enum hpod_status handle_trial_preempt(struct req *rq);
enum hpod_status handle_trial_exclude(struct req *rq);
enum hpod_status handle_trial_restore(struct req *rq);
enum hpod_status handle_trial_params(struct req *rq);
enum hpod_status handle_trial_get(struct req *rq);
enum hpod_status handle_trial_explain(struct req *rq);
enum hpod_status handle_trial_list(struct req *rq);
enum hpod_status handle_trial_enqueue(struct req *rq);
enum hpod_status handle_trial_patch(struct req *rq);
enum hpod_status handle_study_best(struct req *rq);
enum hpod_status handle_study_pareto(struct req *rq);
enum hpod_status handle_study_importance(struct req *rq);
enum hpod_status handle_healthz(struct req *rq);
enum hpod_status handle_metrics(struct req *rq);
enum hpod_status handle_openapi(struct req *rq);
enum hpod_status handle_dashboard(struct req *rq);
enum hpod_status handle_web_asset(struct req *rq);
enum hpod_status handle_benchmark_list(struct req *rq);
enum hpod_status handle_benchmark_get(struct req *rq);
enum hpod_status handle_benchmark_import(struct req *rq);
enum hpod_status handle_benchmark_evaluate(struct req *rq);
enum hpod_status handle_benchmark_simulate(struct req *rq);
enum hpod_status handle_benchmark_importance(struct req *rq);
enum hpod_status handle_benchmark_compare(struct req *rq);
enum hpod_status handle_simulation_list(struct req *rq);
enum hpod_status handle_simulation_get(struct req *rq);
enum hpod_status handle_simulation_cancel(struct req *rq);
enum hpod_status handle_token_create(struct req *rq);
enum hpod_status handle_token_list(struct req *rq);
enum hpod_status handle_token_revoke(struct req *rq);
enum hpod_status handle_audit_list(struct req *rq);

#endif
