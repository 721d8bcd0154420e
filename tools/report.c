/*
 * tools/report.c - what hpod-bench's reports share (hpod_bench.h): the
 * methods of Table 3, the JSON report envelope and its output, and the
 * learning-curve sets in the dissertation's order. Kept apart from main.c
 * so that the reports call down into it and never into main.
 */
#include "tools/hpod_bench.h"
#include "common/clock.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/tables.h"
#include "common/mem.h"
#include "core/kernels.h"

const struct hb_method hb_methods[] = {
    {"rs", "RS", {SAMPLER_RANDOM, 0, 0, 0, 0.0, NULL, 0, 0, 0.0}, 0},
    {"greedy", "greedy", {SAMPLER_GREEDY, 0, 0, 0, 0.0, NULL, 0, 0, 0.0}, 0},
    {"bo_ei_m",
     "BO_EI_M",
     {SAMPLER_GP, KERNEL_MATERN52, 0, 0, 0.0, NULL, 0, 0, 0.0},
     1},
    {"bo_ei_r",
     "BO_EI_R",
     {SAMPLER_GP, KERNEL_RBF, 0, 0, 0.0, NULL, 0, 0, 0.0},
     1},
    {"gb_ei_m",
     "GB_EI_M",
     {SAMPLER_GRAPH, KERNEL_MATERN52, 0, 0, 0.0, NULL, 0, 0, 0.0},
     1},
    {"gb_ei_r",
     "GB_EI_R",
     {SAMPLER_GRAPH, KERNEL_RBF, 0, 0, 0.0, NULL, 0, 0, 0.0},
     1},
    {"gb_eif_m",
     "GB_EIF_M",
     {SAMPLER_GRAPH, KERNEL_MATERN52, 1, 0, 0.0, NULL, 0, 0, 0.0},
     1},
    {"gb_eif_r",
     "GB_EIF_R",
     {SAMPLER_GRAPH, KERNEL_RBF, 1, 0, 0.0, NULL, 0, 0, 0.0},
     1},
    /* gp, acquisition nei, lengthscale_min 0.3 (docs/sampler-nei.md) */
    {"bo_nei_m",
     "BO_NEI_M",
     {SAMPLER_GP, KERNEL_MATERN52, 3, 0, 0.3, NULL, 0, 0, 0.0},
     1},
    {"bo_nei_r",
     "BO_NEI_R",
     {SAMPLER_GP, KERNEL_RBF, 3, 0, 0.3, NULL, 0, 0, 0.0},
     1},
    /* auto's single-objective choice before the hedge: the
     * hedge's GP arm alone, kept in the default set beside auto. */
    {"bo_neilsptr_m",
     "BO_NEILSPTR_M",
     {SAMPLER_GP, KERNEL_MATERN52, 3, 0, 0.0, NULL, 0, SAMPLER_TR_DIV,
      SAMPLER_LSP_MEDIAN},
     1},
    {"auto", "auto", {SAMPLER_RANDOM, 0, 0, 0, 0.0, NULL, 0, 0, 0.0}, 1},
    /* Variants that lost, run only when named (HB_N_DEFAULT). Those whose
     * code is gone have their figures in docs/sampler-nei.md ("Variants
     * removed from the code"). */
    {"bo_neifloor_m",
     "BO_NEIFLOOR_M",
     {SAMPLER_GP, KERNEL_MATERN52, 3, 0, 0.0, NULL, 0, 0, 0.0},
     1},
    {"bo_eils_m",
     "BO_EILS_M",
     {SAMPLER_GP, KERNEL_MATERN52, 0, 0, 0.3, NULL, 0, 0, 0.0},
     1},
    {"bo_neils01_m",
     "BO_NEILS01_M",
     {SAMPLER_GP, KERNEL_MATERN52, 3, 0, 0.1, NULL, 0, 0, 0.0},
     1},
    {"bo_neils02_m",
     "BO_NEILS02_M",
     {SAMPLER_GP, KERNEL_MATERN52, 3, 0, 0.2, NULL, 0, 0, 0.0},
     1},
    {"bo_neils04_m",
     "BO_NEILS04_M",
     {SAMPLER_GP, KERNEL_MATERN52, 3, 0, 0.4, NULL, 0, 0, 0.0},
     1},
    /* nei with lengthscale_min 0.3, argmax in the trust region of the
     * best observation (trust_div). */
    {"bo_neitr_m",
     "BO_NEITR_M",
     {SAMPLER_GP, KERNEL_MATERN52, 3, 0, 0.3, NULL, 0, SAMPLER_TR_DIV, 0.0},
     1},
    /* nei, lengthscales by MAP under a log-normal prior (median 1, log sd
     * 1) instead of the floor (ls_prior); and with the trust
     * region too. */
    {"bo_neilsp_m",
     "BO_NEILSP_M",
     {SAMPLER_GP, KERNEL_MATERN52, 3, 0, 0.0, NULL, 0, 0, SAMPLER_LSP_MEDIAN},
     1},
    /* Graph EI with nei's noise floor
     * (acquisition 2), and graph EI / nei with the GP's trust region. */
    {"gb_nei_m",
     "GB_NEI_M",
     {SAMPLER_GRAPH, KERNEL_MATERN52, 2, 0, 0.0, NULL, 0, 0, 0.0},
     1},
    {"gb_nei_r",
     "GB_NEI_R",
     {SAMPLER_GRAPH, KERNEL_RBF, 2, 0, 0.0, NULL, 0, 0, 0.0},
     1},
    {"gb_eitr_m",
     "GB_EITR_M",
     {SAMPLER_GRAPH, KERNEL_MATERN52, 0, 0, 0.0, NULL, 0, SAMPLER_TR_DIV, 0.0},
     1},
    {"gb_neitr_m",
     "GB_NEITR_M",
     {SAMPLER_GRAPH, KERNEL_MATERN52, 2, 0, 0.0, NULL, 0, SAMPLER_TR_DIV, 0.0},
     1},
    /* GP-Hedge over BO_NEILSPTR_M and GB_EI_M (SAMPLER_V_HEDGE). */
    {"bo_hedge_m",
     "BO_HEDGE_M",
     {SAMPLER_GP, KERNEL_MATERN52, 3, SAMPLER_V_HEDGE, 0.0, NULL, 0,
      SAMPLER_TR_DIV, SAMPLER_LSP_MEDIAN},
     1},
};

/* The learning-curve sets of the dissertation's Table 6.1, in its order:
 * the reports list them first. */
static const char *const lc_order[] = {
    "nmtlc/material-sw-en", "nmtlc/material-so-en", "nmtlc/ted-zh-en",
    "nmtlc/ted-ru-en",      "nmtlc/robust19-ja-en", "nmtlc/robust19-en-ja",
};
#define N_LC_ORDER (sizeof lc_order / sizeof lc_order[0])

double
hb_now(void)
{
    return hpod_now_s();
}

int
hb_size_cmp(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return (a > b) - (a < b);
}

int
hb_dbl_cmp(const void *pa, const void *pb)
{
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

double
hb_median_bound(const double *gpu, const double *bleu, size_t n,
                double *best_feasible)
{
    double *sorted = xmalloc(n * sizeof *sorted);
    memcpy(sorted, gpu, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, hb_dbl_cmp);
    double bound = sorted[(n - 1) / 2];
    free(sorted);
    *best_feasible = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (gpu[i] <= bound && bleu[i] > *best_feasible)
            *best_feasible = bleu[i];
    return bound;
}

json_t *
hb_real(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

json_t *
hb_int(size_t v)
{
    return json_integer((json_int_t)v);
}

json_t *
hb_stat(const struct simulate_stat *s)
{
    json_t *o = json_object();
    hb_set(o, "mean", hb_real(s->mean));
    hb_set(o, "std", hb_real(s->std));
    hb_set(o, "runs", hb_int(s->runs));
    hb_set(o, "missed", hb_int(s->missed));
    return o;
}

void
hb_set(json_t *obj, const char *key, json_t *v)
{
    json_object_set_new(obj, key, v ? v : json_null());
}

json_t *
hb_report_new(const struct hb_opts *o, const char *kind)
{
    time_t now = time(NULL);
    struct tm tm;
    char date[32];
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);
    json_t *r = json_object();
    hb_set(r, "report", json_string(kind));
    hb_set(r, "command", json_string(o->cmdline));
    hb_set(r, "date", json_string(date));
    hb_set(r, "seed", json_integer((json_int_t)o->seed));
    hb_set(r, "repeats", hb_int(o->repeats));
    hb_set(r, "init", hb_int(o->init));
    hb_set(r, "threads", hb_int(o->threads));
    hb_set(r, "configs", hb_int(o->configs));
    return r;
}

int
hb_load_tables(const struct hb_opts *o, struct bench_table **ts, size_t *n)
{
    struct hpod_err err = {0};
    if (tables_load_dir(o->dir, (const char *const *)o->tables, o->n_tables, ts,
                        n, &err) == HPOD_OK)
        return 0;
    fprintf(stderr, "hpod-bench: %s\n", err.msg);
    return -1;
}

int
hb_emit(const struct hb_opts *o, json_t *report)
{
    char *text = hj_dump(report, 0);
    int rc = -1;
    FILE *f = NULL;
    if (!text) {
        fprintf(stderr, "hpod-bench: could not render the JSON report\n");
        goto out;
    }
    f = strcmp(o->out, "-") == 0 ? stdout : fopen(o->out, "w");
    if (!f) {
        fprintf(stderr, "hpod-bench: could not open \"%s\": %s\n", o->out,
                strerror(errno));
        goto out;
    }
    fputs(text, f);
    fputc('\n', f);
    rc = fflush(f) == 0 && !ferror(f) ? 0 : -1;
    if (f != stdout && fclose(f) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "hpod-bench: could not write \"%s\"\n", o->out);
    else if (f != stdout)
        fprintf(stderr, "bench: wrote %s\n", o->out);
out:
    free(text);
    json_decref(report);
    return rc;
}

/* Does set name end with "-<ds>" or equal it, for one of --tables? */
static int
lc_selected(const struct hb_opts *o, const char *name)
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

int
hb_curve_sets(const struct hb_opts *o, struct bench_lc_set **sets,
              size_t *n_sets, const struct bench_lc_set ***picked, size_t *n)
{
    struct hpod_err err = {0};
    size_t plen = strlen(o->dir) + sizeof "/nmtlc/scratch.jsonl";
    char *path = xmalloc(plen);
    int rc = -1;

    *picked = NULL;
    *n = 0;
    snprintf(path, plen, "%s/nmtlc/scratch.jsonl", o->dir);
    if (tables_lc_load(path, sets, n_sets, &err) != HPOD_OK) {
        fprintf(stderr, "hpod-bench: %s\n", err.msg);
        goto out;
    }
    *picked = xcalloc(*n_sets ? *n_sets : 1, sizeof **picked);
    for (size_t k = 0; k < N_LC_ORDER; k++) {
        const struct bench_lc_set *st =
            tables_lc_find(*sets, *n_sets, lc_order[k]);
        if (st && lc_selected(o, st->name))
            (*picked)[(*n)++] = st;
    }
    for (size_t i = 0; i < *n_sets; i++) {
        int known = 0;
        for (size_t k = 0; k < N_LC_ORDER; k++)
            known |= strcmp((*sets)[i].name, lc_order[k]) == 0;
        if (!known && lc_selected(o, (*sets)[i].name))
            (*picked)[(*n)++] = &(*sets)[i];
    }
    if (*n == 0) {
        fprintf(stderr, "hpod-bench: no learning-curve set matches --tables\n");
        goto out;
    }
    for (size_t r = 0; r < *n; r++)
        if ((*picked)[r]->n < o->configs) {
            fprintf(stderr,
                    "hpod-bench: %s has %zu curves, fewer than "
                    "--configs %zu\n",
                    (*picked)[r]->name, (*picked)[r]->n, o->configs);
            goto out;
        }
    rc = 0;
out:
    free(path);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Options.                                                            */
