/*
 * server/http.c - MHD's three-phase request contract (doc/examples/
 * largepost.c): the first call, with the headers in, decides who is
 * asking and whether the request may go on (route, token, role, rate,
 * query, declared size and type) and, when not, answers at once without
 * reading the body (then closes the connection) or, for a request without
 * a body, in the last call; later calls deliver body chunks (kept up to the
 * limit, counted beyond it); the last call dispatches. The state is freed
 * in MHD_OPTION_NOTIFY_COMPLETED. Everything a client can send ends in a
 * 4xx here or in a handler, never in a crash: the body is parsed once, as
 * JSON, with jansson's own limits. Connections are bounded per client
 * address (libmicrohttpd's own count) and in time (server/conn.h).
 */
#include "server/http.h"

#include <arpa/inet.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
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
#include "server/conn.h"
#include "server/metrics.h"
#include "server/ratelimit.h"
#include "server/router.h"
#include "common/err.h"
#include "common/log.h"

/* Sent with every answer hpod gives, pages and API alike (docs/
 * ARCHITECTURE.md, "server/"): the dashboard loads its script, styles
 * and chart library from this server only; ECharts sets style
 * attributes in its tooltips, hence 'unsafe-inline' for styles (never for
 * scripts). */
static const char CSP[] =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";

struct http_server {
    struct MHD_Daemon *daemon;
    const struct config *cfg;
    struct hpod_ctx *ctx;
    struct conn_guard *guard;
    struct ratelimit *rate;
};

struct http_req {
    double start; /* hpod_now_s() */
    char *body;
    size_t len;
    size_t seen; /* bytes received, including those beyond the limit */
    int too_large;
    char id[40];
    const char *challenge; /* WWW-Authenticate of a 401 (static), or NULL */
    /* What the first call decided, for the last one. */
    const struct route *route;
    long long path_id;
    char name[160];
    struct principal who;
    enum hpod_status refused; /* by the first call, answered by the last */
    struct hpod_err refused_err;
};

static atomic_ullong request_seq;

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

/* ---- the checks before the body ---- */

/* The rate limit's key: the token, else the client's address. */
static int
rate_wait(struct http_server *s, struct MHD_Connection *conn,
          const struct principal *who, int *by_token)
{
    char key[RATELIMIT_KEY_MAX + 1];
    *by_token = who->token_id > 0;
    if (*by_token) {
        snprintf(key, sizeof key, "t%lld", who->token_id);
    } else {
        char addr[INET6_ADDRSTRLEN] = "";
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        if (ci)
            http_format_addr(ci->client_addr, addr, sizeof addr);
        snprintf(key, sizeof key, "a%s", addr);
    }
    return ratelimit_take(s->rate, key, hpod_now_s());
}

/* 415 for a body (len > 0 bytes) that is not application/json. */
static enum hpod_status
check_media(struct MHD_Connection *conn, unsigned long long len,
            struct hpod_err *err)
{
    const char *ct =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
    if (len == 0 || is_json_type(ct))
        return HPOD_OK;
    return hpod_fail(err, HPOD_EMEDIA, "",
                     "content type must be application/json, not \"%s\"",
                     ct ? ct : "");
}

/* What the headers alone decide, in the order of the spec's "Errors hpod
 * answers": path, method, token, role, rate, query, size, type. */
static enum hpod_status
precheck(struct http_server *s, struct MHD_Connection *conn, struct http_req *h,
         struct req *rq)
{
    const char *cl;
    enum hpod_status st;
    int wait, by_token;

    if (conn_bad_target(conn_of(conn)))
        return hpod_fail(&rq->err, HPOD_EINVAL, "",
                         "the path and query must not hold control "
                         "characters (bytes 0x00 to 0x1f and 0x7f, escaped "
                         "or not)");
    st = router_match(rq->method, rq->path, &h->route, &h->path_id, h->name,
                      sizeof h->name);
    if (st == HPOD_ENOTFOUND)
        return hpod_fail(&rq->err, st, "", "no such path: %s", rq->path);
    if (st == HPOD_EMETHOD)
        return hpod_fail(&rq->err, st, "", "method %s is not allowed on %s",
                         rq->method, rq->path);
    /* Who is asking comes before anything about the request itself: a
     * client without a valid token learns nothing from our answers, and
     * its body is never read. A connection is borrowed only when auth's
     * caches miss, and given back before the body. */
    st = auth_request(
        &rq->db, s->ctx->pool, h->route,
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization"),
        &h->who, &h->challenge, &rq->err);
    if (rq->db) {
        db_pool_release(s->ctx->pool, rq->db);
        rq->db = NULL;
    }
    if (st != HPOD_OK)
        return st;
    if ((wait = rate_wait(s, conn, &h->who, &by_token)) > 0)
        return hpod_fail_retry(
            &rq->err, HPOD_ELIMIT, wait, "",
            "this %s sent more than %ld requests per second (burst %ld): "
            "retry in %d s",
            by_token ? "token" : "client address", s->cfg->rate_per_token,
            s->cfg->rate_burst, wait);
    if ((st = check_query(conn, h->route, &rq->err)) != HPOD_OK)
        return st;
    cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl) {
        unsigned long long n = strtoull(cl, NULL, 10);
        if (n > (unsigned long long)s->cfg->max_body)
            return hpod_fail(&rq->err, HPOD_ETOOLARGE, "",
                             "request body of %llu bytes exceeds the limit "
                             "of %ld",
                             n, s->cfg->max_body);
        if ((st = check_media(conn, n, &rq->err)) != HPOD_OK)
            return st;
    }
    return HPOD_OK;
}

/* ---- the last call: body, owner, handler ---- */

/* Parse, run the handler. Fills rq's reply in every case. */
static enum hpod_status
dispatch(struct http_server *s, struct MHD_Connection *conn, struct http_req *h,
         struct req *rq)
{
    const struct route *route = h->route;
    json_t *body = NULL;
    enum hpod_status st;

    if (h->too_large) {
        st = hpod_fail(&rq->err, HPOD_ETOOLARGE, "",
                       "request body of %zu bytes exceeds the limit of %ld",
                       h->seen, s->cfg->max_body);
        goto out;
    }
    if ((st = check_media(conn, h->len, &rq->err)) != HPOD_OK ||
        (st = http_parse_body(h->body, h->len, &body, &rq->err)) != HPOD_OK)
        goto out;
    rq->body = body;
    /* A suggest borrows a connection only if it leads a group
     * (study/suggest.c), so a call waiting for its study holds none; a
     * token scoped to a lab needs one to see whose the {id} is. */
    if (((route->needs_db && !route->waits_for_study) || rq->who.lab[0]) &&
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
    /* A revoked token is dead on this server at once (other replicas
     * within AUTH_CACHE_MS). */
    if (st == HPOD_OK && route->handler == handle_token_revoke)
        auth_forget();
out:
    if (rq->db) {
        db_pool_release(s->ctx->pool, rq->db);
        rq->db = NULL;
    }
    rq->body = NULL;
    json_decref(body);
    return st;
}

/* rq's reply becomes the error JSON of st (logged if a 5xx). */
static void
set_error(struct req *rq, enum hpod_status st)
{
    json_decref(rq->reply);
    free(rq->reply_text);
    rq->reply_text = NULL;
    rq->status = http_status_code(st);
    rq->reply = http_error_json(st, &rq->err);
    /* A database failure is logged by store/db.c: the SQLSTATE of a
     * failed query, or one line when the database goes away and one when
     * it is back, not one per request. */
    if (rq->status >= 500 && st != HPOD_EDB)
        hpod_log(HPOD_LOG_ERROR, "%s %s failed: %s", rq->method, rq->path,
                 rq->err.msg);
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
 * "remote","method","path","status","duration_ms","token"}; token: the
 * id of the caller's token, null without one (never its secret). */
static void
log_access(struct MHD_Connection *conn, const char *method, const char *path,
           int status, double ms, long long token)
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
    fields = json_pack("{s:s, s:s, s:s, s:i, s:f, s:o}", "remote", remote,
                       "method", m, "path", p, "status", status, "duration_ms",
                       (double)llround(ms * 1000.0) / 1000.0, "token",
                       token > 0 ? json_integer(token) : json_null());
    text = fields ? hj_dump(fields, 0) : NULL;
    hpod_log_event(HPOD_LOG_INFO, "request", text);
    free(text);
    json_decref(fields);
    free(m);
    free(p);
}

static void
req_init(struct req *rq, struct http_server *s, struct MHD_Connection *conn,
         const struct http_req *h, const char *url, const char *method)
{
    memset(rq, 0, sizeof *rq);
    rq->method = method;
    rq->path = url;
    rq->query = query_lookup;
    rq->header = header_lookup;
    rq->conn = conn;
    rq->ctx = s->ctx;
    rq->status = 200;
    rq->id = h->path_id;
    snprintf(rq->name, sizeof rq->name, "%s", h->name);
    rq->who = h->who;
}

/* Queues rq's answer (with the headers every answer carries), counts and
 * logs it. */
static enum MHD_Result
respond(struct MHD_Connection *conn, struct http_req *h, struct req *rq)
{
    struct MHD_Response *resp;
    enum MHD_Result ret;
    char *text = NULL;
    size_t text_len = 0;

    if (rq->reply_text) {
        text = rq->reply_text;
    } else if (rq->reply && !(text = hj_dump(rq->reply, 0))) {
        text = xstrdup("{\"error\":{\"code\":\"internal\",\"message\":"
                       "\"could not encode response\",\"field\":\"\"}}");
        rq->status = 500;
    }
    text_len = text ? strlen(text) : 0;
    json_decref(rq->reply);
    rq->reply = NULL;
    resp = MHD_create_response_from_buffer(text_len, text ? text : (void *)"",
                                           text ? MHD_RESPMEM_MUST_FREE
                                                : MHD_RESPMEM_PERSISTENT);
    /* 204 and 304 carry no body, hence no Content-Type. */
    if (text_len || (rq->status != 204 && rq->status != 304))
        MHD_add_response_header(resp, "Content-Type",
                                rq->content_type ? rq->content_type
                                                 : "application/json");
    if (rq->etag)
        MHD_add_response_header(resp, "ETag", rq->etag);
    if (rq->cache_control)
        MHD_add_response_header(resp, "Cache-Control", rq->cache_control);
    MHD_add_response_header(resp, "X-Request-Id", h->id);
    MHD_add_response_header(resp, "Content-Security-Policy", CSP);
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "X-Frame-Options", "DENY");
    if (rq->location[0])
        MHD_add_response_header(resp, "Location", rq->location);
    if ((rq->status == 202 || rq->status == 429 || rq->status == 503) &&
        rq->err.retry_after > 0) {
        char ra[16];
        snprintf(ra, sizeof ra, "%d", rq->err.retry_after);
        MHD_add_response_header(resp, "Retry-After", ra);
    }
    if (rq->status == 401 && h->challenge)
        MHD_add_response_header(resp, "WWW-Authenticate", h->challenge);
    if (rq->status == 405) {
        char allow[64];
        if (router_allow(rq->path, allow, sizeof allow))
            MHD_add_response_header(resp, "Allow", allow);
    }
    ret = MHD_queue_response(conn, (unsigned)rq->status, resp);
    MHD_destroy_response(resp);

    double sec = hpod_now_s() - h->start;
    metrics_record(h->route, rq->method, rq->status, sec);
    log_access(conn, rq->method, rq->path, rq->status, sec * 1000.0,
               h->who.token_id);
    hpod_log_set_request(NULL);
    return ret;
}

/* Whether the request has a body coming (chunked, or a Content-Length
 * above 0). */
static int
announces_body(struct MHD_Connection *conn)
{
    const char *cl = MHD_lookup_connection_value(
        conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    return MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                       MHD_HTTP_HEADER_TRANSFER_ENCODING) ||
           (cl && strtoull(cl, NULL, 10) > 0);
}

/* The headers are in: a new request's state, and the answer at once
 * (without reading any body) when the headers already decide it. */
static enum MHD_Result
first_call(struct http_server *s, struct MHD_Connection *conn, const char *url,
           const char *method, void **con_cls)
{
    const char *rid =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Request-Id");
    struct http_req *h = xcalloc(1, sizeof *h);
    struct req rq;
    enum hpod_status st;

    h->start = hpod_now_s();
    if (hpod_name_ok(rid, sizeof h->id - 1))
        snprintf(h->id, sizeof h->id, "%s", rid);
    else
        snprintf(h->id, sizeof h->id, "%ld-%llu", (long)getpid(),
                 (unsigned long long)atomic_fetch_add(&request_seq, 1));
    *con_cls = h;
    conn_headers_in(conn_of(conn));
    req_init(&rq, s, conn, h, url, method);
    hpod_log_set_request(h->id);
    st = precheck(s, conn, h, &rq);
    if (st != HPOD_OK && announces_body(conn)) {
        /* MHD sends this answer and closes the connection without
         * reading the body (MHD_queue_response before the upload:
         * discard_request). */
        conn_request_in(conn_of(conn));
        set_error(&rq, st);
        return respond(conn, h, &rq);
    }
    /* Without a body the last call follows at once: answered there, a
     * refusal keeps the connection open for the client's next request. */
    h->refused = st;
    h->refused_err = rq.err;
    hpod_log_set_request(NULL);
    return MHD_YES;
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *conn, const char *url,
           const char *method, const char *version, const char *upload_data,
           size_t *upload_data_size, void **con_cls)
{
    struct http_server *s = cls;
    struct http_req *h = *con_cls;
    struct req rq;
    enum hpod_status st;
    (void)version;

    if (!h)
        return first_call(s, conn, url, method, con_cls);
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        /* Past its deadline the body is given up: MHD closes the
         * connection (no answer can be queued in the middle of a body). */
        if (conn_late(conn_of(conn))) {
            metrics_count_cut(1);
            return MHD_NO;
        }
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
    conn_request_in(conn_of(conn));
    req_init(&rq, s, conn, h, url, method);
    hpod_log_set_request(h->id); /* every line logged for it carries its id */
    if ((st = h->refused) != HPOD_OK)
        rq.err = h->refused_err;
    else
        st = dispatch(s, conn, h, &rq);
    if (st != HPOD_OK)
        set_error(&rq, st);
    return respond(conn, h, &rq);
}

static void
on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
             enum MHD_RequestTerminationCode toe)
{
    struct http_req *h = *con_cls;
    (void)cls;
    (void)toe;
    conn_answered(conn_of(conn));
    if (!h)
        return;
    free(h->body);
    free(h);
    *con_cls = NULL;
}

/* libmicrohttpd's own error messages, as our log lines (not raw stderr),
 * at most LOG_PER_SECOND a second: a client refused at the connection
 * limits makes one per connection. The format attribute tells clang's
 * -Wformat-nonliteral (-Wformat=2) that fmt is a printf format from the
 * caller, as gcc assumes. */
#define LOG_PER_SECOND 5
__attribute__((format(printf, 2, 0))) static void
on_mhd_error(void *cls, const char *fmt, va_list ap)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static long long second;
    static int lines, dropped;
    long long now = hpod_now_ms() / 1000;
    int was_dropped = 0;
    char msg[512];
    (void)cls;

    pthread_mutex_lock(&mu);
    if (now != second) {
        second = now;
        lines = 0;
        was_dropped = dropped;
        dropped = 0;
    }
    if (lines >= LOG_PER_SECOND) {
        dropped++;
        pthread_mutex_unlock(&mu);
        return;
    }
    lines++;
    pthread_mutex_unlock(&mu);
    vsnprintf(msg, sizeof msg, fmt, ap);
    msg[strcspn(msg, "\n")] = '\0';
    if (was_dropped)
        hpod_log(HPOD_LOG_WARN,
                 "libmicrohttpd: %d more messages in the last second",
                 was_dropped);
    hpod_log(HPOD_LOG_WARN, "libmicrohttpd: %s", msg);
}

enum hpod_status
http_start(const struct config *cfg, struct hpod_ctx *ctx,
           struct http_server **out, struct hpod_err *err)
{
    struct http_server *s = xcalloc(1, sizeof *s);
    struct sockaddr_in addr;
    unsigned flags;

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
    s->guard = conn_guard_create(cfg->header_timeout_ms, cfg->body_timeout_ms,
                                 metrics_count_cut);
    s->rate =
        ratelimit_create((double)cfg->rate_per_token, (double)cfg->rate_burst);
    metrics_init();
    /* Suggest leaders hold at most three quarters of the pool (a pool of
     * one has nothing to spare), so reports and reads always find a
     * connection and never queue behind a suggest waiting for a study
     * lock (head-of-line blocking). */
    ctx->suggest_conns =
        cfg->db_pool > 1 ? (size_t)(cfg->db_pool - (cfg->db_pool + 3) / 4) : 1;
    /* HPOD_THREADS=0 (the default): a thread per connection, so a request
     * waiting (for a lock, for the pool) never holds up another client's;
     * N: a pool of N threads, each serving many connections. */
    flags = cfg->threads == 0 ? MHD_USE_THREAD_PER_CONNECTION |
                                    MHD_USE_INTERNAL_POLLING_THREAD |
                                    MHD_USE_ERROR_LOG | MHD_USE_POLL
                              : MHD_USE_INTERNAL_POLLING_THREAD |
                                    MHD_USE_ERROR_LOG | MHD_USE_EPOLL;
    struct MHD_OptionItem opts[] = {
        {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_error, NULL},
        {MHD_OPTION_SOCK_ADDR, 0, &addr},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, s},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)conn_on_notify, s->guard},
        {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)conn_on_uri, NULL},
        {MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)conn_on_unescape, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, 120, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, cfg->max_connections, NULL},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, cfg->conn_per_addr, NULL},
        {cfg->threads ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END,
         cfg->threads, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    s->daemon =
        MHD_start_daemon(flags, (uint16_t)cfg->port, NULL, NULL, on_request, s,
                         MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
    if (!s->daemon) {
        http_stop(s);
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
    if (s->daemon)
        MHD_stop_daemon(s->daemon);
    conn_guard_free(s->guard);
    ratelimit_free(s->rate);
    free(s);
    metrics_clear();
}

char *
http_metrics_text(void)
{
    return metrics_text();
}
