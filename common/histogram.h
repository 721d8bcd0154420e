/*
 * common/histogram.h - a latency histogram for /metrics: fixed upper
 * bounds, counts kept in atomics (observed from any thread without a
 * lock), written out in the Prometheus text format: cumulative
 * NAME_bucket lines ending with le="+Inf", NAME_sum and NAME_count; and
 * the escaping of a label value in that format.
 */
#ifndef HPOD_COMMON_HISTOGRAM_H
#define HPOD_COMMON_HISTOGRAM_H

#include <stdatomic.h>
#include <stddef.h>

#include "common/strbuf.h"

#define HISTOGRAM_MAX_BOUNDS 16

/* The buckets' upper bounds in seconds, ascending. */
struct histogram_bounds {
    size_t n; /* 1..HISTOGRAM_MAX_BOUNDS */
    double le[HISTOGRAM_MAX_BOUNDS];
};

/* Zeroed: empty. */
struct histogram {
    atomic_llong count[HISTOGRAM_MAX_BOUNDS + 1]; /* per bucket, not
                                                     cumulative; [n]: +Inf */
    atomic_llong sum_us;                          /* microseconds */
};

/* histogram_observe - counts one value sec (seconds) in h; a NaN or a
 * negative value counts in the first bucket with nothing added to the
 * sum. */
void histogram_observe(struct histogram *h, const struct histogram_bounds *b,
                       double sec);

/* How many values h has counted. */
long long histogram_total(const struct histogram *h,
                          const struct histogram_bounds *b);

/*
 * histogram_text - appends h's samples as family name: labels is the
 * series' other labels, already escaped and joined ("route=\"/x\""), or
 * "" for none. The family's HELP and TYPE lines are the caller's.
 */
void histogram_text(struct strbuf *out, const char *name, const char *labels,
                    const struct histogram *h,
                    const struct histogram_bounds *b);

/*
 * histogram_escape - a label value escaped as the text format asks
 * (backslash, double quote and newline as \\, \" and \n) into out of cap
 * bytes, cut short rather than overflowing. Returns out.
 */
char *histogram_escape(const char *in, char *out, size_t cap);

#endif
