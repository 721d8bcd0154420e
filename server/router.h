/*
 * server/router.h - the static route table and path matching.
 *
 * Patterns are literal segments plus "{id}", which matches a positive
 * decimal integer of at most 18 digits (anything else is a 404, never a
 * 400: /v1/studies/abc names no resource), and "{name}", which matches a
 * benchmark name: one or two segments of [A-Za-z0-9_.-] ("nmthpo/zh-en"),
 * two tried first.
 */
#ifndef HPOD_ROUTER_H
#define HPOD_ROUTER_H

#include <stddef.h>

#include "common/status.h"
#include "handlers/handlers.h"

struct route {
    const char *method;
    const char *pattern;
    handler_fn handler;
    int needs_db;
    /* The query parameters the handler reads, comma-separated ("limit,
     * offset"), or NULL for none. Any other parameter is a 400 before the
     * handler runs, so a typo ("?limt=5") never passes unnoticed. The spec
     * (openapi/openapi.json) lists the same names per operation. */
    const char *query;
    /* The least role a token needs (server/auth.c): ROLE_NONE for the
     * routes open to all (/healthz, /openapi.json), ROLE_READ for reads,
     * ROLE_WRITE for what trainers do, ROLE_ADMIN for deletes and
     * tokens. */
    enum access_role role;
    /* 1 for routes that do model work (suggest, importance): the handler
     * gets no pooled connection; it borrows one only while it reads or
     * leads a suggest group, never while it waits for its lab's model
     * slots (study/labsched.h) or fits, and suggests hold at most three
     * quarters of the pool (study/suggest_group.h), so reports and reads
     * never queue behind them. */
    int waits_for_study;
};

/*
 * router_match - finds the route for method and path (no query string).
 * Returns HPOD_OK with *out and *id set; HPOD_ENOTFOUND if no pattern
 * matches; HPOD_EMETHOD if a pattern matches with another method.
 */
enum hpod_status router_match(const char *method, const char *path,
                              const struct route **out, long long *id,
                              char *name, size_t name_size);

/*
 * router_allow - writes the methods allowed on path, in table order and
 * comma-separated ("GET, DELETE"), to buf (the Allow header of a 405).
 * Returns the number of methods (0: no route has this path).
 */
size_t router_allow(const char *path, char *buf, size_t size);

/* router_query_ok - 1 if route declares query parameter name, else 0. */
int router_query_ok(const struct route *r, const char *name);

/*
 * router_reads_stale - 1 for the routes whose reads may come from a
 * standby a little behind (store/standby.h): what dashboards and analyses
 * read (lists, CSV, pareto, importance, explain, comparisons, related studies,
 * the audit log); 0 for every write and for the reads a trainer makes after its
 * own writes (a study or trial by id, best, a simulation it polls), which
 * always go to the primary. docs/DEPLOY.md, "A standby for reads".
 */
int router_reads_stale(const struct route *r);

/* The table itself, for the contract test and /metrics labels. */
const struct route *router_routes(size_t *n);

#endif
