/*
 * server/http.c - MHD's three-phase request contract (doc/examples/
 * largepost.c): the first call allocates struct http_req, later calls
 * deliver body chunks (kept up to the limit, counted beyond it), the last
 * call dispatches; the state is freed in MHD_OPTION_NOTIFY_COMPLETED.
 * Everything a client can send ends in a 4xx here or in a handler, never
 * in a crash: the body is parsed once, as JSON, with jansson's own limits.
 */
#include "server/http.h"

#include <arpa/inet.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/mem.h"
#include "common/name.h"
#include "study/def.h"
#include "server/auth.h"
#include "server/router.h"
#include "common/err.h"
#include "common/log.h"

struct http_server {
    struct MHD_Daemon *daemon;
    const struct config *cfg;
    struct hpod_ctx *ctx;
};

struct http_req {
    double start; /* hpod_now_s() */
    char *body;
    size_t len;
    size_t seen; /* bytes received, including those beyond the limit */
    int too_large;
    char id[40];
    const char *challenge; /* WWW-Authenticate of a 401 (static), or NULL */
};

/* ---- metrics: counters by (route, method, status), latency by route ---- */

#define NBUCKETS 12
static const double buckets[NBUCKETS] = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0};

struct metric_row {
    const char *route; /* pattern, or "unmatched" */
    char method[8];
    int status;
    long long count;
};

struct latency_row {
    const char *route;
    long long bucket[NBUCKETS];
    long long count;
    double sum;
};

static pthread_mutex_t metrics_mu = PTHREAD_MUTEX_INITIALIZER;
static struct metric_row *metric_rows;
static size_t n_metric_rows;
static struct latency_row *latency_rows;
static size_t n_latency_rows;
static atomic_ullong request_seq;

static void
metrics_record(const char *route, const char *method, int status, double sec)
{
    size_t i;
    pthread_mutex_lock(&metrics_mu);
    for (i = 0; i < n_metric_rows; i++)
        if (metric_rows[i].route == route && metric_rows[i].status == status &&
            strcmp(metric_rows[i].method, method) == 0)
            break;
    if (i == n_metric_rows) {
        metric_rows =
            xrealloc(metric_rows, (n_metric_rows + 1) * sizeof *metric_rows);
        memset(&metric_rows[i], 0, sizeof metric_rows[i]);
        metric_rows[i].route = route;
        snprintf(metric_rows[i].method, sizeof metric_rows[i].method, "%s",
                 method);
        metric_rows[i].status = status;
        n_metric_rows++;
    }
    metric_rows[i].count++;
    for (i = 0; i < n_latency_rows; i++)
        if (latency_rows[i].route == route)
            break;
    if (i == n_latency_rows) {
        latency_rows =
            xrealloc(latency_rows, (n_latency_rows + 1) * sizeof *latency_rows);
        memset(&latency_rows[i], 0, sizeof latency_rows[i]);
        latency_rows[i].route = route;
        n_latency_rows++;
    }
    for (int b = 0; b < NBUCKETS; b++)
        if (sec <= buckets[b])
            latency_rows[i].bucket[b]++;
    latency_rows[i].count++;
    latency_rows[i].sum += sec;
    pthread_mutex_unlock(&metrics_mu);
}

char *
http_metrics_text(void)
{
    size_t cap = 4096, len = 0;
    char *out = xmalloc(cap);
    out[0] = '\0';
#define APPEND(...)                                                            \
    do {                                                                       \
        int n_;                                                                \
        while ((n_ = snprintf(out + len, cap - len, __VA_ARGS__)) >= 0 &&      \
               (size_t)n_ >= cap - len) {                                      \
            cap *= 2;                                                          \
            out = xrealloc(out, cap);                                          \
        }                                                                      \
        if (n_ > 0)                                                            \
            len += (size_t)n_;                                                 \
    } while (0)
    pthread_mutex_lock(&metrics_mu);
    APPEND("# HELP hpod_http_requests_total HTTP requests by route, method "
           "and status.\n# TYPE hpod_http_requests_total counter\n");
    for (size_t i = 0; i < n_metric_rows; i++)
        APPEND("hpod_http_requests_total{route=\"%s\",method=\"%s\","
               "status=\"%d\"} %lld\n",
               metric_rows[i].route, metric_rows[i].method,
               metric_rows[i].status, metric_rows[i].count);
    APPEND("# HELP hpod_http_request_duration_seconds Request latency by "
           "route.\n# TYPE hpod_http_request_duration_seconds histogram\n");
    for (size_t i = 0; i < n_latency_rows; i++) {
        const struct latency_row *r = &latency_rows[i];
        for (int b = 0; b < NBUCKETS; b++)
            APPEND("hpod_http_request_duration_seconds_bucket{route=\"%s\","
                   "le=\"%g\"} %lld\n",
                   r->route, buckets[b], r->bucket[b]);
        APPEND("hpod_http_request_duration_seconds_bucket{route=\"%s\","
               "le=\"+Inf\"} %lld\n",
               r->route, r->count);
        APPEND("hpod_http_request_duration_seconds_sum{route=\"%s\"} %.6f\n",
               r->route, r->sum);
        APPEND("hpod_http_request_duration_seconds_count{route=\"%s\"} %lld\n",
               r->route, r->count);
    }
    pthread_mutex_unlock(&metrics_mu);
#undef APPEND
    return out;
}

static void
metrics_free(void)
{
    pthread_mutex_lock(&metrics_mu);
    free(metric_rows);
    free(latency_rows);
    metric_rows = NULL;
    latency_rows = NULL;
    n_metric_rows = n_latency_rows = 0;
    pthread_mutex_unlock(&metrics_mu);
}

/* ---- status mapping and replies ---- */

int
http_status_code(enum hpod_status st)
{
    switch (st) {
    case HPOD_OK:
        return 200;
    case HPOD_EINVAL:
        return 400;
    case HPOD_EUNPROC:
        return 422;
    case HPOD_ENOTFOUND:
        return 404;
    case HPOD_ECONFLICT:
        return 409;
    case HPOD_ETOOLARGE:
        return 413;
    case HPOD_EMEDIA:
        return 415;
    case HPOD_EMETHOD:
        return 405;
    case HPOD_EUNAUTH:
        return 401;
    case HPOD_EDENIED:
        return 403;
    case HPOD_EDB:
    case HPOD_EBUSY:
        return 503;
    case HPOD_ELIMIT:
        return 429;
    case HPOD_ENUMERIC:
    case HPOD_ENOMEM:
    case HPOD_EINTERNAL:
        return 500;
    }
    return 500;
}

/*
 * Length of the UTF-8 sequence at s (1 to 4 bytes), or 0 if it is not a
 * valid one by jansson's rules (no overlong forms, surrogates or code
 * points past U+10FFFF). Stops at the NUL, which is never a continuation.
 */
static size_t
utf8_seq(const unsigned char *s)
{
    unsigned cp, c = s[0];
    size_t n;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/*
 * utf8_clean - a copy of s (new string) with every byte that does not
 * belong to a valid UTF-8 sequence replaced by '?'. Client bytes reach
 * error messages and the access log (a path, a key cut at 60 bytes in the
 * middle of a character) and jansson refuses to encode invalid UTF-8: the
 * reply would otherwise be an empty body instead of the error JSON.
 */
static char *
utf8_clean(const char *s)
{
    char *out = xstrdup(s);
    for (size_t i = 0; out[i];) {
        size_t n = utf8_seq((const unsigned char *)out + i);
        if (n == 0) {
            out[i++] = '?';
            continue;
        }
        i += n;
    }
    return out;
}

json_t *
http_error_json(enum hpod_status st, const struct hpod_err *err)
{
    char *msg = utf8_clean(err->msg[0] ? err->msg : "request failed");
    char *field = utf8_clean(err->field);
    json_t *out =
        json_pack("{s:{s:s, s:s, s:s}}", "error", "code", hpod_status_str(st),
                  "message", msg, "field", field);
    free(msg);
    free(field);
    return out;
}

static const char *
query_lookup(const struct req *rq, const char *name)
{
    return MHD_lookup_connection_value((struct MHD_Connection *)rq->conn,
                                       MHD_GET_ARGUMENT_KIND, name);
}

static const char *
header_lookup(const struct req *rq, const char *name)
{
    return MHD_lookup_connection_value((struct MHD_Connection *)rq->conn,
                                       MHD_HEADER_KIND, name);
}

static int
is_json_type(const char *ct)
{
    size_t n = strlen("application/json");
    if (!ct)
        return 0;
    while (*ct == ' ')
        ct++;
    return strncasecmp(ct, "application/json", n) == 0 &&
           (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

struct query_check {
    const struct route *route;
    const char *bad; /* borrowed from MHD: first undeclared parameter */
};

static enum MHD_Result
query_check_one(void *cls, enum MHD_ValueKind kind, const char *key,
                const char *value)
{
    struct query_check *q = cls;
    (void)kind;
    (void)value;
    if (router_query_ok(q->route, key ? key : ""))
        return MHD_YES;
    q->bad = key ? key : "";
    return MHD_NO;
}

/*
 * Every query parameter must be one the route declares: the handler then
 * never sees one it would silently ignore. Returns HPOD_EINVAL naming it.
 */
static enum hpod_status
check_query(struct MHD_Connection *conn, const struct route *route,
            struct hpod_err *err)
{
    struct query_check q = {route, NULL};
    char name[64];
    size_t i;

    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, query_check_one, &q);
    if (!q.bad)
        return HPOD_OK;
    /* MHD has percent-decoded the name: keep the error JSON valid UTF-8. */
    for (i = 0; q.bad[i] && i < sizeof name - 1; i++)
        name[i] = q.bad[i] >= 0x20 && q.bad[i] < 0x7f ? q.bad[i] : '?';
    name[i] = '\0';
    return hpod_fail(err, HPOD_EINVAL, name,
                     "unknown query parameter \"%s\": %s %s takes %s", name,
                     route->method, route->pattern,
                     route->query ? route->query : "none");
}

enum hpod_status
http_parse_body(const char *text, size_t len, json_t **out,
                struct hpod_err *err)
{
    json_error_t jerr;
    json_t *body;

    *out = NULL;
    if (len == 0) {
        *out = json_object();
        return HPOD_OK;
    }
    body = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!body)
        return hpod_fail(err, HPOD_EINVAL, "",
                         "malformed JSON at line %d column %d: %s", jerr.line,
                         jerr.column, jerr.text);
    if (!json_is_object(body)) {
        json_decref(body);
        return hpod_fail(err, HPOD_EINVAL, "",
                         "request body must be a JSON object");
    }
    *out = body;
    return HPOD_OK;
}

/* Parse, route, run the handler. Fills rq's reply in every case. */
static void
dispatch(struct http_server *s, struct MHD_Connection *conn, struct http_req *h,
         struct req *rq, const struct route **route_out)
{
    const struct route *route = NULL;
    json_t *body = NULL;
    enum hpod_status st;

    st = router_match(rq->method, rq->path, &route, &rq->id, rq->name,
                      sizeof rq->name);
    *route_out = route;
    if (st == HPOD_ENOTFOUND) {
        hpod_fail(&rq->err, st, "", "no such path: %s", rq->path);
        goto out;
    }
    if (st == HPOD_EMETHOD) {
        hpod_fail(&rq->err, st, "", "method %s is not allowed on %s",
                  rq->method, rq->path);
        goto out;
    }
    /* Who is asking comes before anything about the request itself: a
     * client without a valid token learns nothing from our answers. */
    /* A suggest borrows a connection only if it leads a group
     * (study/suggest.c), and auth only when its caches miss, so a call
     * waiting for its study holds none. */
    if (route->needs_db && !route->waits_for_study) {
        st = db_pool_acquire(s->ctx->pool, &rq->db, &rq->err);
        if (st != HPOD_OK)
            goto out;
    }
    st = auth_request(
        &rq->db, s->ctx->pool, route,
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization"),
        &rq->who, &h->challenge, &rq->err);
    if (st != HPOD_OK)
        goto out;
    if ((st = check_query(conn, route, &rq->err)) != HPOD_OK)
        goto out;
    if (h->too_large) {
        st = hpod_fail(&rq->err, HPOD_ETOOLARGE, "",
                       "request body of %zu bytes exceeds the limit of %ld",
                       h->seen, s->cfg->max_body);
        goto out;
    }
    if (h->len > 0) {
        const char *ct =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
        if (!is_json_type(ct)) {
            st = hpod_fail(&rq->err, HPOD_EMEDIA, "",
                           "content type must be application/json, not \"%s\"",
                           ct ? ct : "");
            goto out;
        }
    }
    if ((st = http_parse_body(h->body, h->len, &body, &rq->err)) != HPOD_OK)
        goto out;
    rq->body = body;
    /* A token scoped to a lab: whose is the {id} (a read). */
    if (rq->who.lab[0] && !rq->db &&
        (st = db_pool_acquire(s->ctx->pool, &rq->db, &rq->err)) != HPOD_OK)
        goto out;
    if ((st = auth_check_owner(rq->db, route, &rq->who, rq->id, rq->name,
                               &rq->err)) != HPOD_OK)
        goto out;
    if ((!route->needs_db || route->waits_for_study) && rq->db) {
        db_pool_release(s->ctx->pool, rq->db);
        rq->db = NULL;
    }
    /* Reads that tolerate staleness may go to a standby (store/standby.h);
     * who is asking was decided on the primary. */
    if (rq->db && router_reads_stale(route))
        db_pool_swap_stale(s->ctx->pool, &rq->db);
    st = route->handler(rq);
out:
    if (rq->db) {
        db_pool_release(s->ctx->pool, rq->db);
        rq->db = NULL;
    }
    if (st != HPOD_OK) {
        json_decref(rq->reply);
        free(rq->reply_text);
        rq->reply_text = NULL;
        rq->status = http_status_code(st);
        rq->reply = http_error_json(st, &rq->err);
        /* A database failure is logged by store/db.c: the SQLSTATE of a
         * failed query, or one line when the database goes away and one
         * when it is back, not one per request. */
        if (rq->status >= 500 && st != HPOD_EDB)
            hpod_log(HPOD_LOG_ERROR, "%s %s failed: %s", rq->method, rq->path,
                     rq->err.msg);
    }
    rq->body = NULL;
    json_decref(body);
}

/* The client's address as text ("127.0.0.1", "::1"), or "" if unknown. */
void
http_format_addr(const struct sockaddr *sa, char *out, size_t cap)
{
    const void *a = NULL;
    out[0] = '\0';
    if (sa && sa->sa_family == AF_INET)
        a = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
    else if (sa && sa->sa_family == AF_INET6)
        a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
    if (!a || !inet_ntop(sa->sa_family, a, out, (socklen_t)cap))
        out[0] = '\0';
}

/* One line per request: {"ts","level","msg":"request","request_id",
 * "remote","method","path","status","duration_ms"}. */
static void
log_access(struct MHD_Connection *conn, const char *method, const char *path,
           int status, double ms)
{
    const union MHD_ConnectionInfo *ci;
    char remote[INET6_ADDRSTRLEN] = "";
    json_t *fields;
    char *text, *m, *p;

    if (!hpod_log_enabled(HPOD_LOG_INFO))
        return;
    ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (ci)
        http_format_addr(ci->client_addr, remote, sizeof remote);
    m = utf8_clean(method);
    p = utf8_clean(path);
    fields = json_pack("{s:s, s:s, s:s, s:i, s:f}", "remote", remote, "method",
                       m, "path", p, "status", status, "duration_ms",
                       (double)llround(ms * 1000.0) / 1000.0);
    text = fields ? hj_dump(fields, 0) : NULL;
    hpod_log_event(HPOD_LOG_INFO, "request", text);
    free(text);
    json_decref(fields);
    free(m);
    free(p);
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *conn, const char *url,
           const char *method, const char *version, const char *upload_data,
           size_t *upload_data_size, void **con_cls)
{
    struct http_server *s = cls;
    struct http_req *h = *con_cls;
    struct req rq;
    const struct route *route = NULL;
    struct MHD_Response *resp;
    enum MHD_Result ret;
    char *text;
    size_t text_len;
    (void)version;

    if (!h) {
        const char *rid =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Request-Id");
        h = xcalloc(1, sizeof *h);
        h->start = hpod_now_s();
        if (hpod_name_ok(rid, sizeof h->id - 1))
            snprintf(h->id, sizeof h->id, "%s", rid);
        else
            snprintf(h->id, sizeof h->id, "%ld-%llu", (long)getpid(),
                     (unsigned long long)atomic_fetch_add(&request_seq, 1));
        *con_cls = h;
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        h->seen += n;
        if (!h->too_large && h->len + n <= (size_t)s->cfg->max_body) {
            h->body = xrealloc(h->body, h->len + n + 1);
            memcpy(h->body + h->len, upload_data, n);
            h->len += n;
        } else {
            h->too_large = 1;
            free(h->body);
            h->body = NULL;
            h->len = 0;
        }
        *upload_data_size = 0;
        return MHD_YES;
    }

    memset(&rq, 0, sizeof rq);
    rq.method = method;
    rq.path = url;
    rq.query = query_lookup;
    rq.header = header_lookup;
    rq.conn = conn;
    rq.ctx = s->ctx;
    rq.status = 200;
    hpod_log_set_request(h->id); /* every line logged for it carries its id */
    dispatch(s, conn, h, &rq, &route);

    if (rq.reply_text) {
        text = rq.reply_text;
        text_len = strlen(text);
    } else if (rq.reply) {
        text = hj_dump(rq.reply, 0);
        if (!text) {
            text = xstrdup("{\"error\":{\"code\":\"internal\",\"message\":"
                           "\"could not encode response\",\"field\":\"\"}}");
            rq.status = 500;
        }
        text_len = strlen(text);
    } else {
        text = NULL;
        text_len = 0;
    }
    json_decref(rq.reply);
    resp = MHD_create_response_from_buffer(text_len, text ? text : (void *)"",
                                           text ? MHD_RESPMEM_MUST_FREE
                                                : MHD_RESPMEM_PERSISTENT);
    /* 204 and 304 carry no body, hence no Content-Type. */
    if (text_len || (rq.status != 204 && rq.status != 304))
        MHD_add_response_header(resp, "Content-Type",
                                rq.content_type ? rq.content_type
                                                : "application/json");
    if (rq.etag)
        MHD_add_response_header(resp, "ETag", rq.etag);
    if (rq.cache_control)
        MHD_add_response_header(resp, "Cache-Control", rq.cache_control);
    MHD_add_response_header(resp, "X-Request-Id", h->id);
    if (rq.location[0])
        MHD_add_response_header(resp, "Location", rq.location);
    if ((rq.status == 429 || rq.status == 503) && rq.err.retry_after > 0) {
        char ra[16];
        snprintf(ra, sizeof ra, "%d", rq.err.retry_after);
        MHD_add_response_header(resp, "Retry-After", ra);
    }
    if (rq.status == 401 && h->challenge)
        MHD_add_response_header(resp, "WWW-Authenticate", h->challenge);
    if (rq.status == 405) {
        char allow[64];
        if (router_allow(url, allow, sizeof allow))
            MHD_add_response_header(resp, "Allow", allow);
    }
    ret = MHD_queue_response(conn, (unsigned)rq.status, resp);
    MHD_destroy_response(resp);

    double sec = hpod_now_s() - h->start;
    metrics_record(route ? route->pattern : "unmatched", method, rq.status,
                   sec);
    log_access(conn, method, url, rq.status, sec * 1000.0);
    hpod_log_set_request(NULL);
    return ret;
}

static void
on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
             enum MHD_RequestTerminationCode toe)
{
    struct http_req *h = *con_cls;
    (void)cls;
    (void)conn;
    (void)toe;
    if (!h)
        return;
    free(h->body);
    free(h);
    *con_cls = NULL;
}

/* libmicrohttpd's own error messages, as our log lines (not raw stderr).
 * The format attribute tells clang's -Wformat-nonliteral (-Wformat=2)
 * that fmt is a printf format from the caller, as gcc assumes. */
__attribute__((format(printf, 2, 0))) static void
on_mhd_error(void *cls, const char *fmt, va_list ap)
{
    char msg[512];
    (void)cls;
    vsnprintf(msg, sizeof msg, fmt, ap);
    msg[strcspn(msg, "\n")] = '\0';
    hpod_log(HPOD_LOG_WARN, "libmicrohttpd: %s", msg);
}

enum hpod_status
http_start(const struct config *cfg, struct hpod_ctx *ctx,
           struct http_server **out, struct hpod_err *err)
{
    struct http_server *s = xcalloc(1, sizeof *s);
    struct sockaddr_in addr;

    *out = NULL;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)cfg->port);
    if (inet_pton(AF_INET, cfg->listen_addr, &addr.sin_addr) != 1) {
        free(s);
        return hpod_fail(err, HPOD_EINVAL, "HPOD_LISTEN_ADDR",
                         "invalid listen address \"%s\"", cfg->listen_addr);
    }
    s->cfg = cfg;
    s->ctx = ctx;
    /* Suggest leaders hold at most three quarters of the pool (a pool of
     * one has nothing to spare), so reports and reads always find a
     * connection and never queue behind a suggest waiting for a study
     * lock (issue 14: head-of-line blocking). */
    ctx->suggest_conns =
        cfg->db_pool > 1 ? (size_t)(cfg->db_pool - (cfg->db_pool + 3) / 4) : 1;
    /* HPOD_THREADS=0 (the default): a thread per connection, so a request
     * waiting (for a lock, for the pool) never holds up another client's;
     * N: a pool of N threads, each serving many connections. */
    if (cfg->threads == 0)
        s->daemon = MHD_start_daemon(
            MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                MHD_USE_ERROR_LOG | MHD_USE_POLL,
            (uint16_t)cfg->port, NULL, NULL, on_request, s,
            MHD_OPTION_EXTERNAL_LOGGER, on_mhd_error, NULL,
            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
            MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)120,
            MHD_OPTION_CONNECTION_LIMIT, (unsigned int)1000, MHD_OPTION_END);
    else
        s->daemon = MHD_start_daemon(
            MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_USE_EPOLL,
            (uint16_t)cfg->port, NULL, NULL, on_request, s,
            MHD_OPTION_EXTERNAL_LOGGER, on_mhd_error, NULL,
            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
            MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)cfg->threads,
            MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)120,
            MHD_OPTION_CONNECTION_LIMIT, (unsigned int)1000, MHD_OPTION_END);
    if (!s->daemon) {
        free(s);
        return hpod_fail(err, HPOD_EINVAL, "HPOD_PORT",
                         "could not listen on %s:%ld", cfg->listen_addr,
                         cfg->port);
    }
    *out = s;
    return HPOD_OK;
}

long
http_bound_port(const struct http_server *s)
{
    const union MHD_DaemonInfo *di =
        MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return di ? (long)di->port : s->cfg->port;
}

void
http_stop(struct http_server *s)
{
    if (!s)
        return;
    MHD_stop_daemon(s->daemon);
    free(s);
    metrics_free();
}
