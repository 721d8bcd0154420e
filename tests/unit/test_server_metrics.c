/*
 * tests/unit/test_server_metrics.c - server/metrics.c: label values
 * escaped as the Prometheus text format asks, every line of the
 * exposition a comment or a well-formed sample, and a closed set of
 * series whatever methods and statuses clients cause.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>

#include "common/histogram.h"
#include "server/metrics.h"
#include "server/router.h"

/* A label value as the format allows: no raw '"' or newline, a
 * backslash only before \, " or n. Returns its end (the closing quote). */
static const char *
label_value(const char *p)
{
    for (; *p && *p != '"'; p++) {
        if (*p == '\n')
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p != '\\' && *p != '"' && *p != 'n')
                return NULL;
        }
    }
    return *p == '"' ? p : NULL;
}

/* 1 when line (without its newline) is a comment or
 * name{k="v",...} number. */
static int
sample_ok(const char *line)
{
    const char *p = line;
    char *end;
    if (line[0] == '#')
        return 1;
    if (!((*p >= 'a' && *p <= 'z') || *p == '_'))
        return 0;
    while ((*p >= 'a' && *p <= 'z') || *p == '_' || (*p >= '0' && *p <= '9'))
        p++;
    if (*p == '{') {
        p++;
        while (*p != '}') {
            while ((*p >= 'a' && *p <= 'z') || *p == '_')
                p++;
            if (p[0] != '=' || p[1] != '"' || !(p = label_value(p + 2)))
                return 0;
            p++;
            if (*p == ',')
                p++;
            else if (*p != '}')
                return 0;
        }
        p++;
    }
    if (*p++ != ' ')
        return 0;
    strtod(p, &end);
    return end != p && *end == '\0';
}

/* Checks every line of text; returns how many request series it has. */
static size_t
check_exposition(char *text)
{
    size_t series = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!sample_ok(line))
            fail_msg("not a sample: %s", line);
        if (strncmp(line, "hpod_http_requests_total{", 25) == 0)
            series++;
    }
    return series;
}

static void
test_escape(void **state)
{
    (void)state;
    char out[64];
    assert_string_equal(histogram_escape("Q\"}x", out, sizeof out), "Q\\\"}x");
    assert_string_equal(histogram_escape("a\\b\nc", out, sizeof out),
                        "a\\\\b\\nc");
    /* Cut short, never in the middle of an escape. */
    assert_string_equal(histogram_escape("ab\"", out, 4), "ab");
    assert_string_equal(histogram_escape(NULL, out, sizeof out), "");
}

static void
test_methods(void **state)
{
    (void)state;
    assert_string_equal(metrics_method_label("GET"), "GET");
    assert_string_equal(metrics_method_label("OPTIONS"), "OPTIONS");
    assert_string_equal(metrics_method_label("get"), "other");
    assert_string_equal(metrics_method_label("Q\"}x"), "other");
    assert_string_equal(metrics_method_label(""), "other");
    assert_string_equal(metrics_method_label(NULL), "other");
}

static void
test_hostile_requests_stay_bounded(void **state)
{
    (void)state;
    size_t n;
    const struct route *routes = router_routes(&n);
    char method[32], *text;
    metrics_init();
    metrics_record(&routes[0], "POST", 201, 0.003);
    metrics_record(&routes[0], "POST", 201, 0.2);
    metrics_record(NULL, "Q\"}x", 404, 0.0001);
    metrics_record(NULL, "GET\n# TYPE", 404, 7.0);
    metrics_record(NULL, "", 418, 0.01);    /* counted as 4xx */
    metrics_record(NULL, "GET", 999, 0.01); /* other */
    for (int i = 0; i < 20000; i++) {
        snprintf(method, sizeof method, "M%d\"\\%c", i, (char)(1 + i % 31));
        metrics_record(NULL, method, 404 + i % 2, 0.001);
    }
    metrics_count_cut(0);
    metrics_count_cut(1);
    metrics_count_cut(1);
    text = metrics_text();
    assert_non_null(strstr(text,
                           "hpod_http_requests_total{route=\"/v1/"
                           "studies\",method=\"POST\",status=\"201\"} 2\n"));
    assert_non_null(strstr(text, "{route=\"unmatched\",method=\"other\","
                                 "status=\"404\"} 10002\n"));
    assert_non_null(strstr(text, "status=\"4xx\"} 1\n"));
    assert_non_null(strstr(text, "method=\"GET\",status=\"other\"} 1\n"));
    assert_non_null(strstr(text, "hpod_http_request_duration_seconds_bucket{"
                                 "route=\"/v1/studies\",le=\"0.005\"} 1\n"));
    assert_non_null(strstr(text, "hpod_http_request_duration_seconds_bucket{"
                                 "route=\"/v1/studies\",le=\"+Inf\"} 2\n"));
    assert_non_null(strstr(text, "hpod_http_request_duration_seconds_sum{"
                                 "route=\"/v1/studies\"} 0.203000\n"));
    assert_non_null(strstr(text, "{phase=\"body\"} 2\n"));
    assert_null(strstr(text, "Q\""));
    /* POST /v1/studies 201; unmatched: other 404, 405 and 4xx, GET other. */
    assert_int_equal(check_exposition(text), 5);
    free(text);
    metrics_clear();
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_methods),
        cmocka_unit_test(test_hostile_requests_stay_bounded),
    };
    return cmocka_run_group_tests_name("server_metrics", tests, NULL, NULL);
}
