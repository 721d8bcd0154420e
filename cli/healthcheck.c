/*
 * cli/healthcheck.c - `hpod healthcheck`; see healthcheck.h.
 */
#include "cli/healthcheck.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/httpc.h"

/* /healthz answers a few dozen bytes; more than this is not hpod. */
#define ANSWER_MAX 16384

static int fail(const char *where, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints the one line that says why the check failed; returns 1. */
static int
fail(const char *where, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "hpod healthcheck: %s: ", where);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

/* Checks a 200 with a JSON body holding "status": "ok". */
static int
judge(const struct httpc_answer *ans, const char *where)
{
    json_error_t jerr;
    json_t *doc = json_loads(ans->body, JSON_DECODE_ANY, &jerr);
    const char *status = json_string_value(json_object_get(doc, "status"));
    int ok = ans->status == 200 && status && strcmp(status, "ok") == 0;
    if (!ok) {
        char why[400];
        snprintf(why, sizeof why, "%s, body %.200s", ans->status_line,
                 ans->body);
        for (char *p = why; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        fail(where, "unhealthy: %s", why);
    }
    json_decref(doc);
    return ok ? 0 : 1;
}

int
healthcheck_run(const struct config *cfg)
{
    char where[160], why[256];
    struct httpc_answer ans;
    /* 0.0.0.0 listens on every interface, loopback included. */
    const char *addr = strcmp(cfg->listen_addr, "0.0.0.0") == 0
                           ? "127.0.0.1"
                           : cfg->listen_addr;
    struct httpc_request rq = {.addr = addr,
                               .port = cfg->port,
                               .method = "GET",
                               .path = "/healthz",
                               .timeout_ms = HEALTHCHECK_TIMEOUT_MS,
                               .max_answer = ANSWER_MAX};

    snprintf(where, sizeof where, "GET http://%s:%ld/healthz", addr, cfg->port);
    if (cfg->port == 0)
        return fail(where, "%s",
                    "HPOD_PORT is 0 (any free port): set the port serve "
                    "listens on");
    if (httpc_exchange(&rq, &ans, why, sizeof why) != 0)
        return fail(where, "%s", why);
    int rc = judge(&ans, where);
    httpc_answer_clear(&ans);
    return rc;
}
