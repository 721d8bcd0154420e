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
 * (handlers/bench_tables.c).
 */
#include "server/bench_cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/kernels.h"
#include "core/linalg.h"
#include "core/mem.h"
#include "core/metrics.h"
#include "core/simulate.h"
#include "handlers/bench_tables.h"
#include "handlers/simrun.h"

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
    fprintf(f, "usage: hpod bench [--tables zh-en,ru-en,...] "
               "[--methods rs,greedy,...|all]\n"
               "                  [--repeats 100] [--seed 0] [--init 3] "
               "[--threads 2]\n"
               "                  [--out docs/benchmarks.md|-] [--dir DIR]\n"
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
        else if (strcmp(name, "--seed") == 0) {
            size_t s;
            ok = parse_size(val, 0, (size_t)-1, &s);
            o->seed = s;
        } else if (strcmp(name, "--out") == 0)
            ok = (o->out = val)[0] != '\0';
        else if (strcmp(name, "--dir") == 0)
            ok = (o->dir = val)[0] != '\0';
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

/* ------------------------------------------------------------------ */
/* Progress of one (table, method) cell (the runs: handlers/simrun).   */

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
        fprintf(stderr, "bench: %s %s: %zu/%zu runs, %.1f s\n",
                pg->table_label, pg->method_label, done, runs, t - pg->t0);
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
                       "label scaling are its own design choices, still being "
                       "measured. For BO, the paper does not give every "
                       "detail of its GP (hyperparameter treatment, EI's "
                       "exploration margin); hpod refits ML-II "
                       "hyperparameters at every step and maximizes EI over "
                       "the free rows. The paper's best row is also the best "
                       "of many methods per table, while each hpod method is "
                       "one fixed configuration.\n");
    } else if (any_model) {
        fprintf(f, "- hpod matches or beats the paper's best ftb on every "
                   "table run.\n");
    }
    fprintf(f, "- The paper's own random-search rows are single samples of "
               "100 runs; their distance from the exact expectation (z "
               "above) is sampling noise to keep in mind when comparing "
               "within a few tens of positions.\n"
               "- Figures are deterministic: the same seeds give the same "
               "sequences whatever the thread count.\n");
    return ferror(f) ? -1 : 0;
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
        struct metric_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.y = bleu;
        spec.n = tb->n;
        spec.ninit = o.init;
        spec.tol = strcmp(ds, "en-ja") == 0 ? 1.0 : 0.5;
        spec.fb_budget = 20;
        spec.fbp_budget = 50;

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
            double t0 = now_s();
            simrun_run(&c, o.threads);
            r->seconds = now_s() - t0;
            r->ran = 1;
            for (size_t k = 0; k < o.repeats; k++)
                if (st[k] != HPOD_OK) {
                    if (r->failed_runs++ == 0)
                        r->first_error = st[k];
                }
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
                simulate_summarize(&spec, seqs, tb->n, lens, o.repeats,
                                   &r->sum);
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
    free(res);
    bench_tables_free(ts, n_tables);
    opts_free(&o);
    return rc;
}
