/*
 * tools/hpod_bench.h - hpod-bench, the benchmark report generator: runs
 * the papers' experiments on the lookup tables and learning curves
 * (bench/) and writes every figure as one JSON document. The markdown of
 * docs/benchmarks.md is rendered from that JSON by
 * tools/render_benchmarks.py, which also holds nothing but prose: the
 * papers' own figures are data (tools/paper_figures.json).
 *
 * One report per run: Table 3 of Zhang & Duh (TACL 2020) by default, or
 * --sh, --asha, --multistage, --mo. Runs are functions of their seeds, so
 * the figures do not depend on --threads. Progress goes to stderr.
 */
#ifndef HPOD_TOOLS_HPOD_BENCH_H
#define HPOD_TOOLS_HPOD_BENCH_H

#include <stdio.h>

#include "common/json.h"
#include "core/simulate.h"

/* The single-objective methods of Table 3, in the paper's order. */
struct hb_method {
    const char *key;   /* option name */
    const char *label; /* the papers' name */
    struct simulate_algo algo;
    int model; /* 1: needs a model-based sampler (may be unavailable) */
};

/* Method "auto" runs what hb_auto_algo picks per table. */
#define HB_N_METHODS 24
/* The first HB_N_DEFAULT run by default; the rest (variants that lost,
 * docs/sampler-nei.md) only when named or with --methods all. */
#define HB_N_DEFAULT 12
extern const struct hb_method hb_methods[HB_N_METHODS];

struct hb_opts {
    char *tables[16];
    size_t n_tables;
    int use[HB_N_METHODS];
    size_t repeats, init, threads;
    unsigned long long seed;
    const char *out; /* the JSON report; "-" is stdout */
    const char *dir;
    char cmdline[512]; /* the command, less --out */
    int sh;            /* --sh: successive halving instead of Table 3 */
    int mo;            /* --mo: Table 4 and constrained runs instead */
    int asha;          /* --asha: ASHA instead */
    int multistage;    /* --multistage: multi-stage BO beside ASHA instead */
    int decoupled;     /* --decoupled: constrained, coupled vs decoupled */
    size_t configs;    /* --configs: configurations per learning-curve run */
    const char *sequences;  /* --sequences: Table 3 runs as JSON lines */
    const char *mo_methods; /* --mo-methods: Table 4 method keys (mo.c) */
    int transfer;           /* --transfer: warm start from another table */
};

/*
 * hb_auto_algo - what `auto` (core/autoalgo's rule, as an auto study
 * applies it) runs on a table of n rows over sp with one objective and no
 * budget: *out, and into label the Table 3 label of the same method
 * ("GB_EI_M") or its settings. hb_auto_mo_algo: the same for m objectives
 * and n_con constraints, label "ehvi/graph/matern52". 0, or -1 when the
 * rule names a method the simulation cannot run.
 */
int hb_auto_algo(const struct space *sp, size_t n, size_t init,
                 struct simulate_algo *out, char *label, size_t size);
int hb_auto_mo_algo(const struct space *sp, size_t n, size_t m, size_t n_con,
                    size_t init, struct simulate_mo_algo *out, char *label,
                    size_t size);

/* Monotonic seconds. */
double hb_now(void);

/* qsort comparators. */
int hb_size_cmp(const void *a, const void *b);
int hb_dbl_cmp(const void *a, const void *b);

/* The constrained runs' bound, GPU time <= the table's median (the lower
 * middle value of gpu[0..n)), and the best bleu among the rows within it. */
double hb_median_bound(const double *gpu, const double *bleu, size_t n,
                       double *best_feasible);

/* JSON values (new references): a real, or null for NaN and infinities;
 * an integer; a simulate_stat as {mean, std, runs, missed}. */
json_t *hb_real(double v);
json_t *hb_int(size_t v);
json_t *hb_stat(const struct simulate_stat *s);
/* Sets key of obj to v (stolen). */
void hb_set(json_t *obj, const char *key, json_t *v);

/* A new report object: kind, the command, the UTC date and the options
 * every report shares (seed, repeats, init, threads, configs). */
json_t *hb_report_new(const struct hb_opts *o, const char *kind);

/* Writes report (stolen) to o->out as one JSON line; 0 on success. */
int hb_emit(const struct hb_opts *o, json_t *report);

struct bench_table;
/* Loads o->tables (all when none named) from o->dir into *ts, *n (free
 * with tables_free); 0 on success, else -1 with the error printed. */
int hb_load_tables(const struct hb_opts *o, struct bench_table **ts, size_t *n);

/* The reports; each returns the process exit code (0 or 1). */
int hb_table3(const struct hb_opts *o);
int hb_sh(const struct hb_opts *o);
int hb_asha(const struct hb_opts *o);
int hb_multistage(const struct hb_opts *o);
int hb_mo(const struct hb_opts *o);
int hb_transfer(const struct hb_opts *o);
int hb_decoupled(const struct hb_opts *o);

/* ASHA as --asha replays it and --multistage compares with it: 4
 * workers, rungs r = 5, 7, 9, ... (u = 2) below R = min(25, the set's
 * median curve length), top 1/p kept, the best `keep` at the top rung. */
#define HB_ASHA_WORKERS 4
#define HB_ASHA_R0 5
#define HB_ASHA_U 2
#define HB_ASHA_RMAX 25
#define HB_ASHA_P 2
#define HB_ASHA_KEEP 2

/* Those settings as a JSON object (new reference). */
json_t *hb_asha_constants(void);

struct bench_lc_set;

/*
 * hb_curve_sets - loads o->dir/nmtlc/scratch.jsonl and picks the sets
 * --tables selects: the dissertation's six in its order, then any other.
 * Each picked set must hold at least --configs curves. *picked is a new
 * array of *n borrowed pointers into *sets. Returns 0, or -1 after
 * printing why.
 */
int hb_curve_sets(const struct hb_opts *o, struct bench_lc_set **sets,
                  size_t *n_sets, const struct bench_lc_set ***picked,
                  size_t *n);

#endif
