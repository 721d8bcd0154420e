/*
 * server/router.c - route table as data (Redis command table style).
 */
#include "server/router.h"

#include "common/name.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R ROLE_READ
#define W ROLE_WRITE
#define A ROLE_ADMIN
static const struct route routes[] = {
    {"POST", "/v1/studies", handle_study_create, 1, NULL, W, 0},
    {"GET", "/v1/studies", handle_study_list, 1, "limit,offset,name,lab", R, 0},
    {"GET", "/v1/studies/{id}", handle_study_get, 1, NULL, R, 0},
    {"PATCH", "/v1/studies/{id}", handle_study_patch, 1, NULL, W, 0},
    {"DELETE", "/v1/studies/{id}", handle_study_delete, 1, NULL, A, 0},
    {"POST", "/v1/studies/{id}/copy", handle_study_copy, 1, NULL, W, 0},
    {"GET", "/v1/studies/{id}/related", handle_study_related, 1, NULL, R, 0},
    {"POST", "/v1/studies/{id}/suggest", handle_suggest, 1, NULL, W, 1},
    {"GET", "/v1/studies/{id}/trials", handle_trial_list, 1,
     "state,limit,offset", R, 0},
    {"POST", "/v1/studies/{id}/trials", handle_trial_enqueue, 1, NULL, W, 0},
    {"GET", "/v1/studies/{id}/best", handle_study_best, 1, NULL, R, 0},
    {"GET", "/v1/studies/{id}/pareto", handle_study_pareto, 1, "ranks,history",
     R, 0},
    {"GET", "/v1/studies/{id}/importance", handle_study_importance, 1,
     "objective", R, 1},
    {"GET", "/v1/trials/{id}", handle_trial_get, 1, NULL, R, 0},
    {"GET", "/v1/trials/{id}/explain", handle_trial_explain, 1, NULL, R, 0},
    {"PATCH", "/v1/trials/{id}", handle_trial_patch, 1, NULL, W, 0},
    {"POST", "/v1/trials/{id}/report", handle_trial_report, 1, NULL, W, 0},
    {"POST", "/v1/trials/{id}/heartbeat", handle_trial_heartbeat, 1, NULL, W,
     0},
    {"POST", "/v1/trials/{id}/fail", handle_trial_fail, 1, NULL, W, 0},
    {"POST", "/v1/trials/{id}/preempt", handle_trial_preempt, 1, NULL, W, 0},
    {"POST", "/v1/trials/{id}/exclude", handle_trial_exclude, 1, NULL, W, 0},
    {"POST", "/v1/trials/{id}/restore", handle_trial_restore, 1, NULL, W, 0},
    {"POST", "/v1/trials/{id}/params", handle_trial_params, 1, NULL, W, 0},
    {"GET", "/healthz", handle_healthz, 0, NULL, ROLE_NONE, 0},
    {"GET", "/metrics", handle_metrics, 0, NULL, R, 0},
    {"GET", "/openapi.json", handle_openapi, 0, NULL, ROLE_NONE, 0},
    {"GET", "/", handle_dashboard, 0, NULL, ROLE_NONE, 0},
    {"GET", "/web/{name}", handle_web_asset, 0, NULL, ROLE_NONE, 0},
    {"GET", "/v1/benchmarks", handle_benchmark_list, 1, NULL, R, 0},
    {"POST", "/v1/benchmarks", handle_benchmark_import, 1, NULL, W, 0},
    {"GET", "/v1/benchmarks/{name}", handle_benchmark_get, 1, "pareto_values",
     R, 0},
    {"POST", "/v1/benchmarks/{name}/evaluate", handle_benchmark_evaluate, 1,
     NULL, W, 0},
    {"POST", "/v1/benchmarks/{name}/simulate", handle_benchmark_simulate, 1,
     NULL, W, 0},
    {"GET", "/v1/benchmarks/{name}/importance", handle_benchmark_importance, 1,
     "metric", R, 0},
    {"GET", "/v1/benchmarks/{name}/compare", handle_benchmark_compare, 1,
     "with,metric,goal", R, 0},
    {"GET", "/v1/simulations", handle_simulation_list, 1,
     "benchmark,limit,offset", R, 0},
    {"GET", "/v1/simulations/{id}", handle_simulation_get, 1, "format", R, 0},
    {"DELETE", "/v1/simulations/{id}", handle_simulation_cancel, 1, NULL, W, 0},
    {"POST", "/v1/tokens", handle_token_create, 1, NULL, A, 0},
    {"GET", "/v1/tokens", handle_token_list, 1, NULL, A, 0},
    {"DELETE", "/v1/tokens/{id}", handle_token_revoke, 1, NULL, A, 0},
    {"GET", "/v1/audit", handle_audit_list, 1,
     "lab,study,token,action,since,next,limit", A, 0},
};
#undef R
#undef W
#undef A

const struct route *
router_routes(size_t *n)
{
    *n = sizeof routes / sizeof routes[0];
    return routes;
}

static size_t
name_segment(const char *s)
{
    return hpod_name_span(s);
}

/*
 * Matches one path against one pattern; fills *id for "{id}" and name for
 * "{name}" (tried as two segments, then one).
 */
static int
match(const char *pattern, const char *path, long long *id, char *name,
      size_t name_size)
{
    const char *p = pattern, *s = path;
    while (*p && *s) {
        if (strncmp(p, "{id}", 4) == 0) {
            size_t len = 0;
            long long v = 0;
            /* At most 18 digits: 10^18 - 1 fits a long long, and reading
             * a 19th could overflow it. A 19th digit is then neither the
             * end nor '/', so the path does not match. */
            while (s[len] >= '0' && s[len] <= '9' && len < 18) {
                v = v * 10 + (s[len] - '0');
                len++;
            }
            if (len == 0 || (s[len] && s[len] != '/') || v <= 0)
                return 0;
            *id = v;
            p += 4;
            s += len;
            continue;
        }
        if (strncmp(p, "{name}", 6) == 0) {
            size_t a = name_segment(s), b = 0;
            if (a == 0 || a > 64)
                return 0;
            if (s[a] == '/')
                b = name_segment(s + a + 1);
            /* Two segments first, then one: the rest must match too. */
            for (int two = b > 0 && b <= 64; two >= 0; two--) {
                size_t len = two ? a + 1 + b : a;
                if (len < name_size &&
                    match(p + 6, s + len, id, name, name_size)) {
                    memcpy(name, s, len);
                    name[len] = '\0';
                    return 1;
                }
            }
            return 0;
        }
        if (*p != *s)
            return 0;
        p++;
        s++;
    }
    /* A single trailing slash is tolerated. */
    if (*p == '\0' && s[0] == '/' && s[1] == '\0')
        return 1;
    return *p == '\0' && *s == '\0';
}

enum hpod_status
router_match(const char *method, const char *path, const struct route **out,
             long long *id, char *name, size_t name_size)
{
    int path_seen = 0;
    *out = NULL;
    *id = 0;
    if (name_size)
        name[0] = '\0';
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        long long v = 0;
        char nm[160] = "";
        if (!match(routes[i].pattern, path, &v, nm, sizeof nm))
            continue;
        path_seen = 1;
        if (strcmp(routes[i].method, method) == 0) {
            *out = &routes[i];
            *id = v;
            if (name_size)
                snprintf(name, name_size, "%s", nm);
            return HPOD_OK;
        }
    }
    return path_seen ? HPOD_EMETHOD : HPOD_ENOTFOUND;
}

size_t
router_allow(const char *path, char *buf, size_t size)
{
    size_t n = 0, len = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        long long v = 0;
        char nm[160] = "";
        int w;
        if (!match(routes[i].pattern, path, &v, nm, sizeof nm))
            continue;
        w = snprintf(buf + len, size - len, "%s%s", n ? ", " : "",
                     routes[i].method);
        if (w < 0 || (size_t)w >= size - len)
            break; /* cannot happen with the table above and 64 bytes */
        len += (size_t)w;
        n++;
    }
    return n;
}

int
router_query_ok(const struct route *r, const char *name)
{
    size_t len = strlen(name);
    const char *p = r->query;
    if (!p || len == 0)
        return 0;
    while (*p) {
        size_t k = strcspn(p, ",");
        if (k == len && strncmp(p, name, len) == 0)
            return 1;
        p += k;
        p += *p == ',';
    }
    return 0;
}

int
router_reads_stale(const struct route *r)
{
    static const char *const stale[] = {
        "/v1/studies",
        "/v1/studies/{id}/trials",
        "/v1/studies/{id}/pareto",
        "/v1/studies/{id}/importance",
        "/v1/trials/{id}/explain",
        "/v1/simulations",
        "/v1/benchmarks/{name}/importance",
        "/v1/benchmarks/{name}/compare",
        "/v1/studies/{id}/related",
        "/v1/audit",
    };
    if (strcmp(r->method, "GET") != 0)
        return 0;
    for (size_t i = 0; i < sizeof stale / sizeof stale[0]; i++)
        if (strcmp(r->pattern, stale[i]) == 0)
            return 1;
    return 0;
}
