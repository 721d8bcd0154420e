/*
 * tools/lcurves.c - hpod-bench --sh and --asha: successive halving
 * (dissertation Table 6.1; core/sh.h) and ASHA with simulated
 * asynchronous workers (core/asha_sim.h) replayed on the learning curves
 * of nmtlc/scratch.jsonl. The batches are bench/lcrun's, the code HTTP
 * simulate runs for the same algorithms; this file picks the protocol's
 * cells and writes their figures.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/lcrun.h"
#include "bench/tables.h"
#include "common/mem.h"
#include "core/asha_sim.h"
#include "core/lcfit.h"
#include "core/sh.h"
#include "tools/hpod_bench.h"

/* ------------------------------------------------------------------ */
/* --sh                                                                */

/* Runs behind the "what acc depends on" table, to take the sampling noise
 * out. */
#define SH_LONG_RUNS 2000

static const size_t sh_ps[2] = {2, 4};
static const size_t sh_cs[2] = {5, 10};

/* Fixed extrapolation horizons, beside the default (the longest curve). */
#define SH_N_HORIZONS 3
static const size_t sh_horizons[SH_N_HORIZONS] = {200, 100, 60};

/* Variants of p = 2, c = 10 over SH_LONG_RUNS seeds. */
#define SH_N_VARIANTS 5 /* BSF, keep ceil(k/p), last value, dedup, extrap */

struct sh_row {
    struct lcrun_curves c;        /* the set's curves (bench/lcrun) */
    struct sh_summary grid[2][2]; /* [p][c], --repeats runs */
    double gap[2][2];             /* mean ppl gap of the wrong picks */
    struct sh_summary ex[2][2];   /* [p][c], --repeats runs, SH_RANK_EXTRAP */
    struct sh_summary lng[SH_N_VARIANTS];
    enum hpod_status lng_st[SH_N_VARIANTS];
    size_t ex_won, ex_lost; /* runs right only with extrap / only BSF */
    struct sh_summary hz[SH_N_HORIZONS]; /* extrap, p=2, c=10, fixed H */
    enum hpod_status hz_st[SH_N_HORIZONS];
};

/* The p × c grid, BSF and extrapolated, on --repeats runs. */
static enum hpod_status
sh_grid(const struct hb_opts *o, struct sh_row *row, struct sh_result *per,
        struct hpod_err *err)
{
    for (size_t a = 0; a < 2; a++)
        for (size_t b = 0; b < 2; b++) {
            struct sh_params prm = {sh_ps[a], sh_cs[b], 0, SH_RANK_BSF, 0};
            enum hpod_status st =
                lcrun_sh(&row->c, 0, &prm, o->configs, o->repeats, o->seed, per,
                         &row->grid[a][b], NULL, err);
            if (st != HPOD_OK)
                return st;
            /* Looking forward on the same draws (horizon: longest curve). */
            prm.rank = SH_RANK_EXTRAP;
            st = lcrun_sh(&row->c, 0, &prm, o->configs, o->repeats, o->seed,
                          NULL, &row->ex[a][b], NULL, err);
            if (st != HPOD_OK)
                return st;
            double gap = 0;
            size_t wrong = 0;
            for (size_t k = 0; k < o->repeats; k++)
                if (!per[k].correct) {
                    gap += row->c.sh[per[k].final].optimal -
                           row->c.sh[per[k].best].optimal;
                    wrong++;
                }
            row->gap[a][b] = wrong ? gap / (double)wrong : NAN;
        }
    return HPOD_OK;
}

/*
 * Simulates one set: the p × c grid, then p = 2, c = 10 over
 * SH_LONG_RUNS seeds with the rule's variants and fixed horizons. Returns
 * the first failure of the grid (a variant that fails leaves its cell
 * empty: a set too small for --configs once deduplicated).
 */
static enum hpod_status
sh_row_run(const struct hb_opts *o, struct sh_row *row, struct hpod_err *err)
{
    struct sh_result *per = xmalloc(o->repeats * sizeof *per);
    struct sh_result *per_b = xmalloc(SH_LONG_RUNS * sizeof *per_b);
    struct sh_result *per_e = xmalloc(SH_LONG_RUNS * sizeof *per_e);
    struct hpod_err ignored = {0};

    enum hpod_status st = sh_grid(o, row, per, err);
    if (st != HPOD_OK)
        goto out;
    for (size_t v = 0; v < SH_N_VARIANTS; v++) {
        struct sh_params prm = {2, 10, v == 1,
                                v == 2   ? SH_RANK_LAST
                                : v == 4 ? SH_RANK_EXTRAP
                                         : SH_RANK_BSF,
                                0};
        row->lng_st[v] =
            lcrun_sh(&row->c, v == 3, &prm, o->configs, SH_LONG_RUNS, o->seed,
                     v == 0   ? per_b
                     : v == 4 ? per_e
                              : NULL,
                     &row->lng[v], NULL, &ignored);
    }
    for (size_t h = 0; h < SH_N_HORIZONS; h++) {
        struct sh_params prm = {2, 10, 0, SH_RANK_EXTRAP, sh_horizons[h]};
        row->hz_st[h] = lcrun_sh(&row->c, 0, &prm, o->configs, SH_LONG_RUNS,
                                 o->seed, NULL, &row->hz[h], NULL, &ignored);
    }
    /* Paired: both ranks see the same draws (same seeds). */
    row->ex_won = row->ex_lost = 0;
    if (row->lng_st[0] == HPOD_OK && row->lng_st[4] == HPOD_OK)
        for (size_t k = 0; k < SH_LONG_RUNS; k++) {
            row->ex_won += per_e[k].correct && !per_b[k].correct;
            row->ex_lost += per_b[k].correct && !per_e[k].correct;
        }
out:
    free(per);
    free(per_b);
    free(per_e);
    return st;
}

/* A summary as JSON; null when st is not HPOD_OK. */
static json_t *
sh_summary_json(const struct sh_summary *s, enum hpod_status st)
{
    if (st != HPOD_OK)
        return json_null();
    json_t *j = json_object();
    hb_set(j, "runs", hb_int(s->runs));
    hb_set(j, "correct", hb_int(s->correct));
    hb_set(j, "acc", hb_real(s->acc));
    hb_set(j, "dif", hb_real(s->dif));
    hb_set(j, "dif_failed", hb_real(s->dif_failed));
    hb_set(j, "stages", hb_real(s->stages));
    hb_set(j, "spent", hb_real(s->spent));
    hb_set(j, "full", hb_real(s->full));
    hb_set(j, "first_stage", hb_int(s->first_stage));
    hb_set(j, "last_stage", hb_int(s->last_stage));
    hb_set(j, "complete", hb_int(s->complete));
    return j;
}

static json_t *
sh_row_json(const struct sh_row *row)
{
    json_t *j = json_object(), *grid = json_array(), *ex = json_array();
    json_t *gap = json_array(), *lng = json_array(), *hz = json_array();
    hb_set(j, "set", json_string(row->c.name));
    hb_set(j, "curves", hb_int(row->c.n));
    hb_set(j, "settings", hb_int(row->c.n_settings));
    hb_set(j, "len_min", hb_int(row->c.len_min));
    hb_set(j, "len_median", hb_int(row->c.len_med));
    hb_set(j, "len_max", hb_int(row->c.len_max));
    for (size_t a = 0; a < 2; a++) {
        json_t *g = json_array(), *e = json_array(), *p = json_array();
        for (size_t b = 0; b < 2; b++) {
            json_array_append_new(g,
                                  sh_summary_json(&row->grid[a][b], HPOD_OK));
            json_array_append_new(e, sh_summary_json(&row->ex[a][b], HPOD_OK));
            json_array_append_new(p, hb_real(row->gap[a][b]));
        }
        json_array_append_new(grid, g);
        json_array_append_new(ex, e);
        json_array_append_new(gap, p);
    }
    for (size_t v = 0; v < SH_N_VARIANTS; v++)
        json_array_append_new(lng,
                              sh_summary_json(&row->lng[v], row->lng_st[v]));
    for (size_t h = 0; h < SH_N_HORIZONS; h++)
        json_array_append_new(hz, sh_summary_json(&row->hz[h], row->hz_st[h]));
    hb_set(j, "grid", grid);
    hb_set(j, "extrap_grid", ex);
    hb_set(j, "gap_when_wrong", gap);
    hb_set(j, "long", lng);
    hb_set(j, "extrap_won", hb_int(row->ex_won));
    hb_set(j, "extrap_lost", hb_int(row->ex_lost));
    hb_set(j, "horizon", hz);
    return j;
}

/* The protocol's constants, for the renderer's prose. */
static void
sh_constants(json_t *rep)
{
    json_t *ps = json_array(), *cs = json_array(), *hz = json_array();
    json_t *lf = json_object();
    for (size_t k = 0; k < 2; k++) {
        json_array_append_new(ps, hb_int(sh_ps[k]));
        json_array_append_new(cs, hb_int(sh_cs[k]));
    }
    for (size_t h = 0; h < SH_N_HORIZONS; h++)
        json_array_append_new(hz, hb_int(sh_horizons[h]));
    hb_set(rep, "p", ps);
    hb_set(rep, "c", cs);
    hb_set(rep, "horizons", hz);
    hb_set(rep, "long_runs", hb_int(SH_LONG_RUNS));
    hb_set(rep, "variants",
           json_pack("[sssss]", "bsf", "keep_ceil", "rank_last", "dedup",
                     "extrapolate"));
    hb_set(lf, "alpha_min", hb_real(LCFIT_ALPHA_MIN));
    hb_set(lf, "alpha_max", hb_real(LCFIT_ALPHA_MAX));
    hb_set(lf, "min_points", hb_int(LCFIT_MIN_POINTS));
    hb_set(rep, "lcfit", lf);
}

int
hb_sh(const struct hb_opts *o)
{
    struct bench_lc_set *sets = NULL;
    size_t n_sets = 0, n_rows = 0;
    const struct bench_lc_set **picked = NULL;
    struct sh_row *rows = NULL;
    int rc = 1;

    double t0 = hb_now();
    if (hb_curve_sets(o, &sets, &n_sets, &picked, &n_rows) != 0)
        goto out;
    double load_s = hb_now() - t0;
    rows = xcalloc(n_rows, sizeof *rows);
    for (size_t r = 0; r < n_rows; r++)
        lcrun_curves_init(&rows[r].c, picked[r]);
    for (size_t r = 0; r < n_rows; r++) {
        struct hpod_err err = {0};
        if (sh_row_run(o, &rows[r], &err) != HPOD_OK) {
            fprintf(stderr, "hpod-bench: %s\n", err.msg);
            goto out;
        }
        fprintf(stderr,
                "bench: %s: %zu curves; p=2 c=10: acc %.0f, %d-run "
                "acc %.1f\n",
                rows[r].c.name, rows[r].c.n, rows[r].grid[0][1].acc,
                SH_LONG_RUNS, rows[r].lng[0].acc);
    }
    double total_s = hb_now() - t0;
    fprintf(stderr,
            "bench: successive halving done in %.2f s (curves loaded "
            "in %.2f s)\n",
            total_s, load_s);

    json_t *rep = hb_report_new(o, "sh"), *js = json_array();
    sh_constants(rep);
    for (size_t r = 0; r < n_rows; r++)
        json_array_append_new(js, sh_row_json(&rows[r]));
    hb_set(rep, "sets", js);
    hb_set(rep, "seconds", hb_real(total_s));
    rc = hb_emit(o, rep) == 0 ? 0 : 1;
out:
    for (size_t r = 0; rows && r < n_rows; r++)
        lcrun_curves_free(&rows[r].c);
    free(rows);
    free(picked);
    tables_lc_free(sets, n_sets);
    return rc;
}

/* ------------------------------------------------------------------ */
/* --asha                                                              */

struct asha_row {
    const struct bench_lc_set *set;
    size_t len_med, R;
    struct lcrun_asha_summary sum; /* means over --repeats runs */
};

/* ASHA's parameters on a set: R = min(HB_ASHA_RMAX, the median length),
 * at least the first rung. */
static struct asha_params
asha_params_for(size_t len_med)
{
    struct asha_params prm;
    memset(&prm, 0, sizeof prm);
    prm.r = HB_ASHA_R0;
    prm.u = HB_ASHA_U;
    prm.R = len_med < HB_ASHA_RMAX ? len_med : HB_ASHA_RMAX;
    if (prm.R < HB_ASHA_R0)
        prm.R = HB_ASHA_R0;
    prm.p = HB_ASHA_P;
    prm.keep = HB_ASHA_KEEP;
    return prm;
}

static json_t *
asha_row_json(const struct asha_row *w)
{
    json_t *j = json_object();
    hb_set(j, "set", json_string(w->set->name));
    hb_set(j, "curves", hb_int(w->set->n));
    hb_set(j, "len_median", hb_int(w->len_med));
    hb_set(j, "R", hb_int(w->R));
    hb_set(j, "steps", hb_real(w->sum.steps));
    hb_set(j, "full", hb_real(w->sum.steps_full));
    hb_set(j, "saved", hb_real(w->sum.saved));
    hb_set(j, "n_full", hb_real(w->sum.n_full));
    hb_set(j, "rank", hb_real(w->sum.best_rank));
    hb_set(j, "rank1", hb_real(w->sum.kept_best));
    hb_set(j, "best_full", hb_real(w->sum.best_full));
    hb_set(j, "speedup", hb_real(w->sum.speedup));
    return j;
}

json_t *
hb_asha_constants(void)
{
    return json_pack("{s:i,s:i,s:i,s:i,s:i,s:i}", "workers", HB_ASHA_WORKERS,
                     "r", HB_ASHA_R0, "u", HB_ASHA_U, "R_max", HB_ASHA_RMAX,
                     "p", HB_ASHA_P, "keep", HB_ASHA_KEEP);
}

int
hb_asha(const struct hb_opts *o)
{
    struct bench_lc_set *sets = NULL;
    size_t n_sets = 0, n_rows = 0;
    const struct bench_lc_set **picked = NULL;
    struct asha_row *rows = NULL;
    int rc = 1;

    double t0 = hb_now();
    if (hb_curve_sets(o, &sets, &n_sets, &picked, &n_rows) != 0)
        goto out;
    rows = xcalloc(n_rows, sizeof *rows);
    for (size_t r = 0; r < n_rows; r++) {
        struct lcrun_curves c;
        struct hpod_err err = {0};
        rows[r].set = picked[r];
        lcrun_curves_init(&c, picked[r]);
        struct asha_params prm = asha_params_for(c.len_med);
        rows[r].len_med = c.len_med;
        rows[r].R = prm.R;
        enum hpod_status st =
            lcrun_asha(&c, &prm, HB_ASHA_WORKERS, o->configs, o->repeats,
                       o->seed, NULL, NULL, NULL, &rows[r].sum, &err);
        lcrun_curves_free(&c);
        if (st != HPOD_OK) {
            fprintf(stderr, "hpod-bench: %s\n", err.msg);
            goto out;
        }
        fprintf(stderr,
                "bench: %s: R=%zu saved %.1f%%, rank of kept %.2f, best "
                "trained to R in %.0f%%\n",
                rows[r].set->name, rows[r].R, rows[r].sum.saved,
                rows[r].sum.best_rank, rows[r].sum.best_full);
    }
    double total_s = hb_now() - t0;
    fprintf(stderr, "bench: ASHA done in %.2f s\n", total_s);

    json_t *rep = hb_report_new(o, "asha"), *js = json_array();
    hb_set(rep, "asha", hb_asha_constants());
    for (size_t r = 0; r < n_rows; r++)
        json_array_append_new(js, asha_row_json(&rows[r]));
    hb_set(rep, "sets", js);
    hb_set(rep, "seconds", hb_real(total_s));
    rc = hb_emit(o, rep) == 0 ? 0 : 1;
out:
    free(rows);
    free(picked);
    tables_lc_free(sets, n_sets);
    return rc;
}
