/*
 * tests/unit/test_procmetrics.c - server/procmetrics.c: a /proc/PID/stat
 * line read by field number after the command name (which may hold
 * spaces and parentheses), against figures worked out by hand; lines
 * that are not one; and this process's own figures, against getrusage
 * and what it knows of itself.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "server/procmetrics.h"

/* Fields 1-24 of proc(5); utime 14 = 250, stime 15 = 150 ticks, starttime
 * 22 = 12345 ticks, vsize 23 = 104857600 bytes, rss 24 = 2560 pages. */
static const char STAT[] =
    "4242 (hpod (serve) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 150 0 0 "
    "20 0 9 0 12345 104857600 2560 18446744073709551615 1 1 0 0 0 0 0 0 0\n";

static void
test_parse(void **state)
{
    (void)state;
    struct procmetrics m;
    assert_int_equal(procmetrics_parse_stat(STAT, 100, 4096, 1.7e9, &m), 0);
    assert_close(m.cpu_seconds, 4.0, 0, 1e-12); /* (250 + 150) / 100 */
    assert_close(m.start_time, 1.7e9 + 123.45, 0, 1e-6);
    assert_close(m.vm_bytes, 104857600.0, 0, 0);
    assert_close(m.rss_bytes, 2560.0 * 4096, 0, 0);
}

static void
test_not_a_stat_line(void **state)
{
    (void)state;
    struct procmetrics m;
    assert_int_equal(procmetrics_parse_stat("", 100, 4096, 0, &m), -1);
    assert_int_equal(procmetrics_parse_stat("1 (x) S 1 2 3", 100, 4096, 0, &m),
                     -1);
    assert_int_equal(procmetrics_parse_stat("1 x S 1 2 3", 100, 4096, 0, &m),
                     -1);
    assert_int_equal(procmetrics_parse_stat(STAT, 0, 4096, 0, &m), -1);
}

static void
test_self(void **state)
{
    (void)state;
    struct procmetrics m;
    struct rusage ru;
    struct strbuf b = {0};
    volatile double x = 0;
    for (long i = 0; i < 20000000; i++)
        x += (double)i;
    assert_int_equal(procmetrics_read(&m), 0);
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    /* Ticks (1/100 s) against microseconds, read a moment apart. */
    assert_close(m.cpu_seconds, cpu, 0, 0.05);
    assert_true(m.start_time <= (double)time(NULL) + 1);
    assert_true(m.start_time > (double)time(NULL) - 3600);
    assert_true(m.rss_bytes > 1e6 && m.vm_bytes >= m.rss_bytes);
    assert_true(m.open_fds >= 3 && m.max_fds >= m.open_fds);
    procmetrics_text(&b);
    for (const char *f = "process_cpu_seconds_total\0process_resident_memory_"
                         "bytes\0process_start_time_seconds\0process_open_"
                         "fds\0process_max_fds\0";
         *f; f += strlen(f) + 1) {
        char type[80];
        snprintf(type, sizeof type, "# TYPE %s ", f);
        assert_non_null(strstr(b.p, type));
    }
    free(b.p);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_not_a_stat_line),
        cmocka_unit_test(test_self),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
