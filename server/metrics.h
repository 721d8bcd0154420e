/*
 * server/metrics.h - the HTTP series of /metrics: requests by (route,
 * method, status) and latency histograms by route, in the Prometheus text
 * format (version 0.0.4).
 *
 * Every label value comes from a closed set, so a client cannot add
 * series: the route is its template from the route table ("/v1/studies/
 * {id}") or "unmatched"; the method is GET, POST, PATCH, DELETE, PUT,
 * HEAD, OPTIONS or "other"; the status is one of the codes listed in
 * metrics.c or its class ("5xx"). Counters are atomics indexed directly
 * (no lock, no search); label values are escaped all the same. The text
 * ends with the process_* series (server/procmetrics.h).
 */
#ifndef HPOD_METRICS_H
#define HPOD_METRICS_H

#include <stddef.h>

#include "server/router.h"

/* metrics_init - sizes the counters for the route table; once, before
 * the first metrics_record (server/http.c, at start). */
void metrics_init(void);

/* metrics_clear - frees the counters (at stop). */
void metrics_clear(void);

/*
 * metrics_record - counts one answered request: route NULL for a path
 * no route matches, method as the client sent it (any bytes), the HTTP
 * status, and its latency in seconds.
 */
void metrics_record(const struct route *route, const char *method, int status,
                    double sec);

/* metrics_count_cut - counts a connection closed at its deadline
 * (server/conn.c): body 0 while the headers were due, 1 the body. */
void metrics_count_cut(int body);

/* The Prometheus text of every series above (new string). */
char *metrics_text(void);

/* The method label of a request method: itself if one of the seven
 * known, else "other". */
const char *metrics_method_label(const char *method);

#endif
