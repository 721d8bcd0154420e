/*
 * tools/decoupled.c - hpod-bench --decoupled: max BLEU with GPU time <=
 * the table's median (the constrained runs of --mo), random search and
 * coupled constrained EI against decoupled constrained EI
 * (core/decoupled.h) at equal total cost.
 *
 * Cost model: training a configuration costs 1 and measures BLEU and GPU
 * time; probing GPU time alone costs HB_DEC_COSTS[k] of a training.
 * Every method gets the same budget of DEC_BUDGET units, so coupled
 * methods make DEC_BUDGET trainings. The gap of a run is the table's
 * best feasible BLEU minus the best feasible BLEU among the rows it
 * trained within the budget (a probe alone finds no BLEU).
 *
 * Variants, for the comparisons of the constrained method (environment):
 * HPOD_BENCH_PROBE_COSTS (comma-separated probe costs; empty: coupled
 * methods only), HPOD_BENCH_CON_LINEAR (GPU time's GP on the values, not
 * their logarithms), HPOD_BENCH_CON_GRAPH (the graph surrogate for BLEU).
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench/simulate.h"
#include "bench/tables.h"
#include "common/mem.h"
#include "tools/decoupled_run.h"
#include "core/kernels.h"
#include "core/metrics.h"
#include "core/mobo.h"
#include "tools/hpod_bench.h"

#define DEC_BUDGET 40.0
#define DEC_MAX_COSTS 8
/* The probe costs compared (HPOD_BENCH_PROBE_COSTS, a comma-separated
 * list, overrides them; empty: coupled methods only). */
static const double dec_costs_default[] = {0.1, 0.3};

static size_t
dec_costs(double *out)
{
    const char *env = getenv("HPOD_BENCH_PROBE_COSTS");
    size_t n = 0;
    if (!env) {
        memcpy(out, dec_costs_default, sizeof dec_costs_default);
        return sizeof dec_costs_default / sizeof dec_costs_default[0];
    }
    while (*env && n < DEC_MAX_COSTS) {
        char *end;
        double v = strtod(env, &end);
        if (end == env)
            break;
        if (v > 0 && v <= 1)
            out[n++] = v;
        env = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* One cell: runs of decoupled_run (cost > 0) or simulate_run_mo. */
struct dcell {
    const struct simulate_mo_problem *mp;
    struct simulate_mo_algo algo;
    double cost; /* 0: coupled */
    unsigned long long seed0;
    size_t init, runs, n;
    size_t *rows;         /* runs × 2n */
    unsigned char *kinds; /* runs × 2n */
    size_t *lens;
    enum hpod_status *st;
    atomic_size_t next;
};

static void
dcell_one(struct dcell *c, size_t r)
{
    size_t *rows = c->rows + r * 2 * c->n;
    unsigned char *kinds = c->kinds + r * 2 * c->n;
    if (c->cost > 0) {
        unsigned char dec[1] = {1};
        double cost[1] = {c->cost};
        c->st[r] = decoupled_run(c->mp, &c->algo, dec, cost, c->seed0 + r,
                                 c->init, DEC_BUDGET, rows, kinds, &c->lens[r]);
        return;
    }
    c->st[r] = simulate_run_mo(c->mp, &c->algo, c->seed0 + r, c->init,
                               (size_t)DEC_BUDGET, NULL, rows, &c->lens[r]);
    memset(kinds, DECOUPLED_TRAIN, c->lens[r]);
}

static void *
dcell_main(void *arg)
{
    struct dcell *c = arg;
    for (;;) {
        size_t r = atomic_fetch_add(&c->next, 1);
        if (r >= c->runs)
            break;
        dcell_one(c, r);
    }
    return NULL;
}

static void
dcell_run(struct dcell *c, size_t threads)
{
    pthread_t tid[16];
    size_t started = 0;
    atomic_init(&c->next, 0);
    for (size_t k = 1; k < threads && k < 16; k++)
        if (pthread_create(&tid[started], NULL, dcell_main, c) == 0)
            started++;
    dcell_main(c);
    for (size_t k = 0; k < started; k++)
        pthread_join(tid[k], NULL);
}

/* The gaps of a cell (see the top of the file), as JSON. */
static json_t *
dcell_gaps(const struct dcell *c, const double *bleu, const double *gpu,
           double bound, double best_feas)
{
    double *gaps = xmalloc(c->runs * sizeof *gaps);
    size_t none = 0, k = 0, failed = 0, probes = 0, trains = 0, infeas = 0;
    for (size_t r = 0; r < c->runs; r++) {
        const size_t *rows = c->rows + r * 2 * c->n;
        const unsigned char *kinds = c->kinds + r * 2 * c->n;
        double b = -INFINITY;
        failed += c->st[r] != HPOD_OK;
        for (size_t i = 0; i < c->lens[r]; i++) {
            if (kinds[i] != DECOUPLED_TRAIN) {
                probes++;
                continue;
            }
            trains++;
            infeas += !(gpu[rows[i]] <= bound);
            if (gpu[rows[i]] <= bound && bleu[rows[i]] > b)
                b = bleu[rows[i]];
        }
        if (b == -INFINITY)
            none++;
        else
            gaps[k++] = best_feas - b;
    }
    double mean = 0, sd = 0;
    metric_mean_std(gaps, k, &mean, &sd);
    free(gaps);
    json_t *j = json_object();
    hb_set(j, "gap_mean", hb_real(mean));
    hb_set(j, "gap_std", hb_real(sd));
    hb_set(j, "none", hb_int(none));
    hb_set(j, "failed", hb_int(failed));
    hb_set(j, "trainings", hb_real((double)trains / (double)c->runs));
    hb_set(j, "probes", hb_real((double)probes / (double)c->runs));
    hb_set(j, "infeasible_trainings",
           hb_real((double)infeas / (double)c->runs));
    return j;
}

static json_t *
dec_table(const struct hb_opts *o, const struct bench_table *tb,
          const double *bleu, const double *gpu)
{
    const char *ds = tb->name + 7;
    double best_feas, bound = hb_median_bound(gpu, bleu, tb->n, &best_feas);
    const double *cols[1] = {bleu}, *ccols[1] = {gpu};
    int sense[1] = {1}, cmax[1] = {1};
    struct bench_mo_setup su;
    bench_simulate_mo_setup_init(&su, tb, 1, cols, sense, 1, ccols, cmax,
                                 &bound);
    /* A variant: GPU time's GP on the values, not their logarithms. */
    if (getenv("HPOD_BENCH_CON_LINEAR"))
        su.con_log[0] = 0;
    json_t *j = json_object(), *ms = json_array();
    hb_set(j, "name", json_string(ds));
    hb_set(j, "gpu_time_bound", hb_real(bound));
    hb_set(j, "best_feasible_bleu", hb_real(best_feas));
    struct dcell c;
    memset(&c, 0, sizeof c);
    c.mp = &su.mp;
    c.seed0 = o->seed;
    c.init = o->init;
    c.runs = o->repeats;
    c.n = tb->n;
    c.rows = xmalloc(c.runs * 2 * c.n * sizeof *c.rows);
    c.kinds = xmalloc(c.runs * 2 * c.n);
    c.lens = xcalloc(c.runs, sizeof *c.lens);
    c.st = xcalloc(c.runs, sizeof *c.st);
    double costs[DEC_MAX_COSTS];
    size_t n_costs = dec_costs(costs);
    for (size_t m = 0; m < 2 + n_costs; m++) {
        char label[64];
        c.algo = (struct simulate_mo_algo){.random = m == 0,
                                           .surrogate = MOBO_SURROGATE_GP,
                                           .kernel = KERNEL_MATERN52};
        /* A variant: the graph surrogate for BLEU (GPs for GPU time). */
        if (getenv("HPOD_BENCH_CON_GRAPH"))
            c.algo.surrogate = MOBO_SURROGATE_GRAPH;
        c.cost = m < 2 ? 0 : costs[m - 2];
        if (m < 2)
            snprintf(label, sizeof label, "%s", m == 0 ? "RS" : "cEI");
        else
            snprintf(label, sizeof label, "cEI decoupled (probe %.2g)", c.cost);
        double t0 = hb_now();
        dcell_run(&c, o->threads);
        double sec = hb_now() - t0;
        json_t *g = dcell_gaps(&c, bleu, gpu, bound, best_feas);
        hb_set(g, "label", json_string(label));
        hb_set(g, "runs", hb_int(c.runs));
        hb_set(g, "seconds", hb_real(sec));
        fprintf(stderr,
                "bench: %s %s: gap %.3f (sd %.3f, none %zu, failed %zu, "
                "trainings %.1f, infeasible %.1f, probes %.1f) %.1f s\n",
                ds, label, json_real_value(json_object_get(g, "gap_mean")),
                json_real_value(json_object_get(g, "gap_std")),
                (size_t)json_integer_value(json_object_get(g, "none")),
                (size_t)json_integer_value(json_object_get(g, "failed")),
                json_real_value(json_object_get(g, "trainings")),
                json_real_value(json_object_get(g, "infeasible_trainings")),
                json_real_value(json_object_get(g, "probes")), sec);
        json_array_append_new(ms, g);
    }
    hb_set(j, "methods", ms);
    free(c.rows);
    free(c.kinds);
    free(c.lens);
    free(c.st);
    bench_simulate_mo_setup_free(&su);
    return j;
}

int
hb_decoupled(const struct hb_opts *o)
{
    struct bench_table *ts = NULL;
    size_t n_tables = 0;
    int rc = 1;

    double t_start = hb_now();
    if (hb_load_tables(o, &ts, &n_tables) != 0)
        goto out;
    json_t *rep = hb_report_new(o, "decoupled"), *tabs = json_array();
    hb_set(rep, "budget", hb_real(DEC_BUDGET));
    for (size_t t = 0; t < n_tables; t++) {
        const double *bleu = tables_table_metric(&ts[t], "bleu");
        const double *gpu = tables_table_metric(&ts[t], "gpu_time");
        if (bleu && gpu)
            json_array_append_new(tabs, dec_table(o, &ts[t], bleu, gpu));
    }
    hb_set(rep, "tables", tabs);
    hb_set(rep, "seconds", hb_real(hb_now() - t_start));
    rc = hb_emit(o, rep) == 0 ? 0 : 1;
out:
    tables_free(ts, n_tables);
    return rc;
}
