/*
 * server/metrics.c - the HTTP series of /metrics; see metrics.h.
 */
#include "server/metrics.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/histogram.h"
#include "common/mem.h"
#include "common/strbuf.h"
#include "server/procmetrics.h"

static const struct histogram_bounds buckets = {12,
                                                {0.0005, 0.001, 0.0025, 0.005,
                                                 0.01, 0.025, 0.05, 0.1, 0.25,
                                                 0.5, 1.0, 5.0}};

static const char *const method_labels[] = {"GET", "POST", "PATCH",   "DELETE",
                                            "PUT", "HEAD", "OPTIONS", "other"};
#define N_METHODS (sizeof method_labels / sizeof method_labels[0])

/* The statuses counted under their own code; any other is counted under
 * its class ("4xx"), and one outside 100-599 under "other". */
static const int codes[] = {200, 201, 202, 204, 206, 301, 302, 303, 304, 307,
                            308, 400, 401, 403, 404, 405, 406, 408, 409, 410,
                            411, 412, 413, 414, 415, 416, 417, 422, 425, 428,
                            429, 431, 500, 501, 502, 503, 504, 505};
#define N_CODES (sizeof codes / sizeof codes[0])
static const char *const class_labels[] = {"1xx", "2xx", "3xx",
                                           "4xx", "5xx", "other"};
#define N_STATUSES (N_CODES + 6)

static const struct route *routes;
static size_t n_routes; /* row n_routes: "unmatched" */
static unsigned char status_index[600];
static atomic_llong *counts; /* [route][method][status] */
static struct histogram *latency;
static atomic_llong cuts[2];

void
metrics_init(void)
{
    if (counts)
        return;
    routes = router_routes(&n_routes);
    for (int st = 0; st < 600; st++)
        status_index[st] =
            (unsigned char)(N_CODES + (st < 100 ? 5 : st / 100 - 1));
    for (size_t i = 0; i < N_CODES; i++)
        status_index[codes[i]] = (unsigned char)i;
    counts = xcalloc((n_routes + 1) * N_METHODS * N_STATUSES, sizeof *counts);
    latency = xcalloc(n_routes + 1, sizeof *latency);
}

void
metrics_clear(void)
{
    free(counts);
    free(latency);
    counts = NULL;
    latency = NULL;
    atomic_store(&cuts[0], 0);
    atomic_store(&cuts[1], 0);
}

static size_t
method_index(const char *method)
{
    for (size_t m = 0; m + 1 < N_METHODS; m++)
        if (strcmp(method, method_labels[m]) == 0)
            return m;
    return N_METHODS - 1;
}

const char *
metrics_method_label(const char *method)
{
    return method_labels[method_index(method ? method : "")];
}

void
metrics_record(const struct route *route, const char *method, int status,
               double sec)
{
    size_t r = route ? (size_t)(route - routes) : n_routes;
    size_t m = method_index(method ? method : "");
    size_t s =
        status >= 0 && status < 600 ? status_index[status] : N_STATUSES - 1;

    if (!counts || r > n_routes)
        return;
    atomic_fetch_add(&counts[(r * N_METHODS + m) * N_STATUSES + s], 1);
    histogram_observe(&latency[r], &buckets, sec);
}

void
metrics_count_cut(int body)
{
    atomic_fetch_add(&cuts[body ? 1 : 0], 1);
}

static const char *
status_label(size_t s, char *buf, size_t cap)
{
    if (s >= N_CODES)
        return class_labels[s - N_CODES];
    snprintf(buf, cap, "%d", codes[s]);
    return buf;
}

static void
requests_text(struct strbuf *b)
{
    char route[160], method[32], status[8];
    strbuf_printf(
        b, "# HELP hpod_http_requests_total HTTP requests by route, method "
           "and status.\n# TYPE hpod_http_requests_total counter\n");
    for (size_t r = 0; r <= n_routes; r++) {
        histogram_escape(r < n_routes ? routes[r].pattern : "unmatched", route,
                         sizeof route);
        for (size_t m = 0; m < N_METHODS; m++)
            for (size_t s = 0; s < N_STATUSES; s++) {
                long long n =
                    atomic_load(&counts[(r * N_METHODS + m) * N_STATUSES + s]);
                if (n == 0)
                    continue;
                strbuf_printf(
                    b,
                    "hpod_http_requests_total{route=\"%s\",method=\"%s\","
                    "status=\"%s\"} %lld\n",
                    route,
                    histogram_escape(method_labels[m], method, sizeof method),
                    histogram_escape(status_label(s, status, sizeof status),
                                     status, sizeof status),
                    n);
            }
    }
}

static void
latency_text(struct strbuf *b)
{
    char route[160], labels[200];
    strbuf_printf(
        b, "# HELP hpod_http_request_duration_seconds Request latency by "
           "route.\n# TYPE hpod_http_request_duration_seconds histogram\n");
    for (size_t r = 0; r <= n_routes; r++) {
        if (histogram_total(&latency[r], &buckets) == 0)
            continue;
        histogram_escape(r < n_routes ? routes[r].pattern : "unmatched", route,
                         sizeof route);
        snprintf(labels, sizeof labels, "route=\"%s\"", route);
        histogram_text(b, "hpod_http_request_duration_seconds", labels,
                       &latency[r], &buckets);
    }
}

char *
metrics_text(void)
{
    struct strbuf b = {0};
    strbuf_put(&b, "", 0);
    if (counts) {
        requests_text(&b);
        latency_text(&b);
    }
    strbuf_printf(
        &b,
        "# HELP hpod_http_connections_cut_total Connections closed because "
        "their request was not in by its deadline.\n"
        "# TYPE hpod_http_connections_cut_total counter\n"
        "hpod_http_connections_cut_total{phase=\"headers\"} %lld\n"
        "hpod_http_connections_cut_total{phase=\"body\"} %lld\n",
        (long long)atomic_load(&cuts[0]), (long long)atomic_load(&cuts[1]));
    procmetrics_text(&b);
    return b.p;
}
