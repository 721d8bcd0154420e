/*
 * server/auth.h - who is asking: bearer tokens, roles and labs, per
 * request, before the handler runs.
 *
 * Modes (HPOD_AUTH): "auto" (default) requires a token on every route
 * but /healthz and /openapi.json as soon as one token exists in the
 * database; "on" always requires one; "off" never does (logged as a
 * warning). A lapsed check costs one indexed query: verified tokens and
 * the "tokens exist" answer are cached for AUTH_CACHE_MS, so a revoked
 * or expired token stops working on every replica within that time.
 */
#ifndef HPOD_AUTH_H
#define HPOD_AUTH_H

#include "common/status.h"
#include "server/router.h"
#include "store/db.h"
#include "study/access.h"

#define AUTH_CACHE_MS 500

enum auth_mode { AUTH_AUTO, AUTH_ON, AUTH_OFF };

/* auth_mode_parse - "auto", "on", "off"; 0 on success, -1 otherwise. */
int auth_mode_parse(const char *s, enum auth_mode *out);

/*
 * auth_set_mode - the process's mode (server/main.c, once at start-up,
 * before the HTTP threads). Also empties the cache.
 */
void auth_set_mode(enum auth_mode mode);

/*
 * auth_set_metrics_open - open 1: GET /metrics needs no token whatever
 * the mode (HPOD_METRICS_AUTH=off); 0: it needs a read token whenever
 * the server requires tokens. Once at start-up, like auth_set_mode.
 */
void auth_set_metrics_open(int open);

/*
 * auth_request - the principal of a request to route r carrying the
 * Authorization header authz (may be NULL), checked against the route's
 * role. *db is the request's connection, or NULL: one is borrowed from
 * pool into *db only when a token or "tokens exist" is not cached (the
 * caller releases it).
 * HPOD_EUNAUTH (with *challenge set to the WWW-Authenticate value) for a
 * missing, malformed, unknown, expired or revoked token; HPOD_EDENIED
 * when the role does not allow the route.
 */
enum hpod_status auth_request(struct db **db, struct db_pool *pool,
                              const struct route *r, const char *authz,
                              struct principal *who, const char **challenge,
                              struct hpod_err *err);

/*
 * auth_forget - empties this process's cache of verified tokens (after a
 * revocation through this server: the token is refused at once here, on
 * other replicas within AUTH_CACHE_MS).
 */
void auth_forget(void);

/* Whether auth_request needs a database connection for route r. */
int auth_needs_db(const struct route *r);

/*
 * auth_check_owner - HPOD_ENOTFOUND when the study, trial, simulation,
 * token or imported table the path names ({id} or {name} of route r)
 * belongs to a lab who may not see: the same answer as for one that does
 * not exist, so another lab's ids do not leak.
 */
enum hpod_status auth_check_owner(struct db *db, const struct route *r,
                                  const struct principal *who, long long id,
                                  const char *name, struct hpod_err *err);

/*
 * auth_startup_check - refuses (HPOD_EDENIED, message in err) to serve
 * a non-loopback listen_addr when no token exists and the mode is
 * "auto"; logs a warning when the mode is "off".
 */
enum hpod_status auth_startup_check(struct db *db, const char *listen_addr,
                                    struct hpod_err *err);

#endif
