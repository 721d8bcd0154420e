/*
 * bench/jobs.h - simulations as jobs: a bounded pool of worker threads per
 * `hpod serve` process that computes the simulation jobs stored in
 * PostgreSQL (migrations 0007 and 0014), outside the HTTP threads, in
 * slices, fairly across labs.
 *
 * Every simulation is a job, queued by jobs_enqueue (at most
 * queue_per_lab queued or running per lab: past it 429). A worker claims a
 * slice of a job with FOR UPDATE SKIP LOCKED: the job of the lab whose
 * last slice started longest ago, then that lab's oldest; a job whose
 * lease lapsed (its process died) is claimed again, so jobs of any
 * replica run on any replica and none is lost. A slice is at most
 * slice_runs repeats or about slice_ms of work; a slice that does not end
 * the job is stored and the job goes back to the queue, and the slice
 * that ends it writes the result, which is the one computed in a single
 * piece (runs are seeded). A worker holds a pooled connection only for
 * the short statements (claim, progress, slice, result), never while it
 * computes. A keeper thread renews the leases of the slices in flight,
 * writes their progress and ends them on time; a slice whose job was
 * taken over (attempt changed) or cancelled stops within a tick and its
 * late result is discarded. Stopping puts the jobs in flight back in the
 * queue.
 *
 * What a job computes is parsed by bench/simreq, with the algorithm
 * parser the caller hands down (study/simalgo), the same parse that
 * checked the request before the job was stored.
 */
#ifndef HPOD_BENCH_JOBS_H
#define HPOD_BENCH_JOBS_H

#include <stddef.h>

#include "bench/catalog.h"
#include "bench/simreq.h"
#include "common/status.h"
#include "store/db.h"

struct bench_jobs_opts {
    struct db_pool *pool;
    const struct bench_db *bench;
    size_t workers; /* 0: this process only queues and waits */
    long lease_ms;
    simreq_algo_fn algo; /* the "algorithm" parser (study/simalgo.h) */
    long queue_per_lab;  /* most queued and running jobs per lab */
    long slice_runs;     /* most repeats per slice */
    long slice_ms;       /* a slice ends after about this long (at least
                            one run) */
    long sync_wait_ms;   /* how long a synchronous simulate waits */
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
struct bench_jobs *jobs_start(const struct bench_jobs_opts *opts);
/* Cancels the jobs in flight (back to queued), wakes every waiter and
 * joins the threads. Accepts NULL. */
void jobs_stop(struct bench_jobs *j);
/* Frees a stopped pool; no waiter may be left. Accepts NULL. */
void jobs_free(struct bench_jobs *j);
/* A job was queued: wakes an idle worker. Accepts NULL. */
void jobs_notify(struct bench_jobs *j);

/*
 * jobs_enqueue - queues a checked request (JSON text, runs repeats)
 * on benchmark for lab (NULL: a principal of every lab), in a transaction
 * of its own on db (borrowed, none open), which records it in the audit
 * log as token by_token's simulation.create (0: no token). *id: the job.
 * HPOD_ELIMIT (429, Retry-After) with nothing written when the lab already
 * has queue_per_lab jobs queued or running.
 */
enum hpod_status jobs_enqueue(struct bench_jobs *j, struct db *db,
                              const char *benchmark, const char *lab,
                              const char *request, long long runs,
                              long long by_token, long long *id,
                              struct hpod_err *err);

/*
 * jobs_cancel - job id cancelled if it is queued or running (*changed
 * 1): its slot in its lab's cap is free at once, and a slice of it in
 * flight, in this process or another, stops within a keeper tick (the
 * runs under way end first). *changed 0: it was not (absent, or ended).
 * A cancel is recorded in the audit log, in its transaction, as token
 * by_token's simulation.cancel.
 */
enum hpod_status jobs_cancel(struct bench_jobs *j, struct db *db, long long id,
                             long long by_token, int *changed,
                             struct hpod_err *err);

/* How long a synchronous simulate waits for its job (opts.sync_wait_ms). */
long jobs_sync_wait_ms(const struct bench_jobs *j);

/*
 * jobs_wait - waits without holding a connection (one is borrowed
 * from the pool for each look at the row) until job id is done, failed or
 * cancelled (state receives it, 12 bytes) or timeout_ms passed (state
 * "queued" or "running"), or the pool stops (HPOD_EDB). HPOD_EDB also when
 * the database cannot be reached.
 */
enum hpod_status jobs_wait(struct bench_jobs *j, long long id, long timeout_ms,
                           char *state, struct hpod_err *err);

#endif
