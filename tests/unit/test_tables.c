/*
 * tests/unit/test_tables.c - loading the lookup tables and learning
 * curves: small synthetic files written to a temporary directory (every
 * validation error provoked, with its file:line), then, when the real
 * benchmarks directory exists (HPOD_BENCHMARKS, else ../shared/benchmarks),
 * the real tables against their documented shape (rows and columns per
 * table, docs/ARCHITECTURE.md "Data formats") and the papers'
 * .hyps_scaled files.
 * The real data is never copied into the repository.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/metrics.h"
#include "bench/tables.h"

static char tmpdir[64];

static const char *HEADER =
    "id\tbpe\tnum_layers\tnum_embed\tnum_hidden\tnum_heads\tinit_lr\t"
    "bleu\tgpu_time\tpareto\n";

/* Writes text to tmpdir/rel (creating tmpdir/nmthpo and tmpdir/nmtlc). */
static void
write_file(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/nmthpo", tmpdir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/nmtlc", tmpdir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char *
tpath(const char *rel)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    return path;
}

/*
 * Rows: bpe 1000/2000/4000 (doubling: log), layers 1/2/4 (doubling, but
 * layers are linear), embed 256/512/1024 (log), init_lr (linear).
 */
static const char *GOOD_ROWS =
    "0\t1000\t1\t256\t1024\t8\t0.0003\t10.5\t100.25\t0\n"
    "1\t2000\t2\t512\t2048\t16\t0.0006\t12.75\t90\t1\r\n"
    "\n"
    "2\t4000\t4\t1024\t1024\t8\t0.001\t11\t80.5\t1\n"
    "3\t4000\t2\t256\t2048\t16\t0.0003\t9.25\t120\t0\n";

static int
setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/hpod_bt_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int
teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void
test_load_good_table(void **state)
{
    (void)state;
    char text[1024];
    struct bench_table t;
    struct hpod_err err = {0};
    snprintf(text, sizeof text, "%s%s", HEADER, GOOD_ROWS);
    write_file("nmthpo/aa-bb.tsv", text);
    assert_int_equal(
        tables_table_load(tpath("nmthpo/aa-bb.tsv"), "nmthpo/aa-bb", &t, &err),
        HPOD_OK);
    assert_string_equal(t.name, "nmthpo/aa-bb");
    assert_int_equal(t.n, 4);
    assert_int_equal(t.n_params, 6);
    assert_string_equal(t.param_names[0], "bpe");
    assert_string_equal(t.param_names[5], "init_lr");
    assert_int_equal(t.n_metrics, 2);
    assert_string_equal(t.metric_names[0], "bleu");
    assert_string_equal(t.metric_names[1], "gpu_time");
    assert_close(t.raw[2 * 6 + 0], 4000, 0, 0);
    assert_close(t.raw[1 * 6 + 5], 0.0006, 0, 0);
    const double *bleu = tables_table_metric(&t, "bleu");
    const double *gt = tables_table_metric(&t, "gpu_time");
    assert_non_null(bleu);
    assert_null(tables_table_metric(&t, "ppl"));
    assert_close(bleu[1], 12.75, 0, 0);
    assert_close(gt[0], 100.25, 0, 0);
    assert_close(gt[3], 120, 0, 0);
    assert_int_equal(t.pareto[0], 0);
    assert_int_equal(t.pareto[1], 1);
    assert_int_equal(t.pareto[2], 1);
    assert_int_equal(metric_oracle_best(bleu, t.n), 1);

    /* Space: distinct values; log exactly for doubling size columns. */
    assert_int_equal(t.space.n_params, 6);
    assert_int_equal(t.space.dim, 6);
    assert_int_equal(t.space.params[0].n_values, 3);
    assert_int_equal(t.space.params[0].log, 1); /* 1000, 2000, 4000 */
    assert_int_equal(t.space.params[1].log, 0); /* 1, 2, 4, 6 */
    assert_int_equal(t.space.params[2].log, 1); /* 256, 512, 1024 */
    assert_int_equal(t.space.params[5].log, 0); /* 3e-4, 6e-4, 1e-3 */
    assert_int_equal(t.space.params[0].type, PARAM_INT);
    assert_int_equal(t.space.params[5].type, PARAM_FLOAT);
    double u[6];
    space_encode(&t.space, t.raw + 1 * 6, u);
    assert_close(u[0], 0.5, 1e-12, 0);       /* log2(2)/log2(4) */
    assert_close(u[1], 1.0 / 3.0, 1e-12, 0); /* (2-1)/(4-1) */
    assert_close(u[2], 0.5, 1e-12, 0);       /* (log2(512)-8)/2 */
    assert_close(u[5], 3.0 / 7.0, 1e-12, 0); /* 0.429 in .hyps_scaled */
    tables_table_free(&t);
    tables_table_free(&t); /* zero-safe */
}

/* Loads header+rows and expects HPOD_EUNPROC with msg containing want. */
static void
expect_bad(const char *header, const char *rows, const char *want)
{
    char text[1024];
    struct bench_table t;
    struct hpod_err err = {0};
    snprintf(text, sizeof text, "%s%s", header, rows);
    write_file("nmthpo/bad.tsv", text);
    assert_int_equal(
        tables_table_load(tpath("nmthpo/bad.tsv"), "nmthpo/bad", &t, &err),
        HPOD_EUNPROC);
    if (!strstr(err.msg, want)) {
        print_error("message \"%s\" lacks \"%s\"\n", err.msg, want);
        fail();
    }
    assert_non_null(strstr(err.msg, "bad.tsv:"));
    assert_null(t.raw);
    assert_int_equal(t.n, 0);
}

static void
test_table_errors_named(void **state)
{
    (void)state;
    const char *row0 = "0\t1000\t1\t256\t1024\t8\t0.0003\t10.5\t100\t0\n";
    char rows[512];
    /* Too few fields on line 3. */
    snprintf(rows, sizeof rows, "%s1\t1000\t1\t256\n", row0);
    expect_bad(HEADER, rows, "bad.tsv:3: fewer fields");
    snprintf(rows, sizeof rows, "%s1\t1000\t1\t256\t1\t1\t1\t1\t1\t1\t1\n",
             row0);
    expect_bad(HEADER, rows, "bad.tsv:3: more fields");
    /* Not a number, named by column. */
    snprintf(rows, sizeof rows,
             "%s1\t1000\t1\t256\t1024\t8\t0.0003\tx12\t100\t0\n", row0);
    expect_bad(HEADER, rows, "bad.tsv:3: column \"bleu\": \"x12\"");
    snprintf(rows, sizeof rows, "%s1\t1000\t1\t256\t1024\t8\tnan\t12\t100\t0\n",
             row0);
    expect_bad(HEADER, rows, "column \"init_lr\"");
    snprintf(rows, sizeof rows, "%s1\t1000\t1\t256\t1024\t8\t\t12\t100\t0\n",
             row0);
    expect_bad(HEADER, rows, "bad.tsv:3: column \"init_lr\"");
    /* Ids must be the row numbers. */
    snprintf(rows, sizeof rows,
             "%s2\t1000\t1\t256\t1024\t8\t0.0003\t12\t100\t0\n", row0);
    expect_bad(HEADER, rows, "bad.tsv:3: id 2, expected 1");
    snprintf(rows, sizeof rows,
             "%s1\t1000\t1\t256\t1024\t8\t0.0003\t12\t100\t2\n", row0);
    expect_bad(HEADER, rows, "bad.tsv:3: pareto must be 0 or 1");
    /* Header problems. */
    expect_bad("id\tbpe\tnum_layers\tnum_embed\tnum_hidden\tnum_heads\t"
               "bleu\tpareto\n",
               row0, "bad.tsv:1: missing column \"init_lr\"");
    expect_bad("bpe\tnum_layers\tnum_embed\tnum_hidden\tnum_heads\tinit_lr\t"
               "bleu\tpareto\n",
               "", "missing column \"id\"");
    expect_bad("id\tbpe\tnum_layers\tnum_embed\tnum_hidden\tnum_heads\t"
               "init_lr\tbleu\n",
               "", "missing column \"pareto\"");
    expect_bad("id\tbpe\tnum_layers\tnum_embed\tnum_hidden\tnum_heads\t"
               "init_lr\tpareto\n",
               "", "missing column \"(a metric)\"");
    expect_bad("id\tbpe\tnum_layers\tnum_embed\tnum_hidden\tnum_heads\t"
               "init_lr\tbleu\tbleu\tpareto\n",
               "", "bad.tsv:1: duplicate column \"bleu\"");
    expect_bad(HEADER, "\n\n", "bad.tsv:3: no rows");
    expect_bad("", "", "bad.tsv:0: no header line");

    struct bench_table t;
    struct hpod_err err = {0};
    assert_int_equal(tables_table_load(tpath("nmthpo/none.tsv"), "x", &t, &err),
                     HPOD_ENOTFOUND);
    assert_non_null(strstr(err.msg, "none.tsv: could not open"));
    /* err may be NULL. */
    assert_int_equal(tables_table_load(tpath("nmthpo/none.tsv"), "x", &t, NULL),
                     HPOD_ENOTFOUND);
}

static void
test_load_dir(void **state)
{
    (void)state;
    char text[1024];
    struct bench_table *ts;
    size_t n;
    struct hpod_err err = {0};
    snprintf(text, sizeof text, "%s%s", HEADER, GOOD_ROWS);
    write_file("nmthpo/aa-bb.tsv", text);
    write_file("nmthpo/cc-dd.tsv", text);
    const char *names[2] = {"cc-dd", "aa-bb"};
    assert_int_equal(tables_load_dir(tmpdir, names, 2, &ts, &n, &err), HPOD_OK);
    assert_int_equal(n, 2);
    assert_string_equal(ts[0].name, "nmthpo/cc-dd");
    assert_string_equal(ts[1].name, "nmthpo/aa-bb");
    tables_free(ts, n);
    const char *missing[2] = {"aa-bb", "zz-yy"};
    assert_int_equal(tables_load_dir(tmpdir, missing, 2, &ts, &n, &err),
                     HPOD_ENOTFOUND);
    assert_null(ts);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err.msg, "nmthpo/zz-yy.tsv"));
    const char *evil[1] = {"../x"};
    assert_int_equal(tables_load_dir(tmpdir, evil, 1, &ts, &n, &err),
                     HPOD_EINVAL);
    /* The whole directory: six tables and the curves. */
    for (int k = 0; k < BENCH_N_DATASETS; k++) {
        char rel[64];
        snprintf(rel, sizeof rel, "nmthpo/%s.tsv", bench_datasets[k]);
        write_file(rel, text);
    }
    write_file("nmtlc/scratch.jsonl",
               "{\"dataset_name\": \"d1\", \"hyperparams\": {\"a\": 1}, "
               "\"perplexity_curve\": [3, 2], \"perplexity_optimal\": 2}\n");
    struct bench_db db;
    assert_int_equal(tables_db_load(tmpdir, &db, &err), HPOD_OK);
    assert_int_equal(db.n_tables, 6);
    assert_int_equal(db.n_lc, 1);
    assert_non_null(tables_db_table(&db, "nmthpo/en-ja"));
    assert_null(tables_db_table(&db, "nmthpo/xx-yy"));
    assert_int_equal(tables_db_table(&db, "nmthpo/so-en")->n, 4);
    tables_db_free(&db);
    write_file("nmtlc/scratch.jsonl", "{]\n");
    assert_int_equal(tables_db_load(tmpdir, &db, &err), HPOD_EUNPROC);
    assert_null(db.tables);
}

static void
test_learning_curves(void **state)
{
    (void)state;
    struct bench_lc_set *sets;
    size_t n;
    struct hpod_err err = {0};
    write_file("nmtlc/lc.jsonl",
               "{\"basemodel\": \"scratch\", \"dataset_name\": \"ted-zh-en\", "
               "\"hyperparams\": {\"bpe\": 10, \"initial_lr\": 0.0003}, "
               "\"perplexity_curve\": [30.5, 20.25, 22.0], "
               "\"perplexity_optimal\": 20.25}\n"
               "\n"
               "{\"dataset_name\": \"material-sw-en\", "
               "\"hyperparams\": {\"num_layers\": 2}, "
               "\"perplexity_curve\": [9.5], \"perplexity_optimal\": 9.5}\r\n"
               "{\"dataset_name\": \"ted-zh-en\", "
               "\"hyperparams\": {\"initial_lr\": 0.001, \"bpe\": 30}, "
               "\"perplexity_curve\": [40, 35], \"perplexity_optimal\": 35}\n");
    assert_int_equal(tables_lc_load(tpath("nmtlc/lc.jsonl"), &sets, &n, &err),
                     HPOD_OK);
    assert_int_equal(n, 2);
    const struct bench_lc_set *zh = tables_lc_find(sets, n, "nmtlc/ted-zh-en");
    assert_non_null(zh);
    assert_ptr_equal(zh, &sets[0]);
    assert_null(tables_lc_find(sets, n, "ted-zh-en"));
    assert_int_equal(zh->n, 2);
    assert_int_equal(zh->n_hyper, 2);
    assert_string_equal(zh->hyper_names[0], "bpe");
    assert_string_equal(zh->hyper_names[1], "initial_lr");
    /* Keys are matched by name, not by position. */
    assert_close(zh->curves[1].hyper[0], 30, 0, 0);
    assert_close(zh->curves[1].hyper[1], 0.001, 0, 0);
    assert_int_equal(zh->curves[0].len, 3);
    assert_close(zh->curves[0].ppl_optimal, 20.25, 0, 0);
    double v;
    assert_int_equal(tables_curve_ppl(&zh->curves[0], 2, &v), HPOD_OK);
    assert_close(v, 20.25, 0, 0);
    assert_int_equal(tables_curve_ppl(&zh->curves[0], 3, &v), HPOD_OK);
    assert_close(v, 22.0, 0, 0);
    assert_int_equal(tables_curve_ppl(&zh->curves[0], 0, &v), HPOD_EUNPROC);
    assert_int_equal(tables_curve_ppl(&zh->curves[0], 4, &v), HPOD_EUNPROC);
    assert_string_equal(sets[1].name, "nmtlc/material-sw-en");
    assert_int_equal(sets[1].curves[0].len, 1);
    tables_lc_free(sets, n);
}

static void
expect_bad_lc(const char *text, const char *want)
{
    struct bench_lc_set *sets = (void *)1;
    size_t n = 7;
    struct hpod_err err = {0};
    write_file("nmtlc/bad.jsonl", text);
    assert_int_equal(tables_lc_load(tpath("nmtlc/bad.jsonl"), &sets, &n, &err),
                     HPOD_EUNPROC);
    assert_null(sets);
    assert_int_equal(n, 0);
    if (!strstr(err.msg, want)) {
        print_error("message \"%s\" lacks \"%s\"\n", err.msg, want);
        fail();
    }
}

static void
test_learning_curve_errors(void **state)
{
    (void)state;
    const char *ok = "{\"dataset_name\": \"d\", \"hyperparams\": {\"a\": 1}, "
                     "\"perplexity_curve\": [3], \"perplexity_optimal\": 3}\n";
    char text[512];
    snprintf(text, sizeof text, "%s{\"dataset_name\": \"d\",\n", ok);
    expect_bad_lc(text, "bad.jsonl:2: invalid JSON");
    snprintf(text, sizeof text, "%s[1, 2]\n", ok);
    expect_bad_lc(text, "bad.jsonl:2: expected a JSON object");
    expect_bad_lc("{\"hyperparams\": {\"a\": 1}, \"perplexity_curve\": [3], "
                  "\"perplexity_optimal\": 3}\n",
                  "bad.jsonl:1: \"dataset_name\"");
    expect_bad_lc("{\"dataset_name\": \"d\", \"hyperparams\": [1], "
                  "\"perplexity_curve\": [3], \"perplexity_optimal\": 3}\n",
                  "bad.jsonl:1: \"hyperparams\" must be an object");
    expect_bad_lc("{\"dataset_name\": \"d\", \"hyperparams\": {}, "
                  "\"perplexity_curve\": [3], \"perplexity_optimal\": 3}\n",
                  "\"hyperparams\" is empty");
    expect_bad_lc("{\"dataset_name\": \"d\", \"hyperparams\": {\"a\": \"x\"}, "
                  "\"perplexity_curve\": [3], \"perplexity_optimal\": 3}\n",
                  "bad.jsonl:1: hyperparams.a must be a number");
    expect_bad_lc("{\"dataset_name\": \"d\", \"hyperparams\": {\"a\": 1}, "
                  "\"perplexity_curve\": [], \"perplexity_optimal\": 3}\n",
                  "\"perplexity_curve\" must be a non-empty array");
    expect_bad_lc("{\"dataset_name\": \"d\", \"hyperparams\": {\"a\": 1}, "
                  "\"perplexity_curve\": [3, null], "
                  "\"perplexity_optimal\": 3}\n",
                  "perplexity_curve[1] must be a finite number");
    expect_bad_lc("{\"dataset_name\": \"d\", \"hyperparams\": {\"a\": 1}, "
                  "\"perplexity_curve\": [3]}\n",
                  "\"perplexity_optimal\" must be a number");
    snprintf(text, sizeof text,
             "%s{\"dataset_name\": \"d\", \"hyperparams\": {\"b\": 1}, "
             "\"perplexity_curve\": [3], \"perplexity_optimal\": 3}\n",
             ok);
    expect_bad_lc(text, "bad.jsonl:2: hyperparams lacks \"a\"");
    snprintf(text, sizeof text,
             "%s{\"dataset_name\": \"d\", \"hyperparams\": {\"a\": 1, "
             "\"b\": 2}, \"perplexity_curve\": [3], "
             "\"perplexity_optimal\": 3}\n",
             ok);
    expect_bad_lc(text, "bad.jsonl:2: hyperparams has 2 keys");
    expect_bad_lc("\n\n", "no learning curves");
    struct bench_lc_set *sets;
    size_t n;
    assert_int_equal(tables_lc_load(tpath("nmtlc/none.jsonl"), &sets, &n, NULL),
                     HPOD_ENOTFOUND);
}

/* ------------------------------------------------------------------ */
/* The real data, when present.                                        */

static const char *
real_dir(void)
{
    const char *d = getenv("HPOD_BENCHMARKS");
    if (!d || !*d)
        d = "../shared/benchmarks";
    char probe[512];
    snprintf(probe, sizeof probe, "%s/nmthpo/zh-en.tsv", d);
    return access(probe, R_OK) == 0 ? d : NULL;
}

static void
test_real_tables(void **state)
{
    (void)state;
    const char *dir = real_dir();
    if (!dir)
        skip();
    static const size_t rows[6] = {118, 176, 150, 168, 767, 604};
    static const size_t best[6] = {75, 19, 89, 70, 230, 332};
    static const double best_bleu[6] = {14.66, 20.23, 16.41,
                                        20.74, 26.09, 11.23};
    static const size_t n_pareto[6] = {3, 4, 5, 8, 14, 7};
    struct bench_db db;
    struct hpod_err err = {0};
    assert_int_equal(tables_db_load(dir, &db, &err), HPOD_OK);
    assert_int_equal(db.n_tables, 6);
    for (int k = 0; k < 6; k++) {
        const struct bench_table *t = &db.tables[k];
        const double *bleu = tables_table_metric(t, "bleu");
        assert_non_null(bleu);
        assert_non_null(tables_table_metric(t, "gpu_time"));
        assert_int_equal(t->n_metrics, 6);
        assert_int_equal(t->n, rows[k]);
        assert_int_equal(metric_oracle_best(bleu, t->n), best[k]);
        assert_close(bleu[best[k]], best_bleu[k], 0, 1e-9);
        size_t np = 0;
        for (size_t i = 0; i < t->n; i++)
            np += t->pareto[i];
        assert_int_equal(np, n_pareto[k]);

        /* Encoding = the papers' .hyps_scaled (3 decimals), every cell. */
        char path[512];
        snprintf(path, sizeof path, "%s/nmthpo/%s.hyps_scaled", dir,
                 bench_datasets[k]);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        double u[6], s[6];
        for (size_t i = 0; i < t->n; i++) {
            assert_int_equal(fscanf(f, "%lf %lf %lf %lf %lf %lf", &s[0], &s[1],
                                    &s[2], &s[3], &s[4], &s[5]),
                             6);
            space_encode(&t->space, t->raw + i * 6, u);
            for (int j = 0; j < 6; j++)
                assert_close(u[j], s[j], 0, 6e-4);
        }
        fclose(f);
    }
    /* Learning curves: six sets, sizes from the file. */
    static const char *lc_names[6] = {
        "nmtlc/material-sw-en", "nmtlc/material-so-en", "nmtlc/ted-zh-en",
        "nmtlc/ted-ru-en",      "nmtlc/robust19-ja-en", "nmtlc/robust19-en-ja"};
    static const size_t lc_n[6] = {819, 646, 148, 193, 177, 179};
    assert_int_equal(db.n_lc, 6);
    for (int k = 0; k < 6; k++) {
        const struct bench_lc_set *s =
            tables_lc_find(db.lc, db.n_lc, lc_names[k]);
        assert_non_null(s);
        assert_int_equal(s->n, lc_n[k]);
        assert_int_equal(s->n_hyper, 8);
        for (size_t i = 0; i < s->n; i++) {
            double m = INFINITY;
            for (size_t j = 0; j < s->curves[i].len; j++)
                m = fmin(m, s->curves[i].ppl[j]);
            assert_close(m, s->curves[i].ppl_optimal, 0, 0);
        }
    }
    tables_db_free(&db);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_good_table),
        cmocka_unit_test(test_table_errors_named),
        cmocka_unit_test(test_load_dir),
        cmocka_unit_test(test_learning_curves),
        cmocka_unit_test(test_learning_curve_errors),
        cmocka_unit_test(test_real_tables),
    };
    return cmocka_run_group_tests_name("bench_tables", tests, setup, teardown);
}
