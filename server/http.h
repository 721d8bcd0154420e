/*
 * server/http.h - libmicrohttpd glue: the daemon, per-request state, body
 * limit, content type, JSON parsing, routing, error replies, access log
 * and HTTP metrics.
 */
#ifndef HPOD_HTTP_H
#define HPOD_HTTP_H

#include <stddef.h>

#include "core/status.h"
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

/* Prometheus text of request counters and latency histograms (new). */
char *http_metrics_text(void);

#endif
