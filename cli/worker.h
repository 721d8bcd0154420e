/*
 * cli/worker.h - `hpod worker`: a process that only runs simulation jobs
 * (bench/jobs.h) and recovers lapsed trial leases (study/reaper.h), with
 * no HTTP, so that simulation compute can go on machines of its own. Any
 * number of workers and `hpod serve` replicas share one database: each
 * claims queued jobs, or jobs whose lease lapsed (their process died),
 * with FOR UPDATE SKIP LOCKED. A serve with HPOD_SIM_WORKERS=0 queues
 * jobs and runs none.
 */
#ifndef HPOD_CLI_WORKER_H
#define HPOD_CLI_WORKER_H

#include "server/config.h"

/* Runs until SIGINT/SIGTERM (jobs in flight go back to the queue);
 * returns the exit code: 0, or 1 when it could not start. */
int worker_run(const struct config *cfg);

#endif
