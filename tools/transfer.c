/*
 * tools/transfer.c - hpod-bench --transfer: Table 3's protocol on each
 * nmthpo table started from the most correlated OTHER table (issue 16,
 * "warm_start"), against the same method without transfer. The source of
 * a table is the other table whose prior (core/transfer: normal scores of
 * its BLEU at the shared configurations, a GP over them elsewhere) has
 * the largest Spearman correlation with the table's BLEU over the shared
 * configurations, or over all rows when none are shared (sw-en and so-en
 * share none with the others: their bpe grid differs).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/simrun.h"
#include "bench/tables.h"
#include "common/mem.h"
#include "core/kernels.h"
#include "core/rankcorr.h"
#include "core/normal_scores.h"
#include "core/transfer.h"
#include "tools/hpod_bench.h"

/* The prior of source s over the rows of target t, and how it ranks t. */
struct tl_prior {
    double *mu;     /* t->n values */
    size_t n_exact; /* rows of t found in s */
    double rho;     /* Spearman(prior, bleu of t) over the rows used */
};

static enum hpod_status
tl_prior(const struct bench_table *s, const struct bench_table *t,
         struct tl_prior *out)
{
    size_t np = t->n_params, d = t->space.dim;
    double *su = xmalloc(s->n * d * sizeof *su);
    unsigned char *ex = xmalloc(t->n);
    double *tu = xmalloc(t->n * d * sizeof *tu);
    const double *sy = tables_table_metric(s, "bleu");
    const double *ty = tables_table_metric(t, "bleu");
    enum hpod_status st;

    /* Same parameter columns in the same order (bench_param_names). */
    space_encode_rows(&t->space, s->raw, s->n, su);
    space_encode_rows(&t->space, t->raw, t->n, tu);
    out->mu = xmalloc(t->n * sizeof *out->mu);
    double *sz = xmalloc(s->n * sizeof *sz);
    normal_scores(sy, s->n, sz);
    st = transfer_prior(s->raw, su, sz, s->n, np, d, t->space.kinds, t->raw, tu,
                        t->n, KERNEL_RBF, 0, out->mu, ex, &out->n_exact);
    if (st == HPOD_OK) {
        double *a = xmalloc(t->n * sizeof *a), *b = xmalloc(t->n * sizeof *b);
        size_t k = 0;
        for (size_t i = 0; i < t->n; i++)
            if (ex[i] || out->n_exact == 0) {
                a[k] = out->mu[i];
                b[k++] = ty[i];
            }
        out->rho = rank_spearman(a, b, k);
        free(a);
        free(b);
    }
    free(su);
    free(sz);
    free(tu);
    free(ex);
    return st;
}

/* One cell: method m on problem p with algo a; returns its JSON. */
static json_t *
tl_cell(const struct hb_opts *o, const struct simulate_problem *p,
        const struct simulate_algo *a, const struct metric_spec *spec,
        const char *ds, const char *what)
{
    struct simrun c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.algo = a;
    c.spec = spec;
    c.seed0 = o->seed;
    c.init = o->init;
    c.runs = o->repeats;
    c.seqs = xmalloc(o->repeats * p->n * sizeof *c.seqs);
    c.lens = xcalloc(o->repeats, sizeof *c.lens);
    c.status = xcalloc(o->repeats, sizeof *c.status);
    simrun_simulate(&c, o->threads);
    json_t *j = json_object();
    hb_set(j, "failed_runs", hb_int(c.failed));
    hb_set(j, "seconds", hb_real(c.seconds));
    hb_set(j, "ftb", hb_stat(&c.sum.ftb));
    hb_set(j, "ftc", hb_stat(&c.sum.ftc));
    hb_set(j, "fb", hb_stat(&c.sum.fb));
    fprintf(stderr,
            "bench: %s %s: ftb %.2f ± %.2f, ftc %.2f, fb %.3f (%zu "
            "failed, %.1f s)\n",
            ds, what, c.sum.ftb.mean, c.sum.ftb.std, c.sum.ftc.mean,
            c.sum.fb.mean, c.failed, c.seconds);
    free(c.seqs);
    free(c.lens);
    free(c.status);
    return j;
}

/* Target t: picks its source among ts, runs the methods with and
 * without it. */
static json_t *
tl_table(const struct hb_opts *o, const struct bench_table *ts, size_t nt,
         size_t t)
{
    const struct bench_table *tb = &ts[t];
    const char *ds = tb->name + 7;
    struct tl_prior best = {NULL, 0, -2.0};
    size_t src = nt;
    json_t *j = json_object(), *cands = json_array(), *ms = json_array();

    for (size_t s = 0; s < nt; s++) {
        struct tl_prior pr = {NULL, 0, NAN};
        if (s == t || tl_prior(&ts[s], tb, &pr) != HPOD_OK) {
            free(pr.mu);
            continue;
        }
        json_t *c = json_object();
        hb_set(c, "table", json_string(ts[s].name + 7));
        hb_set(c, "shared", hb_int(pr.n_exact));
        hb_set(c, "spearman", hb_real(pr.rho));
        json_array_append_new(cands, c);
        /* A correlation measured on shared configurations beats one of the
         * GP's predictions: a source that shares rows wins first. */
        int better =
            best.mu == NULL || (pr.n_exact > 0) > (best.n_exact > 0) ||
            ((pr.n_exact > 0) == (best.n_exact > 0) && pr.rho > best.rho);
        if (isfinite(pr.rho) && better) {
            free(best.mu);
            best = pr;
            src = s;
        } else {
            free(pr.mu);
        }
    }
    hb_set(j, "name", json_string(ds));
    hb_set(j, "sources", cands);
    hb_set(j, "source", src < nt ? json_string(ts[src].name + 7) : json_null());
    hb_set(j, "source_shared", hb_int(best.n_exact));
    hb_set(j, "source_spearman", hb_real(best.rho));
    fprintf(stderr, "bench: %s: source %s (spearman %.3f over %zu shared)\n",
            ds, src < nt ? ts[src].name + 7 : "none", best.rho, best.n_exact);

    const double *bleu = tables_table_metric(tb, "bleu");
    struct simulate_problem p = {&tb->space, tb->raw, bleu, tb->n};
    struct metric_spec spec;
    simrun_spec_init(&spec, bleu, NULL, tb->n, o->init,
                     strcmp(ds, "en-ja") == 0 ? 1.0 : 0.5, 20, 50,
                     METRIC_SINGLE);
    for (size_t m = 0; m < HB_N_METHODS; m++) {
        const struct hb_method *me = &hb_methods[m];
        if (!o->use[m] || me->algo.kind != SAMPLER_GP)
            continue;
        json_t *c = json_object();
        char what[64];
        hb_set(c, "key", json_string(me->key));
        snprintf(what, sizeof what, "%s", me->label);
        hb_set(c, "plain", tl_cell(o, &p, &me->algo, &spec, ds, what));
        for (int rule = 0; rule < 6 && best.mu; rule++) {
            static const char *const names[] = {
                "fixed", "spearman", "kendall", "init", "shrunk", "rankloss"};
            struct simulate_algo a = me->algo;
            a.prior = best.mu;
            a.prior_rule = rule;
            snprintf(what, sizeof what, "%s+tl(%s)", me->label, names[rule]);
            hb_set(c, names[rule], tl_cell(o, &p, &a, &spec, ds, what));
        }
        json_array_append_new(ms, c);
    }
    hb_set(j, "methods", ms);
    free(best.mu);
    return j;
}

int
hb_transfer(const struct hb_opts *o)
{
    struct hpod_err err = {0};
    struct bench_table *ts = NULL;
    size_t nt = 0;
    int rc = 1;

    if (tables_load_dir(o->dir, NULL, 0, &ts, &nt, &err) != HPOD_OK) {
        fprintf(stderr, "hpod-bench: %s\n", err.msg);
        return 1;
    }
    json_t *rep = hb_report_new(o, "transfer"), *tables = json_array();
    for (size_t t = 0; t < nt; t++) {
        int want = 0;
        for (size_t k = 0; k < o->n_tables; k++)
            want |= strcmp(o->tables[k], ts[t].name + 7) == 0;
        if (want)
            json_array_append_new(tables, tl_table(o, ts, nt, t));
    }
    hb_set(rep, "tables", tables);
    rc = hb_emit(o, rep) == 0 ? 0 : 1;
    tables_free(ts, nt);
    return rc;
}
