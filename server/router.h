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

#include "core/status.h"
#include "handlers/handlers.h"

struct route {
    const char *method;
    const char *pattern;
    handler_fn handler;
    int needs_db;
};

/*
 * router_match - finds the route for method and path (no query string).
 * Returns HPOD_OK with *out and *id set; HPOD_ENOTFOUND if no pattern
 * matches; HPOD_EMETHOD if a pattern matches with another method.
 */
enum hpod_status router_match(const char *method, const char *path,
                              const struct route **out, long long *id,
                              char *name, size_t name_size);

/* The table itself, for the contract test and /metrics labels. */
const struct route *router_routes(size_t *n);

#endif
