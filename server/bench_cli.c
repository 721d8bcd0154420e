/*
 * server/bench_cli.c - `hpod bench` (bench_cli.h): Table 3 of Zhang & Duh
 * (TACL 2020) regenerated on the six NMT lookup tables, for random search,
 * the greedy control and the model-based samplers, with the paper's
 * figures beside hpod's (DESIGN.md §5).
 *
 * Runs are independent functions of their seed (core/simulate.h), so the
 * repeats of one (table, method) cell are handed out to --threads pthreads
 * one seed at a time; the sequences, hence the figures, do not depend on
 * the thread count. No numerics here (core/), no file parsing
 * (bench/tables.c).
 */
#include "server/bench_cli.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/asha_sim.h"
#include "core/kernels.h"
#include "core/lcfit.h"
#include "core/linalg.h"
#include "common/mem.h"
#include "core/metrics.h"
#include "core/mobo.h"
#include "core/mstage_sim.h"
#include "core/pareto.h"
#include "core/sh.h"
#include "core/simulate.h"
#include "bench/tables.h"
#include "bench/simrun.h"

/* ------------------------------------------------------------------ */
/* Methods and the paper's figures.                                    */

struct method {
    const char *key;   /* option name */
    const char *label; /* the papers' name */
    struct simulate_algo algo;
    int model; /* 1: needs a model-based sampler (may be unavailable) */
};

static const struct method methods[] = {
    {"rs", "RS", {SAMPLER_RANDOM, 0, 0}, 0},
    {"greedy", "greedy", {SAMPLER_GREEDY, 0, 0}, 0},
    {"bo_ei_m", "BO_EI_M", {SAMPLER_GP, KERNEL_MATERN52, 0}, 1},
    {"bo_ei_r", "BO_EI_R", {SAMPLER_GP, KERNEL_RBF, 0}, 1},
    {"gb_ei_m", "GB_EI_M", {SAMPLER_GRAPH, KERNEL_MATERN52, 0}, 1},
    {"gb_ei_r", "GB_EI_R", {SAMPLER_GRAPH, KERNEL_RBF, 0}, 1},
    {"gb_eif_m", "GB_EIF_M", {SAMPLER_GRAPH, KERNEL_MATERN52, 1}, 1},
    {"gb_eif_r", "GB_EIF_R", {SAMPLER_GRAPH, KERNEL_RBF, 1}, 1},
};
#define N_METHODS (sizeof methods / sizeof methods[0])

/*
 * DESIGN.md §5: the paper's best method per dataset and its random search
 * (mean ± std over 100 runs; fb without std), and the greedy control's ftb
 * measured on the public reference code.
 */
struct paper_row {
    const char *ds;
    double best_ftb, best_ftb_sd, best_ftc, best_ftc_sd, best_fb;
    double rs_ftb, rs_ftb_sd, rs_ftc, rs_ftc_sd, rs_fb;
    double greedy_ftb;
};

static const struct paper_row paper[] = {
    {"zh-en", 13, 20, 6, 4, 0.06, 61, 34, 14, 11, 0.26, 35},
    {"ru-en", 28, 17, 17, 12, 0.33, 79, 47, 20, 17, 0.42, 20},
    {"ja-en", 13, 3, 6, 2, 0.01, 71, 43, 16, 15, 0.40, 22},
    {"en-ja", 22, 20, 9, 7, 0.42, 71, 46, 12, 10, 0.71, 31},
    {"sw-en", 33, 17, 29, 17, 1.42, 334, 201, 186, 152, 2.45, 105},
    {"so-en", 42, 30, 13, 11, 0.24, 301, 161, 39, 39, 0.63, 100},
};

static const struct paper_row *
paper_for(const char *ds)
{
    for (size_t k = 0; k < sizeof paper / sizeof paper[0]; k++)
        if (strcmp(paper[k].ds, ds) == 0)
            return &paper[k];
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Options.                                                            */

struct opts {
    char *tables[16];
    size_t n_tables;
    int use[N_METHODS];
    size_t repeats, init, threads;
    unsigned long long seed;
    const char *out;
    const char *dir;
    char cmdline[512];
    int sh;         /* --sh: the successive-halving section instead */
    int mo;         /* --mo: Table 4 and constrained runs instead */
    int asha;       /* --asha: the ASHA section instead */
    int multistage; /* --multistage: multi-stage BO beside ASHA instead */
    size_t configs; /* --configs: configurations per SH run */
    const char *sequences; /* --sequences: Table 3 runs as JSON lines */
    FILE *seqs_out;        /* open on sequences while the cells run */
};

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
usage(FILE *f)
{
    fprintf(f,
            "usage: hpod bench [--tables zh-en,ru-en,...] "
            "[--methods rs,greedy,...|all]\n"
            "                  [--repeats 100] [--seed 0] [--init 3] "
            "[--threads 2]\n"
            "                  [--out docs/benchmarks.md|-] [--dir DIR] "
            "[--sequences FILE]\n"
            "  --sequences: also writes every cell's runs to FILE, one JSON "
            "line per cell\n"
            "        {\"table\", \"method\", \"seed\", \"init\", "
            "\"sequences\": [[row, ...], ...]},\n"
            "        rows 0-based as in POST /v1/benchmarks/{name}/simulate\n"
            "       hpod bench --sh [--tables sw-en,...] [--repeats 100] "
            "[--seed 0]\n"
            "                  [--configs 40] [--out docs/benchmarks.md|-] "
            "[--dir DIR]\n"
            "  --sh: successive halving on the learning curves "
            "(dissertation Table 6.1);\n"
            "        its section replaces the previous one in --out, or is "
            "appended\n"
            "  --asha: ASHA (4 workers, r=5 u=2 R=25 p=2 keep=2) on the "
            "learning curves,\n"
            "        same options and --out handling as --sh\n"
            "  --multistage: multi-stage BO (stages of 20, 8, 3 trials, "
            "k=3; base random,\n"
            "        gp, graph) beside ASHA on the same draws, like --asha\n"
            "methods:");
    for (size_t m = 0; m < N_METHODS; m++)
        fprintf(f, " %s", methods[m].key);
    fprintf(f, "\ntables: zh-en ru-en ja-en en-ja sw-en so-en\n");
}

/* Parses a positive size_t option value; 1 on success. */
static int
parse_size(const char *s, size_t lo, size_t hi, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || *s == '-' || v < lo || v > hi)
        return 0;
    *out = (size_t)v;
    return 1;
}

/* Splits a comma-separated list into o->tables (copies). */
static int
parse_tables(struct opts *o, const char *list)
{
    char *dup = xstrdup(list), *save = NULL;
    int ok = 1;
    for (char *tok = strtok_r(dup, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (strncmp(tok, "nmthpo/", 7) == 0)
            tok += 7;
        if (o->n_tables == sizeof o->tables / sizeof o->tables[0] ||
            *tok == '\0') {
            ok = 0;
            break;
        }
        o->tables[o->n_tables++] = xstrdup(tok);
    }
    free(dup);
    return ok && o->n_tables > 0;
}

static int
parse_methods(struct opts *o, const char *list)
{
    char *dup = xstrdup(list), *save = NULL;
    int ok = 1, any = 0;
    memset(o->use, 0, sizeof o->use);
    for (char *tok = strtok_r(dup, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (size_t m = 0; m < N_METHODS; m++)
            if (strcmp(tok, "all") == 0 || strcmp(tok, methods[m].key) == 0) {
                o->use[m] = 1;
                found = any = 1;
            }
        if (!found) {
            fprintf(stderr, "hpod bench: unknown method \"%s\"\n", tok);
            ok = 0;
        }
    }
    free(dup);
    return ok && any;
}

static void
opts_free(struct opts *o)
{
    for (size_t k = 0; k < o->n_tables; k++)
        free(o->tables[k]);
}

/* Returns 0 on success, 2 on a usage error, -1 for --help. */
static int
parse_opts(int argc, char **argv, const char *benchmarks_dir, struct opts *o)
{
    int i = 1;
    memset(o, 0, sizeof *o);
    for (size_t m = 0; m < N_METHODS; m++)
        o->use[m] = 1;
    o->repeats = 100;
    o->init = 3;
    o->threads = 2;
    o->out = "docs/benchmarks.md";
    o->dir = benchmarks_dir;
    o->configs = 40;
    /* Accept both (bench, opts...) and (hpod, bench, opts...). */
    if (argc > 1 && strcmp(argv[1], "bench") == 0)
        i = 2;
    size_t used = (size_t)snprintf(o->cmdline, sizeof o->cmdline, "hpod bench");
    for (int k = i; k < argc && used < sizeof o->cmdline; k++)
        used += (size_t)snprintf(o->cmdline + used, sizeof o->cmdline - used,
                                 " %s", argv[k]);
    for (; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char name[32];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return -1;
        if (strcmp(a, "--mo") == 0) {
            o->mo = 1;
            continue;
        }
        if (strcmp(a, "--sh") == 0) {
            o->sh = 1;
            continue;
        }
        if (strcmp(a, "--asha") == 0) {
            o->asha = 1;
            continue;
        }
        if (strcmp(a, "--multistage") == 0) {
            o->multistage = 1;
            continue;
        }
        const char *eq = strchr(a, '=');
        if (strncmp(a, "--", 2) != 0 || (eq && eq - a >= (long)sizeof name)) {
            fprintf(stderr, "hpod bench: unexpected argument \"%s\"\n", a);
            return 2;
        }
        if (eq) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
            if (i + 1 >= argc) {
                fprintf(stderr, "hpod bench: %s needs a value\n", a);
                return 2;
            }
            val = argv[++i];
        }
        int ok;
        if (strcmp(name, "--tables") == 0)
            ok = parse_tables(o, val);
        else if (strcmp(name, "--methods") == 0)
            ok = parse_methods(o, val);
        else if (strcmp(name, "--repeats") == 0)
            ok = parse_size(val, 1, 100000, &o->repeats);
        else if (strcmp(name, "--init") == 0)
            ok = parse_size(val, 1, 1000, &o->init);
        else if (strcmp(name, "--threads") == 0)
            ok = parse_size(val, 1, 64, &o->threads);
        else if (strcmp(name, "--configs") == 0)
            ok = parse_size(val, 1, 100000, &o->configs);
        else if (strcmp(name, "--seed") == 0) {
            size_t s;
            ok = parse_size(val, 0, (size_t)-1, &s);
            o->seed = s;
        } else if (strcmp(name, "--out") == 0)
            ok = (o->out = val)[0] != '\0';
        else if (strcmp(name, "--dir") == 0)
            ok = (o->dir = val)[0] != '\0';
        else if (strcmp(name, "--sequences") == 0)
            ok = (o->sequences = val)[0] != '\0';
        else {
            fprintf(stderr, "hpod bench: unknown option \"%s\"\n", name);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "hpod bench: bad value \"%s\" for %s\n", val, name);
            return 2;
        }
    }
    if (!o->dir || !o->dir[0]) {
        fprintf(stderr, "hpod bench: no benchmarks directory (set "
                        "HPOD_BENCHMARKS or pass --dir)\n");
        return 2;
    }
    if (o->n_tables == 0)
        for (size_t k = 0; k < BENCH_N_DATASETS; k++)
            o->tables[o->n_tables++] = xstrdup(bench_datasets[k]);
    return 0;
}

/*
 * One line of --sequences: the runs of a finished cell, as the simulate
 * endpoint answers them, so the two can be compared run by run.
 */
static void
write_sequences(FILE *f, const char *ds, const char *method,
                const struct simrun *c)
{
    fprintf(f,
            "{\"table\": \"%s\", \"method\": \"%s\", \"seed\": %llu, "
            "\"init\": %zu, \"sequences\": [",
            ds, method, c->seed0, c->init);
    for (size_t r = 0; r < c->runs; r++) {
        fputs(r ? ", [" : "[", f);
        for (size_t i = 0; i < c->lens[r]; i++)
            fprintf(f, i ? ", %zu" : "%zu", c->seqs[r * c->p->n + i]);
        fputc(']', f);
    }
    fputs("]}\n", f);
}

/* ------------------------------------------------------------------ */
/* Progress of one (table, method) cell (the runs: bench/simrun).   */

struct progress {
    const char *table_label, *method_label;
    double t0, last_report;
};

/* Slow cells report every 10 s. */
static void
report_progress(void *arg, size_t done, size_t runs)
{
    struct progress *pg = arg;
    double t = now_s();
    if (t - pg->last_report >= 10.0 && done < runs) {
        fprintf(stderr, "bench: %s %s: %zu/%zu runs, %.1f s\n", pg->table_label,
                pg->method_label, done, runs, t - pg->t0);
        pg->last_report = t;
    }
}

/* ------------------------------------------------------------------ */
/* Results.                                                            */

enum avail { AV_OK = 0, AV_FALLBACK, AV_FAILED };

struct result {
    int ran;
    enum avail avail;
    enum hpod_status first_error;
    size_t failed_runs;
    struct simulate_summary sum;
    double seconds;
    double mean_len; /* average sequence length (evaluations simulated) */
};

static void
fmt_stat(char *buf, size_t size, const struct simulate_stat *s, int digits)
{
    if (s->runs == 0)
        snprintf(buf, size, "–");
    else if (s->missed)
        snprintf(buf, size, "%.*f ± %.*f (%zu missed)", digits, s->mean, digits,
                 s->std, s->missed);
    else
        snprintf(buf, size, "%.*f ± %.*f", digits, s->mean, digits, s->std);
}

/* Same sequence (length and ids)? */
static int
same_seq(const size_t *a, size_t la, const size_t *b, size_t lb)
{
    return la == lb && memcmp(a, b, la * sizeof *a) == 0;
}

static int
write_markdown(FILE *f, const struct opts *o, const struct bench_table *ts,
               size_t n_tables, struct result *res, double total_s,
               double load_s)
{
    char a[64], b[64], c[64];
    time_t now = time(NULL);
    struct tm tm;
    char date[32];
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);
    size_t total_runs = 0;
    for (size_t t = 0; t < n_tables; t++)
        for (size_t m = 0; m < N_METHODS; m++)
            if (res[t * N_METHODS + m].ran &&
                res[t * N_METHODS + m].avail == AV_OK)
                total_runs += o->repeats;

    fprintf(f, "# Benchmarks: the NMT lookup tables (TACL 2020, Table 3)\n\n");
    fprintf(f,
            "Generated by `%s` on %s. Do not edit by hand: rerun the "
            "command (it rewrites this file).\n\n",
            o->cmdline, date);
    fprintf(f,
            "**Protocol** (Zhang & Duh, TACL 2020, section 4; DESIGN.md "
            "§5). Single objective: maximize BLEU. Every run samples the "
            "table's rows without replacement; the first %zu rows are "
            "random and the same for every method at a given seed, every "
            "later row is chosen by `sampler_next` — the function that "
            "serves real studies — with the rows so far as observations. "
            "Seeds %llu..%llu (%zu runs per table and method). ftb = "
            "position of the oracle-best row (the first row holding the "
            "maximum BLEU), ftc = first position within 0.5 BLEU of it "
            "(1.0 for en-ja), fb = best BLEU minus the best of the first "
            "20; positions count the initial rows and are at least %zu. "
            "Mean ± population std over the runs. A run stops once ftb, ftc "
            "and the 20-row budget are all reached.\n\n",
            o->init, o->seed, o->seed + o->repeats - 1, o->repeats, o->init);
    fprintf(f,
            "**Time**: %.1f s wall for the whole regeneration (%zu runs on "
            "%zu threads, tables loaded in %.2f s); the goal of issue 4 is "
            "at most 60 s on this 2-core machine: %s.\n\n",
            total_s, total_runs, o->threads, load_s,
            total_s <= 60.0 ? "met" : "**not met**");
    fprintf(f, "Encoding: each parameter column is scaled to [0,1] as in the "
               "papers' `.hyps_scaled` files (log scale for doubling size "
               "grids: bpe on sw/so-en, num_embed; linear otherwise, "
               "init_lr included), which the loader reproduces exactly; "
               "greedy, GP and graph distances use it.\n\n");

    fprintf(f, "## Table 3: single objective\n\n");
    fprintf(f, "| table (rows) | method | ftb | ftc | fb | time (s) |\n");
    fprintf(f, "|---|---|---|---|---|---|\n");
    for (size_t t = 0; t < n_tables; t++) {
        const char *ds = ts[t].name + 7;
        const struct paper_row *pr = paper_for(ds);
        int first = 1;
        for (size_t m = 0; m < N_METHODS; m++) {
            struct result *r = &res[t * N_METHODS + m];
            if (!r->ran)
                continue;
            char head[64];
            if (first)
                snprintf(head, sizeof head, "%s (%zu)", ds, ts[t].n);
            else
                head[0] = '\0';
            first = 0;
            if (r->avail == AV_FALLBACK) {
                fprintf(f,
                        "| %s | hpod %s | not available: the sampler "
                        "answers like random search for this kind | | | "
                        "|\n",
                        head, methods[m].label);
                continue;
            }
            if (r->avail == AV_FAILED) {
                fprintf(f,
                        "| %s | hpod %s | not available: sampler_next "
                        "failed (%s) on %zu of %zu runs | | | %.2f |\n",
                        head, methods[m].label, hpod_status_str(r->first_error),
                        r->failed_runs, o->repeats, r->seconds);
                continue;
            }
            fmt_stat(a, sizeof a, &r->sum.ftb, 1);
            fmt_stat(b, sizeof b, &r->sum.ftc, 1);
            fmt_stat(c, sizeof c, &r->sum.fb, 2);
            fprintf(f, "| %s | hpod %s | %s | %s | %s | %.2f |\n", head,
                    methods[m].label, a, b, c, r->seconds);
        }
        if (pr) {
            fprintf(f,
                    "| | paper best | %.0f ± %.0f | %.0f ± %.0f | %.2f | "
                    "|\n",
                    pr->best_ftb, pr->best_ftb_sd, pr->best_ftc,
                    pr->best_ftc_sd, pr->best_fb);
            fprintf(f, "| | paper RS | %.0f ± %.0f | %.0f ± %.0f | %.2f | |\n",
                    pr->rs_ftb, pr->rs_ftb_sd, pr->rs_ftc, pr->rs_ftc_sd,
                    pr->rs_fb);
            fprintf(f,
                    "| | greedy, reference code (DESIGN.md §5) | ≈ %.0f | "
                    "| | |\n",
                    pr->greedy_ftb);
        }
    }

    /* Random search against its expectation. */
    size_t rs = 0;
    fprintf(f, "\n## Random search against its expectation\n\n");
    fprintf(f,
            "The oracle-best row sits at a uniformly random position P of "
            "a random permutation, so random search has ftb = max(P, %zu): "
            "mean (n+1)/2 plus a correction of at most %zu/n for the "
            "initial rows, std sqrt((n²-1)/12). Issue 4 asks for the mean "
            "within 3 standard errors (std/sqrt(runs)).\n\n",
            o->init, o->init);
    fprintf(f, "| table | n | (n+1)/2 | exact mean ± std | hpod RS ftb | "
               "z (SE) | within 3 SE | paper RS ftb |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|\n");
    for (size_t t = 0; t < n_tables; t++) {
        struct result *r = &res[t * N_METHODS + rs];
        if (!r->ran || r->avail != AV_OK)
            continue;
        const struct paper_row *pr = paper_for(ts[t].name + 7);
        double em, es;
        simulate_rs_ftb_expectation(ts[t].n, o->init, &em, &es);
        double se = es / sqrt((double)r->sum.ftb.runs);
        double z = (r->sum.ftb.mean - em) / se;
        char pbuf[48] = "–";
        if (pr) {
            double pz = (pr->rs_ftb - em) / (es / sqrt(100.0));
            snprintf(pbuf, sizeof pbuf, "%.0f ± %.0f (z %+.1f)", pr->rs_ftb,
                     pr->rs_ftb_sd, pz);
        }
        fprintf(f,
                "| %s | %zu | %.1f | %.2f ± %.1f | %.1f ± %.1f | %+.2f | "
                "%s | %s |\n",
                ts[t].name + 7, ts[t].n, (ts[t].n + 1) / 2.0, em, es,
                r->sum.ftb.mean, r->sum.ftb.std, z,
                fabs(z) < 3 ? "yes" : "**no**", pbuf);
    }
    fprintf(f, "\nz uses the exact std of the expectation. The paper's z "
               "(its 100 runs against the same expectation) shows how far its "
               "own random-search row is from what random search should "
               "score.\n");

    /* Best hpod method per table against the paper's best. */
    fprintf(f, "\n## Best hpod method per table against the paper's best\n\n");
    fprintf(f, "| table | best hpod method (by ftb) | hpod ftb | paper best "
               "ftb | ratio | hpod ftc / paper | hpod fb / paper | "
               "verdict |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|\n");
    int behind_any = 0;
    for (size_t t = 0; t < n_tables; t++) {
        const struct paper_row *pr = paper_for(ts[t].name + 7);
        size_t best = N_METHODS;
        for (size_t m = 0; m < N_METHODS; m++) {
            struct result *r = &res[t * N_METHODS + m];
            if (!r->ran || r->avail != AV_OK || r->sum.ftb.runs == 0)
                continue;
            if (best == N_METHODS ||
                r->sum.ftb.mean < res[t * N_METHODS + best].sum.ftb.mean)
                best = m;
        }
        if (best == N_METHODS || !pr)
            continue;
        struct result *r = &res[t * N_METHODS + best];
        double ratio = r->sum.ftb.mean / pr->best_ftb;
        int behind = r->sum.ftb.mean > pr->best_ftb;
        behind_any |= behind;
        fprintf(f,
                "| %s | %s | %.1f | %.0f | %.2f× | %.1f / %.0f | %.2f / "
                "%.2f | %s |\n",
                ts[t].name + 7, methods[best].label, r->sum.ftb.mean,
                pr->best_ftb, ratio, r->sum.ftc.mean, pr->best_ftc,
                r->sum.fb.mean, pr->best_fb,
                behind ? "**behind the paper**" : "as good or better");
    }

    /* Where the time goes. */
    fprintf(f, "\n## Time per method\n\n");
    fprintf(f, "| method | wall time (s), all tables | rows simulated per "
               "run (mean) | ms per run |\n");
    fprintf(f, "|---|---|---|---|\n");
    for (size_t m = 0; m < N_METHODS; m++) {
        double s = 0, len = 0;
        size_t k = 0, ran = 0;
        for (size_t t = 0; t < n_tables; t++) {
            struct result *r = &res[t * N_METHODS + m];
            if (!r->ran)
                continue;
            ran = 1;
            s += r->seconds;
            if (r->avail == AV_OK) {
                len += r->mean_len;
                k++;
            }
        }
        if (!ran)
            continue;
        if (k)
            snprintf(a, sizeof a, "%.1f", len / (double)k);
        else
            snprintf(a, sizeof a, "–");
        fprintf(f, "| %s | %.2f | %s | %.2f |\n", methods[m].label, s, a,
                1e3 * s * (double)o->threads / (double)(o->repeats * n_tables));
    }
    fprintf(f, "\nms per run is thread-seconds per run (wall time × threads / "
               "runs).\n");

    /* Model-based methods against the model-free greedy control. */
    size_t greedy = 1;
    int any_model = 0, any_unavail = 0, any_loser = 0;
    fprintf(f, "\n## Model-based methods against the greedy control\n\n");
    fprintf(f, "DESIGN.md §5: greedy (always the free row nearest the best so "
               "far) belongs in every comparison, and a model-based method "
               "that loses to it is not done yet. Methods whose mean ftb is "
               "worse than hpod greedy's on the same table and seeds:\n\n");
    for (size_t t = 0; t < n_tables; t++) {
        struct result *g = &res[t * N_METHODS + greedy];
        int first = 1;
        for (size_t m = 0; m < N_METHODS; m++) {
            struct result *r = &res[t * N_METHODS + m];
            if (!r->ran || !methods[m].model)
                continue;
            if (r->avail != AV_OK) {
                any_unavail = 1;
                continue;
            }
            any_model = 1;
            if (!g->ran || g->avail != AV_OK ||
                !(r->sum.ftb.mean > g->sum.ftb.mean))
                continue;
            any_loser = 1;
            if (first)
                fprintf(f, "- %s (greedy ftb %.1f):", ts[t].name + 7,
                        g->sum.ftb.mean);
            fprintf(f, "%s %s %.1f", first ? "" : ",", methods[m].label,
                    r->sum.ftb.mean);
            first = 0;
        }
        if (!first)
            fprintf(f, "\n");
    }
    if (!any_loser)
        fprintf(f, "- none%s.\n",
                any_model ? "" : " (no model-based method ran)");

    /* Honest notes. */
    fprintf(f, "\n## Notes\n\n");
    if (any_unavail)
        fprintf(f, "- Some model-based methods are **not available** in this "
                   "build: `sampler_next` either failed or answered exactly "
                   "as random search does for their kind (checked on the "
                   "first seed), so no figures are reported for them.\n");
    if (behind_any) {
        fprintf(f, "- hpod is **behind the paper's best ftb** on:");
        int first = 1;
        for (size_t t = 0; t < n_tables; t++) {
            const struct paper_row *pr = paper_for(ts[t].name + 7);
            size_t best = N_METHODS;
            for (size_t m = 0; m < N_METHODS; m++) {
                struct result *r = &res[t * N_METHODS + m];
                if (r->ran && r->avail == AV_OK && r->sum.ftb.runs &&
                    (best == N_METHODS ||
                     r->sum.ftb.mean < res[t * N_METHODS + best].sum.ftb.mean))
                    best = m;
            }
            if (!pr || best == N_METHODS ||
                !(res[t * N_METHODS + best].sum.ftb.mean > pr->best_ftb))
                continue;
            fprintf(f, "%s %s (%s %.1f against %.0f, %.1f×)", first ? "" : ";",
                    ts[t].name + 7, methods[best].label,
                    res[t * N_METHODS + best].sum.ftb.mean, pr->best_ftb,
                    res[t * N_METHODS + best].sum.ftb.mean / pr->best_ftb);
            first = 0;
        }
        fprintf(f, ".\n");
        if (!any_model)
            fprintf(f, "  That is expected here: only model-free methods "
                       "(random search, greedy) ran, while the paper's best "
                       "rows are model-based (BO/GB).\n");
        else
            fprintf(f, "  What we think the reasons are (not all verified): "
                       "for GB, the paper's kNN graph files are not public; "
                       "the public reference code's directed graph (k = n/7, "
                       "RBF weights) reaches ftb ≈ 50 (zh-en), 23 (ja-en) and "
                       "139 (sw-en), 2–4× worse than the paper's GB_EIF rows "
                       "(DESIGN.md §3), so hpod's graph construction and EIF "
                       "label scaling are its own design choices. For BO, "
                       "the paper does not give every "
                       "detail of its GP (hyperparameter treatment, EI's "
                       "exploration margin); hpod fits the normal scores "
                       "of the BLEU ranks (failed runs are outliers for a "
                       "stationary GP), refits ML-II hyperparameters at "
                       "every step and maximizes EI over the free rows "
                       "against the largest posterior mean at the "
                       "observations. The paper's best row is also the best "
                       "of many methods per table, while each hpod method is "
                       "one fixed configuration.\n");
    } else if (any_model) {
        fprintf(f, "- hpod matches or beats the paper's best ftb on every "
                   "table run.\n");
    }
    fprintf(f,
            "- The graph methods as kept (core/sampler.c, measured on these "
            "tables): a symmetrized kNN graph over all rows (i~j if either "
            "is among the other's k nearest, k chosen for an average degree "
            "of n/7), weights from the kernel on the scaled Euclidean "
            "distance with one lengthscale: half the median edge length for "
            "GB_EIF, and for GB_EI the one at which a median edge weighs "
            "0.004 (0.30 of the median for RBF, 0.24 for Matérn); harmonic "
            "label propagation; for EI the labels are normal scores of their "
            "ranks and the variance is s²·d_i·G_ii (the Gaussian-field "
            "variance without its bias towards poorly connected rows); for "
            "EIF the labels in the top "
            "7.5%% are set to 1 and the rest to 0 (the paper's rule gives a "
            "single 1 and the search crawled one neighbourhood: so-en ftb "
            "244), and candidates are scored by f_k·Σ_i f⁺⁽ᵏ'¹⁾_i, the half "
            "of the paper's expected influence that works: the full formula "
            "is dominated by (1-f_k)·Σ(1-f⁺) and picks the rows least like "
            "the best (ftb 767 of 767 on sw-en). The rank-one look-ahead "
            "with one factorization per suggestion is what makes it cheap.\n");
    fprintf(f, "- The paper's own random-search rows are single samples of "
               "100 runs; their distance from the exact expectation (z "
               "above) is sampling noise to keep in mind when comparing "
               "within a few tens of positions.\n"
               "- Figures are deterministic: the same seeds give the same "
               "sequences whatever the thread count.\n");
    return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* hpod bench --sh: successive halving on the learning curves          */
/* (dissertation Table 6.1; core/sh.h has the definitions).            */

/* DESIGN.md §5: the dissertation's acc at p = 2, c = 10. */
struct sh_paper_row {
    const char *set;
    double acc;
};

static const struct sh_paper_row sh_paper[] = {
    {"nmtlc/material-sw-en", 99}, {"nmtlc/material-so-en", 100},
    {"nmtlc/ted-zh-en", 100},     {"nmtlc/ted-ru-en", 100},
    {"nmtlc/robust19-ja-en", 69}, {"nmtlc/robust19-en-ja", 77},
};
#define SH_N_PAPER (sizeof sh_paper / sizeof sh_paper[0])

/* The section's markers in --out: a rerun replaces what is between them. */
#define SH_BEGIN "<!-- hpod bench --sh: begin -->"
#define SH_END "<!-- hpod bench --sh: end -->"

/* Runs behind the "why" table, to take the sampling noise out. */
#define SH_LONG_RUNS 2000

static const size_t sh_ps[2] = {2, 4};
static const size_t sh_cs[2] = {5, 10};

/* Fixed extrapolation horizons, beside the default (the longest curve). */
#define SH_N_HORIZONS 3
static const size_t sh_horizons[SH_N_HORIZONS] = {200, 100, 60};

struct sh_row {
    const struct bench_lc_set *set;
    double paper; /* NAN when the dissertation has no figure */
    size_t n_curves, n_settings;
    size_t len_min, len_med, len_max;
    struct sh_summary grid[2][2]; /* [p][c], --repeats runs */
    double gap[2][2];             /* mean ppl gap of the wrong picks */
    struct sh_summary ex[2][2];   /* [p][c], --repeats runs, SH_RANK_EXTRAP */
    struct sh_summary lng[5];     /* p=2, c=10, SH_LONG_RUNS runs: */
    enum hpod_status lng_st[5];   /* floor, ceil, last value, dedup, extrap */
    size_t ex_won, ex_lost;       /* runs right only with extrap / only BSF */
    struct sh_summary hz[SH_N_HORIZONS]; /* extrap, p=2, c=10, fixed H */
    enum hpod_status hz_st[SH_N_HORIZONS];
};

static int
size_cmp(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return (a > b) - (a < b);
}

/* Does set name end with "-<ds>" or equal it, for one of --tables? */
static int
sh_selected(const struct opts *o, const char *name)
{
    size_t ln = strlen(name);
    for (size_t k = 0; k < o->n_tables; k++) {
        const char *t = o->tables[k];
        size_t lt = strlen(t);
        if (strcmp(name, t) == 0 ||
            (ln > lt && strcmp(name + ln - lt, t) == 0 &&
             name[ln - lt - 1] == '-'))
            return 1;
    }
    return 0;
}

/*
 * Simulates one set: the p × c grid, then p = 2, c = 10 over
 * SH_LONG_RUNS seeds with the rule's variants. Returns the first failure.
 */
static enum hpod_status
sh_row_run(const struct opts *o, struct sh_row *row)
{
    const struct bench_lc_set *set = row->set;
    size_t n = set->n, nd = 0;
    struct sh_curve *cv = xmalloc(n * sizeof *cv);
    struct sh_curve *dd = xmalloc(n * sizeof *dd);
    size_t *lens = xmalloc(n * sizeof *lens);
    struct sh_result *per = xmalloc(o->repeats * sizeof *per);
    struct sh_result *per_b = xmalloc(SH_LONG_RUNS * sizeof *per_b);
    struct sh_result *per_e = xmalloc(SH_LONG_RUNS * sizeof *per_e);
    enum hpod_status st = HPOD_OK;

    for (size_t i = 0; i < n; i++) {
        const struct bench_curve *c = &set->curves[i];
        cv[i].y = c->ppl;
        cv[i].len = c->len;
        cv[i].optimal = c->ppl_optimal;
        lens[i] = c->len;
        /* The first curve of every distinct hyperparameter setting. */
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = memcmp(set->curves[j].hyper, c->hyper,
                         set->n_hyper * sizeof *c->hyper) == 0;
        if (!dup)
            dd[nd++] = cv[i];
    }
    qsort(lens, n, sizeof *lens, size_cmp);
    row->n_curves = n;
    row->n_settings = nd;
    row->len_min = lens[0];
    row->len_med = lens[n / 2];
    row->len_max = lens[n - 1];

    for (size_t a = 0; a < 2; a++)
        for (size_t b = 0; b < 2; b++) {
            struct sh_params prm = {sh_ps[a], sh_cs[b], 0, SH_RANK_BSF, 0};
            st = sh_simulate_many(cv, n, &prm, o->configs, o->repeats, o->seed,
                                  per, &row->grid[a][b]);
            if (st != HPOD_OK)
                goto out;
            /* Looking forward on the same draws (horizon: longest curve). */
            prm.rank = SH_RANK_EXTRAP;
            st = sh_simulate_many(cv, n, &prm, o->configs, o->repeats, o->seed,
                                  NULL, &row->ex[a][b]);
            if (st != HPOD_OK)
                goto out;
            double gap = 0;
            size_t wrong = 0;
            for (size_t k = 0; k < o->repeats; k++)
                if (!per[k].correct) {
                    gap += cv[per[k].final].optimal - cv[per[k].best].optimal;
                    wrong++;
                }
            row->gap[a][b] = wrong ? gap / (double)wrong : NAN;
        }

    for (size_t v = 0; v < 5; v++) {
        struct sh_params prm = {2, 10, v == 1,
                                v == 2   ? SH_RANK_LAST
                                : v == 4 ? SH_RANK_EXTRAP
                                         : SH_RANK_BSF,
                                0};
        const struct sh_curve *src = v == 3 ? dd : cv;
        size_t ns = v == 3 ? nd : n;
        /* A set too small for --configs leaves the cell empty. */
        row->lng_st[v] =
            sh_simulate_many(src, ns, &prm, o->configs, SH_LONG_RUNS, o->seed,
                             v == 0   ? per_b
                             : v == 4 ? per_e
                                      : NULL,
                             &row->lng[v]);
    }
    for (size_t h = 0; h < SH_N_HORIZONS; h++) {
        struct sh_params prm = {2, 10, 0, SH_RANK_EXTRAP, sh_horizons[h]};
        row->hz_st[h] = sh_simulate_many(cv, n, &prm, o->configs, SH_LONG_RUNS,
                                         o->seed, NULL, &row->hz[h]);
    }
    /* Paired: both ranks see the same draws (same seeds). */
    row->ex_won = row->ex_lost = 0;
    if (row->lng_st[0] == HPOD_OK && row->lng_st[4] == HPOD_OK)
        for (size_t k = 0; k < SH_LONG_RUNS; k++) {
            row->ex_won += per_e[k].correct && !per_b[k].correct;
            row->ex_lost += per_b[k].correct && !per_e[k].correct;
        }
out:
    free(cv);
    free(dd);
    free(lens);
    free(per);
    free(per_b);
    free(per_e);
    return st;
}

/* "12.3" or "–" for NaN. */
static const char *
fmt_num(char *buf, size_t size, double v, int digits)
{
    if (isnan(v))
        snprintf(buf, size, "–");
    else
        snprintf(buf, size, "%.*f", digits, v);
    return buf;
}

/* acc ± its binomial standard error, from a summary. */
static const char *
fmt_acc_se(char *buf, size_t size, const struct sh_summary *s,
           enum hpod_status st)
{
    if (st != HPOD_OK) {
        snprintf(buf, size, "–");
        return buf;
    }
    double p = s->acc / 100.0;
    double se = 100.0 * sqrt(p * (1 - p) / (double)s->runs);
    snprintf(buf, size, "%.1f ± %.1f", s->acc, se);
    return buf;
}

/*
 * The "looking back or forward" subsection: BSF against SH_RANK_EXTRAP,
 * paired on the same draws, with sentences computed from the figures.
 */
static int
sh_write_extrap(FILE *f, const struct opts *o, const struct sh_row *rows,
                size_t n_rows)
{
    char a[48], b[48];
    fprintf(f, "\n### Looking back or looking forward (issue 6)\n\n");
    fprintf(
        f,
        "BSF ranks a survivor by what its curve has done (\"looking "
        "back\"). **extrapolate** (`SH_RANK_EXTRAP`, core/sh.h) ranks it "
        "by what its curve is expected to do (\"looking forward\", as the "
        "dissertation compares): at the stage's checkpoint t a power law "
        "a + b·t^(−α) (b ≥ 0, a no higher than the best so far, α in "
        "[%.2g, %.0f]; core/lcfit.h) is fitted by least squares to the "
        "running minimum of the curve at checkpoints ⌊t/2⌋+1..t (the "
        "second half of what it has: the first checkpoints are a "
        "warm-up transient, on robust19 5–10 times the later "
        "perplexities, that "
        "would dominate the fit) and read at "
        "the horizon H = the longest curve among the run's %zu, the "
        "budget of a configuration that survives; the key is min(BSF, "
        "prediction), because a model is kept at its best checkpoint. A "
        "curve that has ended is ranked by its final BSF (it has no "
        "future), and a fit on fewer than %d checkpoints (t < 5) falls "
        "back to the BSF. Both ranks see the same draws (same seeds), keep the "
        "same number at each stage and train each discarded "
        "configuration to the same checkpoint, so their budgets differ "
        "only through which curves survive (their lengths), as the "
        "checkpoints column shows.\n\n",
        LCFIT_ALPHA_MIN, LCFIT_ALPHA_MAX, o->configs, LCFIT_MIN_POINTS);
    fprintf(f,
            "p = 2, c = 10, %d runs: **right only with** counts the runs "
            "that one rank gets right and the other wrong; the difference's "
            "standard error is that of paired outcomes, 100·sqrt(w + l − "
            "(w − l)²/N)/N.\n\n",
            SH_LONG_RUNS);
    fprintf(f, "| set | acc BSF | acc extrapolate | difference | right only "
               "with extrapolate | right only with BSF | checkpoints spent "
               "BSF / extrapolate |\n");
    fprintf(f, "|---|---|---|---|---|---|---|\n");
    size_t better = 0, worse = 0, same = 0;
    double sum_diff = 0;
    size_t n_diff = 0;
    for (size_t r = 0; r < n_rows; r++) {
        const struct sh_row *row = &rows[r];
        if (row->lng_st[0] != HPOD_OK || row->lng_st[4] != HPOD_OK)
            continue;
        double nr = (double)SH_LONG_RUNS;
        double w = (double)row->ex_won, l = (double)row->ex_lost;
        double diff = row->lng[4].acc - row->lng[0].acc;
        double se =
            100.0 * sqrt(fmax(0.0, w + l - (w - l) * (w - l) / nr)) / nr;
        fprintf(f,
                "| %s | %s | %s | %+.1f ± %.1f | %zu | %zu | %.0f / %.0f "
                "|\n",
                row->set->name + 6,
                fmt_acc_se(a, sizeof a, &row->lng[0], row->lng_st[0]),
                fmt_acc_se(b, sizeof b, &row->lng[4], row->lng_st[4]), diff, se,
                row->ex_won, row->ex_lost, row->lng[0].spent,
                row->lng[4].spent);
        if (diff > 2 * se)
            better++;
        else if (diff < -2 * se)
            worse++;
        else
            same++;
        sum_diff += diff;
        n_diff++;
    }

    fprintf(f,
            "\nAt %zu runs per cell (seeds %llu..%llu), over the p × c grid "
            "of the first table:\n\n",
            o->repeats, o->seed, o->seed + o->repeats - 1);
    fprintf(f, "| set | p | c | acc BSF | acc extrapolate | checkpoints "
               "spent BSF / extrapolate |\n");
    fprintf(f, "|---|---|---|---|---|---|\n");
    for (size_t r = 0; r < n_rows; r++) {
        const struct sh_row *row = &rows[r];
        for (size_t pa = 0; pa < 2; pa++)
            for (size_t cb = 0; cb < 2; cb++) {
                const struct sh_summary *sb = &row->grid[pa][cb];
                const struct sh_summary *se = &row->ex[pa][cb];
                fprintf(f, "| %s | %zu | %zu | %.0f | %.0f | %.0f / %.0f |\n",
                        pa == 0 && cb == 0 ? row->set->name + 6 : "", sh_ps[pa],
                        sh_cs[cb], sb->acc, se->acc, sb->spent, se->spent);
            }
    }

    /* How far ahead to look: the default against fixed horizons. */
    double hz_sum[SH_N_HORIZONS + 1] = {0};
    size_t hz_n = 0;
    fprintf(f,
            "\nHow far to look ahead (p = 2, c = 10, %d runs, extrapolate): "
            "the default horizon, the longest curve of the run, against "
            "fixed ones.\n\n",
            SH_LONG_RUNS);
    fprintf(f, "| set | longest curve (default) |");
    for (size_t h = 0; h < SH_N_HORIZONS; h++)
        fprintf(f, " H = %zu |", sh_horizons[h]);
    fprintf(f, " BSF |\n|---|---|");
    for (size_t h = 0; h <= SH_N_HORIZONS; h++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (size_t r = 0; r < n_rows; r++) {
        const struct sh_row *row = &rows[r];
        int all = row->lng_st[0] == HPOD_OK && row->lng_st[4] == HPOD_OK;
        fprintf(f, "| %s | %s |", row->set->name + 6,
                fmt_acc_se(a, sizeof a, &row->lng[4], row->lng_st[4]));
        for (size_t h = 0; h < SH_N_HORIZONS; h++) {
            fprintf(f, " %s |",
                    fmt_acc_se(a, sizeof a, &row->hz[h], row->hz_st[h]));
            all &= row->hz_st[h] == HPOD_OK;
        }
        fprintf(f, " %s |\n",
                fmt_acc_se(b, sizeof b, &row->lng[0], row->lng_st[0]));
        if (all) {
            hz_sum[0] += row->lng[4].acc;
            for (size_t h = 0; h < SH_N_HORIZONS; h++)
                hz_sum[h + 1] += row->hz[h].acc;
            hz_n++;
        }
    }

    if (n_diff) {
        fprintf(f,
                "\nReading it: over the %zu sets, looking forward changes acc "
                "at p = 2, c = 10 by %+.1f points on average against looking "
                "back; it is better by more than two standard errors on %zu "
                "set%s, worse on %zu, and within noise on %zu.",
                n_diff, sum_diff / (double)n_diff, better,
                better == 1 ? "" : "s", worse, same);
        if (hz_n) {
            fprintf(f,
                    " Mean acc over the %zu sets by horizon: %.1f "
                    "(longest curve)",
                    hz_n, hz_sum[0] / (double)hz_n);
            for (size_t h = 0; h < SH_N_HORIZONS; h++)
                fprintf(f, ", %.1f (H = %zu)", hz_sum[h + 1] / (double)hz_n,
                        sh_horizons[h]);
            fprintf(f, ".");
        }
        /* Fixed horizons that beat BSF (chosen after the fact). */
        size_t n_beat = 0;
        for (size_t r = 0; r < n_rows; r++) {
            const struct sh_row *row = &rows[r];
            if (row->lng_st[0] != HPOD_OK)
                continue;
            for (size_t h = 0; h < SH_N_HORIZONS; h++) {
                if (row->hz_st[h] != HPOD_OK)
                    continue;
                double p1 = row->hz[h].acc / 100, p0 = row->lng[0].acc / 100;
                double se = 100 * sqrt((p1 * (1 - p1) + p0 * (1 - p0)) /
                                       (double)SH_LONG_RUNS);
                if (row->hz[h].acc - row->lng[0].acc > 2 * se) {
                    fprintf(f,
                            "%s %s at H = %zu (%.1f against BSF's %.1f, "
                            "more than two unpaired standard errors)",
                            n_beat ? ";"
                                   : " A fixed horizon does beat "
                                     "BSF on",
                            row->set->name + 6, sh_horizons[h], row->hz[h].acc,
                            row->lng[0].acc);
                    n_beat++;
                }
            }
        }
        if (n_beat)
            fprintf(f, "; but these horizons were read off the figures "
                       "after the fact, not fixed in advance.");
        fprintf(f, " The power law extrapolates the trend of the running "
                   "minimum: it saves a slow starter that is still improving "
                   "steeply (tests/unit/test_sh.c has both cases on "
                   "closed-form curves), but it also trusts a curve whose "
                   "improvement is about to stop, and most curves here end "
                   "long before the longest (the median lengths above), so a "
                   "far horizon credits them with gains they never make; a "
                   "curve that has ended is ranked by its final BSF under both "
                   "ranks, which is why the sets whose decisions are made on "
                   "complete curves show no difference.\n");
    }
    return ferror(f) ? -1 : 0;
}

static int
sh_write_markdown(FILE *f, const struct opts *o, const struct sh_row *rows,
                  size_t n_rows, double seconds)
{
    char a[48], b[48], c[48], d[48], e[48], x[48];
    time_t now = time(NULL);
    struct tm tm;
    char date[32];
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);

    fprintf(f, "%s\n", SH_BEGIN);
    fprintf(f, "## Successive halving on the learning curves (dissertation "
               "Table 6.1)\n\n");
    fprintf(f,
            "Generated by `%s` on %s in %.2f s. Rerunning the command "
            "replaces this section (between its HTML markers) and leaves the "
            "rest of the file alone.\n\n",
            o->cmdline, date, seconds);
    fprintf(f,
            "**Protocol** (core/sh.h). Each run draws %zu configurations at "
            "random without replacement from the set (seeds %llu..%llu, %zu "
            "runs per cell). Their curves are the raw dev perplexities per "
            "checkpoint of `nmtlc/scratch.jsonl`, lower is better, restarts "
            "included. Every c checkpoints (stage s looks at checkpoint "
            "s·c) the survivors are ranked by best-so-far (BSF) perplexity "
            "over the checkpoints they have (a curve that ended keeps its "
            "last BSF) and the top max(1, ⌊k/p⌋) stay, ties to the earlier "
            "draw; once every survivor's curve has ended, the stage keeps "
            "one. **acc** = %% of runs whose final configuration has the "
            "lowest `perplexity_optimal` of its %zu. **dif** = mean over all "
            "runs of (last stage − the stage that discarded the best), a run "
            "whose best survived counting 0; the next column averages over "
            "the failed runs only. **checkpoints**: a configuration "
            "discarded at stage s trained min(len, s·c) checkpoints, the "
            "final one to its end, against training all %zu to their ends. "
            "**ppl gap**: mean `perplexity_optimal` of the final pick minus "
            "the best's, over the wrong runs.\n\n",
            o->configs, o->seed, o->seed + o->repeats - 1, o->repeats,
            o->configs, o->configs);

    fprintf(f, "| set (curves) | p | c | acc | dissertation acc | dif | dif, "
               "failed runs | stages | checkpoints spent / all (saved) | "
               "ppl gap when wrong |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t r = 0; r < n_rows; r++) {
        const struct sh_row *row = &rows[r];
        for (size_t pa = 0; pa < 2; pa++)
            for (size_t cb = 0; cb < 2; cb++) {
                const struct sh_summary *s = &row->grid[pa][cb];
                char head[128] = "";
                if (pa == 0 && cb == 0)
                    snprintf(head, sizeof head, "%s (%zu)", row->set->name + 6,
                             row->n_curves);
                int paper_cell = sh_ps[pa] == 2 && sh_cs[cb] == 10;
                fprintf(f,
                        "| %s | %zu | %zu | %.0f | %s | %.2f | %s | %.2f | "
                        "%.0f / %.0f (%.0f%%) | %s |\n",
                        head, sh_ps[pa], sh_cs[cb], s->acc,
                        paper_cell ? fmt_num(a, sizeof a, row->paper, 0) : "",
                        s->dif, fmt_num(b, sizeof b, s->dif_failed, 2),
                        s->stages, s->spent, s->full,
                        100.0 * (1.0 - s->spent / s->full),
                        fmt_num(c, sizeof c, row->gap[pa][cb], 2));
            }
    }

    /* Acceptance of issue 6. */
    int all_ok = 1, any = 0;
    fprintf(f, "\n**Acceptance** (issue 6: acc at p = 2, c = 10 within 10 "
               "points of the dissertation on every set):");
    for (size_t r = 0; r < n_rows; r++) {
        const struct sh_row *row = &rows[r];
        if (isnan(row->paper))
            continue;
        double diff = row->grid[0][1].acc - row->paper;
        int ok = fabs(diff) <= 10.0;
        all_ok &= ok;
        fprintf(f, "%s %s %+.0f%s", any ? "," : "", row->set->name + 6, diff,
                ok ? "" : " (**outside**)");
        any = 1;
    }
    fprintf(f, " → %s.\n",
            !any     ? "nothing to compare"
            : all_ok ? "met"
                     : "**not met**");

    /* What the numbers depend on. */
    fprintf(f,
            "\n### What acc depends on (p = 2, c = 10, %d runs, seeds "
            "%llu..%llu)\n\n",
            SH_LONG_RUNS, o->seed, o->seed + SH_LONG_RUNS - 1);
    fprintf(f,
            "A %zu-run figure carries a binomial standard error of up to 5 "
            "points (sqrt(acc·(100−acc)/%zu)), the dissertation's as much as "
            "ours, so the protocol is rerun here on %d seeds, then with one "
            "thing changed at a time: keeping ⌈k/p⌉ instead of ⌊k/p⌋ (40 → "
            "20, 10, 5, 3, 2, 1 instead of 40 → 20, 10, 5, 2, 1); ranking by "
            "the perplexity at the stage's checkpoint instead of the best so "
            "far; ranking by the extrapolated curve (below); drawing from one "
            "curve per distinct hyperparameter setting "
            "(the file holds two curves for most settings, which its "
            "`hyperparams` do not tell apart; – where there are fewer "
            "settings than %zu). \"Complete\" is the share of runs whose "
            "last stage saw every survivor's whole curve, so that the final "
            "pick was exact.\n\n",
            o->repeats, o->repeats, SH_LONG_RUNS, o->configs);
    fprintf(f, "| set | curves (distinct settings) | checkpoints per curve "
               "min / median / max | complete | acc | keep ⌈k/p⌉ | rank by "
               "current value | extrapolate | one curve per setting | "
               "dissertation |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|\n");
    double loss_last = 0;
    size_t n_last = 0;
    for (size_t r = 0; r < n_rows; r++) {
        const struct sh_row *row = &rows[r];
        char g[48];
        if (row->lng_st[0] == HPOD_OK)
            snprintf(g, sizeof g, "%.0f%%",
                     100.0 * (double)row->lng[0].complete /
                         (double)row->lng[0].runs);
        else
            snprintf(g, sizeof g, "–");
        fprintf(f,
                "| %s | %zu (%zu) | %zu / %zu / %zu | %s | %s | %s | %s | %s "
                "| %s | %s |\n",
                row->set->name + 6, row->n_curves, row->n_settings,
                row->len_min, row->len_med, row->len_max, g,
                fmt_acc_se(a, sizeof a, &row->lng[0], row->lng_st[0]),
                fmt_acc_se(b, sizeof b, &row->lng[1], row->lng_st[1]),
                fmt_acc_se(c, sizeof c, &row->lng[2], row->lng_st[2]),
                fmt_acc_se(x, sizeof x, &row->lng[4], row->lng_st[4]),
                fmt_acc_se(d, sizeof d, &row->lng[3], row->lng_st[3]),
                fmt_num(e, sizeof e, row->paper, 0));
        if (row->lng_st[0] == HPOD_OK && row->lng_st[2] == HPOD_OK) {
            loss_last += row->lng[0].acc - row->lng[2].acc;
            n_last++;
        }
    }

    /* Notes drawn from the figures above, so that they stay true. */
    fprintf(f, "\nReading the tables:\n\n");
    for (size_t r = 0; r < n_rows; r++) {
        const struct sh_row *row = &rows[r];
        const struct sh_summary *s = &row->lng[0];
        if (row->lng_st[0] != HPOD_OK)
            continue;
        size_t failed = s->runs - s->correct;
        double complete = 100.0 * (double)s->complete / (double)s->runs;
        fprintf(f, "- %s: median curve %zu checkpoints, ", row->set->name + 6,
                row->len_med);
        if (failed == 0)
            fprintf(f,
                    "no failure in %zu runs (%.0f%% decided on complete "
                    "curves)",
                    s->runs, complete);
        else
            fprintf(f,
                    "%zu failures in %zu runs: %zu at the last stage (the "
                    "final choice among the survivors), %zu at the first; "
                    "%.0f%% of runs decided on complete curves",
                    failed, s->runs, s->last_stage, s->first_stage, complete);
        if (!isnan(row->paper)) {
            /*
             * The dissertation's figure is one 100-run sample: its noise
             * is the binomial SE of 100 runs around the long-run acc.
             */
            double p = s->acc / 100.0;
            double se = 100.0 * sqrt(p * (1 - p) / 100.0);
            if (se > 0) {
                double z = (row->paper - s->acc) / se;
                fprintf(f,
                        ". The dissertation's %.0f is %+.1f points from the "
                        "%d-run %.1f, %.1f standard errors of a 100-run "
                        "sample: %s",
                        row->paper, row->paper - s->acc, SH_LONG_RUNS, s->acc,
                        z,
                        fabs(z) <= 2 ? "within sampling noise"
                                     : "more than sampling noise");
            } else {
                fprintf(f, ". The dissertation has %.0f", row->paper);
            }
        }
        fprintf(f, ".\n");
    }
    fprintf(f, "- Short curves make SH easy here: with c = 10 the last stages "
               "look at checkpoints 30–50, past the end of most curves of the "
               "material and ted sets, so in most runs (the \"complete\" "
               "column) the final pick compares whole curves and SH can only "
               "fail by dropping the best at an earlier stage. On the robust19 "
               "sets the curves run for hundreds of checkpoints and every "
               "decision is a forecast made within the first 50.\n");
    if (n_last)
        fprintf(f,
                "- Ranking by the current perplexity instead of the best so "
                "far costs %.1f points of acc on average over these sets: "
                "the raw curves overfit (perplexity rises) and restart, and "
                "the running minimum is what keeps a good model that is in a "
                "bad phase at the checkpoint. The dissertation's 99–100 on "
                "four sets cannot be reached without it.\n",
                loss_last / (double)n_last);
    fprintf(f, "- dif is defined here (DESIGN.md §5 gives no dissertation "
               "figure to compare with): stages from the one that discarded "
               "the best to the last, 0 when the best survived.\n");
    fprintf(f, "- The figures are deterministic: the same seeds give the "
               "same draws (partial Fisher–Yates on core/rng.h).\n");
    if (sh_write_extrap(f, o, rows, n_rows) != 0)
        return -1;
    fprintf(f, "\n%s\n", SH_END);
    return ferror(f) ? -1 : 0;
}

/*
 * Puts section into path: replaces the text between begin_mark and end_mark
 * (markers included) if the file has them, else appends it after a blank
 * line; creates the file if needed. Returns 0 on success.
 */
static int
put_section(const char *path, const char *begin_mark, const char *end_mark,
            const char *section, size_t len)
{
    char *old = NULL;
    size_t old_len = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        FILE *m = open_memstream(&old, &old_len);
        char buf[8192];
        size_t got;
        if (!m) {
            fclose(f);
            return -1;
        }
        while ((got = fread(buf, 1, sizeof buf, f)) > 0)
            fwrite(buf, 1, got, m);
        int bad = ferror(f);
        fclose(f);
        if (fclose(m) != 0 || bad) {
            free(old);
            return -1;
        }
    } else if (errno != ENOENT) {
        return -1;
    }
    const char *head = old ? old : "", *tail = "";
    size_t head_len = old_len;
    const char *b = old ? strstr(old, begin_mark) : NULL;
    const char *e = b ? strstr(b, end_mark) : NULL;
    if (b && e) {
        head_len = (size_t)(b - old);
        tail = e + strlen(end_mark);
        if (*tail == '\n')
            tail++;
    }
    f = fopen(path, "w");
    if (!f) {
        free(old);
        return -1;
    }
    fwrite(head, 1, head_len, f);
    if (!(b && e) && head_len > 0) {
        if (head[head_len - 1] != '\n')
            fputc('\n', f);
        fputc('\n', f);
    }
    fwrite(section, 1, len, f);
    fputs(tail, f);
    int rc = ferror(f) ? -1 : 0;
    if (fclose(f) != 0)
        rc = -1;
    free(old);
    return rc;
}

/*
 * Prints a rendered section to stdout and, unless --out is "-", puts it
 * between its markers in the --out file. Returns 0 on success.
 */
static int
emit_section(const struct opts *o, const char *begin_mark, const char *end_mark,
             const char *md, size_t md_len, const char *what)
{
    fwrite(md, 1, md_len, stdout);
    fflush(stdout);
    if (strcmp(o->out, "-") == 0)
        return 0;
    if (put_section(o->out, begin_mark, end_mark, md, md_len) != 0) {
        fprintf(stderr, "hpod bench: could not write \"%s\": %s\n", o->out,
                strerror(errno));
        return -1;
    }
    fprintf(stderr, "bench: wrote the %s section of %s\n", what, o->out);
    return 0;
}

/*
 * Loads dir/nmtlc/scratch.jsonl and picks the sets --tables selects: the
 * dissertation's in its order, then any other. Each picked set must hold
 * at least --configs curves. *picked (new array, n entries, borrowed
 * pointers into *sets) and *paper_k (index into sh_paper, or -1). Returns
 * 0, or -1 after printing why.
 */
static int
curve_sets_pick(const struct opts *o, struct bench_lc_set **sets,
                size_t *n_sets, const struct bench_lc_set ***picked,
                int **paper_k, size_t *n)
{
    struct hpod_err err = {0};
    size_t plen = strlen(o->dir) + sizeof "/nmtlc/scratch.jsonl";
    char *path = xmalloc(plen);
    int rc = -1;

    *picked = NULL;
    *paper_k = NULL;
    *n = 0;
    snprintf(path, plen, "%s/nmtlc/scratch.jsonl", o->dir);
    if (bench_lc_load(path, sets, n_sets, &err) != HPOD_OK) {
        fprintf(stderr, "hpod bench: %s\n", err.msg);
        goto out;
    }
    *picked = xcalloc(*n_sets ? *n_sets : 1, sizeof **picked);
    *paper_k = xcalloc(*n_sets ? *n_sets : 1, sizeof **paper_k);
    for (size_t k = 0; k < SH_N_PAPER; k++) {
        const struct bench_lc_set *st =
            bench_lc_find(*sets, *n_sets, sh_paper[k].set);
        if (st && sh_selected(o, st->name)) {
            (*picked)[*n] = st;
            (*paper_k)[(*n)++] = (int)k;
        }
    }
    for (size_t i = 0; i < *n_sets; i++) {
        int known = 0;
        for (size_t k = 0; k < SH_N_PAPER; k++)
            known |= strcmp((*sets)[i].name, sh_paper[k].set) == 0;
        if (!known && sh_selected(o, (*sets)[i].name)) {
            (*picked)[*n] = &(*sets)[i];
            (*paper_k)[(*n)++] = -1;
        }
    }
    if (*n == 0) {
        fprintf(stderr, "hpod bench: no learning-curve set matches --tables\n");
        goto out;
    }
    for (size_t r = 0; r < *n; r++)
        if ((*picked)[r]->n < o->configs) {
            fprintf(stderr,
                    "hpod bench: %s has %zu curves, fewer than "
                    "--configs %zu\n",
                    (*picked)[r]->name, (*picked)[r]->n, o->configs);
            goto out;
        }
    rc = 0;
out:
    free(path);
    return rc;
}

/* The body of `hpod bench --sh`; returns the exit code. */
static int
sh_main(const struct opts *o)
{
    struct bench_lc_set *sets = NULL;
    size_t n_sets = 0, n_rows = 0;
    const struct bench_lc_set **picked = NULL;
    int *paper_k = NULL;
    struct sh_row *rows = NULL;
    char *md = NULL;
    size_t md_len = 0;
    int rc = 1;

    double t0 = now_s();
    if (curve_sets_pick(o, &sets, &n_sets, &picked, &paper_k, &n_rows) != 0)
        goto out;
    double load_s = now_s() - t0;
    rows = xcalloc(n_rows, sizeof *rows);
    for (size_t r = 0; r < n_rows; r++) {
        rows[r].set = picked[r];
        rows[r].paper = paper_k[r] >= 0 ? sh_paper[paper_k[r]].acc : NAN;
    }
    for (size_t r = 0; r < n_rows; r++) {
        enum hpod_status st = sh_row_run(o, &rows[r]);
        if (st != HPOD_OK) {
            fprintf(stderr,
                    "hpod bench: successive halving failed on %s "
                    "(%s)\n",
                    rows[r].set->name, hpod_status_str(st));
            goto out;
        }
        fprintf(stderr,
                "bench: %s: %zu curves; p=2 c=10: acc %.0f (dissertation "
                "%.0f), %d-run acc %.1f\n",
                rows[r].set->name, rows[r].n_curves, rows[r].grid[0][1].acc,
                rows[r].paper, SH_LONG_RUNS, rows[r].lng[0].acc);
    }
    double total_s = now_s() - t0;
    fprintf(stderr,
            "bench: successive halving done in %.2f s (curves loaded "
            "in %.2f s)\n",
            total_s, load_s);

    FILE *mf = open_memstream(&md, &md_len);
    if (!mf) {
        fprintf(stderr, "hpod bench: out of memory\n");
        goto out;
    }
    int wr = sh_write_markdown(mf, o, rows, n_rows, total_s);
    if (fclose(mf) != 0 || wr != 0) {
        fprintf(stderr, "hpod bench: could not render the report\n");
        goto out;
    }
    if (emit_section(o, SH_BEGIN, SH_END, md, md_len, "successive-halving") !=
        0)
        goto out;
    rc = 0;
out:
    free(md);
    free(rows);
    free(picked);
    free(paper_k);
    bench_lc_free(sets, n_sets);
    return rc;
}

/* ------------------------------------------------------------------ */
/* hpod bench --asha: ASHA replayed on the learning curves with        */
/* simulated asynchronous workers (issue 6; core/asha_sim.h).          */

#define ASHA_BEGIN "<!-- hpod bench --asha: begin -->"
#define ASHA_END "<!-- hpod bench --asha: end -->"
#define ASHA_WORKERS 4
#define ASHA_R0 5    /* first rung */
#define ASHA_U 2     /* distance between rungs */
#define ASHA_RMAX 25 /* R, unless the set's median curve is shorter */
#define ASHA_P 2
#define ASHA_KEEP 2

struct asha_row {
    const struct bench_lc_set *set;
    size_t len_med, R;
    double saved;     /* mean % of checkpoints saved vs all to R */
    double steps;     /* mean checkpoints trained */
    double full;      /* mean checkpoints if all were trained to R */
    double n_full;    /* mean configs trained to R */
    double rank;      /* mean rank of the config kept (1 = best) */
    double best_full; /* % of runs whose best config was trained to R */
    double rank1;     /* % of runs that kept the best */
    double speedup;   /* mean (all-to-R checkpoints / workers) / ticks */
};

static enum hpod_status
asha_row_run(const struct opts *o, struct asha_row *row)
{
    const struct bench_lc_set *set = row->set;
    size_t n = set->n;
    struct asha_sim_curve *cv = xmalloc(n * sizeof *cv);
    size_t *lens = xmalloc(n * sizeof *lens);
    enum hpod_status st = HPOD_OK;

    for (size_t i = 0; i < n; i++) {
        cv[i].ppl = set->curves[i].ppl;
        cv[i].len = set->curves[i].len;
        cv[i].optimal = set->curves[i].ppl_optimal;
        lens[i] = set->curves[i].len;
    }
    qsort(lens, n, sizeof *lens, size_cmp);
    row->len_med = lens[n / 2];
    row->R = row->len_med < ASHA_RMAX ? row->len_med : ASHA_RMAX;
    if (row->R < ASHA_R0)
        row->R = ASHA_R0;

    struct asha_params prm;
    memset(&prm, 0, sizeof prm);
    prm.r = ASHA_R0;
    prm.u = ASHA_U;
    prm.R = row->R;
    prm.p = ASHA_P;
    prm.keep = ASHA_KEEP;
    for (size_t k = 0; k < o->repeats; k++) {
        struct rng r;
        struct asha_sim_result res;
        rng_seed(&r, o->seed + k);
        st = asha_sim_run(cv, n, &prm, ASHA_WORKERS, o->configs, &r, &res);
        if (st != HPOD_OK)
            goto out;
        row->saved +=
            100.0 * (1.0 - (double)res.steps / (double)res.steps_full);
        row->steps += (double)res.steps;
        row->full += (double)res.steps_full;
        row->n_full += (double)res.n_full;
        row->rank += (double)res.best_rank;
        row->best_full += res.best_full ? 100.0 : 0.0;
        row->rank1 += res.best_rank == 1 ? 100.0 : 0.0;
        row->speedup += (double)res.steps_full / ASHA_WORKERS /
                        (double)(res.elapsed ? res.elapsed : 1);
    }
    double nr = (double)o->repeats;
    row->saved /= nr;
    row->steps /= nr;
    row->full /= nr;
    row->n_full /= nr;
    row->rank /= nr;
    row->best_full /= nr;
    row->rank1 /= nr;
    row->speedup /= nr;
out:
    free(cv);
    free(lens);
    return st;
}

static int
asha_write_markdown(FILE *f, const struct opts *o, const struct asha_row *rows,
                    size_t n_rows, double seconds)
{
    time_t now = time(NULL);
    struct tm tm;
    char date[32];
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);

    fprintf(f, "%s\n", ASHA_BEGIN);
    fprintf(f, "## ASHA on the learning curves (issue 6)\n\n");
    fprintf(f,
            "Generated by `%s` on %s in %.2f s. Rerunning the command "
            "replaces this section (between its HTML markers) and leaves the "
            "rest of the file alone.\n\n",
            o->cmdline, date, seconds);
    fprintf(f,
            "**Protocol** (core/asha_sim.h, rule of core/asha.h in promotion "
            "mode). Each run draws %zu configurations at random without "
            "replacement from the set (seeds %llu..%llu, %zu runs per set) "
            "and replays ASHA with %d asynchronous workers: one checkpoint "
            "of a curve is one time unit; a free worker resumes the paused "
            "configuration ASHA promotes, else starts the next drawn one "
            "(ASHA's `exhausted` is set once all %zu have started); at every "
            "rung r = %d, %d, %d, ... < R a report outside the rung's top "
            "⌊k/%d⌋ (the best %d at the top rung, and at every rung once "
            "exhausted) pauses the configuration. Ranking is by best-so-far "
            "dev perplexity. R = min(%d, the set's median curve length); "
            "a curve shorter than R ends its training early. **saved** = "
            "mean %% of checkpoints not trained, against training all %zu to "
            "min(R, len). **kept** = the configuration trained to R with the "
            "lowest best-so-far perplexity; **rank** = its mean rank by "
            "`perplexity_optimal` among the run's %zu (1 = best). **best "
            "trained to R** = %% of runs in which a configuration with the "
            "lowest `perplexity_optimal` of the run was trained to R. "
            "**speed-up** = (checkpoints of training all to R / %d workers) "
            "/ the run's time units.\n\n",
            o->configs, o->seed, o->seed + o->repeats - 1, o->repeats,
            ASHA_WORKERS, o->configs, ASHA_R0, ASHA_R0 + ASHA_U,
            ASHA_R0 + 2 * ASHA_U, ASHA_P, ASHA_KEEP, ASHA_RMAX, o->configs,
            o->configs, ASHA_WORKERS);
    fprintf(f, "| set (curves) | median len | R | checkpoints trained / all "
               "to R | saved | configs trained to R | rank of kept | kept "
               "the best | best trained to R | speed-up |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|\n");
    int short_sets = 0;
    for (size_t k = 0; k < n_rows; k++) {
        const struct asha_row *w = &rows[k];
        short_sets |= w->R < ASHA_RMAX;
        fprintf(f,
                "| %s (%zu) | %zu | %zu%s | %.0f / %.0f | %.1f%% | %.1f | "
                "%.2f | %.0f%% | %.0f%% | %.2f |\n",
                w->set->name + 6, w->set->n, w->len_med, w->R,
                w->R < ASHA_RMAX ? "*" : "", w->steps, w->full, w->saved,
                w->n_full, w->rank, w->rank1, w->best_full, w->speedup);
    }
    if (short_sets)
        fprintf(f,
                "\n\\* R lowered to the set's median curve length (%d "
                "would be past the end of at least half of its "
                "curves).\n",
                ASHA_RMAX);
    fprintf(f, "\n%s\n", ASHA_END);
    return ferror(f) ? -1 : 0;
}

/* The body of `hpod bench --asha`; returns the exit code. */
static int
asha_main(const struct opts *o)
{
    struct bench_lc_set *sets = NULL;
    size_t n_sets = 0, n_rows = 0;
    const struct bench_lc_set **picked = NULL;
    int *paper_k = NULL;
    struct asha_row *rows = NULL;
    char *md = NULL;
    size_t md_len = 0;
    int rc = 1;

    double t0 = now_s();
    if (curve_sets_pick(o, &sets, &n_sets, &picked, &paper_k, &n_rows) != 0)
        goto out;
    rows = xcalloc(n_rows, sizeof *rows);
    for (size_t r = 0; r < n_rows; r++)
        rows[r].set = picked[r];
    for (size_t r = 0; r < n_rows; r++) {
        enum hpod_status st = asha_row_run(o, &rows[r]);
        if (st != HPOD_OK) {
            fprintf(stderr, "hpod bench: ASHA failed on %s (%s)\n",
                    rows[r].set->name, hpod_status_str(st));
            goto out;
        }
        fprintf(stderr,
                "bench: %s: R=%zu saved %.1f%%, rank of kept %.2f, best "
                "trained to R in %.0f%%\n",
                rows[r].set->name, rows[r].R, rows[r].saved, rows[r].rank,
                rows[r].best_full);
    }
    double total_s = now_s() - t0;
    fprintf(stderr, "bench: ASHA done in %.2f s\n", total_s);

    FILE *mf = open_memstream(&md, &md_len);
    if (!mf) {
        fprintf(stderr, "hpod bench: out of memory\n");
        goto out;
    }
    int wr = asha_write_markdown(mf, o, rows, n_rows, total_s);
    if (fclose(mf) != 0 || wr != 0) {
        fprintf(stderr, "hpod bench: could not render the report\n");
        goto out;
    }
    if (emit_section(o, ASHA_BEGIN, ASHA_END, md, md_len, "ASHA") != 0)
        goto out;
    rc = 0;
out:
    free(md);
    free(rows);
    free(picked);
    free(paper_k);
    bench_lc_free(sets, n_sets);
    return rc;
}

/* ------------------------------------------------------------------ */
/* hpod bench --multistage: multi-stage BO replayed on the learning    */
/* curves, beside ASHA on the same draws (issue 6; core/mstage_sim.h). */

#define MS_BEGIN "<!-- hpod bench --multistage: begin -->"
#define MS_END "<!-- hpod bench --multistage: end -->"
#define MS_K 3
#define MS_STAGES 3
#define MS_METHODS 4 /* ASHA, then multistage with base random, gp, graph */

/* Trials per stage (Wang et al. 2015 shape: many cheap, few expensive). */
static const size_t ms_trials[MS_STAGES] = {20, 8, 3};

static const struct {
    const char *label;
    enum sampler_kind kind;
} ms_methods[MS_METHODS] = {
    {"ASHA (4 workers)", SAMPLER_RANDOM},
    {"multistage, base random", SAMPLER_RANDOM},
    {"multistage, base gp", SAMPLER_GP},
    {"multistage, base graph", SAMPLER_GRAPH},
};

/* One run's figures, whichever method. */
struct ms_run {
    size_t steps, steps_full, started, rank;
    int best_full, best_started;
    enum hpod_status st;
};

/* Means over the runs of one (set, method). */
struct ms_cell {
    double steps, full, saved, started, rank, rank1, best_full, best_started;
    double seconds;
};

struct ms_set {
    const struct bench_lc_set *set;
    size_t len_med, R, steps[MS_STAGES];
    double nominal; /* checkpoints of the schedule if no curve ends early */
    size_t n_dims;  /* varying hyperparameters */
    struct asha_sim_curve *cv;
    double *feat;
    struct space sp;
    struct ms_run *runs[MS_METHODS]; /* o->repeats each */
    struct ms_cell cell[MS_METHODS];
};

/* What a thread needs to replay runs k = tid, tid + T, ... */
struct ms_job {
    const struct opts *o;
    struct ms_set *s;
    size_t method, tid, threads;
};

/* The schedule's checkpoints when every curve is at least R long. */
static double
ms_nominal(const size_t *steps)
{
    double c = 0, prev = 0;
    for (size_t i = 0; i < MS_STAGES; i++) {
        size_t seeds = 0;
        if (i > 0)
            seeds = ms_trials[i] < MS_K ? ms_trials[i] : MS_K;
        /* seeds train from the previous fidelity, new trials from 0 */
        c += (double)seeds * ((double)steps[i] - prev) +
             (double)(ms_trials[i] - seeds) * (double)steps[i];
        prev = (double)steps[i];
    }
    return c;
}

/*
 * The hyperparameters as a finite space: every column that varies in the
 * set is a value list in log scale. The values are positive and mostly
 * double (bpe 1..32 thousand merges, layers 1..6, model size 256..1024,
 * learning rate 3e-4..1e-3), which is how the papers scaled them
 * (DESIGN.md §3: `.hyps_scaled` uses log(x)); constant columns carry no
 * information and are left out. Two curves may share a configuration
 * (the sets hold repeated trainings): they are two candidates with the
 * same features.
 */
static enum hpod_status
ms_space(struct ms_set *s)
{
    const struct bench_lc_set *set = s->set;
    size_t n = set->n, d = set->n_hyper, nd = 0;
    double *vals = xmalloc(n * sizeof *vals);
    size_t *cols = xmalloc((d ? d : 1) * sizeof *cols);
    enum hpod_status st = HPOD_OK;

    space_init(&s->sp);
    for (size_t j = 0; j < d && st == HPOD_OK; j++) {
        size_t nv = 0;
        for (size_t i = 0; i < n; i++) {
            double v = set->curves[i].hyper[j];
            size_t k = 0;
            while (k < nv && vals[k] != v)
                k++;
            if (k == nv)
                vals[nv++] = v;
        }
        if (nv < 2)
            continue;
        int log_scale = 1;
        for (size_t k = 0; k < nv; k++)
            log_scale &= vals[k] > 0;
        st = space_add_values(&s->sp, PARAM_FLOAT, vals, nv, log_scale);
        cols[nd++] = j;
    }
    s->n_dims = nd;
    if (st == HPOD_OK && nd == 0)
        st = HPOD_EINVAL;
    if (st == HPOD_OK) {
        s->feat = xmalloc(n * nd * sizeof *s->feat);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < nd; j++)
                s->feat[i * nd + j] = set->curves[i].hyper[cols[j]];
    }
    free(vals);
    free(cols);
    return st;
}

static void *
ms_thread(void *arg)
{
    struct ms_job *jb = arg;
    const struct opts *o = jb->o;
    struct ms_set *s = jb->s;
    for (size_t k = jb->tid; k < o->repeats; k += jb->threads) {
        struct ms_run *out = &s->runs[jb->method][k];
        struct rng r;
        rng_seed(&r, o->seed + k);
        if (jb->method == 0) {
            struct asha_params prm;
            struct asha_sim_result res;
            memset(&prm, 0, sizeof prm);
            prm.r = ASHA_R0;
            prm.u = ASHA_U;
            prm.R = s->R;
            prm.p = ASHA_P;
            prm.keep = ASHA_KEEP;
            size_t *drawn = xmalloc(o->configs * sizeof *drawn);
            size_t *trained = xmalloc(o->configs * sizeof *trained);
            out->st = asha_sim_trace(s->cv, s->set->n, &prm, ASHA_WORKERS,
                                     o->configs, &r, &res, drawn, trained);
            out->steps = res.steps;
            out->steps_full = res.steps_full;
            out->rank = res.best_rank;
            out->best_full = res.best_full;
            out->started = 0;
            out->best_started = 0;
            double opt = INFINITY;
            for (size_t j = 0; j < o->configs; j++)
                if (s->cv[drawn[j]].optimal < opt)
                    opt = s->cv[drawn[j]].optimal;
            for (size_t j = 0; j < o->configs && out->st == HPOD_OK; j++)
                if (trained[j] > 0) {
                    out->started++;
                    out->best_started |= s->cv[drawn[j]].optimal == opt;
                }
            free(drawn);
            free(trained);
            continue;
        }
        struct mstage_params prm = {MS_STAGES, s->steps, ms_trials,
                                    MS_K,      -1,       0};
        struct mstage_sim_base base = {ms_methods[jb->method].kind, o->seed + k,
                                       (int)o->init, KERNEL_MATERN52, 0};
        struct mstage_sim_result res;
        out->st = mstage_sim_run(s->cv, s->set->n, s->feat, &s->sp, &prm, &base,
                                 o->configs, &r, &res);
        out->steps = res.steps;
        out->steps_full = res.steps_full;
        out->started = res.started;
        out->rank = res.best_rank;
        out->best_full = res.best_full;
        out->best_started = res.best_started;
    }
    return NULL;
}

/* Runs one (set, method) on o->threads threads; fills its cell. */
static enum hpod_status
ms_cell_run(const struct opts *o, struct ms_set *s, size_t m)
{
    size_t nt = o->threads < o->repeats ? o->threads : o->repeats;
    pthread_t tid[64];
    struct ms_job jobs[64];
    int created[64] = {0};
    enum hpod_status st = HPOD_OK;

    if (nt > 64)
        nt = 64;
    s->runs[m] = xcalloc(o->repeats, sizeof *s->runs[m]);
    double t0 = now_s();
    for (size_t t = 0; t < nt; t++)
        jobs[t] = (struct ms_job){o, s, m, t, nt};
    for (size_t t = 1; t < nt; t++)
        created[t] = pthread_create(&tid[t], NULL, ms_thread, &jobs[t]) == 0;
    /* The calling thread does share 0, and the share of a thread that
     * could not start: every run is replayed once, whatever happens. */
    ms_thread(&jobs[0]);
    for (size_t t = 1; t < nt; t++) {
        if (created[t])
            pthread_join(tid[t], NULL);
        else
            ms_thread(&jobs[t]);
    }
    struct ms_cell *c = &s->cell[m];
    c->seconds = now_s() - t0;
    double nr = (double)o->repeats;
    for (size_t k = 0; k < o->repeats; k++) {
        const struct ms_run *r = &s->runs[m][k];
        if (r->st != HPOD_OK && st == HPOD_OK)
            st = r->st;
        c->steps += (double)r->steps / nr;
        c->full += (double)r->steps_full / nr;
        c->saved +=
            100.0 * (1.0 - (double)r->steps / (double)r->steps_full) / nr;
        c->started += (double)r->started / nr;
        c->rank += (double)r->rank / nr;
        c->rank1 += (r->rank == 1 ? 100.0 : 0.0) / nr;
        c->best_full += (r->best_full ? 100.0 : 0.0) / nr;
        c->best_started += (r->best_started ? 100.0 : 0.0) / nr;
    }
    return st;
}

/*
 * The stage fidelities of a set: stage 0 at a, stage 1 halfway from a to
 * R, stage 2 at R, with a the one whose nominal checkpoints come closest
 * to ASHA's mean on the same draws (ties to the smaller a): the two
 * methods then spend about the same budget, and the comparison is of
 * what they keep for it.
 */
static void
ms_schedule(struct ms_set *s, double asha_steps)
{
    double best = INFINITY;
    size_t R = s->R;
    for (size_t a = 1; a + 2 <= R; a++) {
        size_t st[MS_STAGES] = {a, a + (R - a + 1) / 2, R};
        double d = fabs(ms_nominal(st) - asha_steps);
        if (d < best) {
            best = d;
            memcpy(s->steps, st, sizeof st);
        }
    }
    s->nominal = ms_nominal(s->steps);
}

/* Paired comparison of two methods' ranks: % of runs a better, b better. */
static void
ms_paired(const struct ms_set *s, size_t runs, size_t a, size_t b,
          double *a_wins, double *b_wins)
{
    *a_wins = *b_wins = 0;
    for (size_t k = 0; k < runs; k++) {
        size_t ra = s->runs[a][k].rank, rb = s->runs[b][k].rank;
        *a_wins += ra < rb ? 100.0 / (double)runs : 0.0;
        *b_wins += rb < ra ? 100.0 / (double)runs : 0.0;
    }
}

static int
ms_write_markdown(FILE *f, const struct opts *o, const struct ms_set *sets,
                  size_t n_sets, const int *use, double seconds)
{
    time_t now = time(NULL);
    struct tm tm;
    char date[32];
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);

    fprintf(f, "%s\n", MS_BEGIN);
    fprintf(f, "## Multi-stage BO on the learning curves, beside ASHA "
               "(issue 6)\n\n");
    fprintf(f,
            "Generated by `%s` on %s in %.1f s (%zu threads). Rerunning the "
            "command replaces this section (between its HTML markers) and "
            "leaves the rest of the file alone.\n\n",
            o->cmdline, date, seconds, o->threads);
    fprintf(f,
            "**Protocol** (core/mstage_sim.h; every stage decision is "
            "core/mstage.c's, as the live `multistage` algorithm uses it). "
            "Each run draws %zu configurations at random without replacement "
            "(seeds %llu..%llu, %zu runs per set); multi-stage BO and ASHA "
            "replay on the SAME draw (same rng state), so the runs are "
            "paired. Multistage: stages of %zu, %zu and %zu trials trained "
            "to a, b and R checkpoints, the best %d of a stage by "
            "best-so-far (BSF) perplexity at its fidelity seed the next, "
            "the others are pruned; a stage's new configurations are chosen "
            "among the drawn ones not yet tried by the base sampler "
            "(random, gp = Matérn-5/2 + EI, graph = GB with EI; %zu random "
            "choices first), whose observations are every trial's BSF at "
            "the stage's fidelity; one worker (stages are synchronous). A "
            "curve shorter than its stage's fidelity ends there (the "
            "trainer's final report: trained to its end, as for ASHA). "
            "Hyperparameters: every column that varies in the set, as a "
            "value list in log scale (they double: bpe, layers, sizes, "
            "learning rate). ASHA: as `hpod bench --asha` (4 workers, r=%d "
            "u=%d p=%d keep=%d). R = min(%d, the set's median curve length) "
            "for both. The schedule (a, b) is chosen per set so that its "
            "nominal checkpoints (no curve ending early) come closest to "
            "ASHA's mean on the same draws: b = a + ⌈(R−a)/2⌉. **saved** = "
            "mean %% of checkpoints not trained against all %zu to min(R, "
            "len); **started** = configurations trained at all; **rank** = "
            "mean rank by `perplexity_optimal` of the configuration kept "
            "(the one trained to R, or to its end, with the lowest BSF) "
            "among the run's %zu (1 = best); **kept best** = %% of runs "
            "with rank 1; **best to R** = %% of runs whose best was trained "
            "to R (or its end); **best started** = %% of runs whose best was "
            "trained at all.\n\n",
            o->configs, o->seed, o->seed + o->repeats - 1, o->repeats,
            ms_trials[0], ms_trials[1], ms_trials[2], MS_K, o->init, ASHA_R0,
            ASHA_U, ASHA_P, ASHA_KEEP, ASHA_RMAX, o->configs, o->configs);
    fprintf(f, "| set (curves) | R | schedule a, b, R (nominal) | method | "
               "checkpoints / all to R | saved | started | rank of kept | "
               "kept best | best to R | best started | s |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n_sets; i++) {
        const struct ms_set *s = &sets[i];
        for (size_t m = 0; m < MS_METHODS; m++) {
            const struct ms_cell *c = &s->cell[m];
            if (!use[m])
                continue;
            if (m == 0)
                fprintf(f, "| %s (%zu) | %zu | %zu, %zu, %zu (%.0f) ",
                        s->set->name + 6, s->set->n, s->R, s->steps[0],
                        s->steps[1], s->steps[2], s->nominal);
            else
                fprintf(f, "| | | ");
            fprintf(f,
                    "| %s | %.0f / %.0f | %.1f%% | %.1f | %.2f | %.0f%% | "
                    "%.0f%% | %.0f%% | %.1f |\n",
                    ms_methods[m].label, c->steps, c->full, c->saved,
                    c->started, c->rank, c->rank1, c->best_full,
                    c->best_started, c->seconds);
        }
    }

    /* The paragraph: every figure computed from the runs above. */
    double rk[MS_METHODS] = {0}, k1[MS_METHODS] = {0}, bs[MS_METHODS] = {0};
    double ratio[MS_METHODS] = {0}, kept_if[MS_METHODS] = {0};
    double n_started_best[MS_METHODS] = {0};
    double ns = (double)n_sets;
    for (size_t i = 0; i < n_sets; i++)
        for (size_t m = 0; m < MS_METHODS; m++) {
            const struct ms_cell *c = &sets[i].cell[m];
            rk[m] += c->rank / ns;
            k1[m] += c->rank1 / ns;
            bs[m] += c->best_started / ns;
            ratio[m] += c->steps / sets[i].cell[0].steps / ns;
            for (size_t k = 0; k < o->repeats; k++) {
                const struct ms_run *r = &sets[i].runs[m][k];
                n_started_best[m] += r->best_started;
                kept_if[m] += r->best_started && r->rank == 1;
            }
        }
    for (size_t m = 0; m < MS_METHODS; m++)
        kept_if[m] = n_started_best[m] > 0
                         ? 100.0 * kept_if[m] / n_started_best[m]
                         : NAN;
    fprintf(f,
            "\n**Reading** (over the %zu sets, %zu paired runs each; "
            "per-set figures above). Multistage spends %.2f× ASHA's "
            "checkpoints and starts %.0f of the %zu configurations. ",
            n_sets, o->repeats, ratio[1], sets[0].cell[1].started, o->configs);
    if (use[1] && use[2]) {
        size_t gp_better = 0;
        double gw_all = 0, rw_all = 0;
        for (size_t i = 0; i < n_sets; i++) {
            double gw, rw;
            gp_better += sets[i].cell[2].rank < sets[i].cell[1].rank;
            ms_paired(&sets[i], o->repeats, 2, 1, &gw, &rw);
            gw_all += gw / ns;
            rw_all += rw / ns;
        }
        fprintf(f,
                "*BO within the stages* (base gp against base random): gp "
                "keeps the better configuration on average on %zu of the "
                "%zu sets (mean rank %.2f against %.2f; kept the pool's "
                "best in %.0f%% of runs against %.0f%%; paired, gp kept a "
                "better configuration in %.0f%% of runs and a worse one in "
                "%.0f%%). The gain comes from which configurations are "
                "started: gp starts the pool's best in %.0f%% of runs, "
                "random in %.0f%% (%.0f%% expected: %.0f of %zu drawn at "
                "random); once the best is started, the stages keep it in "
                "%.0f%% (random) and %.0f%% (gp) of those runs. ",
                gp_better, n_sets, rk[2], rk[1], k1[2], k1[1], gw_all, rw_all,
                bs[2], bs[1],
                100.0 * sets[0].cell[1].started / (double)o->configs,
                sets[0].cell[1].started, o->configs, kept_if[1], kept_if[2]);
    }
    if (use[3])
        fprintf(f,
                "The graph base (GB, EI): mean rank %.2f, the best kept in "
                "%.0f%% and started in %.0f%% of runs. ",
                rk[3], k1[3], bs[3]);
    if (use[0]) {
        fprintf(f,
                "*Against ASHA*, which starts all %zu (so it always starts "
                "the best, and kept it in %.0f%% of runs; mean rank %.2f): ",
                o->configs, k1[0], rk[0]);
        for (size_t m = 1; m < MS_METHODS; m++) {
            if (!use[m])
                continue;
            size_t worse = 0, same = 0;
            double mw_all = 0, aw_all = 0;
            for (size_t i = 0; i < n_sets; i++) {
                double mw, aw;
                worse += sets[i].cell[m].rank > sets[i].cell[0].rank + 0.005;
                same +=
                    fabs(sets[i].cell[m].rank - sets[i].cell[0].rank) <= 0.005;
                ms_paired(&sets[i], o->repeats, m, 0, &mw, &aw);
                mw_all += mw / ns;
                aw_all += aw / ns;
            }
            fprintf(f,
                    "%s has a worse mean rank on %zu sets and the same on "
                    "%zu (paired: better in %.0f%%, worse in %.0f%% of "
                    "runs)%s",
                    ms_methods[m].label, worse, same, mw_all, aw_all,
                    m + 1 < MS_METHODS && use[m + 1] ? "; " : ". ");
        }
        size_t a_lo = sets[0].steps[0], a_hi = sets[0].steps[0];
        for (size_t i = 1; i < n_sets; i++) {
            a_lo = sets[i].steps[0] < a_lo ? sets[i].steps[0] : a_lo;
            a_hi = sets[i].steps[0] > a_hi ? sets[i].steps[0] : a_hi;
        }
        fprintf(f,
                "At the same budget, multistage trains fewer "
                "configurations further (the %zu of stage 0 to a = %zu..%zu "
                "checkpoints, where ASHA's first rung is %d), so it is only "
                "as good as its choice of which ones to start",
                ms_trials[0], a_lo, a_hi, ASHA_R0);
        if (use[1] && use[2] && rk[1] > rk[0])
            fprintf(f,
                    ": the gp base closes %.0f%% of the random base's gap "
                    "in mean rank to ASHA",
                    100.0 * (rk[1] - rk[2]) / (rk[1] - rk[0]));
        fprintf(f, ".");
    }
    fprintf(f, "\n\n%s\n", MS_END);
    return ferror(f) ? -1 : 0;
}

/* The body of `hpod bench --multistage`; returns the exit code. */
static int
ms_main(const struct opts *o)
{
    struct bench_lc_set *all = NULL;
    size_t n_all = 0, n_sets = 0;
    const struct bench_lc_set **picked = NULL;
    int *paper_k = NULL;
    struct ms_set *sets = NULL;
    int use[MS_METHODS] = {1, 1, 1, 1};
    char *md = NULL;
    size_t md_len = 0;
    int rc = 1;

    /* One BLAS thread per worker: the runs are the parallelism. */
    linalg_set_threads(1);
    double t0 = now_s();
    if (curve_sets_pick(o, &all, &n_all, &picked, &paper_k, &n_sets) != 0)
        goto out;
    sets = xcalloc(n_sets, sizeof *sets);
    for (size_t i = 0; i < n_sets; i++) {
        struct ms_set *s = &sets[i];
        size_t n = picked[i]->n;
        size_t *lens = xmalloc(n * sizeof *lens);
        s->set = picked[i];
        s->cv = xmalloc(n * sizeof *s->cv);
        for (size_t c = 0; c < n; c++) {
            s->cv[c].ppl = s->set->curves[c].ppl;
            s->cv[c].len = s->set->curves[c].len;
            s->cv[c].optimal = s->set->curves[c].ppl_optimal;
            lens[c] = s->set->curves[c].len;
        }
        qsort(lens, n, sizeof *lens, size_cmp);
        s->len_med = lens[n / 2];
        free(lens);
        s->R = s->len_med < ASHA_RMAX ? s->len_med : ASHA_RMAX;
        if (s->R < ASHA_R0)
            s->R = ASHA_R0;
        if (ms_space(s) != HPOD_OK) {
            fprintf(stderr, "hpod bench: %s: no usable hyperparameters\n",
                    s->set->name);
            goto out;
        }
        for (size_t m = 0; m < MS_METHODS; m++) {
            enum hpod_status st = ms_cell_run(o, s, m);
            if (st != HPOD_OK) {
                fprintf(stderr, "hpod bench: %s on %s failed (%s)\n",
                        ms_methods[m].label, s->set->name, hpod_status_str(st));
                goto out;
            }
            if (m == 0)
                ms_schedule(s, s->cell[0].steps);
            fprintf(stderr,
                    "bench: %s %s: %.0f checkpoints (%.1f%% saved), rank "
                    "%.2f, kept best %.0f%%, best started %.0f%%, %.1f s\n",
                    s->set->name, ms_methods[m].label, s->cell[m].steps,
                    s->cell[m].saved, s->cell[m].rank, s->cell[m].rank1,
                    s->cell[m].best_started, s->cell[m].seconds);
        }
    }
    double total_s = now_s() - t0;
    fprintf(stderr, "bench: multistage done in %.1f s\n", total_s);

    FILE *mf = open_memstream(&md, &md_len);
    if (!mf) {
        fprintf(stderr, "hpod bench: out of memory\n");
        goto out;
    }
    int wr = ms_write_markdown(mf, o, sets, n_sets, use, total_s);
    if (fclose(mf) != 0 || wr != 0) {
        fprintf(stderr, "hpod bench: could not render the report\n");
        goto out;
    }
    if (emit_section(o, MS_BEGIN, MS_END, md, md_len, "multistage") != 0)
        goto out;
    rc = 0;
out:
    free(md);
    for (size_t i = 0; sets && i < n_sets; i++) {
        free(sets[i].cv);
        free(sets[i].feat);
        space_cleanup(&sets[i].sp);
        for (size_t m = 0; m < MS_METHODS; m++)
            free(sets[i].runs[m]);
    }
    free(sets);
    free(picked);
    free(paper_k);
    bench_lc_free(all, n_all);
    return rc;
}

/* ------------------------------------------------------------------ */
/* --mo: multi-objective Table 4 and constrained runs (issue 5).       */

#define MO_BEGIN "<!-- hpod bench --mo: begin -->"
#define MO_END "<!-- hpod bench --mo: end -->"
#define MO_BIG_REPEATS 10
#define MO_CON_BUDGET 40

/* The paper's Table 4: best method, then random search (DESIGN.md §5). */
static const struct {
    const char *ds;
    double fto, fto_sd, fta, fta_sd, fbp, rs_fto, rs_fta, rs_fbp;
} mo_paper[] = {
    {"zh-en", 20, 13, 75, 15, 1.8, 30, 88, 1.3},
    {"ru-en", 16, 14, 80, 26, 2.4, 33, 139, 1.3},
    {"ja-en", 16, 12, 77, 28, 3.3, 21, 129, 1.7},
    {"en-ja", 15, 10, 93, 30, 4.6, 17, 150, 2.5},
    {"sw-en", 26, 20, 344, 201, 12.0, 54, 719, 3.4},
    {"so-en", 30, 21, 321, 113, 5.1, 88, 534, 2.1},
};

static const struct {
    const char *label;
    struct simulate_mo_algo algo;
} mo_methods[] = {
    {"RS", {1, 0, KERNEL_MATERN52}},
    {"BO_M (ehvi/gp/matern52)", {0, MOBO_SURROGATE_GP, KERNEL_MATERN52}},
    {"BO_R (ehvi/gp/rbf)", {0, MOBO_SURROGATE_GP, KERNEL_RBF}},
    {"GB_M (ehvi/graph/matern52)", {0, MOBO_SURROGATE_GRAPH, KERNEL_MATERN52}},
    {"GB_R (ehvi/graph/rbf)", {0, MOBO_SURROGATE_GRAPH, KERNEL_RBF}},
};
#define N_MO_METHODS (sizeof mo_methods / sizeof mo_methods[0])

static int
cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs one cell; returns wall seconds, fills seqs/lens, 0 failed runs. */
static double
mo_cell(const struct opts *o, const struct simulate_mo_problem *mp,
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

static int
mo_main(const struct opts *o)
{
    struct hpod_err err = {0};
    struct bench_table *ts = NULL;
    size_t n_tables = 0;
    char *md = NULL;
    size_t md_len = 0;
    int rc = 1;
    FILE *f = NULL;

    linalg_set_threads(1);
    double t_start = now_s();
    if (bench_tables_load_dir(o->dir, (const char *const *)o->tables,
                              o->n_tables, &ts, &n_tables, &err) != HPOD_OK) {
        fprintf(stderr, "hpod bench: %s\n", err.msg);
        goto out;
    }
    if ((f = open_memstream(&md, &md_len)) == NULL)
        goto out;
    fprintf(f,
            "%s\n## Multi-objective: max BLEU, min GPU time (TACL 2020, "
            "Table 4)\n\nGenerated by `hpod bench --mo`. Every run samples "
            "rows without replacement; the first %zu are the same random "
            "rows as in Table 3 at each seed, every later row is chosen by "
            "`mobo_next` (the function that serves `ehvi` studies: one "
            "surrogate per objective, exact 2-D expected hypervolume "
            "improvement), falling back to the step's random choice while "
            "the model cannot decide. The hypervolume reference is the "
            "table's worst BLEU and GPU time moved out by 10%% of their "
            "ranges. fto = position of the first Pareto-optimal row, fta "
            "= position when all are found, fbp = Pareto rows among the "
            "first 50 (200 for sw-en, so-en). Seeds %llu.. (%zu runs per "
            "cell; at most %d on sw-en and so-en, whose EHVI fits at "
            "200-700 observations cost seconds per run). Mean ± "
            "population std.\n\n",
            MO_BEGIN, o->init, o->seed, o->repeats, MO_BIG_REPEATS);
    fprintf(f, "| table (rows, Pareto rows) | method | runs | fto | fta | fbp "
               "| time (s) |\n|---|---|---|---|---|---|---|\n");

    for (size_t t = 0; t < n_tables; t++) {
        const struct bench_table *tb = &ts[t];
        const double *bleu = bench_table_metric(tb, "bleu");
        const double *gpu = bench_table_metric(tb, "gpu_time");
        const char *ds = tb->name + 7;
        if (!bleu || !gpu)
            continue;
        int big = tb->n > 400;
        size_t runs =
            big && o->repeats > MO_BIG_REPEATS ? MO_BIG_REPEATS : o->repeats;
        size_t np_rows = 0;
        for (size_t i = 0; i < tb->n; i++)
            np_rows += tb->pareto[i];
        double *y = xmalloc(2 * tb->n * sizeof *y), ref[2];
        int sense2[2] = {1, 1};
        for (size_t i = 0; i < tb->n; i++) {
            y[2 * i] = bleu[i];
            y[2 * i + 1] = -gpu[i];
        }
        pareto_reference(y, tb->n, 2, sense2, 0.1, ref);
        struct simulate_mo_problem mp = {
            &tb->space, tb->raw, tb->n, 2, y, ref, 0, NULL, NULL, NULL};
        struct metric_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.pareto = tb->pareto;
        spec.n = tb->n;
        spec.ninit = o->init;
        spec.fbp_budget = big ? 200 : 50;
        size_t *seqs = xmalloc(runs * tb->n * sizeof *seqs);
        size_t *lens = xcalloc(runs, sizeof *lens);
        for (size_t m = 0; m < N_MO_METHODS; m++) {
            size_t failed = 0;
            double sec = mo_cell(o, &mp, &mo_methods[m].algo, &spec, runs,
                                 tb->n, seqs, lens, &failed);
            struct simulate_summary sum;
            simulate_summarize(&spec, seqs, tb->n, lens, runs, &sum);
            char a[64], b[64], c[64];
            fmt_stat(a, sizeof a, &sum.fto, 1);
            fmt_stat(b, sizeof b, &sum.fta, 1);
            fmt_stat(c, sizeof c, &sum.fbp, 2);
            if (m == 0)
                fprintf(f, "| %s (%zu, %zu) ", ds, tb->n, np_rows);
            else
                fprintf(f, "| ");
            fprintf(f, "| hpod %s | %zu%s | %s | %s | %s | %.2f |\n",
                    mo_methods[m].label, runs, failed ? " (failures!)" : "", a,
                    b, c, sec);
            fprintf(stderr,
                    "bench: %s %s: %zu runs in %.1f s, fta %.1f, fbp "
                    "%.2f\n",
                    ds, mo_methods[m].label, runs, sec, sum.fta.mean,
                    sum.fbp.mean);
        }
        for (size_t k = 0; k < sizeof mo_paper / sizeof mo_paper[0]; k++)
            if (strcmp(mo_paper[k].ds, ds) == 0) {
                fprintf(f,
                        "| | paper best | 100 | %.0f ± %.0f | %.0f ± %.0f | "
                        "%.1f | |\n| | paper RS | 100 | %.0f | %.0f | %.1f "
                        "| |\n",
                        mo_paper[k].fto, mo_paper[k].fto_sd, mo_paper[k].fta,
                        mo_paper[k].fta_sd, mo_paper[k].fbp, mo_paper[k].rs_fto,
                        mo_paper[k].rs_fta, mo_paper[k].rs_fbp);
            }
        free(seqs);
        free(lens);
        free(y);
    }

    /* Constrained single objective: max BLEU with GPU time <= the
     * table's median, MO_CON_BUDGET evaluations. */
    fprintf(f,
            "\n## Constrained: max BLEU with GPU time <= the table's "
            "median (Beck et al. 2016)\n\nThe same protocol, %d "
            "evaluations per run, %zu runs per cell (at most %d on sw-en "
            "and so-en). BO = `gp` with the constraint: EI × P(GPU time "
            "<= bound), one GP per metric, GPU time modelled in log space "
            "(core/mobo). The recommendation is the best observed row "
            "that meets the constraint, so it is never infeasible by "
            "construction; gap = best feasible BLEU of the table minus "
            "BLEU of that recommendation.\n\n| table | method | runs | "
            "gap after %d (mean ± std) | runs within 0.5 | runs with no "
            "feasible row |\n|---|---|---|---|---|---|\n",
            MO_CON_BUDGET, o->repeats, MO_BIG_REPEATS, MO_CON_BUDGET);
    for (size_t t = 0; t < n_tables; t++) {
        const struct bench_table *tb = &ts[t];
        const double *bleu = bench_table_metric(tb, "bleu");
        const double *gpu = bench_table_metric(tb, "gpu_time");
        const char *ds = tb->name + 7;
        if (!bleu || !gpu)
            continue;
        size_t runs = tb->n > 400 && o->repeats > MO_BIG_REPEATS
                          ? MO_BIG_REPEATS
                          : o->repeats;
        double *sorted = xmalloc(tb->n * sizeof *sorted);
        memcpy(sorted, gpu, tb->n * sizeof *sorted);
        qsort(sorted, tb->n, sizeof *sorted, cmp_dbl);
        double bound = sorted[(tb->n - 1) / 2], best_feas = -INFINITY;
        free(sorted);
        for (size_t i = 0; i < tb->n; i++)
            if (gpu[i] <= bound && bleu[i] > best_feas)
                best_feas = bleu[i];
        double ref[1] = {0};
        unsigned char con_log[1] = {1};
        struct simulate_mo_problem mp = {
            &tb->space, tb->raw, tb->n, 1, bleu, ref, 1, gpu, &bound, con_log};
        size_t *seqs = xmalloc(runs * tb->n * sizeof *seqs);
        size_t *lens = xcalloc(runs, sizeof *lens);
        for (int m = 0; m < 2; m++) {
            struct simulate_mo_algo ma = {m == 0, MOBO_SURROGATE_GP,
                                          KERNEL_MATERN52};
            size_t failed = 0, within = 0, none = 0, k = 0;
            mo_cell(o, &mp, &ma, NULL, runs, MO_CON_BUDGET, seqs, lens,
                    &failed);
            double *gaps = xmalloc(runs * sizeof *gaps);
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
            fprintf(f, "| %s | %s | %zu%s | %.2f ± %.2f | %zu | %zu |\n", ds,
                    m == 0 ? "hpod RS" : "hpod BO (gp, constrained EI)", runs,
                    failed ? " (failures!)" : "", mean, sd, within, none);
            fprintf(stderr, "bench: %s constrained %s: gap %.2f\n", ds,
                    m == 0 ? "RS" : "BO", mean);
            free(gaps);
        }
        free(seqs);
        free(lens);
    }
    fprintf(f, "\nTotal time: %.1f s on %zu threads.\n%s\n", now_s() - t_start,
            o->threads, MO_END);
    if (fclose(f) != 0) {
        f = NULL;
        goto out;
    }
    f = NULL;
    if (emit_section(o, MO_BEGIN, MO_END, md, md_len, "multi-objective") != 0)
        goto out;
    rc = 0;
out:
    if (f)
        fclose(f);
    free(md);
    bench_tables_free(ts, n_tables);
    return rc;
}

/* ------------------------------------------------------------------ */

int
bench_cli_main(int argc, char **argv, const char *benchmarks_dir)
{
    struct opts o;
    struct hpod_err err = {0};
    struct bench_table *ts = NULL;
    size_t n_tables = 0;
    struct result *res = NULL;
    int rc = 1;

    int pr = parse_opts(argc, argv, benchmarks_dir, &o);
    if (pr != 0) {
        usage(pr < 0 ? stdout : stderr);
        opts_free(&o);
        return pr < 0 ? 0 : 2;
    }
    if (o.sh) {
        rc = sh_main(&o);
        opts_free(&o);
        return rc;
    }
    if (o.asha) {
        rc = asha_main(&o);
        opts_free(&o);
        return rc;
    }
    if (o.multistage) {
        rc = ms_main(&o);
        opts_free(&o);
        return rc;
    }
    if (o.mo) {
        rc = mo_main(&o);
        opts_free(&o);
        return rc;
    }
    if (o.sequences && !(o.seqs_out = fopen(o.sequences, "w"))) {
        fprintf(stderr, "hpod bench: could not open \"%s\": %s\n", o.sequences,
                strerror(errno));
        opts_free(&o);
        return 1;
    }
    /* One BLAS thread per worker: the workers are the parallelism. */
    linalg_set_threads(1);

    double t_start = now_s();
    if (bench_tables_load_dir(o.dir, (const char *const *)o.tables, o.n_tables,
                              &ts, &n_tables, &err) != HPOD_OK) {
        fprintf(stderr, "hpod bench: %s\n", err.msg);
        goto out;
    }
    for (size_t t = 0; t < n_tables; t++)
        if (!bench_table_metric(&ts[t], "bleu")) {
            fprintf(stderr, "hpod bench: %s has no bleu column\n", ts[t].name);
            goto out;
        }
    double load_s = now_s() - t_start;
    fprintf(stderr,
            "bench: %zu tables from %s in %.2f s; %zu runs per cell, seeds "
            "%llu..%llu, %zu initial rows, %zu threads\n",
            n_tables, o.dir, load_s, o.repeats, o.seed, o.seed + o.repeats - 1,
            o.init, o.threads);

    res = xcalloc(n_tables * N_METHODS, sizeof *res);
    for (size_t t = 0; t < n_tables; t++) {
        const struct bench_table *tb = &ts[t];
        const double *bleu = bench_table_metric(tb, "bleu");
        const char *ds = tb->name + 7;
        struct simulate_problem p = {&tb->space, tb->raw, bleu, tb->n};
        /* Table 3 measures ftb, ftc and fb of BLEU, as a simulate request
         * with objective bleu and the default metrics does. */
        struct metric_spec spec;
        simrun_spec_init(&spec, bleu, NULL, tb->n, o.init,
                         strcmp(ds, "en-ja") == 0 ? 1.0 : 0.5, 20, 50,
                         METRIC_SINGLE);

        size_t *seqs = xmalloc(o.repeats * tb->n * sizeof *seqs);
        size_t *lens = xcalloc(o.repeats, sizeof *lens);
        enum hpod_status *st = xcalloc(o.repeats, sizeof *st);
        /* Random search at the first seed, to tell a fallback apart. */
        size_t *rs0 = xmalloc(tb->n * sizeof *rs0), rs0_len = 0;
        enum hpod_status rs0_st =
            simulate_run(&p, &methods[0].algo, o.seed, o.init, tb->n, &spec,
                         NULL, rs0, &rs0_len);

        for (size_t m = 0; m < N_METHODS; m++) {
            if (!o.use[m])
                continue;
            struct result *r = &res[t * N_METHODS + m];
            struct simrun c;
            struct progress pg = {ds, methods[m].label, now_s(), now_s()};
            memset(&c, 0, sizeof c);
            c.p = &p;
            c.algo = &methods[m].algo;
            c.spec = &spec;
            c.seed0 = o.seed;
            c.init = o.init;
            c.runs = o.repeats;
            c.seqs = seqs;
            c.lens = lens;
            c.status = st;
            c.progress = report_progress;
            c.progress_arg = &pg;
            simrun_simulate(&c, o.threads);
            r->seconds = c.seconds;
            r->ran = 1;
            r->failed_runs = c.failed;
            r->first_error = c.first_error;
            if (o.seqs_out)
                write_sequences(o.seqs_out, ds, methods[m].key, &c);
            if (r->failed_runs > 0)
                r->avail = AV_FAILED;
            else if (methods[m].model && rs0_st == HPOD_OK &&
                     same_seq(seqs, lens[0], rs0, rs0_len))
                r->avail = AV_FALLBACK;
            double len = 0;
            for (size_t k = 0; k < o.repeats; k++)
                len += (double)lens[k];
            r->mean_len = len / (double)o.repeats;
            if (r->avail == AV_OK) {
                r->sum = c.sum;
                fprintf(stderr,
                        "bench: %s %s: %zu runs in %.2f s, ftb %.1f ± %.1f, "
                        "ftc %.1f ± %.1f, fb %.2f\n",
                        ds, methods[m].label, o.repeats, r->seconds,
                        r->sum.ftb.mean, r->sum.ftb.std, r->sum.ftc.mean,
                        r->sum.ftc.std, r->sum.fb.mean);
            } else {
                fprintf(stderr, "bench: %s %s: not available (%s)\n", ds,
                        methods[m].label,
                        r->avail == AV_FALLBACK
                            ? "answers like random search"
                            : hpod_status_str(r->first_error));
            }
        }
        free(seqs);
        free(lens);
        free(st);
        free(rs0);
    }
    double total_s = now_s() - t_start;
    fprintf(stderr, "bench: done in %.1f s\n", total_s);

    /* Render once, then print and write the same text. */
    char *md = NULL;
    size_t md_len = 0;
    FILE *mf = open_memstream(&md, &md_len);
    if (!mf) {
        fprintf(stderr, "hpod bench: out of memory\n");
        goto out;
    }
    int wr = write_markdown(mf, &o, ts, n_tables, res, total_s, load_s);
    if (fclose(mf) != 0 || wr != 0) {
        free(md);
        fprintf(stderr, "hpod bench: could not render the report\n");
        goto out;
    }
    fwrite(md, 1, md_len, stdout);
    fflush(stdout);
    if (strcmp(o.out, "-") != 0) {
        FILE *f = fopen(o.out, "w");
        if (!f) {
            fprintf(stderr, "hpod bench: could not open \"%s\": %s\n", o.out,
                    strerror(errno));
            free(md);
            goto out;
        }
        size_t put = fwrite(md, 1, md_len, f);
        if (fclose(f) != 0 || put != md_len) {
            fprintf(stderr, "hpod bench: could not write \"%s\"\n", o.out);
            free(md);
            goto out;
        }
        fprintf(stderr, "bench: wrote %s\n", o.out);
    }
    free(md);
    rc = 0;

out:
    if (o.seqs_out && fclose(o.seqs_out) != 0 && rc == 0) {
        fprintf(stderr, "hpod bench: could not write \"%s\"\n", o.sequences);
        rc = 1;
    }
    free(res);
    bench_tables_free(ts, n_tables);
    opts_free(&o);
    return rc;
}
