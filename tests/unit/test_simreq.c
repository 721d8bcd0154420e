/*
 * tests/unit/test_simreq.c - the simulate request (bench/simreq, with the
 * study layer's algorithm parser study/simalgo) and its plan
 * (bench/simulate) on a synthetic 40-row table written to a temporary
 * directory:
 *   - a request run in pieces of repeats, each piece stored as JSON and
 *     read back as a job stores its slices, has exactly the result of
 *     the same request run in one piece: the same sequences, the same
 *     summary (but for the wall time), for single-objective,
 *     multi-objective and constrained runs and for auto;
 *   - a piece ended by its time (stop_at) still runs its first run and
 *     ends without a gap;
 *   - an omitted algorithm is auto (recorded with its choice and the
 *     request's seed); sh and multistage on a table, and a bad field, are
 *     refused with the JSON path.
 */
#include "tests/support/check.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/catalog.h"
#include "bench/simreq.h"
#include "bench/simrun.h"
#include "bench/simulate.h"
#include "bench/tables.h"
#include "common/json.h"
#include "core/rng.h"
#include "study/simalgo.h"

#define ROWS 40

static char tmpdir[64];
static struct bench_table table;

/* 40 rows on a grid of the six nmthpo columns, bleu and gpu_time from a
 * seeded stream, pareto flags for max bleu / min gpu_time. */
static int
setup(void **state)
{
    static const double bpe[] = {10000, 30000, 50000};
    static const double layers[] = {1, 2, 4, 6};
    double bleu[ROWS], gpu[ROWS];
    struct rng r;
    char path[128];
    (void)state;

    snprintf(tmpdir, sizeof tmpdir, "/tmp/hpod-simreq-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    snprintf(path, sizeof path, "%s/t.tsv", tmpdir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "id\tbpe\tnum_layers\tnum_embed\tnum_hidden\tnum_heads\t"
               "init_lr\tbleu\tgpu_time\tpareto\n");
    rng_seed(&r, 7);
    for (size_t i = 0; i < ROWS; i++) {
        bleu[i] = 10.0 + 15.0 * rng_uniform(&r);
        gpu[i] = 50.0 + 100.0 * rng_uniform(&r);
    }
    for (size_t i = 0; i < ROWS; i++) {
        int dominated = 0;
        for (size_t k = 0; k < ROWS && !dominated; k++)
            dominated = k != i && bleu[k] >= bleu[i] && gpu[k] <= gpu[i] &&
                        (bleu[k] > bleu[i] || gpu[k] < gpu[i]);
        fprintf(f, "%zu\t%g\t%g\t%d\t%d\t%d\t%g\t%.4f\t%.3f\t%d\n", i,
                bpe[i % 3], layers[(i / 3) % 4], 256 << (i / 12 % 2), 1024, 8,
                0.0003 * (double)(1 + i % 5), bleu[i], gpu[i], !dominated);
    }
    fclose(f);
    assert_int_equal(tables_table_load(path, "lab/synthetic", &table, NULL),
                     HPOD_OK);
    return 0;
}

static int
teardown(void **state)
{
    char path[128];
    (void)state;
    tables_table_free(&table);
    snprintf(path, sizeof path, "%s/t.tsv", tmpdir);
    unlink(path);
    rmdir(tmpdir);
    return 0;
}

/* The request text parsed on the table; HPOD_OK expected. */
static void
parse(const char *text, json_t **body, struct simreq *rq)
{
    struct bench_ref ref = {.table = &table};
    struct hpod_err err = {0};
    *body = hj_parse(text);
    assert_non_null(*body);
    enum hpod_status st =
        simreq_parse(*body, "lab/synthetic", &ref, simalgo_parse, rq, &err);
    if (st != HPOD_OK)
        print_error("%s: %s (%s)\n", text, err.msg, err.field);
    assert_int_equal(st, HPOD_OK);
    assert_int_equal(rq->curves, 0);
}

/* The summary as text without its wall time. */
static char *
summary_text(json_t *summary)
{
    json_t *c = json_deep_copy(summary);
    json_object_del(c, "seconds");
    char *t = hj_dump(c, 0);
    json_decref(c);
    return t;
}

/* The result of rq run in the pieces that start at cuts (ending with the
 * repeats), each stored and read back as JSON as bench/jobs does. */
static void
run_pieces(const struct simreq *rq, const size_t *cuts, size_t n_cuts,
           struct bench_sim_result *res)
{
    size_t repeats = (size_t)rq->repeats;
    size_t stride = bench_simulate_plan_stride(rq->plan);
    struct simrun_runs all;
    struct hpod_err err = {0};

    simrun_runs_init(&all, 0, repeats, stride);
    for (size_t k = 0; k < n_cuts; k++) {
        size_t first = cuts[k], end = k + 1 < n_cuts ? cuts[k + 1] : repeats;
        struct simrun_runs piece, back;
        assert_int_equal(bench_simulate_plan_run(rq->plan, first, end - first,
                                                 NULL, &piece, &err),
                         HPOD_OK);
        assert_int_equal(piece.runs, end - first);
        json_t *j = simrun_runs_json(&piece);
        char *text = hj_dump(j, 0);
        json_decref(j);
        j = hj_parse(text);
        assert_int_equal(
            simrun_runs_from_json(j, first, stride, piece.seconds, &back, &err),
            HPOD_OK);
        simrun_runs_append(&all, &back);
        json_decref(j);
        free(text);
        simrun_runs_clear(&piece);
        simrun_runs_clear(&back);
    }
    assert_int_equal(bench_simulate_plan_result(rq->plan, &all, res, &err),
                     HPOD_OK);
    simrun_runs_clear(&all);
}

static void
assert_same_result(const struct bench_sim_result *a,
                   const struct bench_sim_result *b)
{
    assert_int_equal(a->runs, b->runs);
    assert_int_equal(a->stride, b->stride);
    assert_int_equal(a->cap, b->cap);
    for (size_t r = 0; r < a->runs; r++) {
        assert_int_equal(a->lens[r], b->lens[r]);
        assert_memory_equal(a->seqs + r * a->stride, b->seqs + r * b->stride,
                            a->lens[r] * sizeof *a->seqs);
    }
    char *x = summary_text(a->summary), *y = summary_text(b->summary);
    assert_string_equal(x, y);
    free(x);
    free(y);
}

/* Request text run at once and in the pieces that start at cuts: the
 * same result. */
static void
check_pieces(const char *text, const size_t *cuts, size_t n_cuts)
{
    struct simreq rq;
    struct bench_sim_result whole, pieces;
    struct hpod_err err = {0};
    json_t *body;

    parse(text, &body, &rq);
    assert_int_equal(bench_simulate_table(body, "lab/synthetic", &table,
                                          &rq.table, &whole, &err),
                     HPOD_OK);
    run_pieces(&rq, cuts, n_cuts, &pieces);
    assert_same_result(&whole, &pieces);
    bench_simulate_result_free(&whole);
    bench_simulate_result_free(&pieces);
    simreq_clear(&rq);
    json_decref(body);
}

static void
test_pieces_equal_whole(void **state)
{
    static const char *const bodies[] = {
        "{\"algorithm\": {\"name\": \"gp\"}, \"repeats\": 9, \"seed\": 3}",
        "{\"algorithm\": {\"name\": \"random\"}, \"repeats\": 11, \"metrics\": "
        "[\"ftb\", \"fta\"]}",
        "{\"repeats\": 7, \"seed\": 5}",
        "{\"objectives\": [{\"name\": \"bleu\", \"goal\": \"maximize\"}, "
        "{\"name\": \"gpu_time\", \"goal\": \"minimize\"}], \"algorithm\": "
        "{\"name\": \"greedy\"}, \"repeats\": 8, \"seed\": 1}",
        "{\"algorithm\": {\"name\": \"gp\"}, \"repeats\": 6, \"budget\": 12, "
        "\"constraints\": [{\"metric\": \"gpu_time\", \"max\": 120}]}",
    };
    static const size_t cuts[] = {0, 1, 4, 5};
    (void)state;

    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++)
        check_pieces(bodies[i], cuts, 4);
}

/* A piece whose time is up before it starts runs its first run only; the
 * rest of the job from there gives the whole result. */
static void
test_stop_at(void **state)
{
    static const char *const text =
        "{\"algorithm\": {\"name\": \"gp\"}, \"repeats\": 5}";
    static const size_t cuts[] = {0, 2, 3};
    struct simreq rq;
    struct simrun_runs piece;
    struct bench_sim_hooks hooks = {.stop_at = 1e-9}; /* long past */
    struct hpod_err err = {0};
    json_t *body;
    (void)state;

    parse(text, &body, &rq);
    assert_int_equal(
        bench_simulate_plan_run(rq.plan, 2, 3, &hooks, &piece, &err), HPOD_OK);
    assert_int_equal(piece.runs, 1);
    assert_true(piece.lens[0] > 0);
    simrun_runs_clear(&piece);
    simreq_clear(&rq);
    json_decref(body);
    check_pieces(text, cuts, 3);
}

static void
test_default_auto(void **state)
{
    struct simreq rq;
    json_t *body;
    (void)state;

    parse("{\"repeats\": 2, \"seed\": 9}", &body, &rq);
    json_t *a = rq.table.norm_algo;
    assert_string_equal(json_string_value(json_object_get(a, "name")), "auto");
    assert_string_equal(json_string_value(json_object_get(a, "case")),
                        "so_finite");
    assert_int_equal(json_integer_value(json_object_get(a, "seed")), 9);
    json_t *chosen = json_object_get(a, "chosen");
    assert_int_equal(json_integer_value(json_object_get(chosen, "seed")), 9);
    assert_string_not_equal(json_string_value(json_object_get(chosen, "name")),
                            "random");
    assert_non_null(json_object_get(a, "reason"));
    simreq_clear(&rq);
    json_decref(body);
}

static void
test_refused(void **state)
{
    static const struct {
        const char *body, *field;
        enum hpod_status st;
    } cases[] = {
        {"{\"algorithm\": {\"name\": \"sh\"}}", "algorithm.name", HPOD_EUNPROC},
        {"{\"algorithm\": {\"name\": \"multistage\", \"stages\": [{\"steps\": "
         "2, \"trials\": 4}, {\"steps\": 5, \"trials\": 2}]}}",
         "algorithm.name", HPOD_EUNPROC},
        {"{\"algorithm\": {\"name\": \"auto\", \"kernel\": \"rbf\"}}",
         "algorithm.kernel", HPOD_EINVAL},
        {"{\"repeats\": 1001}", "repeats", HPOD_EUNPROC},
        {"{\"objectives\": [{\"name\": \"ppl\", \"goal\": \"minimize\"}]}",
         "objectives[0].name", HPOD_EUNPROC},
        {"{\"constraints\": [{\"metric\": \"gpu_time\", \"max\": 1}]}",
         "constraints", HPOD_EUNPROC},
    };
    (void)state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct bench_ref ref = {.table = &table};
        struct hpod_err err = {0};
        struct simreq rq;
        json_t *body = hj_parse(cases[i].body);
        assert_int_equal(
            simreq_parse(body, "lab/synthetic", &ref, simalgo_parse, &rq, &err),
            cases[i].st);
        assert_string_equal(err.field, cases[i].field);
        assert_null(rq.plan);
        assert_null(rq.table.norm_algo);
        simreq_clear(&rq);
        json_decref(body);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pieces_equal_whole),
        cmocka_unit_test(test_stop_at),
        cmocka_unit_test(test_default_auto),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests_name("simreq", tests, setup, teardown);
}
