/*
 * server/http.h - libmicrohttpd glue: the daemon, per-request state, the
 * checks made on the headers before any body is read (route, token, role,
 * rate, query, size), body limit, content type, JSON parsing, error
 * replies, the headers of every answer and the access log.
 */
#ifndef HPOD_HTTP_H
#define HPOD_HTTP_H

#include <jansson.h>
#include <stddef.h>

#include "common/status.h"
#include "handlers/handlers.h"
#include "server/config.h"

struct http_server; /* opaque */

/* Maps a status to its HTTP code (the one place that does). */
int http_status_code(enum hpod_status st);

/*
 * http_start - starts the daemon on cfg's address and port with a thread
 * pool. ctx is borrowed for the server's life. Returns HPOD_EINVAL if the
 * address cannot be bound.
 */
enum hpod_status http_start(const struct config *cfg, struct hpod_ctx *ctx,
                            struct http_server **out, struct hpod_err *err);
/* The TCP port the daemon listens on (the one the kernel chose for
 * HPOD_PORT=0). */
long http_bound_port(const struct http_server *s);
/* Stops the daemon (waits for requests in flight). Accepts NULL. */
void http_stop(struct http_server *s);

/* Formats an IPv4 or IPv6 socket address (no port) into out; "" for
 * anything else. For the access log's "remote". */
struct sockaddr;
void http_format_addr(const struct sockaddr *sa, char *out, size_t cap);

/*
 * http_error_json - the error body of the contract (openapi/openapi.json,
 * Error) for st and err (new reference): {"error": {"code", "message",
 * "field"}}, with any byte of message or field that is not UTF-8 replaced by
 * '?'. NULL only when out of memory.
 */
json_t *http_error_json(enum hpod_status st, const struct hpod_err *err);

/*
 * http_parse_body - a request body as the server decodes it: len bytes of
 * text (need not be NUL-terminated) parsed as JSON with duplicate keys
 * rejected and jansson's own depth limit; an empty body is {}. On HPOD_OK
 * *out is a new reference to an object; otherwise *out is NULL and err
 * says why (HPOD_EINVAL: malformed JSON, or not an object). Pure: the
 * fuzz harnesses call it on arbitrary bytes.
 */
enum hpod_status http_parse_body(const char *text, size_t len, json_t **out,
                                 struct hpod_err *err);

/* Prometheus text of request counters and latency histograms (new);
 * server/metrics.h. */
char *http_metrics_text(void);

#endif
