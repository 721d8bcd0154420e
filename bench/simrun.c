/*
 * bench/simrun.c - parallel repeats of a simulation; see simrun.h.
 */
#include "bench/simrun.h"
#include "common/clock.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "core/sampler.h"

#define SIMRUN_MAX_THREADS 64

static void
work(struct simrun *s, int caller)
{
    /* One sampler state per thread: the graph over the table is built once
     * per thread, not once per run. */
    struct sampler_state *state = sampler_state_create();
    for (;;) {
        size_t r = atomic_fetch_add(&s->next, 1);
        if (r >= s->runs)
            break;
        if (s->cancel && atomic_load(s->cancel)) {
            s->status[r] = HPOD_EINTERNAL;
            continue;
        }
        size_t n = s->mo ? s->mo->n : s->p->n;
        size_t len = s->length && s->length < n ? s->length : n;
        if (s->mo)
            s->status[r] =
                simulate_run_mo(s->mo, s->mo_algo, s->seed0 + r, s->init, len,
                                s->spec, s->seqs + r * n, &s->lens[r]);
        else
            s->status[r] =
                simulate_run(s->p, s->algo, s->seed0 + r, s->init, len, s->spec,
                             state, s->seqs + r * n, &s->lens[r]);
        size_t done = atomic_fetch_add(&s->done, 1) + 1;
        if (caller && s->progress)
            s->progress(s->progress_arg, done, s->runs);
    }
    sampler_state_free(state);
}

static void *
thread_main(void *arg)
{
    work(arg, 0);
    return NULL;
}

void
simrun_run(struct simrun *s, size_t threads)
{
    pthread_t tid[SIMRUN_MAX_THREADS];
    size_t started = 0;
    atomic_init(&s->next, 0);
    atomic_init(&s->done, 0);
    for (size_t k = 1; k < threads && k < s->runs && k < SIMRUN_MAX_THREADS;
         k++) {
        if (pthread_create(&tid[started], NULL, thread_main, s) != 0)
            break; /* fewer threads: the work still gets done */
        started++;
    }
    work(s, 1);
    for (size_t k = 0; k < started; k++)
        pthread_join(tid[k], NULL);
}

void
simrun_spec_init(struct metric_spec *spec, const double *y,
                 const unsigned char *pareto, size_t n, size_t ninit,
                 double tol, size_t fb_budget, size_t fbp_budget,
                 unsigned metrics)
{
    memset(spec, 0, sizeof *spec);
    spec->y = metrics & METRIC_SINGLE ? y : NULL;
    spec->pareto = metrics & METRIC_PARETO ? pareto : NULL;
    spec->n = n;
    spec->ninit = ninit;
    spec->tol = tol;
    spec->fb_budget = fb_budget;
    spec->fbp_budget = fbp_budget;
    spec->skip = ~metrics & (METRIC_SINGLE | METRIC_PARETO);
}

void
simrun_simulate(struct simrun *s, size_t threads)
{
    const struct metric_spec *spec = s->spec;
    int measures = 0;
    for (int m = 0; spec && m < METRIC_COUNT; m++)
        measures |= metric_spec_measures(spec, (enum metric_id)m);
    /* A spec that measures nothing would stop every run after init. */
    s->spec = measures ? spec : NULL;
    double t0 = hpod_now_s();
    simrun_run(s, threads);
    s->seconds = hpod_now_s() - t0;
    s->spec = spec;
    s->failed = 0;
    s->first_error = HPOD_OK;
    for (size_t r = 0; r < s->runs; r++)
        if (s->status[r] != HPOD_OK && s->failed++ == 0)
            s->first_error = s->status[r];
    memset(&s->sum, 0, sizeof s->sum);
    if (s->failed == 0 && spec) {
        size_t n = s->mo ? s->mo->n : s->p->n;
        simulate_summarize(spec, s->seqs, n, s->lens, s->runs, &s->sum);
    }
}
