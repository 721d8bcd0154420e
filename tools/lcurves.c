/*
 * tools/lcurves.c - hpod-bench --sh and --asha: successive halving
 * (dissertation Table 6.1; core/sh.h) and ASHA with simulated
 * asynchronous workers (core/asha_sim.h) replayed on the learning curves
 * of nmtlc/scratch.jsonl.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tables.h"
#include "common/mem.h"
#include "core/asha_sim.h"
#include "core/lcfit.h"
#include "core/rng.h"
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
    const struct bench_lc_set *set;
    size_t n_curves, n_settings;
    size_t len_min, len_med, len_max;
    struct sh_summary grid[2][2]; /* [p][c], --repeats runs */
    double gap[2][2];             /* mean ppl gap of the wrong picks */
    struct sh_summary ex[2][2];   /* [p][c], --repeats runs, SH_RANK_EXTRAP */
    struct sh_summary lng[SH_N_VARIANTS];
    enum hpod_status lng_st[SH_N_VARIANTS];
    size_t ex_won, ex_lost; /* runs right only with extrap / only BSF */
    struct sh_summary hz[SH_N_HORIZONS]; /* extrap, p=2, c=10, fixed H */
    enum hpod_status hz_st[SH_N_HORIZONS];
};

/* The curves of a set, all of them and the first of every distinct
 * hyperparameter setting (*nd of them); the lengths' min, median, max. */
static void
sh_curves(struct sh_row *row, struct sh_curve *cv, struct sh_curve *dd,
          size_t *nd)
{
    const struct bench_lc_set *set = row->set;
    size_t n = set->n;
    size_t *lens = xmalloc(n * sizeof *lens);
    *nd = 0;
    for (size_t i = 0; i < n; i++) {
        const struct bench_curve *c = &set->curves[i];
        cv[i].y = c->ppl;
        cv[i].len = c->len;
        cv[i].optimal = c->ppl_optimal;
        lens[i] = c->len;
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = memcmp(set->curves[j].hyper, c->hyper,
                         set->n_hyper * sizeof *c->hyper) == 0;
        if (!dup)
            dd[(*nd)++] = cv[i];
    }
    qsort(lens, n, sizeof *lens, hb_size_cmp);
    row->n_curves = n;
    row->n_settings = *nd;
    row->len_min = lens[0];
    row->len_med = lens[n / 2];
    row->len_max = lens[n - 1];
    free(lens);
}

/* The p × c grid, BSF and extrapolated, on --repeats runs. */
static enum hpod_status
sh_grid(const struct hb_opts *o, struct sh_row *row, const struct sh_curve *cv,
        size_t n, struct sh_result *per)
{
    for (size_t a = 0; a < 2; a++)
        for (size_t b = 0; b < 2; b++) {
            struct sh_params prm = {sh_ps[a], sh_cs[b], 0, SH_RANK_BSF, 0};
            enum hpod_status st =
                sh_simulate_many(cv, n, &prm, o->configs, o->repeats, o->seed,
                                 per, &row->grid[a][b]);
            if (st != HPOD_OK)
                return st;
            /* Looking forward on the same draws (horizon: longest curve). */
            prm.rank = SH_RANK_EXTRAP;
            st = sh_simulate_many(cv, n, &prm, o->configs, o->repeats, o->seed,
                                  NULL, &row->ex[a][b]);
            if (st != HPOD_OK)
                return st;
            double gap = 0;
            size_t wrong = 0;
            for (size_t k = 0; k < o->repeats; k++)
                if (!per[k].correct) {
                    gap += cv[per[k].final].optimal - cv[per[k].best].optimal;
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
sh_row_run(const struct hb_opts *o, struct sh_row *row)
{
    size_t n = row->set->n, nd = 0;
    struct sh_curve *cv = xmalloc(n * sizeof *cv);
    struct sh_curve *dd = xmalloc(n * sizeof *dd);
    struct sh_result *per = xmalloc(o->repeats * sizeof *per);
    struct sh_result *per_b = xmalloc(SH_LONG_RUNS * sizeof *per_b);
    struct sh_result *per_e = xmalloc(SH_LONG_RUNS * sizeof *per_e);

    sh_curves(row, cv, dd, &nd);
    enum hpod_status st = sh_grid(o, row, cv, n, per);
    if (st != HPOD_OK)
        goto out;
    for (size_t v = 0; v < SH_N_VARIANTS; v++) {
        struct sh_params prm = {2, 10, v == 1,
                                v == 2   ? SH_RANK_LAST
                                : v == 4 ? SH_RANK_EXTRAP
                                         : SH_RANK_BSF,
                                0};
        row->lng_st[v] =
            sh_simulate_many(v == 3 ? dd : cv, v == 3 ? nd : n, &prm,
                             o->configs, SH_LONG_RUNS, o->seed,
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
    hb_set(j, "set", json_string(row->set->name));
    hb_set(j, "curves", hb_int(row->n_curves));
    hb_set(j, "settings", hb_int(row->n_settings));
    hb_set(j, "len_min", hb_int(row->len_min));
    hb_set(j, "len_median", hb_int(row->len_med));
    hb_set(j, "len_max", hb_int(row->len_max));
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
    for (size_t r = 0; r < n_rows; r++) {
        rows[r].set = picked[r];
        enum hpod_status st = sh_row_run(o, &rows[r]);
        if (st != HPOD_OK) {
            fprintf(stderr,
                    "hpod-bench: successive halving failed on %s (%s)\n",
                    rows[r].set->name, hpod_status_str(st));
            goto out;
        }
        fprintf(stderr,
                "bench: %s: %zu curves; p=2 c=10: acc %.0f, %d-run "
                "acc %.1f\n",
                rows[r].set->name, rows[r].n_curves, rows[r].grid[0][1].acc,
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
    free(rows);
    free(picked);
    bench_lc_free(sets, n_sets);
    return rc;
}

/* ------------------------------------------------------------------ */
/* --asha                                                              */

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
asha_row_run(const struct hb_opts *o, struct asha_row *row)
{
    const struct bench_lc_set *set = row->set;
    size_t n = set->n;
    struct asha_sim_curve *cv = xmalloc(n * sizeof *cv);
    enum hpod_status st = HPOD_OK;

    for (size_t i = 0; i < n; i++) {
        cv[i].ppl = set->curves[i].ppl;
        cv[i].len = set->curves[i].len;
        cv[i].optimal = set->curves[i].ppl_optimal;
    }
    row->len_med = hb_len_median(set);
    row->R = row->len_med < HB_ASHA_RMAX ? row->len_med : HB_ASHA_RMAX;
    if (row->R < HB_ASHA_R0)
        row->R = HB_ASHA_R0;

    struct asha_params prm;
    memset(&prm, 0, sizeof prm);
    prm.r = HB_ASHA_R0;
    prm.u = HB_ASHA_U;
    prm.R = row->R;
    prm.p = HB_ASHA_P;
    prm.keep = HB_ASHA_KEEP;
    for (size_t k = 0; k < o->repeats; k++) {
        struct rng r;
        struct asha_sim_result res;
        rng_seed(&r, o->seed + k);
        st = asha_sim_run(cv, n, &prm, HB_ASHA_WORKERS, o->configs, &r, &res);
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
        row->speedup += (double)res.steps_full / HB_ASHA_WORKERS /
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
    return st;
}

static json_t *
asha_row_json(const struct asha_row *w)
{
    json_t *j = json_object();
    hb_set(j, "set", json_string(w->set->name));
    hb_set(j, "curves", hb_int(w->set->n));
    hb_set(j, "len_median", hb_int(w->len_med));
    hb_set(j, "R", hb_int(w->R));
    hb_set(j, "steps", hb_real(w->steps));
    hb_set(j, "full", hb_real(w->full));
    hb_set(j, "saved", hb_real(w->saved));
    hb_set(j, "n_full", hb_real(w->n_full));
    hb_set(j, "rank", hb_real(w->rank));
    hb_set(j, "rank1", hb_real(w->rank1));
    hb_set(j, "best_full", hb_real(w->best_full));
    hb_set(j, "speedup", hb_real(w->speedup));
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
        rows[r].set = picked[r];
        enum hpod_status st = asha_row_run(o, &rows[r]);
        if (st != HPOD_OK) {
            fprintf(stderr, "hpod-bench: ASHA failed on %s (%s)\n",
                    rows[r].set->name, hpod_status_str(st));
            goto out;
        }
        fprintf(stderr,
                "bench: %s: R=%zu saved %.1f%%, rank of kept %.2f, best "
                "trained to R in %.0f%%\n",
                rows[r].set->name, rows[r].R, rows[r].saved, rows[r].rank,
                rows[r].best_full);
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
    bench_lc_free(sets, n_sets);
    return rc;
}
