/*
 * server/auth.c - per-request authentication; contract in auth.h.
 */
#include "server/auth.h"
#include "common/clock.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/err.h"
#include "common/log.h"
#include "common/sha256.h"

#define CACHE_SLOTS 64

struct cache_slot {
    uint8_t hash[SHA256_LEN];
    struct principal who;
    long long until_ms; /* 0: empty */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static enum auth_mode mode = AUTH_AUTO;
static int metrics_open;
static struct cache_slot slots[CACHE_SLOTS];
static int exist_cached;
static long long exist_until_ms;

static const char CHALLENGE_MISSING[] = "Bearer realm=\"hpod\"";
static const char CHALLENGE_INVALID[] =
    "Bearer realm=\"hpod\", error=\"invalid_token\"";

int
auth_mode_parse(const char *s, enum auth_mode *out)
{
    static const char *const names[] = {"auto", "on", "off"};
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (enum auth_mode)i;
            return 0;
        }
    return -1;
}

void
auth_set_mode(enum auth_mode m)
{
    pthread_mutex_lock(&mu);
    mode = m;
    memset(slots, 0, sizeof slots);
    exist_until_ms = 0;
    pthread_mutex_unlock(&mu);
}

void
auth_forget(void)
{
    pthread_mutex_lock(&mu);
    memset(slots, 0, sizeof slots);
    exist_until_ms = 0;
    pthread_mutex_unlock(&mu);
}

void
auth_set_metrics_open(int open)
{
    metrics_open = open;
}

int
auth_needs_db(const struct route *r)
{
    if (metrics_open && strcmp(r->pattern, "/metrics") == 0)
        return 0;
    return r->role != ROLE_NONE && mode != AUTH_OFF;
}

/* The connection *db, borrowed from pool the first time one is needed
 * (a request whose answers are all cached borrows none). */
static enum hpod_status
need_db(struct db **db, struct db_pool *pool, struct hpod_err *err)
{
    return *db ? HPOD_OK : db_pool_acquire(pool, db, err);
}

/* Whether tokens are required now (cached for AUTH_CACHE_MS). */
static enum hpod_status
auth_required(struct db **db, struct db_pool *pool, int *required,
              struct hpod_err *err)
{
    long long t = hpod_now_ms();
    int exist = 0;
    enum hpod_status st;

    pthread_mutex_lock(&mu);
    *required = mode == AUTH_ON ||
                (mode == AUTH_AUTO && exist_cached && t < exist_until_ms);
    int fresh = mode != AUTH_AUTO || t < exist_until_ms;
    pthread_mutex_unlock(&mu);
    if (fresh)
        return HPOD_OK;
    if ((st = need_db(db, pool, err)) != HPOD_OK ||
        (st = access_tokens_exist(*db, &exist, err)) != HPOD_OK)
        return st;
    pthread_mutex_lock(&mu);
    exist_cached = exist;
    exist_until_ms = t + AUTH_CACHE_MS;
    pthread_mutex_unlock(&mu);
    *required = exist;
    return HPOD_OK;
}

/* The token after "Bearer " (any case, spaces around), or NULL. */
static const char *
bearer_token(const char *authz, char *buf, size_t size)
{
    size_t n;
    if (!authz)
        return NULL;
    while (*authz == ' ')
        authz++;
    if (strncasecmp(authz, "Bearer ", 7) != 0)
        return NULL;
    authz += 7;
    while (*authz == ' ')
        authz++;
    n = strcspn(authz, " ");
    if (n == 0 || n >= size || authz[n + strspn(authz + n, " ")] != '\0')
        return NULL;
    memcpy(buf, authz, n);
    buf[n] = '\0';
    return buf;
}

/* The principal of secret: from the cache, else from the database. */
static enum hpod_status
principal_of(struct db **db, struct db_pool *pool, const char *secret,
             struct principal *who, struct hpod_err *err)
{
    uint8_t h[SHA256_LEN];
    long long t = hpod_now_ms();
    struct cache_slot *s;
    enum hpod_status st;

    hpod_sha256(secret, strlen(secret), h);
    s = &slots[h[0] % CACHE_SLOTS];
    pthread_mutex_lock(&mu);
    int hit = s->until_ms > t && memcmp(s->hash, h, sizeof h) == 0;
    if (hit)
        *who = s->who;
    pthread_mutex_unlock(&mu);
    if (hit)
        return HPOD_OK;
    if ((st = need_db(db, pool, err)) != HPOD_OK ||
        (st = access_authenticate(*db, secret, who, err)) != HPOD_OK)
        return st;
    pthread_mutex_lock(&mu);
    memcpy(s->hash, h, sizeof h);
    s->who = *who;
    s->until_ms = t + AUTH_CACHE_MS;
    pthread_mutex_unlock(&mu);
    return HPOD_OK;
}

enum hpod_status
auth_request(struct db **db, struct db_pool *pool, const struct route *r,
             const char *authz, struct principal *who, const char **challenge,
             struct hpod_err *err)
{
    char buf[160];
    const char *secret;
    int required = 0;
    enum hpod_status st;

    memset(who, 0, sizeof *who);
    who->role = ROLE_ADMIN; /* open: every lab, every role */
    *challenge = NULL;
    if (!auth_needs_db(r))
        return HPOD_OK;
    if ((st = auth_required(db, pool, &required, err)) != HPOD_OK || !required)
        return st;
    if (!(secret = bearer_token(authz, buf, sizeof buf))) {
        *challenge = authz ? CHALLENGE_INVALID : CHALLENGE_MISSING;
        return hpod_fail(err, HPOD_EUNAUTH, "",
                         authz ? "the Authorization header must be "
                                 "\"Bearer <token>\""
                               : "this server requires a token: "
                                 "Authorization: Bearer <token>");
    }
    if ((st = principal_of(db, pool, secret, who, err)) != HPOD_OK) {
        if (st == HPOD_EUNAUTH)
            *challenge = CHALLENGE_INVALID;
        return st;
    }
    if (who->role < r->role)
        return hpod_fail(err, HPOD_EDENIED, "",
                         "a %s token cannot %s %s (needs %s)",
                         access_role_name(who->role), r->method, r->pattern,
                         access_role_name(r->role));
    return HPOD_OK;
}

enum hpod_status
auth_check_owner(struct db *db, const struct route *r,
                 const struct principal *who, long long id, const char *name,
                 struct hpod_err *err)
{
    static const struct {
        const char *prefix;
        enum access_kind kind;
    } kinds[] = {{"/v1/studies/{id}", ACCESS_STUDY},
                 {"/v1/trials/{id}", ACCESS_TRIAL},
                 {"/v1/simulations/{id}", ACCESS_SIMULATION},
                 {"/v1/tokens/{id}", ACCESS_TOKEN}};

    if (who->lab[0] == '\0')
        return HPOD_OK;
    if (name[0] && !access_sees_table(who, name))
        return hpod_fail(err, HPOD_ENOTFOUND, "",
                         "benchmark \"%s\" does not exist", name);
    for (size_t i = 0; id > 0 && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strncmp(r->pattern, kinds[i].prefix, strlen(kinds[i].prefix)) == 0)
            return access_check_owner(db, who, kinds[i].kind, id, err);
    return HPOD_OK;
}

static int
loopback(const char *addr)
{
    struct in_addr a;
    return inet_pton(AF_INET, addr, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

enum hpod_status
auth_startup_check(struct db *db, const char *listen_addr, struct hpod_err *err)
{
    int exist = 0;
    enum hpod_status st;

    if (mode == AUTH_OFF) {
        hpod_log(HPOD_LOG_WARN,
                 "HPOD_AUTH=off: no token is asked for; anyone who reaches "
                 "%s may read, change and delete every study",
                 listen_addr);
        return HPOD_OK;
    }
    if (mode == AUTH_ON || loopback(listen_addr))
        return HPOD_OK;
    if ((st = access_tokens_exist(db, &exist, err)) != HPOD_OK)
        return st;
    if (!exist)
        return hpod_fail(err, HPOD_EDENIED, "HPOD_LISTEN_ADDR",
                         "refusing to listen on %s without tokens: create "
                         "one with `hpod token create --role admin`, or set "
                         "HPOD_AUTH=off to serve it open",
                         listen_addr);
    return HPOD_OK;
}
