/*
 * tools/table3.c - hpod-bench's default report: Table 3 of Zhang & Duh
 * (TACL 2020) on the six NMT lookup tables, for random search, the greedy
 * control and the model-based samplers. The runs are bench/simrun's (the
 * loop HTTP simulate uses), one (table, method) cell at a time, the
 * repeats spread over --threads; the figures do not depend on the thread
 * count.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/simrun.h"
#include "bench/tables.h"
#include "common/mem.h"
#include "core/linalg.h"
#include "tools/hpod_bench.h"

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

/* Progress of one (table, method) cell: slow cells report every 10 s. */
struct progress {
    const char *table_label, *method_label;
    double t0, last_report;
};

static void
report_progress(void *arg, size_t done, size_t runs)
{
    struct progress *pg = arg;
    double t = hb_now();
    if (t - pg->last_report >= 10.0 && done < runs) {
        fprintf(stderr, "bench: %s %s: %zu/%zu runs, %.1f s\n", pg->table_label,
                pg->method_label, done, runs, t - pg->t0);
        pg->last_report = t;
    }
}

/* Same sequence (length and ids)? */
static int
same_seq(const size_t *a, size_t la, const size_t *b, size_t lb)
{
    return la == lb && memcmp(a, b, la * sizeof *a) == 0;
}

/* What one table needs while its cells run. */
struct table_run {
    const struct hb_opts *o;
    const char *ds;
    struct simulate_problem p;
    struct metric_spec spec;
    size_t *seqs, *lens, *rs0, rs0_len;
    enum hpod_status *st, rs0_st;
    FILE *seqs_out;
};

/*
 * Runs method m on the table; returns its cell as JSON. "status" is "ok",
 * "failed" (sampler_next failed on some run) or "fallback" (a model-based
 * method that answered exactly as random search at the first seed: the
 * sampler is not available for its kind).
 */
static json_t *
cell_run(struct table_run *tr, size_t m)
{
    const struct hb_opts *o = tr->o;
    const struct hb_method *me = &hb_methods[m];
    struct simrun c;
    struct progress pg = {tr->ds, me->label, hb_now(), hb_now()};
    /* auto runs what the rule picks for this table (tools/auto.c). */
    struct simulate_algo algo = me->algo;
    char chosen[48] = "";
    int model = me->model;
    int is_auto = strcmp(me->key, "auto") == 0;
    if (is_auto) {
        if (hb_auto_algo(tr->p.space, tr->p.n, o->init, &algo, chosen,
                         sizeof chosen) != 0)
            return NULL;
        model = algo.kind != SAMPLER_RANDOM;
    }
    memset(&c, 0, sizeof c);
    c.p = &tr->p;
    c.algo = &algo;
    c.spec = &tr->spec;
    c.seed0 = o->seed;
    c.init = o->init;
    c.runs = o->repeats;
    c.seqs = tr->seqs;
    c.lens = tr->lens;
    c.status = tr->st;
    c.progress = report_progress;
    c.progress_arg = &pg;
    simrun_simulate(&c, o->threads);
    if (tr->seqs_out)
        write_sequences(tr->seqs_out, tr->ds, me->key, &c);

    const char *status = "ok";
    if (c.failed > 0)
        status = "failed";
    else if (model && tr->rs0_st == HPOD_OK &&
             same_seq(tr->seqs, tr->lens[0], tr->rs0, tr->rs0_len))
        status = "fallback";
    double len = 0;
    for (size_t k = 0; k < o->repeats; k++)
        len += (double)tr->lens[k];

    json_t *j = json_object();
    hb_set(j, "key", json_string(me->key));
    hb_set(j, "label", json_string(me->label));
    hb_set(j, "model", json_boolean(model));
    if (is_auto)
        hb_set(j, "chosen", json_string(chosen));
    hb_set(j, "status", json_string(status));
    hb_set(j, "failed_runs", hb_int(c.failed));
    hb_set(j, "error", json_string(hpod_status_str(c.first_error)));
    hb_set(j, "seconds", hb_real(c.seconds));
    hb_set(j, "rows_per_run", hb_real(len / (double)o->repeats));
    if (strcmp(status, "ok") == 0) {
        hb_set(j, "ftb", hb_stat(&c.sum.ftb));
        hb_set(j, "ftc", hb_stat(&c.sum.ftc));
        hb_set(j, "fb", hb_stat(&c.sum.fb));
        fprintf(stderr,
                "bench: %s %s: %zu runs in %.2f s, ftb %.1f ± %.1f, "
                "ftc %.1f ± %.1f, fb %.2f\n",
                tr->ds, me->label, o->repeats, c.seconds, c.sum.ftb.mean,
                c.sum.ftb.std, c.sum.ftc.mean, c.sum.ftc.std, c.sum.fb.mean);
    } else {
        fprintf(stderr, "bench: %s %s: not available (%s)\n", tr->ds, me->label,
                c.failed ? hpod_status_str(c.first_error)
                         : "answers like random search");
    }
    return j;
}

/* Every selected method on one table; returns the table as JSON. */
static json_t *
table_run(const struct hb_opts *o, const struct bench_table *tb, FILE *seqs_out)
{
    struct table_run tr;
    const double *bleu = tables_table_metric(tb, "bleu");
    memset(&tr, 0, sizeof tr);
    tr.o = o;
    tr.ds = tb->name + 7;
    tr.seqs_out = seqs_out;
    tr.p = (struct simulate_problem){&tb->space, tb->raw, bleu, tb->n};
    /* Table 3 measures ftb, ftc and fb of BLEU, as a simulate request
     * with objective bleu and the default metrics does. */
    simrun_spec_init(&tr.spec, bleu, NULL, tb->n, o->init,
                     strcmp(tr.ds, "en-ja") == 0 ? 1.0 : 0.5, 20, 50,
                     METRIC_SINGLE);
    tr.seqs = xmalloc(o->repeats * tb->n * sizeof *tr.seqs);
    tr.lens = xcalloc(o->repeats, sizeof *tr.lens);
    tr.st = xcalloc(o->repeats, sizeof *tr.st);
    /* Random search at the first seed, to tell a fallback apart. */
    tr.rs0 = xmalloc(tb->n * sizeof *tr.rs0);
    tr.rs0_st = simulate_run(&tr.p, &hb_methods[0].algo, o->seed, o->init,
                             tb->n, &tr.spec, NULL, tr.rs0, &tr.rs0_len);

    double em, es;
    simulate_rs_ftb_expectation(tb->n, o->init, &em, &es);
    json_t *j = json_object(), *ex = json_object(), *ms = json_array();
    hb_set(j, "name", json_string(tr.ds));
    hb_set(j, "rows", hb_int(tb->n));
    hb_set(ex, "mean", hb_real(em));
    hb_set(ex, "std", hb_real(es));
    hb_set(j, "rs_ftb_expectation", ex);
    for (size_t m = 0; m < HB_N_METHODS; m++)
        if (o->use[m]) {
            json_t *cell = cell_run(&tr, m);
            if (cell)
                json_array_append_new(ms, cell);
        }
    hb_set(j, "methods", ms);
    free(tr.seqs);
    free(tr.lens);
    free(tr.st);
    free(tr.rs0);
    return j;
}

int
hb_table3(const struct hb_opts *o)
{
    struct bench_table *ts = NULL;
    size_t n_tables = 0;
    FILE *seqs_out = NULL;
    json_t *rep = NULL;
    int rc = 1;

    if (o->sequences && !(seqs_out = fopen(o->sequences, "w"))) {
        fprintf(stderr, "hpod-bench: could not open \"%s\": %s\n", o->sequences,
                strerror(errno));
        return 1;
    }
    double t_start = hb_now();
    if (hb_load_tables(o, &ts, &n_tables) != 0)
        goto out;
    for (size_t t = 0; t < n_tables; t++)
        if (!tables_table_metric(&ts[t], "bleu")) {
            fprintf(stderr, "hpod-bench: %s has no bleu column\n", ts[t].name);
            goto out;
        }
    double load_s = hb_now() - t_start;
    fprintf(stderr,
            "bench: %zu tables from %s in %.2f s; %zu runs per cell, seeds "
            "%llu..%llu, %zu initial rows, %zu threads\n",
            n_tables, o->dir, load_s, o->repeats, o->seed,
            o->seed + o->repeats - 1, o->init, o->threads);

    rep = hb_report_new(o, "table3");
    json_t *tables = json_array();
    for (size_t t = 0; t < n_tables; t++)
        json_array_append_new(tables, table_run(o, &ts[t], seqs_out));
    hb_set(rep, "tables", tables);
    double total_s = hb_now() - t_start;
    hb_set(rep, "seconds", hb_real(total_s));
    hb_set(rep, "load_seconds", hb_real(load_s));
    fprintf(stderr, "bench: done in %.1f s\n", total_s);
    rc = hb_emit(o, rep) == 0 ? 0 : 1;
    rep = NULL;
out:
    if (seqs_out && fclose(seqs_out) != 0 && rc == 0) {
        fprintf(stderr, "hpod-bench: could not write \"%s\"\n", o->sequences);
        rc = 1;
    }
    json_decref(rep);
    tables_free(ts, n_tables);
    return rc;
}
