/*
 * server/serve.h - `hpod serve`, the HTTP server process.
 *
 * Reads nothing itself: cli/main.c loads the configuration and calls
 * serve_run. serve_run applies migrations (under an advisory lock, so
 * several processes may start at once), opens the connection pool, starts
 * the simulation workers, the HTTP daemon and the lease reaper, and waits
 * for SIGINT/SIGTERM; then it stops accepting, finishes the requests in
 * flight, and frees everything.
 */
#ifndef HPOD_SERVE_H
#define HPOD_SERVE_H

#include "server/config.h"

#include "bench/jobs.h"

struct bench_db;
struct hpod_ctx;

/* The lookup tables of HPOD_BENCHMARKS into *bench (none when it is empty
 * or unreadable, with a warning); users' own tables live in PostgreSQL.
 * Also what `hpod worker` computes simulations on. */
void serve_load_tables(const struct config *cfg, struct bench_db *bench);

/* The simulation workers' options from the configuration, for serve and
 * `hpod worker` alike (ctx borrowed: its pool and tables). */
struct bench_jobs_opts serve_jobs_opts(const struct config *cfg,
                                       struct hpod_ctx *ctx);

/* Runs the server until SIGINT/SIGTERM; returns the process exit code
 * (0 after a clean shutdown, 1 when it could not start). */
int serve_run(const struct config *cfg);

#endif
