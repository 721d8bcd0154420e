/*
 * server/config.c - the configuration table; see config.h.
 */
#include "server/config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"

enum cv_type { CV_INT, CV_STR };

struct config_var {
    const char *name;
    enum cv_type type;
    const char *dflt; /* NULL: computed (see defaults below) */
    long min, max;
    size_t offset, size;
    const char *help;
};

#define STR(f) offsetof(struct config, f), sizeof(((struct config *)0)->f)
#define INT(f) offsetof(struct config, f), 0

static const struct config_var vars[] = {
    {"HPOD_PORT", CV_INT, "8080", 0, 65535, INT(port),
     "TCP port (0: any free port, logged at start)"},
    {"HPOD_LISTEN_ADDR", CV_STR, "127.0.0.1", 0, 0, STR(listen_addr),
     "IPv4 address to listen on"},
    {"HPOD_DATABASE_URL", CV_STR, NULL, 0, 0, STR(database_url),
     "libpq URL (default: the private cluster of `make run` in ./.pgdata)"},
    {"HPOD_MIGRATE_DATABASE_URL", CV_STR, "", 0, 0, STR(migrate_database_url),
     "libpq URL for `hpod migrate` and serve's start-up migration: a direct "
     "one when HPOD_DATABASE_URL goes through a pooler (empty: "
     "HPOD_DATABASE_URL)"},
    {"HPOD_READ_DATABASE_URL", CV_STR, "", 0, 0, STR(read_database_url),
     "libpq URL of a streaming standby for the reads that tolerate "
     "staleness (lists, CSV, pareto, importance, explain); empty: none "
     "(docs/DEPLOY.md)"},
    {"HPOD_READ_MAX_LAG_MS", CV_INT, "1000", 10, 3600000, INT(read_max_lag_ms),
     "reads go to the primary while the standby is further behind than this "
     "(or down); logged once, and once when it is back"},
    {"HPOD_BENCHMARKS", CV_STR, NULL, 0, 0, STR(benchmarks),
     "directory of lookup tables (default ../shared/benchmarks if present)"},
    {"HPOD_MIGRATIONS", CV_STR, "migrations", 0, 0, STR(migrations),
     "directory of NNNN_*.sql migrations"},
    {"HPOD_MAX_BODY", CV_INT, "1048576", 1024, 1L << 30, INT(max_body),
     "largest request body in bytes (413 above)"},
    {"HPOD_THREADS", CV_INT, "0", 0, 256, INT(threads),
     "HTTP worker threads; 0: one per connection"},
    {"HPOD_MAX_CONNECTIONS", CV_INT, "1000", 16, 100000, INT(max_connections),
     "open connections per process; past it a new one is closed at once"},
    {"HPOD_CONN_PER_ADDR", CV_INT, "128", 1, 100000, INT(conn_per_addr),
     "open connections per client address; past it a new one is closed at "
     "once (behind a balancer every client shares its address: raise it)"},
    {"HPOD_HEADER_TIMEOUT_MS", CV_INT, "10000", 100, 3600000,
     INT(header_timeout_ms),
     "a request's headers must be in this long after the connection opened "
     "(or its previous answer was sent), however they trickle in; else the "
     "connection is closed"},
    {"HPOD_BODY_TIMEOUT_MS", CV_INT, "60000", 100, 3600000,
     INT(body_timeout_ms),
     "the same deadline for headers and body together; else the connection "
     "is closed"},
    {"HPOD_RATE_PER_TOKEN", CV_INT, "200", 0, 1000000, INT(rate_per_token),
     "requests per second per token (per client address on an open server), "
     "counted by each process; past it 429 with Retry-After; 0: no limit"},
    {"HPOD_RATE_BURST", CV_INT, "400", 1, 10000000, INT(rate_burst),
     "requests a token may send at once above HPOD_RATE_PER_TOKEN"},
    {"HPOD_DB_POOL", CV_INT, "8", 1, 256, INT(db_pool),
     "database connections per process"},
    {"HPOD_DB_CONNECT_TIMEOUT_MS", CV_INT, "5000", 100, 600000,
     INT(db_connect_timeout_ms),
     "give up opening a database connection after this long (503)"},
    {"HPOD_DB_WAIT_SECONDS", CV_INT, "60", 0, 3600, INT(db_wait_seconds),
     "serve/migrate: while the database accepts no connections yet, retry "
     "the first one with backoff for this long (0: no retry)"},
    {"HPOD_DB_STATEMENT_TIMEOUT_MS", CV_INT, "30000", 100, 86400000,
     INT(db_statement_timeout_ms),
     "server-side statement_timeout; a server that does not answer at all "
     "is given up 1 s later (503)"},
    {"HPOD_REAPER_MS", CV_INT, "1000", 50, 3600000, INT(reaper_ms),
     "how often expired leases are recovered"},
    {"HPOD_SIM_WORKERS", CV_INT, "1", 0, 16, INT(sim_workers),
     "simulation worker threads (0: this process runs no simulation jobs, "
     "other replicas do)"},
    {"HPOD_SIM_LEASE_MS", CV_INT, "30000", 300, 3600000, INT(sim_lease_ms),
     "lease of a running simulation job, renewed while it computes; a job "
     "whose process died is taken again once it lapses"},
    {"HPOD_SIM_QUEUE_PER_LAB", CV_INT, "16", 1, 100000, INT(sim_queue_per_lab),
     "simulations a lab may have queued or running; past it simulate "
     "answers 429 with Retry-After and stores nothing"},
    {"HPOD_SIM_SLICE_RUNS", CV_INT, "100", 1, 1000, INT(sim_slice_runs),
     "most repeats a simulation worker computes before the job goes back "
     "to the queue (served round-robin across labs)"},
    {"HPOD_SIM_SLICE_MS", CV_INT, "2000", 50, 3600000, INT(sim_slice_ms),
     "a slice of a simulation starts no further repeat after this long, "
     "so another lab's job waits at most about this (plus a repeat)"},
    {"HPOD_SIM_SYNC_WAIT_MS", CV_INT, "30000", 0, 600000, INT(sim_sync_wait_ms),
     "how long simulate without Prefer: respond-async waits for its "
     "result; then 202 with the job's Location, as the async form"},
    {"HPOD_SIM_CGROUP", CV_STR, "", 0, 0, STR(sim_cgroup),
     "a cpu cgroup directory (cpu.idle=1) that each simulation worker "
     "thread joins as it starts (DIR/tasks, or DIR/cgroup.threads on "
     "cgroup v2), so that any request preempts a simulation; empty: none. "
     "hpod never creates it; when joining fails it warns and runs without"},
    {"HPOD_HISTORY_CACHE", CV_INT, "1", 0, 1, INT(history_cache),
     "1: keep each study's history in process, re-reading only what "
     "changed (checked against the database on every suggest); 0: read "
     "it all every time"},
    {"HPOD_SUGGEST_BUDGET_MS", CV_INT, "2000", 0, 3600000,
     INT(suggest_budget_ms),
     "compute budget of each model choice of a suggest: once spent, the "
     "search answers the best configuration found (the trial's explanation "
     "says budget_cut); 0: unbounded"},
    {"HPOD_LAB_MODEL_SLOTS", CV_INT, "0", 0, 256, INT(lab_model_slots),
     "model computations (suggest transactions, importance fits) one lab "
     "may run at once in this process; 0: half the suggest connections "
     "and half the CPUs, whichever is fewer, at least 1, so one lab never "
     "takes them all"},
    {"HPOD_LAB_QUEUE", CV_INT, "64", 0, 100000, INT(lab_queue),
     "model computations of one lab that may wait for a slot; past it the "
     "request is answered 429 with Retry-After"},
    {"HPOD_MODEL_CACHE_MB", CV_INT, "1024", 1, 1048576, INT(model_cache_mb),
     "bytes of model memory (parsed definitions, histories, GP factors, "
     "graphs, importance answers) a process keeps between requests, in "
     "MiB; a model that cannot fit is answered 503 with Retry-After"},
    {"HPOD_LOG_LEVEL", CV_STR, "info", 0, 0, STR(log_level),
     "debug, info, warn or error"},
    {"HPOD_AUTH", CV_STR, "auto", 0, 0, STR(auth),
     "auto (tokens required once one exists), on, or off (open: logged)"},
    {"HPOD_AUDIT_DAYS", CV_INT, "365", 1, 36500, INT(audit_days),
     "days the audit log keeps an event (GET /v1/audit); older ones are "
     "deleted by the reaper (docs/audit.md)"},
    {"HPOD_URL", CV_STR, "", 0, 0, STR(url),
     "the server `hpod study`, `trials`, `best` and `watch` talk to, "
     "http://host[:port][/prefix] (empty: http://127.0.0.1:HPOD_PORT)"},
    {"HPOD_TOKEN", CV_STR, "", 0, 0, STR(token),
     "the token those commands send (empty: none); never printed"},
    {"HPOD_METRICS_AUTH", CV_STR, "on", 0, 0, STR(metrics_auth),
     "on: a scrape of /metrics needs a read token whenever the server "
     "requires tokens; off: it never does (docs/configuration.md, "
     "\"Metrics\")"},
};

static void
computed_default(const char *name, char *out, size_t size)
{
    char cwd[700];
    out[0] = '\0';
    if (!getcwd(cwd, sizeof cwd))
        strcpy(cwd, ".");
    if (strcmp(name, "HPOD_DATABASE_URL") == 0)
        snprintf(out, size, "postgresql:///hpod?host=%s/.pgdata&user=postgres",
                 cwd);
    else if (strcmp(name, "HPOD_BENCHMARKS") == 0 &&
             access("../shared/benchmarks", R_OK) == 0)
        snprintf(out, size, "%s/../shared/benchmarks", cwd);
}

enum hpod_status
config_load(struct config *c, const char *(*getenv_fn)(const char *name),
            struct hpod_err *err)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const struct config_var *v = &vars[i];
        const char *val = getenv_fn(v->name);
        char buf[1024];
        if (!val || !*val) {
            if (v->dflt) {
                val = v->dflt;
            } else {
                computed_default(v->name, buf, sizeof buf);
                val = buf;
            }
        }
        if (v->type == CV_INT) {
            char *end;
            errno = 0;
            long n = strtol(val, &end, 10);
            if (errno || end == val || *end || n < v->min || n > v->max)
                return hpod_fail(err, HPOD_EINVAL, v->name,
                                 "invalid value \"%s\" for %s: must be an "
                                 "integer from %ld to %ld",
                                 val, v->name, v->min, v->max);
            *(long *)((char *)c + v->offset) = n;
        } else {
            if (strlen(val) >= v->size)
                return hpod_fail(err, HPOD_EINVAL, v->name,
                                 "value of %s is too long", v->name);
            memcpy((char *)c + v->offset, val, strlen(val) + 1);
        }
    }
    if (!c->migrate_database_url[0])
        memcpy(c->migrate_database_url, c->database_url,
               sizeof c->migrate_database_url);
    if (strcmp(c->log_level, "debug") && strcmp(c->log_level, "info") &&
        strcmp(c->log_level, "warn") && strcmp(c->log_level, "error"))
        return hpod_fail(err, HPOD_EINVAL, "HPOD_LOG_LEVEL",
                         "invalid value \"%s\" for HPOD_LOG_LEVEL: must be "
                         "debug, info, warn or error",
                         c->log_level);
    if (strcmp(c->auth, "auto") && strcmp(c->auth, "on") &&
        strcmp(c->auth, "off"))
        return hpod_fail(err, HPOD_EINVAL, "HPOD_AUTH",
                         "invalid value \"%s\" for HPOD_AUTH: must be auto, "
                         "on or off",
                         c->auth);
    if (strcmp(c->metrics_auth, "on") && strcmp(c->metrics_auth, "off"))
        return hpod_fail(err, HPOD_EINVAL, "HPOD_METRICS_AUTH",
                         "invalid value \"%s\" for HPOD_METRICS_AUTH: must "
                         "be on or off",
                         c->metrics_auth);
    return HPOD_OK;
}

void
config_print_help(FILE *out)
{
    fprintf(out, "environment:\n");
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        fprintf(out, "  %-28s %s (default: %s)\n", vars[i].name, vars[i].help,
                vars[i].dflt ? vars[i].dflt : "see text");
}

struct db_opts
config_db_opts(const struct config *c)
{
    struct db_opts o = {c->db_connect_timeout_ms, c->db_statement_timeout_ms};
    return o;
}
