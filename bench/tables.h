/*
 * bench/tables.h - the benchmark lookup tables (the data formats are
 * described in docs/ARCHITECTURE.md, "Data formats"), loaded from
 * the benchmarks directory (HPOD_BENCHMARKS): the six NMT grids
 * `nmthpo/<ds>.tsv` and the learning curves `nmtlc/scratch.jsonl`.
 *
 * This file does the reading (stdio, jansson) and the validation; the
 * numbers then go to core/ (core/simulate.h runs studies on a table,
 * core/metrics.h scores them). Errors name the file and line in err->msg.
 *
 * Encoding of a table's parameters (its struct space). Every parameter
 * column becomes a value list (space_add_values) of its distinct values,
 * encoded by value between the smallest and the largest. A size column
 * (bpe, num_embed, num_hidden, num_heads) whose values double, i.e. form a
 * geometric progression of 3 or more terms (bpe 1000, 2000, ..., 32000 on
 * sw/so-en; num_embed 256, 512, 1024), is encoded in log space; every
 * other column linearly: bpe 10k/30k/50k (zh/ru/ja-en, en-ja) -> 0, 0.5,
 * 1, init_lr 3e-4/6e-4/1e-3 -> 0, 0.429, 1, num_layers 1/2/4/6 -> 0, 0.2,
 * 0.6, 1 and, on so-en, 1/2/4 -> 0, 0.333, 1 although that grid doubles.
 * This reproduces the papers' `.hyps_scaled` files exactly, every cell of
 * all six tables (tested): bpe (sw/so) log2(x/1000)/5, num_embed
 * (log2(x)-8)/2. Two-valued columns map to 0/1 either way. Distances (what
 * greedy, the GP kernels and the kNN graph see) are therefore the papers'.
 * (A log scale for init_lr would put 6e-4 at 0.576 instead of 0.429.)
 */
#ifndef HPOD_BENCH_TABLES_H
#define HPOD_BENCH_TABLES_H

#include <stddef.h>

#include "core/space.h"
#include "common/status.h"

/* The parameter columns of an nmthpo table, in the files' order. */
#define BENCH_N_PARAMS 6
extern const char *const bench_param_names[BENCH_N_PARAMS];

/* The six nmthpo datasets in the paper's order ("zh-en", ..., "so-en"). */
#define BENCH_N_DATASETS 6
extern const char *const bench_datasets[BENCH_N_DATASETS];

/*
 * One nmthpo table. Row i is the model with id i (the 0-based line number
 * in the original .hyps/.evals files). Everything is owned by the table.
 */
struct bench_table {
    char name[64];         /* "nmthpo/zh-en" */
    size_t n;              /* rows */
    size_t n_params;       /* BENCH_N_PARAMS */
    char **param_names;    /* n_params names, file order */
    double *raw;           /* n × n_params, row-major: the configurations */
    size_t n_metrics;      /* every other numeric column but id and pareto */
    char **metric_names;   /* n_metrics names, file order (bleu, ...) */
    double *metrics;       /* n_metrics × n, COLUMN-major: metric m of row
                              i is metrics[m * n + i] */
    unsigned char *pareto; /* n flags: 1 = Pareto-optimal for max bleu /
                              min gpu_time */
    struct space space;    /* one value list per parameter (see above) */
};

/*
 * tables_table_load - reads a table file: a header line of tab-separated
 * column names, then one line per row. Required columns: id (must equal
 * the 0-based row number), the six parameters of bench_param_names, pareto
 * (0 or 1) and at least one metric; any other column is a metric. Every
 * field must be a finite number; blank lines are skipped; "\r\n" endings
 * are accepted. name (e.g. "nmthpo/zh-en") is copied.
 * Output: *t filled (tables_table_free releases it); zeroed on failure.
 * Return: HPOD_OK; HPOD_ENOTFOUND if the file cannot be opened;
 * HPOD_EUNPROC for any content error, with err->msg
 * "path:line: what is wrong" (err may be NULL).
 */
enum hpod_status tables_table_load(const char *path, const char *name,
                                   struct bench_table *t, struct hpod_err *err);

/* Frees what tables_table_load allocated and zeroes t (zero-safe). */
void tables_table_free(struct bench_table *t);

/*
 * tables_table_metric - the n values of metric `name` (borrowed, column of
 * t->metrics), or NULL if the table has no such column.
 */
const double *tables_table_metric(const struct bench_table *t,
                                  const char *name);

/*
 * tables_load_dir - loads dir/nmthpo/<ds>.tsv for the datasets
 * listed in names (n_names entries such as "zh-en"; NULL means all of
 * bench_datasets, in that order), naming them "nmthpo/<ds>".
 * *out receives a new array of *n_out tables (tables_free).
 * Return: as tables_table_load; nothing is returned on failure.
 */
enum hpod_status tables_load_dir(const char *dir, const char *const *names,
                                 size_t n_names, struct bench_table **out,
                                 size_t *n_out, struct hpod_err *err);
void tables_free(struct bench_table *tables, size_t n);

/* One learning curve: a model of nmtlc/scratch.jsonl. */
struct bench_curve {
    double *hyper;      /* n_hyper values, in the set's hyper_names order */
    double *ppl;        /* dev perplexity per checkpoint (len entries) */
    size_t len;         /* checkpoints (>= 1) */
    double ppl_optimal; /* the file's perplexity_optimal */
};

/* The curves of one dataset_name, as "nmtlc/<dataset_name>". */
struct bench_lc_set {
    char name[96];
    size_t n_hyper;
    char **hyper_names; /* the hyperparams keys of the set's first model */
    size_t n;
    struct bench_curve *curves;
};

/*
 * tables_lc_load - reads a JSON-lines file of learning curves: one object
 * per line with "dataset_name" (string), "hyperparams" (object of numbers;
 * every model of a dataset must have the same keys), "perplexity_curve"
 * (non-empty array of finite numbers) and "perplexity_optimal" (number);
 * other fields are ignored. Models are grouped by dataset_name, sets in
 * order of first appearance, models in file order.
 * Output: *out a new array of *n_out sets (tables_lc_free).
 * Return: HPOD_OK; HPOD_ENOTFOUND if the file cannot be opened;
 * HPOD_EUNPROC with err->msg "path:line: what is wrong".
 */
enum hpod_status tables_lc_load(const char *path, struct bench_lc_set **out,
                                size_t *n_out, struct hpod_err *err);
void tables_lc_free(struct bench_lc_set *sets, size_t n);

/* The set named name ("nmtlc/material-sw-en"), or NULL. Borrowed. */
const struct bench_lc_set *tables_lc_find(const struct bench_lc_set *sets,
                                          size_t n, const char *name);

/*
 * tables_curve_ppl - the perplexity of a curve at checkpoint `step`,
 * 1-based (step 1 = the first evaluation). Return: HPOD_OK with *out set;
 * HPOD_EUNPROC if step is 0 or beyond the curve (the model stopped
 * training before it).
 */
enum hpod_status tables_curve_ppl(const struct bench_curve *c, size_t step,
                                  double *out);

/* Everything of a benchmarks directory. */
struct bench_db {
    struct bench_table *tables;
    size_t n_tables;
    struct bench_lc_set *lc;
    size_t n_lc;
};

/*
 * tables_db_load - the six nmthpo tables (tables_load_dir) and
 * dir/nmtlc/scratch.jsonl (tables_lc_load). *db is zeroed on failure.
 */
enum hpod_status tables_db_load(const char *dir, struct bench_db *db,
                                struct hpod_err *err);
void tables_db_free(struct bench_db *db);

/* The table named name ("nmthpo/zh-en"), or NULL. Borrowed. */
const struct bench_table *tables_db_table(const struct bench_db *db,
                                          const char *name);

#endif
