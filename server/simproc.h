/*
 * server/simproc.h - the simulation workers of `hpod serve` in a child
 * process of their own (issue 14: simulations must not starve trainers).
 *
 * Why a process: the workers already run under SCHED_IDLE off the first
 * CPU (bench/jobs.c), but Linux ranks SCHED_IDLE only within a task
 * group. With autogroups (every session its own group, the default on a
 * desktop or a shell) hpod's group competes at full weight with
 * PostgreSQL's, so a busy simulation thread still took the CPU from the
 * backends that answer the trainers' suggests. The child starts a session
 * of its own (setsid) and sets its autogroup's nice value to 19, so the
 * whole group yields to the server and the database.
 *
 * The child is `hpod sim-worker` (this executable, exec'd, never a bare
 * fork of a threaded process). It runs bench/jobs' workers on its own
 * connections; the parent keeps a bench_jobs with no workers, for queuing
 * and waiting. Two pipes carry wake-ups only (the jobs themselves are in
 * PostgreSQL): the parent writes a byte when it queues a job, the child
 * one when it settles a job, so neither waits for its poll. A child that
 * dies is started again; the child stops (its jobs back in the queue)
 * when the parent stops it or dies (PR_SET_PDEATHSIG).
 */
#ifndef HPOD_SERVER_SIMPROC_H
#define HPOD_SERVER_SIMPROC_H

#include "bench/jobs.h"
#include "server/config.h"

struct simproc;

/* Starts the child for the parent's jobs (no workers of its own); its
 * opts.queued/hook_arg must be simproc_queued and the returned simproc,
 * set by simproc_attach. NULL when the child cannot be started (logged:
 * the caller runs the workers in process instead). */
struct simproc *simproc_start(long workers);

/* Connects the parent's jobs: waiters are woken when the child settles a
 * job. Call once, after bench_jobs_start. */
void simproc_attach(struct simproc *p, struct bench_jobs *jobs);

/* bench_jobs_opts.queued of the parent: wakes the child's workers. */
void simproc_queued(void *arg);

/* Stops the child (SIGTERM: its jobs in flight go back to the queue),
 * waits for it and frees p. Returns 0 when it exited with status 0 (or p
 * is NULL), -1 otherwise (logged). */
int simproc_stop(struct simproc *p);

/* `hpod sim-worker`: the child's main (returns its exit status). */
int simproc_child_main(const struct config *cfg);

#endif
