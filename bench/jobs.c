/*
 * bench/jobs.c - the simulation worker pool; see jobs.h.
 */
#define _GNU_SOURCE /* SCHED_IDLE, CPU affinity (Linux) */
#include "bench/jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/err.h"
#include "common/json.h"
#include "common/log.h"
#include "common/mem.h"
#include "store/bench_store.h"

#define JOBS_MAX_WORKERS 16
/* Workers (and the simrun threads they start) run under SCHED_IDLE off
 * the first CPU (lower_priority), and in the idle cpu cgroup of
 * bench_jobs_opts.cgroup if one is set (join_cgroup); where SCHED_IDLE is
 * refused, at this nice value. */
#define JOBS_NICE 10

/* A job in flight on one worker (id 0: none). */
struct slot {
    long long id, attempt;
    atomic_size_t done;
    atomic_int cancel;
};

struct bench_jobs {
    struct bench_jobs_opts o;
    pthread_mutex_t mu;
    pthread_cond_t wake;           /* workers and keeper: a job queued, stop */
    pthread_cond_t settled;        /* waiters: a local job ended */
    unsigned long long generation; /* jobs ended here */
    int stop;
    struct slot slots[JOBS_MAX_WORKERS];
    pthread_t threads[JOBS_MAX_WORKERS], keeper;
    size_t started;
    int keeper_started;
    atomic_int cgroup_warned; /* join_cgroup's warning was logged */
};

/* CLOCK_REALTIME ms from now, for pthread_cond_timedwait. */
static struct timespec
deadline_in(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

/* How long an idle worker sleeps before it looks again (jobs of other
 * replicas, lapsed leases). */
static long
poll_ms(const struct bench_jobs *j)
{
    long ms = j->o.lease_ms / 2;
    return ms < 1000 ? ms : 1000;
}

static void
on_progress(void *arg, size_t done, size_t runs)
{
    struct slot *s = arg;
    (void)runs;
    atomic_store(&s->done, done);
}

/* The sequences of res as JSON text (new): row r holds the first
 * min(lens[r], cap) ids. */
static char *
sequences_text(const struct bench_sim_result *res)
{
    json_t *all = json_array();
    for (size_t r = 0; r < res->runs; r++) {
        json_t *sq = json_array();
        size_t len = res->lens[r] < res->cap ? res->lens[r] : res->cap;
        for (size_t i = 0; i < len; i++)
            json_array_append_new(
                sq, json_integer((json_int_t)res->seqs[r * res->stride + i]));
        json_array_append_new(all, sq);
    }
    char *text = hj_dump(all, 0);
    json_decref(all);
    return text;
}

/*
 * settle - writes how a job ended, on a connection borrowed for it:
 * cancelled (stop: back to queued; lease lost: nothing), the result, the
 * client's error, or back to the queue for anything else.
 */
static void
settle(struct bench_jobs *j, const struct sim_claim *c, int cancelled,
       enum hpod_status st, const struct bench_sim_result *res,
       const struct hpod_err *why)
{
    struct db *db = NULL;
    struct hpod_err err = {0};
    char *sum = NULL, *seq = NULL;
    int owned = 0;

    if (db_pool_acquire(j->o.pool, &db, &err) != HPOD_OK)
        goto out; /* the lease lapses; another worker takes the job */
    pthread_mutex_lock(&j->mu);
    int stopping = j->stop;
    pthread_mutex_unlock(&j->mu);
    if (cancelled) {
        if (stopping)
            sim_store_release(db, c->id, c->attempt, &err);
    } else if (st == HPOD_OK) {
        sum = hj_dump(res->summary, 0);
        seq = sequences_text(res);
        if (sim_store_finish(db, c->id, c->attempt, sum, seq, res->seconds,
                             &owned, &err) == HPOD_OK &&
            !owned)
            hpod_log(HPOD_LOG_INFO,
                     "simulation %lld was taken over; result discarded", c->id);
    } else if (st == HPOD_EINVAL || st == HPOD_EUNPROC ||
               st == HPOD_ENOTFOUND) {
        sim_store_fail(db, c->id, c->attempt, why->msg, why->field, &err);
    } else {
        hpod_log(HPOD_LOG_WARN, "simulation %lld back in the queue: %s", c->id,
                 why->msg);
        sim_store_release(db, c->id, c->attempt, &err);
    }
    db_pool_release(j->o.pool, db);
out:
    free(sum);
    free(seq);
    pthread_mutex_lock(&j->mu);
    j->generation++;
    pthread_cond_broadcast(&j->settled);
    pthread_mutex_unlock(&j->mu);
}

/* Runs claimed job c on slot s: resolve, compute (no connection held),
 * settle. */
static void
run_job(struct bench_jobs *j, struct slot *s, const struct sim_claim *c)
{
    struct bench_sim_result res = {0};
    struct bench_ref ref;
    struct hpod_err err = {0};
    struct db *db = NULL;
    json_t *request = hj_parse(c->request);
    enum hpod_status st;

    memset(&ref, 0, sizeof ref);
    if (!request) {
        settle(j, c, 0,
               hpod_fail(&err, HPOD_EUNPROC, "",
                         "the stored request cannot be read"),
               NULL, &err);
        return;
    }
    if ((st = db_pool_acquire(j->o.pool, &db, &err)) == HPOD_OK) {
        st = bench_catalog_resolve(j->o.bench, db, c->benchmark, &ref, &err);
        db_pool_release(j->o.pool, db);
    }
    if (st != HPOD_OK) {
        settle(j, c, 0, st, NULL, &err);
        json_decref(request);
        return;
    }
    pthread_mutex_lock(&j->mu);
    atomic_store(&s->done, 0);
    atomic_store(&s->cancel, j->stop);
    s->attempt = c->attempt;
    s->id = c->id;
    pthread_mutex_unlock(&j->mu);
    struct bench_job job = {.id = c->id,
                            .benchmark = c->benchmark,
                            .request = request,
                            .ref = &ref,
                            .progress = on_progress,
                            .progress_arg = s,
                            .cancel = &s->cancel};
    st = j->o.run(j->o.run_arg, &job, &res, &err);
    pthread_mutex_lock(&j->mu);
    s->id = 0;
    int cancelled = atomic_load(&s->cancel);
    pthread_mutex_unlock(&j->mu);
    settle(j, c, cancelled, st, &res, &err);
    bench_sim_result_free(&res);
    bench_ref_cleanup(&ref);
    json_decref(request);
}

/* Worker k's loop: claim, run, or sleep until a job is queued. */
struct worker_arg {
    struct bench_jobs *j;
    size_t k;
};

/*
 * The calling thread (per task on Linux; the simrun threads it starts
 * inherit both settings) yields the CPU to everything else:
 * - SCHED_IDLE runs it only when no normal task wants the core, which a
 *   nice value alone does not (nice 10 still gets ~10% of a core against
 *   a busy nice-0 task);
 * - and it keeps off the first CPU of the process's set (when the set has
 *   two or more), so that a trainer's request always finds a core with
 *   no simulation on it. The priority alone was not enough: measured on
 *   a 2-CPU machine, a sequential client's suggest p99 went from 1.4 ms
 *   to 10.5 ms next to one SCHED_IDLE busy loop free to run on either
 *   CPU, and stayed at 1.2 ms with the same loop pinned to the second CPU
 *   (tests/bench/bench_simload.py measures it with real simulations).
 *   Also in an idle cpu cgroup (join_cgroup): there the pinning measured
 *   neither better nor worse on a busy machine (busy p99 5.2-9.8 ms
 *   pinned, 5.6-6.6 ms not, 6 interleaved pairs, where other idle work
 *   ran on both CPUs anyway), and it keeps the first CPU's caches and
 *   run queue free for the trainers on a quiet one.
 * Best effort: the job runs either way.
 */
static void
lower_priority(void)
{
    cpu_set_t set;
#ifdef SCHED_IDLE
    struct sched_param p = {0};
    if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &p) != 0)
#endif
        if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), JOBS_NICE) !=
            0)
            hpod_log(HPOD_LOG_DEBUG, "simulation worker: nice %d refused",
                     JOBS_NICE);
    if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0 ||
        CPU_COUNT(&set) < 2)
        return;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
            CPU_CLR(c, &set); /* the first: the server's */
            break;
        }
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
        hpod_log(HPOD_LOG_DEBUG, "simulation worker: CPU affinity refused");
}

/* Writes the calling thread's id to dir/file; 0, or an errno value. */
static int
write_tid(const char *dir, const char *file)
{
    char path[1200], buf[32];
    int e = 0;
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path)
        return ENAMETOOLONG;
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int n = snprintf(buf, sizeof buf, "%ld\n", (long)syscall(SYS_gettid));
    errno = 0;
    if (write(fd, buf, (size_t)n) != n)
        e = errno ? errno : EIO;
    close(fd);
    return e;
}

/*
 * The calling thread joins the cpu cgroup j->o.cgroup, if one is set
 * (bench_jobs_opts): DIR/tasks on cgroup v1, DIR/cgroup.threads where
 * there is no tasks file (v2). The simrun threads it starts are created
 * in it. Why: SCHED_IDLE orders a thread only against the threads of its
 * own group's run queue; with autogroups the server's group, whose only
 * busy thread is the simulation, is a full-weight peer of PostgreSQL's
 * backends and the trainer at the top level, so a backend that wakes
 * waits for the simulation's slice. A cgroup with cpu.idle=1 is idle at
 * the top level: any normal wake-up preempts it. Measured on 2 CPUs (one
 * trainer, 4 simulations of 100 repeats, tests/bench/bench_simload.py,
 * docs/model-latency.md): pooled busy p99 8.5-20.0 ms (1.9-9.1x idle)
 * without, 4.5-7.5 ms (0.8-2.2x) with, 9 interleaved pairs.
 * On failure: one warning per pool, and the job runs without it.
 */
static void
join_cgroup(struct bench_jobs *j)
{
    const char *dir = j->o.cgroup;
    if (!dir || !*dir)
        return;
    int e = write_tid(dir, "tasks"), e2 = 0;
    if (e == ENOENT)
        e2 = write_tid(dir, "cgroup.threads");
    if (!e || (e == ENOENT && !e2)) {
        hpod_log(HPOD_LOG_DEBUG, "simulation worker: joined the cgroup %s",
                 dir);
        return;
    }
    hpod_log(atomic_exchange(&j->cgroup_warned, 1) ? HPOD_LOG_DEBUG
                                                   : HPOD_LOG_WARN,
             "simulation worker: cannot join the cgroup %s (tasks: %s%s%s); "
             "simulations run without it, at SCHED_IDLE only",
             dir, strerror(e), e2 ? ", cgroup.threads: " : "",
             e2 ? strerror(e2) : "");
}

static void *
worker_loop(void *arg)
{
    struct worker_arg *wa = arg;
    struct bench_jobs *j = wa->j;
    struct slot *s = &j->slots[wa->k];
    free(wa);
    /* Named, for ps -L and top -H (the simrun threads inherit it). */
    pthread_setname_np(pthread_self(), "hpod-sim");
    join_cgroup(j);
    lower_priority();
    for (;;) {
        struct db *db = NULL;
        struct hpod_err err = {0};
        struct sim_claim c;
        int got = 0;

        pthread_mutex_lock(&j->mu);
        int stop = j->stop;
        pthread_mutex_unlock(&j->mu);
        if (stop)
            break;
        memset(&c, 0, sizeof c);
        if (db_pool_acquire(j->o.pool, &db, &err) == HPOD_OK) {
            sim_store_claim(db, j->o.lease_ms, &c, &got, &err);
            db_pool_release(j->o.pool, db);
        }
        if (got) {
            hpod_log(HPOD_LOG_INFO, "simulation %lld: attempt %lld", c.id,
                     c.attempt);
            run_job(j, s, &c);
            sim_claim_cleanup(&c);
            continue;
        }
        pthread_mutex_lock(&j->mu);
        if (!j->stop) {
            struct timespec until = deadline_in(poll_ms(j));
            pthread_cond_timedwait(&j->wake, &j->mu, &until);
        }
        pthread_mutex_unlock(&j->mu);
    }
    return NULL;
}

/* The keeper: every third of a lease, at most every KEEPER_MS (one short
 * UPDATE per job in flight), renews the lease of each job in flight and
 * writes its progress; a lease taken over cancels the job. */
#define KEEPER_MS 250
static void *
keeper_main(void *arg)
{
    struct bench_jobs *j = arg;
    long period = j->o.lease_ms / 3 < KEEPER_MS ? j->o.lease_ms / 3 : KEEPER_MS;
    pthread_mutex_lock(&j->mu);
    while (!j->stop) {
        struct timespec until = deadline_in(period);
        pthread_cond_timedwait(&j->wake, &j->mu, &until);
        for (size_t k = 0; k < j->started && !j->stop; k++) {
            struct slot *s = &j->slots[k];
            long long id = s->id, attempt = s->attempt;
            if (!id)
                continue;
            pthread_mutex_unlock(&j->mu);
            struct db *db = NULL;
            struct hpod_err err = {0};
            int owned = 1;
            if (db_pool_acquire(j->o.pool, &db, &err) == HPOD_OK) {
                sim_store_progress(db, id, attempt,
                                   (long long)atomic_load(&s->done),
                                   j->o.lease_ms, &owned, &err);
                db_pool_release(j->o.pool, db);
            }
            pthread_mutex_lock(&j->mu);
            if (!owned && s->id == id && s->attempt == attempt) {
                hpod_log(HPOD_LOG_WARN,
                         "simulation %lld: lease lost; cancelling", id);
                atomic_store(&s->cancel, 1);
            }
        }
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

struct bench_jobs *
bench_jobs_start(const struct bench_jobs_opts *opts)
{
    struct bench_jobs *j = xcalloc(1, sizeof *j);
    j->o = *opts;
    if (j->o.workers > JOBS_MAX_WORKERS)
        j->o.workers = JOBS_MAX_WORKERS;
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->wake, NULL);
    pthread_cond_init(&j->settled, NULL);
    for (size_t k = 0; k < j->o.workers; k++) {
        struct worker_arg *wa = xmalloc(sizeof *wa);
        wa->j = j;
        wa->k = k;
        if (pthread_create(&j->threads[k], NULL, worker_loop, wa) != 0) {
            free(wa);
            break;
        }
        j->started++;
    }
    if (j->started && pthread_create(&j->keeper, NULL, keeper_main, j) == 0)
        j->keeper_started = 1;
    return j;
}

void
bench_jobs_notify(struct bench_jobs *j)
{
    if (!j)
        return;
    pthread_mutex_lock(&j->mu);
    pthread_cond_signal(&j->wake);
    pthread_mutex_unlock(&j->mu);
}

void
bench_jobs_stop(struct bench_jobs *j)
{
    if (!j)
        return;
    pthread_mutex_lock(&j->mu);
    j->stop = 1;
    for (size_t k = 0; k < j->started; k++)
        atomic_store(&j->slots[k].cancel, 1);
    pthread_cond_broadcast(&j->wake);
    pthread_cond_broadcast(&j->settled);
    pthread_mutex_unlock(&j->mu);
    for (size_t k = 0; k < j->started; k++)
        pthread_join(j->threads[k], NULL);
    if (j->keeper_started)
        pthread_join(j->keeper, NULL);
    j->started = 0;
    j->keeper_started = 0;
}

void
bench_jobs_free(struct bench_jobs *j)
{
    if (!j)
        return;
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->wake);
    pthread_cond_destroy(&j->settled);
    free(j);
}

enum hpod_status
bench_jobs_wait(struct bench_jobs *j, long long id, long timeout_ms,
                char *state, struct hpod_err *err)
{
    struct timespec end = deadline_in(timeout_ms);
    enum hpod_status st = HPOD_OK;

    for (;;) {
        struct db *db = NULL;
        pthread_mutex_lock(&j->mu);
        unsigned long long gen = j->generation;
        int stop = j->stop;
        pthread_mutex_unlock(&j->mu);
        if (stop)
            return hpod_fail(err, HPOD_EDB, "",
                             "the server is shutting down; simulation %lld "
                             "stays queued: GET /v1/simulations/%lld",
                             id, id);
        if ((st = db_pool_acquire(j->o.pool, &db, err)) != HPOD_OK)
            return st;
        st = sim_store_state(db, id, state, err);
        db_pool_release(j->o.pool, db);
        if (st != HPOD_OK || !state[0] || strcmp(state, "done") == 0 ||
            strcmp(state, "failed") == 0)
            return st;
        struct timespec now = deadline_in(0), next = deadline_in(500);
        if (now.tv_sec > end.tv_sec ||
            (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
            return HPOD_OK;
        if (next.tv_sec > end.tv_sec ||
            (next.tv_sec == end.tv_sec && next.tv_nsec > end.tv_nsec))
            next = end;
        pthread_mutex_lock(&j->mu);
        while (j->generation == gen && !j->stop &&
               pthread_cond_timedwait(&j->settled, &j->mu, &next) == 0)
            ;
        pthread_mutex_unlock(&j->mu);
    }
}
