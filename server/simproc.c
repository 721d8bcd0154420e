/*
 * server/simproc.c - the simulation workers in a child process; see
 * simproc.h.
 */
#define _GNU_SOURCE /* POSIX_SPAWN_SETSID, pipe2, PR_SET_PDEATHSIG */
#include "server/simproc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/catalog.h"
#include "bench/tables.h"
#include "common/log.h"
#include "common/mem.h"
#include "handlers/benchmarks.h"
#include "store/db.h"

extern char **environ;

/* The environment variable that hands the child its two pipe ends and
 * its parent's pid: "READ_FD,WRITE_FD,PARENT_PID". */
#define SIMPROC_ENV "HPOD_SIM_FDS"
/* The nice value of the child's autogroup (the most a group can yield). */
#define SIMPROC_NICE 19
/* Pause before a child that died is started again. */
#define SIMPROC_RESPAWN_MS 1000

struct simproc {
    pthread_mutex_t mu;
    pid_t pid;      /* 0: no child */
    int to_child;   /* write end, non-blocking: "a job was queued" */
    int from_child; /* read end: "a job settled" */
    long workers;   /* HPOD_SIM_WORKERS, passed on by the environment */
    struct bench_jobs *jobs; /* the parent's (waiters), set by attach */
    int stopping;
    pthread_t thread;
    int stop_status; /* the child's wait status when it was stopped */
};

/* The child's environment: ours with SIMPROC_ENV set to value. The
 * caller frees the array and *own, its one allocated entry. */
static char **
child_env(const char *value, char **own)
{
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    char **env = xcalloc(n + 2, sizeof *env);
    size_t len = strlen(SIMPROC_ENV);
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], SIMPROC_ENV "=", len + 1) != 0)
            env[k++] = environ[i];
    size_t sz = len + strlen(value) + 2;
    env[k] = xmalloc(sz);
    snprintf(env[k], sz, "%s=%s", SIMPROC_ENV, value);
    *own = env[k];
    return env;
}

/* Starts a child (p->mu held). 0 on success. */
static int
spawn_child(struct simproc *p)
{
    int q[2] = {-1, -1}, s[2] = {-1, -1}, rc = -1;
    posix_spawnattr_t attr;
    sigset_t stop;
    char value[64], *argv[] = {"hpod", "sim-worker", NULL};
    pid_t pid;

    if (pipe2(q, O_CLOEXEC) != 0 || pipe2(s, O_CLOEXEC) != 0) {
        hpod_log(HPOD_LOG_ERROR, "simulation worker process: pipe: %s",
                 strerror(errno));
        goto out;
    }
    /* Only the child's two ends cross the exec. */
    fcntl(q[0], F_SETFD, 0);
    fcntl(s[1], F_SETFD, 0);
    fcntl(q[1], F_SETFL, O_NONBLOCK);
    snprintf(value, sizeof value, "%d,%d,%ld", q[0], s[1], (long)getpid());
    char *own = NULL;
    char **env = child_env(value, &own);
    /* The child starts with the stop signals blocked (it sigwaits for
     * them), so one that arrives while it starts is not fatal: it stops
     * cleanly once it is ready. */
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID |
                                        POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setsigmask(&attr, &stop);
    posix_spawnattr_setsigdefault(&attr, &stop);
    /* This executable by its path, so that ps shows "hpod". */
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0 || (size_t)len >= sizeof exe - 1)
        snprintf(exe, sizeof exe, "/proc/self/exe");
    else
        exe[len] = '\0';
    int e = posix_spawn(&pid, exe, NULL, &attr, argv, env);
    posix_spawnattr_destroy(&attr);
    free(own);
    free(env);
    if (e != 0) {
        hpod_log(HPOD_LOG_ERROR, "simulation worker process: spawn: %s",
                 strerror(e));
        goto out;
    }
    p->pid = pid;
    p->to_child = q[1];
    p->from_child = s[0];
    q[1] = s[0] = -1;
    rc = 0;
    hpod_log(HPOD_LOG_INFO,
             "simulation workers run in process %ld (own session, "
             "autogroup nice %d)",
             (long)pid, SIMPROC_NICE);
out:
    for (int i = 0; i < 2; i++) {
        if (q[i] >= 0)
            close(q[i]);
        if (s[i] >= 0)
            close(s[i]);
    }
    return rc;
}

static void
sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

/*
 * The parent's supervisor: each byte from the child wakes the waiters;
 * end of file means the child exited: reap it and, unless stopping, start
 * another.
 */
static void *
supervise(void *arg)
{
    struct simproc *p = arg;
    char buf[64];

    for (;;) {
        pthread_mutex_lock(&p->mu);
        int fd = p->from_child;
        pthread_mutex_unlock(&p->mu);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : 0;
        if (n > 0) {
            pthread_mutex_lock(&p->mu);
            struct bench_jobs *j = p->jobs;
            pthread_mutex_unlock(&p->mu);
            bench_jobs_settled(j);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        int status = 0;
        pthread_mutex_lock(&p->mu);
        pid_t pid = p->pid;
        pthread_mutex_unlock(&p->mu);
        if (pid > 0)
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        pthread_mutex_lock(&p->mu);
        if (p->to_child >= 0)
            close(p->to_child);
        if (p->from_child >= 0)
            close(p->from_child);
        p->to_child = p->from_child = -1;
        p->pid = 0;
        int stopping = p->stopping;
        if (stopping)
            p->stop_status = status;
        pthread_mutex_unlock(&p->mu);
        if (stopping)
            break;
        hpod_log(HPOD_LOG_ERROR,
                 "simulation worker process %ld exited (%s %d); starting "
                 "another",
                 (long)pid, WIFSIGNALED(status) ? "signal" : "status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        sleep_ms(SIMPROC_RESPAWN_MS);
        pthread_mutex_lock(&p->mu);
        if (!p->stopping)
            spawn_child(p);
        pthread_mutex_unlock(&p->mu);
    }
    return NULL;
}

struct simproc *
simproc_start(long workers)
{
    struct simproc *p = xcalloc(1, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    p->to_child = p->from_child = -1;
    p->workers = workers;
    if (spawn_child(p) != 0 ||
        pthread_create(&p->thread, NULL, supervise, p) != 0) {
        if (p->pid > 0) {
            kill(p->pid, SIGTERM);
            waitpid(p->pid, NULL, 0);
            close(p->to_child);
            close(p->from_child);
        }
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    return p;
}

void
simproc_attach(struct simproc *p, struct bench_jobs *jobs)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->jobs = jobs;
    pthread_mutex_unlock(&p->mu);
}

void
simproc_queued(void *arg)
{
    struct simproc *p = arg;
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    /* Non-blocking: a full pipe already holds a wake-up. */
    if (p->to_child >= 0 && write(p->to_child, "q", 1) < 0 && errno != EAGAIN)
        hpod_log(HPOD_LOG_DEBUG, "simulation worker process: %s",
                 strerror(errno));
    pthread_mutex_unlock(&p->mu);
}

int
simproc_stop(struct simproc *p)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&p->mu);
    p->stopping = 1;
    if (p->pid > 0)
        kill(p->pid, SIGTERM);
    pthread_mutex_unlock(&p->mu);
    /* The supervisor reaps the child when its pipe closes. */
    pthread_join(p->thread, NULL);
    int status = p->stop_status;
    pthread_mutex_destroy(&p->mu);
    free(p);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    hpod_log(HPOD_LOG_ERROR, "simulation worker process stopped with %s %d",
             WIFSIGNALED(status) ? "signal" : "status",
             WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    return -1;
}

/* ---- the child: `hpod sim-worker` ---- */

/* bench_jobs_opts.settled of the child: one byte to the parent. */
static void
child_settled(void *arg)
{
    int fd = *(int *)arg;
    if (write(fd, "s", 1) < 0)
        hpod_log(HPOD_LOG_DEBUG, "simulation worker: %s", strerror(errno));
}

struct child_reader {
    int fd;
    struct bench_jobs *jobs;
};

/* Each byte from the parent wakes an idle worker; end of file (the parent
 * is gone) stops this process. */
static void *
child_read(void *arg)
{
    struct child_reader *r = arg;
    char buf[64];
    for (;;) {
        ssize_t n = read(r->fd, buf, sizeof buf);
        if (n > 0)
            bench_jobs_notify(r->jobs);
        else if (n == 0 || errno != EINTR)
            break;
    }
    kill(getpid(), SIGTERM);
    return NULL;
}

/* The whole group (this session) yields to every other group: see
 * simproc.h. Best effort. */
static void
nice_autogroup(void)
{
    FILE *f = fopen("/proc/self/autogroup", "w");
    if (!f || fprintf(f, "%d", SIMPROC_NICE) < 0 || fclose(f) != 0) {
        hpod_log(HPOD_LOG_WARN,
                 "simulation worker: could not set the autogroup's nice "
                 "value (%s); SCHED_IDLE alone",
                 strerror(errno));
        return;
    }
}

int
simproc_child_main(const struct config *cfg)
{
    const char *v = getenv(SIMPROC_ENV);
    int rfd = -1, wfd = -1;
    long ppid = 0;
    struct bench_db bench;
    struct hpod_err err = {0};
    struct child_reader reader;
    pthread_t rt;
    sigset_t set;
    int sig = 0;

    if (!v || sscanf(v, "%d,%d,%ld", &rfd, &wfd, &ppid) != 3 || rfd < 0 ||
        wfd < 0) {
        fprintf(stderr, "hpod: sim-worker is started by `hpod serve`\n");
        return 2;
    }
    fcntl(rfd, F_SETFD, FD_CLOEXEC);
    fcntl(wfd, F_SETFD, FD_CLOEXEC);
    /* Stop with the parent, also when it is killed. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if ((long)getppid() != ppid)
        return 0;
    nice_autogroup();
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct db_opts opts = {cfg->db_connect_timeout_ms,
                           cfg->db_statement_timeout_ms, 1};
    struct db_pool *pool =
        db_pool_create(cfg->database_url, (size_t)cfg->sim_workers + 1, &opts);
    memset(&bench, 0, sizeof bench);
    if (cfg->benchmarks[0] &&
        bench_db_load(cfg->benchmarks, &bench, &err) != HPOD_OK)
        memset(&bench, 0, sizeof bench); /* the parent logged it */
    struct bench_jobs_opts o = {.pool = pool,
                                .bench = &bench,
                                .workers = (size_t)cfg->sim_workers,
                                .lease_ms = cfg->sim_lease_ms,
                                .run = simulation_job_run,
                                .run_arg = NULL,
                                .settled = child_settled,
                                .hook_arg = &wfd};
    struct bench_jobs *jobs = bench_jobs_start(&o);
    reader.fd = rfd;
    reader.jobs = jobs;
    if (pthread_create(&rt, NULL, child_read, &reader) == 0)
        pthread_detach(rt);
    sigwait(&set, &sig);
    /* Jobs in flight go back to the queue. */
    bench_jobs_stop(jobs);
    bench_jobs_free(jobs);
    db_pool_destroy(pool);
    bench_catalog_clear();
    bench_db_free(&bench);
    return 0;
}
