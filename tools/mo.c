/*
 * tools/mo.c - hpod-bench --mo: Table 4 of Zhang & Duh (TACL 2020), max
 * BLEU and min GPU time with EHVI (GP and graph surrogates) against
 * random search, then a constrained single objective (max BLEU with GPU
 * time <= the table's median). The runs are bench/simrun's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/simrun.h"
#include "bench/simulate.h"
#include "bench/tables.h"
#include "common/mem.h"
#include "core/kernels.h"
#include "core/metrics.h"
#include "core/mobo.h"
#include "core/pareto.h"
#include "tools/hpod_bench.h"

/* The constrained budget. */
#define MO_CON_BUDGET 40

/* Trust-region size of the "tr" variants (mobo_input.trust_k). */
#define MO_TRUST_K 8

/*
 * The methods of Table 4, by --mo-methods key; def: run by default. The
 * variants (core/mobo.h, mobo_input): "tr" restricts EHVI to a trust region of
 * the MO_TRUST_K nearest free rows of each front row (trust_k), "frX" takes
 * EHVI's reference from the observed front (front_ref X), "bl" blends a
 * GP into the graph's surrogate of the first objective (gp_blend).
 */
static const struct {
    const char *key, *label;
    struct simulate_mo_algo algo;
    int def;
} mo_methods[] = {
    {"rs", "RS", {1, 0, KERNEL_MATERN52, 0, 0, 0, 0}, 1},
    {"bo_m",
     "BO_M (ehvi/gp/matern52)",
     {0, MOBO_SURROGATE_GP, KERNEL_MATERN52, 0, 0, 0, 0},
     1},
    {"bo_r",
     "BO_R (ehvi/gp/rbf)",
     {0, MOBO_SURROGATE_GP, KERNEL_RBF, 0, 0, 0, 0},
     1},
    {"gb_m",
     "GB_M (ehvi/graph/matern52)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, 0, 0, 0, 0},
     1},
    {"gb_r",
     "GB_R (ehvi/graph/rbf)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_RBF, 0, 0, 0, 0},
     1},
    {"bo_m_tr",
     "BO_M tr (ehvi/gp/matern52, trust region 8)",
     {0, MOBO_SURROGATE_GP, KERNEL_MATERN52, MO_TRUST_K, 0, 0, 0},
     0},
    {"gb_m_tr",
     "GB_M tr (ehvi/graph/matern52, trust region 8)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, MO_TRUST_K, 0, 0, 0},
     0},
    {"gb_m_tr2",
     "GB_M tr2 (ehvi/graph/matern52, trust region 2)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, 2, 0, 0, 0},
     0},
    {"gb_m_tr4",
     "GB_M tr4 (ehvi/graph/matern52, trust region 4)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, 4, 0, 0, 0},
     1},
    {"bo_m_tr2",
     "BO_M tr2 (ehvi/gp/matern52, trust region 2)",
     {0, MOBO_SURROGATE_GP, KERNEL_MATERN52, 2, 0, 0, 0},
     0},
    {"bo_m_tr4",
     "BO_M tr4 (ehvi/gp/matern52, trust region 4)",
     {0, MOBO_SURROGATE_GP, KERNEL_MATERN52, 4, 0, 0, 0},
     0},
    {"gb_m_fr03",
     "GB_M fr0.3 (ehvi/graph/matern52, front reference 0.3)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, 0, 0.3, 0, 0},
     0},
    {"gb_m_fr05",
     "GB_M fr0.5 (ehvi/graph/matern52, front reference 0.5)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, 0, 0.5, 0, 0},
     1},
    {"gb_m_tr4_fr03",
     "GB_M tr4 fr0.3 (ehvi/graph/matern52, trust region 4, front reference "
     "0.3)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, 4, 0.3, 0, 0},
     0},
    {"gb_m_tr4_fr05",
     "GB_M tr4 fr0.5 (ehvi/graph/matern52, trust region 4, front reference "
     "0.5)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, 4, 0.5, 0, 0},
     1},
    {"bo_m_tr4_fr03",
     "BO_M tr4 fr0.3 (ehvi/gp/matern52, trust region 4, front reference 0.3)",
     {0, MOBO_SURROGATE_GP, KERNEL_MATERN52, 4, 0.3, 0, 0},
     0},
    {"bo_m_fr05",
     "BO_M fr0.5 (ehvi/gp/matern52, front reference 0.5)",
     {0, MOBO_SURROGATE_GP, KERNEL_MATERN52, 0, 0.5, 0, 0},
     0},
    {"gb_m_tr4_fr05_bl",
     "GB_M tr4 fr0.5 blend (ehvi/graph/matern52, trust region 4, front "
     "reference 0.5, GP blended into the first objective)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, 4, 0.5, MOBO_BLEND_FIRST, 0},
     0},
    {"gb_m_tr2_fr05_bl",
     "GB_M tr2 fr0.5 blend (ehvi/graph/matern52, trust region 2, front "
     "reference 0.5, GP blended into the first objective)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, 2, 0.5, MOBO_BLEND_FIRST, 0},
     0},
    {"gb_m_tr8_fr05_bl",
     "GB_M tr8 fr0.5 blend (ehvi/graph/matern52, trust region 8, front "
     "reference 0.5, GP blended into the first objective)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, 8, 0.5, MOBO_BLEND_FIRST, 0},
     0},
    {"gb_m_tr4_fr03_bl",
     "GB_M tr4 fr0.3 blend (ehvi/graph/matern52, trust region 4, front "
     "reference 0.3, GP blended into the first objective)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, 4, 0.3, MOBO_BLEND_FIRST, 0},
     1},
    {"gb_m_fr05_bl",
     "GB_M fr0.5 blend (ehvi/graph/matern52, front reference 0.5, GP "
     "blended into the first objective)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, 0, 0.5, MOBO_BLEND_FIRST, 0},
     0},
    {"gb_r_fr05",
     "GB_R fr0.5 (ehvi/graph/rbf, front reference 0.5)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_RBF, 0, 0.5, 0, 0},
     0},
    /* The trust region of the candidates one step (one
     * hyperparameter changed) from a front row (trust_shape steps), the
     * stall rule at 2 evaluations per front row: auto's mo_finite. */
    {"gb_m_tr2s_fr03_bl",
     "GB_M tr2-steps fr0.3 blend (ehvi/graph/matern52, trust region one "
     "step from the front, stall 2, front reference 0.3, GP blended into "
     "the first objective)",
     {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52, 2, 0.3, MOBO_BLEND_FIRST,
      MOBO_TRUST_STEPS},
     1},
};
#define N_MO_METHODS (sizeof mo_methods / sizeof mo_methods[0])

/*
 * Which methods run (use, N_MO_METHODS flags) and whether the constrained
 * runs do (*con): --mo-methods keys, "con" for the constrained runs, "all"
 * for everything; without --mo-methods the default ones and con. Returns
 * 0 on an unknown key.
 */
static int
mo_selection(const struct hb_opts *o, int *use, int *con)
{
    char *dup, *save = NULL;
    int ok = 1;
    for (size_t m = 0; m < N_MO_METHODS; m++)
        use[m] = !o->mo_methods && mo_methods[m].def;
    *con = !o->mo_methods;
    if (!o->mo_methods)
        return 1;
    dup = xstrdup(o->mo_methods);
    for (char *tok = strtok_r(dup, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int found = strcmp(tok, "con") == 0 || strcmp(tok, "all") == 0;
        *con |= found;
        for (size_t m = 0; m < N_MO_METHODS; m++)
            if (strcmp(tok, "all") == 0 || strcmp(tok, mo_methods[m].key) == 0)
                use[m] = found = 1;
        if (!found) {
            fprintf(stderr, "hpod-bench: unknown --mo-methods key \"%s\"\n",
                    tok);
            ok = 0;
        }
    }
    free(dup);
    return ok;
}

/* Runs one cell; returns wall seconds, fills seqs/lens, *failed runs. */
static double
mo_cell(const struct hb_opts *o, const struct simulate_mo_problem *mp,
        const struct simulate_mo_algo *ma, const struct metric_spec *spec,
        size_t runs, size_t length, size_t *seqs, size_t *lens, size_t *failed)
{
    enum hpod_status *st = xcalloc(runs, sizeof *st);
    struct simrun c;
    memset(&c, 0, sizeof c);
    c.mo = mp;
    c.mo_algo = ma;
    c.spec = spec;
    c.seed0 = o->seed;
    c.init = o->init;
    c.runs = runs;
    c.seqs = seqs;
    c.lens = lens;
    c.status = st;
    c.length = length;
    simrun_simulate(&c, o->threads);
    *failed = c.failed;
    free(st);
    return c.seconds;
}

/*
 * The auto cell of Table 4 on tb: the cell in ms (the methods run so far,
 * found by key) of the method the rule picks, relabelled; NULL
 * when the rule picks a configuration none of them ran.
 */
static json_t *
mo_auto_cell(const struct hb_opts *o, const struct bench_table *tb, json_t *ms)
{
    struct simulate_mo_algo ma;
    char label[64], full[128];
    if (hb_auto_mo_algo(&tb->space, tb->n, 2, 0, o->init, &ma, label,
                        sizeof label) != 0)
        return NULL;
    for (size_t m = 0; m < N_MO_METHODS; m++) {
        const struct simulate_mo_algo *a = &mo_methods[m].algo;
        if (a->random != ma.random ||
            (!ma.random &&
             (a->surrogate != ma.surrogate || a->kernel != ma.kernel ||
              a->trust_k != ma.trust_k || a->front_ref != ma.front_ref ||
              a->gp_blend != ma.gp_blend || a->trust_shape != ma.trust_shape)))
            continue;
        json_t *run = NULL;
        for (size_t i = 0; i < json_array_size(ms) && !run; i++) {
            json_t *k = json_object_get(json_array_get(ms, i), "key");
            if (json_is_string(k) &&
                strcmp(json_string_value(k), mo_methods[m].key) == 0)
                run = json_array_get(ms, i);
        }
        if (!run)
            continue;
        json_t *c = json_deep_copy(run);
        snprintf(full, sizeof full, "auto (= %s)", mo_methods[m].label);
        hb_set(c, "label", json_string(full));
        fprintf(stderr, "bench: %s auto: %s\n", tb->name + 7, full);
        return c;
    }
    fprintf(stderr, "bench: %s auto: %s was not run\n", tb->name + 7, label);
    return NULL;
}

/*
 * The model-free controls, all o->repeats runs on every table (they fit
 * nothing), appended to ms: greedy with two objectives (core/mobo.h
 * mobo_greedy: the free row nearest any row of the observed front), and
 * the single-objective greedy on BLEU alone (core/sampler.c: nearest the
 * best BLEU), the control that ignores GPU time as "TPE on BLEU alone"
 * does for Optuna (tests/bench/mo_peers.py).
 */
static void
greedy_cells(const struct hb_opts *o, const struct bench_table *tb,
             const double *bleu, const struct simulate_mo_problem *mp,
             const struct metric_spec *spec, json_t *ms)
{
    size_t *seqs = xmalloc(o->repeats * tb->n * sizeof *seqs);
    size_t *lens = xcalloc(o->repeats, sizeof *lens);
    struct simulate_problem p = {&tb->space, tb->raw, bleu, tb->n};
    struct simulate_algo a = {.kind = SAMPLER_GREEDY};
    struct simulate_mo_algo ma = {.surrogate = MOBO_SURROGATE_GREEDY,
                                  .kernel = KERNEL_MATERN52};
    const char *label[2] = {"greedy (nearest to the front)",
                            "greedy on BLEU alone"};
    for (int k = 0; k < 2; k++) {
        enum hpod_status *st = xcalloc(o->repeats, sizeof *st);
        struct simrun c;
        memset(&c, 0, sizeof c);
        c.p = &p;
        c.algo = &a;
        c.mo = k == 0 ? mp : NULL;
        c.mo_algo = k == 0 ? &ma : NULL;
        c.spec = spec;
        c.seed0 = o->seed;
        c.init = o->init;
        c.runs = o->repeats;
        c.seqs = seqs;
        c.lens = lens;
        c.status = st;
        c.length = tb->n;
        simrun_simulate(&c, o->threads);
        free(st);
        struct simulate_summary sum;
        simulate_summarize(spec, seqs, tb->n, lens, o->repeats, &sum);
        json_t *j = json_object();
        hb_set(j, "label", json_string(label[k]));
        hb_set(j, "runs", hb_int(o->repeats));
        hb_set(j, "failed", hb_int(c.failed));
        hb_set(j, "fto", hb_stat(&sum.fto));
        hb_set(j, "fta", hb_stat(&sum.fta));
        hb_set(j, "fbp", hb_stat(&sum.fbp));
        hb_set(j, "seconds", hb_real(c.seconds));
        json_array_append_new(ms, j);
        fprintf(stderr, "bench: %s %s: fta %.1f, fbp %.2f\n", tb->name + 7,
                label[k], sum.fta.mean, sum.fbp.mean);
    }
    free(seqs);
    free(lens);
}

/* Table 4 on one table (bleu and gpu_time columns): JSON. */
static json_t *
mo_table(const struct hb_opts *o, const int *use, const struct bench_table *tb,
         const double *bleu, const double *gpu)
{
    const char *ds = tb->name + 7;
    int big = tb->n > 400;
    size_t runs = o->repeats, np_rows = 0;
    for (size_t i = 0; i < tb->n; i++)
        np_rows += tb->pareto[i];
    /* The problem (BLEU up, GPU time down, the hypervolume reference 10%
     * beyond the worst of each) is built as HTTP simulate builds it. */
    const double *cols[2] = {bleu, gpu};
    int sense[2] = {1, -1};
    struct bench_mo_setup su;
    bench_simulate_mo_setup_init(&su, tb, 2, cols, sense, 0, NULL, NULL, NULL);
    struct metric_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.pareto = tb->pareto;
    spec.n = tb->n;
    spec.ninit = o->init;
    spec.fbp_budget = big ? 200 : 50;
    size_t *seqs = xmalloc(runs * tb->n * sizeof *seqs);
    size_t *lens = xcalloc(runs, sizeof *lens);
    json_t *j = json_object(), *ms = json_array();
    hb_set(j, "name", json_string(ds));
    hb_set(j, "rows", hb_int(tb->n));
    hb_set(j, "pareto_rows", hb_int(np_rows));
    hb_set(j, "fbp_budget", hb_int(spec.fbp_budget));
    for (size_t m = 0; m <= N_MO_METHODS; m++) {
        /* m == N_MO_METHODS: auto (tools/auto.c), the rule's choice for
         * this table; a method above with the same settings gave the same
         * runs (they are functions of their seeds), so its cell is reused. */
        if (m == N_MO_METHODS) {
            json_t *c = mo_auto_cell(o, tb, ms);
            if (c)
                json_array_append_new(ms, c);
            break;
        }
        size_t failed = 0;
        if (!use[m])
            continue;
        double sec = mo_cell(o, &su.mp, &mo_methods[m].algo, &spec, runs, tb->n,
                             seqs, lens, &failed);
        struct simulate_summary sum;
        simulate_summarize(&spec, seqs, tb->n, lens, runs, &sum);
        json_t *c = json_object();
        hb_set(c, "label", json_string(mo_methods[m].label));
        hb_set(c, "key", json_string(mo_methods[m].key));
        hb_set(c, "runs", hb_int(runs));
        hb_set(c, "failed", hb_int(failed));
        hb_set(c, "fto", hb_stat(&sum.fto));
        hb_set(c, "fta", hb_stat(&sum.fta));
        hb_set(c, "fbp", hb_stat(&sum.fbp));
        hb_set(c, "seconds", hb_real(sec));
        json_array_append_new(ms, c);
        fprintf(stderr,
                "bench: %s %s: %zu runs in %.1f s, fta %.1f, fbp %.2f\n", ds,
                mo_methods[m].label, runs, sec, sum.fta.mean, sum.fbp.mean);
    }
    greedy_cells(o, tb, bleu, &su.mp, &spec, ms);
    hb_set(j, "methods", ms);
    free(seqs);
    free(lens);
    bench_simulate_mo_setup_free(&su);
    return j;
}

/* The gaps of a constrained cell's runs: best feasible BLEU of the table
 * minus the best feasible BLEU a run found; runs without one counted. */
static json_t *
con_gaps(const struct bench_table *tb, const double *bleu, const double *gpu,
         double bound, double best_feas, const size_t *seqs, const size_t *lens,
         size_t runs)
{
    double *gaps = xmalloc(runs * sizeof *gaps);
    size_t within = 0, none = 0, k = 0;
    for (size_t r = 0; r < runs; r++) {
        double b = -INFINITY;
        size_t len = lens[r] < MO_CON_BUDGET ? lens[r] : MO_CON_BUDGET;
        for (size_t i = 0; i < len; i++) {
            size_t row = seqs[r * tb->n + i];
            if (gpu[row] <= bound && bleu[row] > b)
                b = bleu[row];
        }
        if (b == -INFINITY) {
            none++;
            continue;
        }
        gaps[k] = best_feas - b;
        within += gaps[k] <= 0.5;
        k++;
    }
    double mean = 0, sd = 0;
    metric_mean_std(gaps, k, &mean, &sd);
    free(gaps);
    json_t *j = json_object();
    hb_set(j, "gap_mean", hb_real(mean));
    hb_set(j, "gap_std", hb_real(sd));
    hb_set(j, "within", hb_int(within));
    hb_set(j, "none", hb_int(none));
    return j;
}

/* Constrained runs on one table: RS and BO (gp, constrained EI). */
static json_t *
con_table(const struct hb_opts *o, const struct bench_table *tb,
          const double *bleu, const double *gpu)
{
    const char *ds = tb->name + 7;
    size_t runs = o->repeats;
    double best_feas, bound = hb_median_bound(gpu, bleu, tb->n, &best_feas);
    const double *cols[1] = {bleu}, *ccols[1] = {gpu};
    int sense[1] = {1}, cmax[1] = {1};
    struct bench_mo_setup su;
    bench_simulate_mo_setup_init(&su, tb, 1, cols, sense, 1, ccols, cmax,
                                 &bound);
    size_t *seqs = xmalloc(runs * tb->n * sizeof *seqs);
    size_t *lens = xcalloc(runs, sizeof *lens);
    json_t *j = json_object(), *ms = json_array();
    hb_set(j, "name", json_string(ds));
    hb_set(j, "gpu_time_bound", hb_real(bound));
    hb_set(j, "best_feasible_bleu", hb_real(best_feas));
    for (int m = 0; m < 2; m++) {
        struct simulate_mo_algo ma = {
            m == 0, MOBO_SURROGATE_GP, KERNEL_MATERN52, 0, 0, 0, 0};
        size_t failed = 0;
        double sec = mo_cell(o, &su.mp, &ma, NULL, runs, MO_CON_BUDGET, seqs,
                             lens, &failed);
        json_t *c = con_gaps(tb, bleu, gpu, bound, best_feas, seqs, lens, runs);
        hb_set(c, "label", json_string(m == 0 ? "RS" : "BO"));
        hb_set(c, "runs", hb_int(runs));
        hb_set(c, "failed", hb_int(failed));
        hb_set(c, "seconds", hb_real(sec));
        fprintf(stderr, "bench: %s constrained %s: gap %.2f\n", ds,
                m == 0 ? "RS" : "BO",
                json_real_value(json_object_get(c, "gap_mean")));
        json_array_append_new(ms, c);
    }
    hb_set(j, "methods", ms);
    free(seqs);
    free(lens);
    bench_simulate_mo_setup_free(&su);
    return j;
}

int
hb_mo(const struct hb_opts *o)
{
    struct bench_table *ts = NULL;
    size_t n_tables = 0;
    int rc = 1, use[N_MO_METHODS], do_con;

    if (!mo_selection(o, use, &do_con))
        return 2;
    double t_start = hb_now();
    if (hb_load_tables(o, &ts, &n_tables) != 0)
        goto out;
    json_t *rep = hb_report_new(o, "mo"), *mo = json_array();
    json_t *con = json_array();
    hb_set(rep, "constrained_budget", hb_int(MO_CON_BUDGET));
    for (size_t t = 0; t < n_tables; t++) {
        const double *bleu = tables_table_metric(&ts[t], "bleu");
        const double *gpu = tables_table_metric(&ts[t], "gpu_time");
        if (bleu && gpu)
            json_array_append_new(mo, mo_table(o, use, &ts[t], bleu, gpu));
    }
    /* Constrained single objective: max BLEU with GPU time <= the
     * table's median, MO_CON_BUDGET evaluations. */
    for (size_t t = 0; t < n_tables && do_con; t++) {
        const double *bleu = tables_table_metric(&ts[t], "bleu");
        const double *gpu = tables_table_metric(&ts[t], "gpu_time");
        if (bleu && gpu)
            json_array_append_new(con, con_table(o, &ts[t], bleu, gpu));
    }
    hb_set(rep, "tables", mo);
    hb_set(rep, "constrained", con);
    hb_set(rep, "seconds", hb_real(hb_now() - t_start));
    rc = hb_emit(o, rep) == 0 ? 0 : 1;
out:
    tables_free(ts, n_tables);
    return rc;
}
