/*
 * server/procmetrics.c - the process_* series of /metrics; see
 * procmetrics.h.
 */
#include "server/procmetrics.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int
procmetrics_parse_stat(const char *stat, long ticks_per_s, long page_size,
                       double boot_time, struct procmetrics *out)
{
    /* After the command name (the last ')'): field 3 onwards. */
    const char *p = strrchr(stat, ')');
    double f[24] = {0};
    int k = 3;
    char *end;

    if (!p || ticks_per_s <= 0 || page_size <= 0)
        return -1;
    p++;
    while (k <= 24) {
        while (*p == ' ')
            p++;
        if (!*p)
            return -1;
        if (k == 3) { /* the state, one letter */
            while (*p && *p != ' ')
                p++;
        } else {
            f[k - 1] = strtod(p, &end);
            if (end == p)
                return -1;
            p = end;
        }
        k++;
    }
    /* proc(5): utime 14, stime 15, starttime 22 (ticks after boot),
     * vsize 23 (bytes), rss 24 (pages). */
    out->cpu_seconds = (f[13] + f[14]) / (double)ticks_per_s;
    out->start_time = boot_time + f[21] / (double)ticks_per_s;
    out->vm_bytes = f[22];
    out->rss_bytes = f[23] * (double)page_size;
    return 0;
}

/* /proc/stat's btime: the boot time in seconds since the epoch. */
static double
boot_time(void)
{
    char line[256];
    double t = -1;
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "btime ", 6) == 0) {
            t = strtod(line + 6, NULL);
            break;
        }
    fclose(f);
    return t;
}

/* Entries of /proc/self/fd (the listing's own descriptor included, as
 * Prometheus' client libraries count it). */
static long
open_fds(void)
{
    long n = 0;
    struct dirent *e;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

int
procmetrics_read(struct procmetrics *out)
{
    char stat[1024];
    size_t n;
    struct rlimit rl;
    double bt = boot_time();
    FILE *f = fopen("/proc/self/stat", "r");

    memset(out, 0, sizeof *out);
    if (!f)
        return -1;
    n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    if (bt < 0 || procmetrics_parse_stat(stat, sysconf(_SC_CLK_TCK),
                                         sysconf(_SC_PAGESIZE), bt, out) != 0)
        return -1;
    out->open_fds = open_fds();
    out->max_fds =
        getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
            ? (long)rl.rlim_cur
            : -1;
    return 0;
}

/* One family of one sample. */
static void
family(struct strbuf *b, const char *name, const char *type, const char *help,
       double v)
{
    strbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n%s %.15g\n", name, help, name,
                  type, name, v);
}

void
procmetrics_text(struct strbuf *b)
{
    struct procmetrics m;
    if (procmetrics_read(&m) != 0)
        return;
    family(b, "process_cpu_seconds_total", "counter",
           "Total user and system CPU time spent in seconds.", m.cpu_seconds);
    family(b, "process_resident_memory_bytes", "gauge",
           "Resident memory size in bytes.", m.rss_bytes);
    family(b, "process_virtual_memory_bytes", "gauge",
           "Virtual memory size in bytes.", m.vm_bytes);
    family(b, "process_start_time_seconds", "gauge",
           "Start time of the process since unix epoch in seconds.",
           m.start_time);
    if (m.open_fds >= 0)
        family(b, "process_open_fds", "gauge",
               "Number of open file descriptors.", (double)m.open_fds);
    if (m.max_fds >= 0)
        family(b, "process_max_fds", "gauge",
               "Maximum number of open file descriptors.", (double)m.max_fds);
}
