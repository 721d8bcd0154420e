/*
 * server/procmetrics.h - the process_* series of /metrics, as Prometheus'
 * client libraries name them: CPU seconds, resident and virtual memory,
 * open and most file descriptors, and the start time, read from /proc at
 * each scrape (Linux).
 */
#ifndef HPOD_PROCMETRICS_H
#define HPOD_PROCMETRICS_H

#include "common/strbuf.h"

struct procmetrics {
    double cpu_seconds; /* user + system */
    double start_time;  /* seconds since the Unix epoch */
    double rss_bytes, vm_bytes;
    long open_fds, max_fds; /* -1: unknown */
};

/*
 * procmetrics_parse_stat - the fields of a /proc/PID/stat line into out
 * (cpu_seconds, start_time, rss_bytes, vm_bytes): ticks_per_s is
 * sysconf(_SC_CLK_TCK), page_size the page size in bytes, boot_time the
 * `btime` of /proc/stat. The command name may hold spaces and
 * parentheses. Returns 0, or -1 when the line is not one.
 */
int procmetrics_parse_stat(const char *stat, long ticks_per_s, long page_size,
                           double boot_time, struct procmetrics *out);

/* procmetrics_read - this process's figures; 0, or -1 without /proc. */
int procmetrics_read(struct procmetrics *out);

/* Appends the process_* families (nothing without /proc). */
void procmetrics_text(struct strbuf *b);

#endif
