/*
 * server/config.h - HPOD_* environment variables, read once at start-up.
 *
 * One declarative table (server/config.c, Redis static_configs[] style)
 * holds every variable with its default and bounds; `hpod --help` prints
 * it. Nothing else in hpod calls getenv().
 */
#ifndef HPOD_CONFIG_H
#define HPOD_CONFIG_H

#include <stdio.h>

#include "common/status.h"
#include "store/db.h"

struct config {
    long port;
    char listen_addr[64];
    char database_url[1024];
    char migrate_database_url[1024]; /* "" in the table: database_url */
    char read_database_url[1024];    /* "": no standby */
    long read_max_lag_ms;
    char benchmarks[1024];
    char migrations[1024];
    long max_body;
    long threads;
    long max_connections;
    long conn_per_addr;
    long header_timeout_ms;
    long body_timeout_ms;
    long rate_per_token;
    long rate_burst;
    long db_pool;
    long db_connect_timeout_ms;
    long db_wait_seconds;
    long db_statement_timeout_ms;
    long reaper_ms;
    long sim_workers;
    long sim_lease_ms;
    long sim_queue_per_lab;
    long sim_slice_runs;
    long sim_slice_ms;
    long sim_sync_wait_ms;
    char sim_cgroup[1024];
    long history_cache;
    long suggest_budget_ms;
    long lab_model_slots;
    long lab_queue;
    long model_cache_mb;
    char log_level[16];
    char auth[8];
    long audit_days;
    char url[1024];
    char token[128];
    char metrics_auth[8];
};

/*
 * config_load - fills c from the variables that getenv_fn returns (getenv
 * in the server; a fake in tests), applying defaults and checking bounds.
 * Returns HPOD_EINVAL with err naming the variable on a bad value.
 */
enum hpod_status config_load(struct config *c,
                             const char *(*getenv_fn)(const char *name),
                             struct hpod_err *err);

/* Prints the table of variables (for --help). */
void config_print_help(FILE *out);

/* The database deadlines of c (HPOD_DB_*_TIMEOUT_MS). */
struct db_opts config_db_opts(const struct config *c);

#endif
