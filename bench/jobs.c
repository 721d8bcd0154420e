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

#include "common/clock.h"
#include "common/err.h"
#include "common/json.h"
#include "common/log.h"
#include "common/mem.h"
#include "store/access_store.h"
#include "store/audit_store.h"
#include "store/bench_store.h"

#define JOBS_MAX_WORKERS 16
/* Workers (and the simrun threads they start) run under SCHED_IDLE off
 * the first CPU (lower_priority), and in the idle cpu cgroup of
 * bench_jobs_opts.cgroup if one is set (join_cgroup); where SCHED_IDLE is
 * refused, at this nice value. */
#define JOBS_NICE 10

/* The slice in flight on one worker (id 0: none). */
struct slot {
    long long id, attempt;
    long long base;            /* its first run */
    unsigned long long serial; /* slices taken on this slot: the same job
                                  (same attempt) may come back at once */
    atomic_size_t done;        /* its runs done */
    /* Nonzero: start no further run and discard it (stop, lease lost,
     * cancelled). A slice also ends after slice_ms: bench/simrun stop_at. */
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

/* How a slice ended, for settle. */
enum outcome {
    OUT_CANCELLED, /* stop: back to queued; lease lost, cancelled: nothing */
    OUT_ERROR,     /* st, why */
    OUT_SLICE,     /* runs to store; the job goes back to the queue */
    OUT_RESULT,    /* res: the job's result (its last slice from first) */
};

struct ending {
    enum outcome out;
    enum hpod_status st;
    struct hpod_err why;
    const struct simrun_runs *runs;
    const struct bench_sim_result *res;
    long long first;
};

/* Writes a slice's runs (OUT_SLICE) or the job's result (OUT_RESULT). */
static void
settle_done(struct db *db, const struct sim_claim *c, const struct ending *e,
            struct hpod_err *err)
{
    char *a = NULL, *b = NULL;
    int owned = 0;

    if (e->out == OUT_SLICE) {
        json_t *seqs = simrun_runs_json(e->runs);
        a = hj_dump(seqs, 0);
        json_decref(seqs);
        sim_store_slice(db, c->id, c->attempt, e->first,
                        (long long)e->runs->runs, a, e->runs->seconds, &owned,
                        err);
    } else {
        a = hj_dump(e->res->summary, 0);
        b = sequences_text(e->res);
        sim_store_finish(db, c->id, c->attempt, e->first, a, b, e->res->seconds,
                         &owned, err);
    }
    if (!owned && !err->msg[0])
        hpod_log(HPOD_LOG_INFO,
                 "simulation %lld was taken over or cancelled; its runs "
                 "from %lld discarded",
                 c->id, e->first);
    free(a);
    free(b);
}

/*
 * settle - writes how a slice ended, on a connection borrowed for it:
 * cancelled (stop: back to queued; lease lost or cancelled: nothing), its
 * runs or the result, the client's error, or back to the queue for
 * anything else.
 */
static void
settle(struct bench_jobs *j, const struct sim_claim *c, const struct ending *e)
{
    struct db *db = NULL;
    struct hpod_err err = {0};

    if (db_pool_acquire(j->o.pool, &db, &err) != HPOD_OK)
        goto out; /* the lease lapses; another worker takes the job */
    pthread_mutex_lock(&j->mu);
    int stopping = j->stop;
    pthread_mutex_unlock(&j->mu);
    if (e->out == OUT_CANCELLED) {
        if (stopping)
            sim_store_release(db, c->id, c->attempt, &err);
    } else if (e->out == OUT_SLICE || e->out == OUT_RESULT) {
        settle_done(db, c, e, &err);
    } else if (e->st == HPOD_EINVAL || e->st == HPOD_EUNPROC ||
               e->st == HPOD_ENOTFOUND) {
        sim_store_fail(db, c->id, c->attempt, e->why.msg, e->why.field, &err);
    } else {
        hpod_log(HPOD_LOG_WARN, "simulation %lld back in the queue: %s", c->id,
                 e->why.msg);
        sim_store_release(db, c->id, c->attempt, &err);
    }
    db_pool_release(j->o.pool, db);
out:
    pthread_mutex_lock(&j->mu);
    j->generation++;
    pthread_cond_broadcast(&j->settled);
    pthread_mutex_unlock(&j->mu);
}

/* Slice sl (runs from first, its JSON text) into all; 0 if it does not
 * fit there. */
static int
add_stored(struct simrun_runs *all, const struct sim_slice *sl, size_t first)
{
    struct simrun_runs r;
    struct hpod_err err = {0};
    json_t *seqs = hj_parse(sl->sequences);
    int ok = seqs && (long long)first == sl->first &&
             simrun_runs_from_json(seqs, first, all->stride, sl->seconds, &r,
                                   &err) == HPOD_OK;
    json_decref(seqs);
    if (!ok)
        return 0;
    ok = (long long)r.runs == sl->runs && first + r.runs <= all->runs;
    if (ok)
        simrun_runs_append(all, &r);
    simrun_runs_clear(&r);
    return ok;
}

/*
 * assemble - the result of job c from the slices stored before its last
 * one and that last one (last, computed here): read on a borrowed
 * connection, put together without one.
 */
static enum hpod_status
assemble(struct bench_jobs *j, const struct sim_claim *c,
         const struct bench_sim_plan *plan, struct simrun_runs *last,
         struct bench_sim_result *res, struct hpod_err *err)
{
    struct sim_slice *sl = NULL;
    struct simrun_runs all;
    struct db *db = NULL;
    size_t n = 0, next = 0;
    enum hpod_status st;

    if (last->first == 0) /* a job of one slice */
        return bench_simulate_plan_result(plan, last, res, err);
    if ((st = db_pool_acquire(j->o.pool, &db, err)) != HPOD_OK)
        return st;
    st = sim_store_slices(db, c->id, &sl, &n, err);
    db_pool_release(j->o.pool, db);
    if (st != HPOD_OK)
        return st;
    simrun_runs_init(&all, 0, (size_t)c->runs_total, last->stride);
    for (size_t i = 0; i < n && next < last->first; i++) {
        if (!add_stored(&all, &sl[i], next))
            break;
        next += (size_t)sl[i].runs;
    }
    sim_slices_free(sl, n);
    if (next != last->first || last->first + last->runs != all.runs) {
        st = hpod_fail(err, HPOD_EUNPROC, "",
                       "the stored runs of simulation %lld do not fit "
                       "together; run it again",
                       c->id);
    } else {
        simrun_runs_append(&all, last);
        st = bench_simulate_plan_result(plan, &all, res, err);
    }
    simrun_runs_clear(&all);
    return st;
}

/* Slot s takes the slice of claim c from run base (no connection held). */
static void
slot_begin(struct bench_jobs *j, struct slot *s, const struct sim_claim *c)
{
    pthread_mutex_lock(&j->mu);
    atomic_store(&s->done, 0);
    atomic_store(&s->cancel, j->stop);
    s->attempt = c->attempt;
    s->base = c->runs_stored;
    s->serial++;
    s->id = c->id;
    pthread_mutex_unlock(&j->mu);
}

/* Slot s is free again; whether its slice was cancelled. */
static int
slot_end(struct bench_jobs *j, struct slot *s)
{
    pthread_mutex_lock(&j->mu);
    s->id = 0;
    int cancelled = atomic_load(&s->cancel);
    pthread_mutex_unlock(&j->mu);
    return cancelled;
}

/*
 * compute - the slice of claim c on slot s, request rq: a learning-curve
 * job whole, a table job's next runs (at most slice_runs, none started
 * after slice_ms but the first), then what the slice ends with (e; res
 * and runs filled for it).
 */
static void
compute(struct bench_jobs *j, struct slot *s, const struct sim_claim *c,
        json_t *request, const struct bench_ref *ref, const struct simreq *rq,
        struct simrun_runs *runs, struct bench_sim_result *res,
        struct ending *e)
{
    size_t first = (size_t)c->runs_stored;
    size_t left = (size_t)c->runs_total - first;
    size_t count =
        left < (size_t)j->o.slice_runs ? left : (size_t)j->o.slice_runs;
    struct bench_sim_hooks hooks = {on_progress, s, &s->cancel,
                                    hpod_now_s() + j->o.slice_ms / 1000.0};

    slot_begin(j, s, c);
    if (rq->curves)
        e->st = simcurves_simulate(request, c->benchmark, ref->curves, res,
                                   &e->why);
    else
        e->st = bench_simulate_plan_run(rq->plan, first, count, &hooks, runs,
                                        &e->why);
    int cancelled = slot_end(j, s);
    e->first = (long long)first;
    e->runs = runs;
    e->res = res;
    if (cancelled)
        e->out = OUT_CANCELLED;
    else if (e->st != HPOD_OK)
        e->out = OUT_ERROR;
    else if (rq->curves)
        e->out = OUT_RESULT;
    else if (runs->runs == 0) /* never: the first run always runs */
        e->st =
            hpod_fail(&e->why, HPOD_EBUSY, "", "no run of the slice finished");
    else if (first + runs->runs < (size_t)c->runs_total)
        e->out = OUT_SLICE;
    else if ((e->st = assemble(j, c, rq->plan, runs, res, &e->why)) == HPOD_OK)
        e->out = OUT_RESULT;
    else
        e->out = OUT_ERROR;
}

/* Runs the slice claimed in c on slot s: resolve, parse, compute (no
 * connection held), settle. */
static void
run_slice(struct bench_jobs *j, struct slot *s, const struct sim_claim *c)
{
    struct bench_sim_result res = {0};
    struct simrun_runs runs = {0};
    struct simreq rq = {0};
    struct bench_ref ref;
    struct ending e = {.out = OUT_ERROR};
    struct db *db = NULL;
    json_t *request = hj_parse(c->request);

    memset(&ref, 0, sizeof ref);
    if (!request)
        e.st = hpod_fail(&e.why, HPOD_EUNPROC, "",
                         "the stored request cannot be read");
    else if ((e.st = db_pool_acquire(j->o.pool, &db, &e.why)) == HPOD_OK) {
        e.st = catalog_resolve(j->o.bench, db, c->benchmark, &ref, &e.why);
        db_pool_release(j->o.pool, db);
    }
    if (e.st == HPOD_OK)
        e.st =
            simreq_parse(request, c->benchmark, &ref, j->o.algo, &rq, &e.why);
    if (e.st == HPOD_OK)
        compute(j, s, c, request, &ref, &rq, &runs, &res, &e);
    settle(j, c, &e);
    bench_simulate_result_free(&res);
    simrun_runs_clear(&runs);
    simreq_clear(&rq);
    catalog_ref_clear(&ref);
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
    /* Priority and CPUs first: a thread seen in the cgroup is already a
     * SCHED_IDLE one off the first CPU (what the API test reads). */
    lower_priority();
    join_cgroup(j);
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
            hpod_log(HPOD_LOG_INFO,
                     "simulation %lld: attempt %lld, runs from %lld of %lld",
                     c.id, c.attempt, c.runs_stored, c.runs_total);
            run_slice(j, s, &c);
            sim_claim_clear(&c);
            continue;
        }
        pthread_mutex_lock(&j->mu);
        if (!j->stop) {
            struct timespec until = hpod_deadline_in(poll_ms(j));
            pthread_cond_timedwait(&j->wake, &j->mu, &until);
        }
        pthread_mutex_unlock(&j->mu);
    }
    return NULL;
}

/* The keeper: every third of a lease, at most every KEEPER_MS (one short
 * UPDATE per slice in flight), renews the lease of each slice in flight
 * and writes its progress; a job taken over or cancelled cancels the
 * slice (it starts no further run, and its runs are discarded). */
#define KEEPER_MS 250
static void *
keeper_main(void *arg)
{
    struct bench_jobs *j = arg;
    long period = j->o.lease_ms / 3 < KEEPER_MS ? j->o.lease_ms / 3 : KEEPER_MS;
    pthread_mutex_lock(&j->mu);
    while (!j->stop) {
        struct timespec until = hpod_deadline_in(period);
        pthread_cond_timedwait(&j->wake, &j->mu, &until);
        for (size_t k = 0; k < j->started && !j->stop; k++) {
            struct slot *s = &j->slots[k];
            long long id = s->id, attempt = s->attempt;
            unsigned long long serial = s->serial;
            if (!id)
                continue;
            long long at = s->base + (long long)atomic_load(&s->done);
            pthread_mutex_unlock(&j->mu);
            struct db *db = NULL;
            struct hpod_err err = {0};
            int owned = 1;
            if (db_pool_acquire(j->o.pool, &db, &err) == HPOD_OK) {
                sim_store_progress(db, id, attempt, at, j->o.lease_ms, &owned,
                                   &err);
                db_pool_release(j->o.pool, db);
            }
            pthread_mutex_lock(&j->mu);
            if (!owned && s->id == id && s->serial == serial) {
                hpod_log(HPOD_LOG_INFO,
                         "simulation %lld: taken over or cancelled; its "
                         "slice stops",
                         id);
                atomic_store(&s->cancel, 1);
            }
        }
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

struct bench_jobs *
jobs_start(const struct bench_jobs_opts *opts)
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
jobs_notify(struct bench_jobs *j)
{
    if (!j)
        return;
    pthread_mutex_lock(&j->mu);
    pthread_cond_broadcast(&j->wake); /* the keeper waits on it too */
    pthread_mutex_unlock(&j->mu);
}

void
jobs_stop(struct bench_jobs *j)
{
    if (!j)
        return;
    pthread_mutex_lock(&j->mu);
    j->stop = 1;
    for (size_t k = 0; k < j->started; k++) {
        atomic_store(&j->slots[k].cancel, 1);
    }
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
jobs_free(struct bench_jobs *j)
{
    if (!j)
        return;
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->wake);
    pthread_cond_destroy(&j->settled);
    free(j);
}

enum hpod_status
jobs_wait(struct bench_jobs *j, long long id, long timeout_ms, char *state,
          struct hpod_err *err)
{
    struct timespec end = hpod_deadline_in(timeout_ms);
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
        if (st != HPOD_OK || !state[0] ||
            (strcmp(state, "queued") && strcmp(state, "running")))
            return st;
        struct timespec now = hpod_deadline_in(0), next = hpod_deadline_in(500);
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

/* The audit event of job id (docs/audit.md): detail, a new reference, is
 * stolen. */
static enum hpod_status
job_audit(struct db *db, long long by_token, const char *lab,
          const char *action, long long id, json_t *detail,
          struct hpod_err *err)
{
    char target[48], *text = hj_dump(detail, 0);
    struct audit_row_in ev = {.token_id = by_token,
                              .lab = lab,
                              .action = action,
                              .target = target,
                              .detail = text};
    enum hpod_status st;

    snprintf(target, sizeof target, "simulation/%lld", id);
    st = text ? audit_store_insert(db, &ev, err)
              : hpod_fail(err, HPOD_ENOMEM, "", "could not encode an event");
    free(text);
    json_decref(detail);
    return st;
}

enum hpod_status
jobs_enqueue(struct bench_jobs *j, struct db *db, const char *benchmark,
             const char *lab, const char *request, long long runs,
             long long by_token, long long *id, struct hpod_err *err)
{
    enum hpod_status st;

    *id = 0;
    if ((st = db_begin(db, err)) != HPOD_OK)
        return st;
    if ((st = sim_store_lab_lock(db, lab, err)) != HPOD_OK ||
        (st = sim_store_enqueue(db, benchmark, lab, request, runs,
                                j->o.queue_per_lab, id, err)) != HPOD_OK ||
        (*id != 0 &&
         (st = job_audit(db, by_token, lab, "simulation.create", *id,
                         json_pack("{s:s, s:I}", "benchmark", benchmark, "runs",
                                   (json_int_t)runs),
                         err)) != HPOD_OK) ||
        (st = db_commit(db, err)) != HPOD_OK) {
        db_rollback(db);
        return st;
    }
    /* A slot frees when a job of the lab ends; a slice is the soonest. */
    int retry = (int)((j->o.slice_ms + 999) / 1000);
    if (*id == 0 && lab)
        return hpod_fail_retry(
            err, HPOD_ELIMIT, retry, "",
            "lab \"%s\" has %ld simulations queued or running, the most a "
            "lab may have (HPOD_SIM_QUEUE_PER_LAB): wait for one to end, or "
            "cancel one (DELETE /v1/simulations/{id})",
            lab, j->o.queue_per_lab);
    if (*id == 0)
        return hpod_fail_retry(
            err, HPOD_ELIMIT, retry, "",
            "%ld simulations asked without a lab are queued or running, the "
            "most a lab may have (HPOD_SIM_QUEUE_PER_LAB): wait for one to "
            "end, or cancel one (DELETE /v1/simulations/{id})",
            j->o.queue_per_lab);
    return HPOD_OK;
}

enum hpod_status
jobs_cancel(struct bench_jobs *j, struct db *db, long long id,
            long long by_token, int *changed, struct hpod_err *err)
{
    char lab[80] = "";
    int found = 0;
    enum hpod_status st;

    *changed = 0;
    if ((st = db_begin(db, err)) != HPOD_OK)
        return st;
    if ((st = sim_store_cancel(db, id, changed, err)) != HPOD_OK ||
        (*changed &&
         ((st = access_store_lab_of(db, ACCESS_SIMULATION, id, lab, sizeof lab,
                                    &found, err)) != HPOD_OK ||
          (st = job_audit(db, by_token, lab[0] ? lab : NULL,
                          "simulation.cancel", id, json_object(), err)) !=
              HPOD_OK)) ||
        (st = db_commit(db, err)) != HPOD_OK) {
        db_rollback(db);
        *changed = 0;
        return st;
    }
    if (!*changed)
        return st;
    /* A slice of it here stops now; elsewhere, at the keeper's next
     * progress write, which finds the job no longer running. */
    pthread_mutex_lock(&j->mu);
    for (size_t k = 0; k < j->started; k++)
        if (j->slots[k].id == id) {
            atomic_store(&j->slots[k].cancel, 1);
        }
    j->generation++;
    pthread_cond_broadcast(&j->settled);
    pthread_mutex_unlock(&j->mu);
    return HPOD_OK;
}

long
jobs_sync_wait_ms(const struct bench_jobs *j)
{
    return j->o.sync_wait_ms;
}
