/*
 * bench/simrun.c - parallel repeats of a simulation; see simrun.h.
 */
#include "bench/simrun.h"
#include "common/clock.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/err.h"
#include "common/mem.h"
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
        if ((s->cancel && atomic_load(s->cancel)) ||
            (r > 0 && s->stop_at > 0 && hpod_now_s() >= s->stop_at)) {
            s->status[r] = HPOD_EBUSY;
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

void
simrun_runs_init(struct simrun_runs *r, size_t first, size_t runs,
                 size_t stride)
{
    memset(r, 0, sizeof *r);
    r->first = first;
    r->runs = runs;
    r->stride = stride;
    r->seqs = xmalloc((runs && stride ? runs * stride : 1) * sizeof *r->seqs);
    r->lens = xcalloc(runs ? runs : 1, sizeof *r->lens);
}

void
simrun_runs_clear(struct simrun_runs *r)
{
    if (!r)
        return;
    free(r->seqs);
    free(r->lens);
    memset(r, 0, sizeof *r);
}

json_t *
simrun_runs_json(const struct simrun_runs *r)
{
    json_t *all = json_array();
    for (size_t k = 0; k < r->runs; k++) {
        json_t *sq = json_array();
        for (size_t i = 0; i < r->lens[k]; i++)
            json_array_append_new(
                sq, json_integer((json_int_t)r->seqs[k * r->stride + i]));
        json_array_append_new(all, sq);
    }
    return all;
}

enum hpod_status
simrun_runs_from_json(json_t *seqs, size_t first, size_t stride, double seconds,
                      struct simrun_runs *r, struct hpod_err *err)
{
    size_t runs = json_array_size(seqs);

    simrun_runs_init(r, first, runs, stride);
    r->seconds = seconds;
    for (size_t k = 0; json_is_array(seqs) && k < runs; k++) {
        json_t *sq = json_array_get(seqs, k);
        size_t len = json_array_size(sq);
        if (!json_is_array(sq) || len > stride)
            goto bad;
        for (size_t i = 0; i < len; i++) {
            json_t *v = json_array_get(sq, i);
            if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                (size_t)json_integer_value(v) >= stride)
                goto bad;
            r->seqs[k * stride + i] = (size_t)json_integer_value(v);
        }
        r->lens[k] = len;
    }
    if (json_is_array(seqs))
        return HPOD_OK;
bad:
    simrun_runs_clear(r);
    return hpod_fail(err, HPOD_EUNPROC, "",
                     "stored runs from %zu on are not sequences of row ids",
                     first);
}

void
simrun_runs_append(struct simrun_runs *dst, const struct simrun_runs *src)
{
    size_t at = src->first - dst->first;
    memcpy(dst->seqs + at * dst->stride, src->seqs,
           src->runs * src->stride * sizeof *src->seqs);
    memcpy(dst->lens + at, src->lens, src->runs * sizeof *src->lens);
    dst->seconds += src->seconds;
}
