/*
 * bench/jobs.h - simulations as jobs (issue 14): a bounded pool of worker
 * threads per `hpod serve` process that runs the simulation jobs stored in
 * PostgreSQL (migration 0007), outside the HTTP threads.
 *
 * A worker claims the oldest queued job, or a running one whose lease
 * lapsed (its process died), with FOR UPDATE SKIP LOCKED, so jobs of any
 * replica run on any replica and none is lost. It holds a pooled
 * connection only for the short statements (claim, progress, result),
 * never while it computes. A keeper thread renews the leases of the jobs
 * in flight and writes their progress; a job whose lease was taken over
 * (attempt changed) is cancelled and its late result discarded. Stopping
 * cancels the jobs in flight and puts them back in the queue.
 *
 * What a job computes is given by the caller (run): the request is parsed
 * above bench/ (handlers/benchmarks.c), the same way for a request
 * answered at once and a job.
 */
#ifndef HPOD_BENCH_JOBS_H
#define HPOD_BENCH_JOBS_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>

#include "bench/catalog.h"
#include "bench/simulate.h"
#include "common/status.h"
#include "store/db.h"

/* One job as its run function sees it (all borrowed). */
struct bench_job {
    long long id;
    const char *benchmark;
    json_t *request; /* the validated request body */
    const struct bench_ref *ref;
    /* For bench/simrun: progress (done runs) and cancellation. */
    void (*progress)(void *arg, size_t done, size_t runs);
    void *progress_arg;
    const atomic_int *cancel;
};

/* Computes job into res; err on failure (HPOD_EINVAL and HPOD_EUNPROC
 * fail the job for good, anything else puts it back in the queue). */
typedef enum hpod_status (*bench_job_run_fn)(void *arg,
                                             const struct bench_job *job,
                                             struct bench_sim_result *res,
                                             struct hpod_err *err);

struct bench_jobs_opts {
    struct db_pool *pool;
    const struct bench_db *bench;
    size_t workers; /* 0: this process only queues and waits */
    long lease_ms;
    bench_job_run_fn run;
    void *run_arg;
    /* NULL or "": none. Otherwise a cpu cgroup directory (borrowed; it
     * outlives the pool) that each worker joins as it starts, by writing
     * its thread id to DIR/tasks (cgroup v1) or DIR/cgroup.threads (a v2
     * threaded cgroup): with cpu.idle=1 there, any normal task that wakes
     * preempts a simulation, whatever its autogroup or cgroup. A worker
     * that cannot join logs a warning (once per pool) and runs without
     * it. The pool never creates or removes a cgroup. */
    const char *cgroup;
};

struct bench_jobs;

/* Starts the workers and the keeper (a new pool; opts copied). */
struct bench_jobs *bench_jobs_start(const struct bench_jobs_opts *opts);
/* Cancels the jobs in flight (back to queued), wakes every waiter and
 * joins the threads. Accepts NULL. */
void bench_jobs_stop(struct bench_jobs *j);
/* Frees a stopped pool; no waiter may be left. Accepts NULL. */
void bench_jobs_free(struct bench_jobs *j);
/* A job was queued: wakes an idle worker. Accepts NULL. */
void bench_jobs_notify(struct bench_jobs *j);

/*
 * bench_jobs_wait - waits without holding a connection (one is borrowed
 * from the pool for each look at the row) until job id is done or failed
 * (state receives it, 12 bytes) or timeout_ms passed (state "queued" or
 * "running"), or the pool stops (HPOD_EDB). HPOD_EDB also when the
 * database cannot be reached.
 */
enum hpod_status bench_jobs_wait(struct bench_jobs *j, long long id,
                                 long timeout_ms, char *state,
                                 struct hpod_err *err);

#endif
