/*
 * tools/mstage.c - hpod-bench --multistage: multi-stage BO replayed on the
 * learning curves (core/mstage_sim.h; every stage decision is
 * core/mstage.c's) beside ASHA (bench/lcrun, as --asha and HTTP simulate
 * run it) on the same draws, so the runs are paired.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bench/lcrun.h"
#include "bench/tables.h"
#include "common/mem.h"
#include "core/asha_sim.h"
#include "core/kernels.h"
#include "tools/mstage_sim.h"
#include "core/rng.h"
#include "core/space.h"
#include "tools/hpod_bench.h"

#define MS_K 3
#define MS_STAGES 3
#define MS_METHODS 4 /* ASHA, then multistage with base random, gp, graph */

/* Trials per stage (Wang et al. 2015 shape: many cheap, few expensive). */
static const size_t ms_trials[MS_STAGES] = {20, 8, 3};

static const struct {
    const char *label;
    enum sampler_kind kind;
} ms_methods[MS_METHODS] = {
    {"ASHA (4 workers)", SAMPLER_RANDOM},
    {"multistage, base random", SAMPLER_RANDOM},
    {"multistage, base gp", SAMPLER_GP},
    {"multistage, base graph", SAMPLER_GRAPH},
};

/* One run's figures, whichever method. */
struct ms_run {
    size_t steps, steps_full, started, rank;
    int best_full, best_started;
    enum hpod_status st;
};

/* Means over the runs of one (set, method). */
struct ms_cell {
    double steps, full, saved, started, rank, rank1, best_full, best_started;
    double seconds;
};

struct ms_set {
    const struct bench_lc_set *set;
    size_t len_med, R, steps[MS_STAGES];
    double nominal; /* checkpoints of the schedule if no curve ends early */
    size_t n_dims;  /* varying hyperparameters */
    struct lcrun_curves c; /* the set's curves (bench/lcrun) */
    double *feat;
    struct space sp;
    struct ms_run *runs[MS_METHODS]; /* o->repeats each */
    struct ms_cell cell[MS_METHODS];
};

/* What a thread needs to replay runs k = tid, tid + T, ... */
struct ms_job {
    const struct hb_opts *o;
    struct ms_set *s;
    size_t method, tid, threads;
};

/* The schedule's checkpoints when every curve is at least R long. */
static double
ms_nominal(const size_t *steps)
{
    double c = 0, prev = 0;
    for (size_t i = 0; i < MS_STAGES; i++) {
        size_t seeds = 0;
        if (i > 0)
            seeds = ms_trials[i] < MS_K ? ms_trials[i] : MS_K;
        /* seeds train from the previous fidelity, new trials from 0 */
        c += (double)seeds * ((double)steps[i] - prev) +
             (double)(ms_trials[i] - seeds) * (double)steps[i];
        prev = (double)steps[i];
    }
    return c;
}

/*
 * The hyperparameters as a finite space: every column that varies in the
 * set is a value list in log scale. The values are positive and mostly
 * double (bpe 1..32 thousand merges, layers 1..6, model size 256..1024,
 * learning rate 3e-4..1e-3), which is how the papers scaled them (their
 * `.hyps_scaled` files use log(x)); constant columns carry no information
 * and are left out. Two curves may share a configuration (the sets hold
 * repeated trainings): they are two candidates with the same features.
 */
static enum hpod_status
ms_space(struct ms_set *s)
{
    const struct bench_lc_set *set = s->set;
    size_t n = set->n, d = set->n_hyper, nd = 0;
    double *vals = xmalloc(n * sizeof *vals);
    size_t *cols = xmalloc((d ? d : 1) * sizeof *cols);
    enum hpod_status st = HPOD_OK;

    space_init(&s->sp);
    for (size_t j = 0; j < d && st == HPOD_OK; j++) {
        size_t nv = 0;
        for (size_t i = 0; i < n; i++) {
            double v = set->curves[i].hyper[j];
            size_t k = 0;
            while (k < nv && vals[k] != v)
                k++;
            if (k == nv)
                vals[nv++] = v;
        }
        if (nv < 2)
            continue;
        int log_scale = 1;
        for (size_t k = 0; k < nv; k++)
            log_scale &= vals[k] > 0;
        st = space_add_values(&s->sp, PARAM_FLOAT, vals, nv, log_scale);
        cols[nd++] = j;
    }
    s->n_dims = nd;
    if (st == HPOD_OK && nd == 0)
        st = HPOD_EINVAL;
    if (st == HPOD_OK) {
        s->feat = xmalloc(n * nd * sizeof *s->feat);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < nd; j++)
                s->feat[i * nd + j] = set->curves[i].hyper[cols[j]];
    }
    free(vals);
    free(cols);
    return st;
}

/* ASHA on run k's draw (bench/lcrun, one run at seed + k): its figures,
 * and whether it started the best. */
static void
ms_asha_run(const struct hb_opts *o, const struct ms_set *s, size_t k,
            struct ms_run *out)
{
    struct asha_params prm;
    struct asha_sim_result res;
    struct lcrun_asha_summary sum;
    struct hpod_err err = {0};
    memset(&prm, 0, sizeof prm);
    memset(&res, 0, sizeof res);
    prm.r = HB_ASHA_R0;
    prm.u = HB_ASHA_U;
    prm.R = s->R;
    prm.p = HB_ASHA_P;
    prm.keep = HB_ASHA_KEEP;
    size_t *drawn = xcalloc(o->configs, sizeof *drawn);
    size_t *trained = xcalloc(o->configs, sizeof *trained);
    out->st = lcrun_asha(&s->c, &prm, HB_ASHA_WORKERS, o->configs, 1,
                         o->seed + k, &res, drawn, trained, &sum, &err);
    out->steps = res.steps;
    out->steps_full = res.steps_full;
    out->rank = res.best_rank;
    out->best_full = res.best_full;
    out->started = 0;
    out->best_started = 0;
    double opt = INFINITY;
    for (size_t j = 0; j < o->configs; j++)
        if (s->c.as[drawn[j]].optimal < opt)
            opt = s->c.as[drawn[j]].optimal;
    for (size_t j = 0; j < o->configs && out->st == HPOD_OK; j++)
        if (trained[j] > 0) {
            out->started++;
            out->best_started |= s->c.as[drawn[j]].optimal == opt;
        }
    free(drawn);
    free(trained);
}

static void *
ms_thread(void *arg)
{
    struct ms_job *jb = arg;
    const struct hb_opts *o = jb->o;
    struct ms_set *s = jb->s;
    for (size_t k = jb->tid; k < o->repeats; k += jb->threads) {
        struct ms_run *out = &s->runs[jb->method][k];
        struct rng r;
        if (jb->method == 0) {
            ms_asha_run(o, s, k, out);
            continue;
        }
        rng_seed(&r, o->seed + k);
        struct mstage_params prm = {MS_STAGES, s->steps, ms_trials,
                                    MS_K,      -1,       0};
        struct mstage_sim_base base = {ms_methods[jb->method].kind, o->seed + k,
                                       (int)o->init, KERNEL_MATERN52, 0};
        struct mstage_sim_result res;
        out->st = mstage_sim_run(s->c.as, s->c.n, s->feat, &s->sp, &prm, &base,
                                 o->configs, &r, &res);
        out->steps = res.steps;
        out->steps_full = res.steps_full;
        out->started = res.started;
        out->rank = res.best_rank;
        out->best_full = res.best_full;
        out->best_started = res.best_started;
    }
    return NULL;
}

/* Runs one (set, method) on o->threads threads; fills its cell. */
static enum hpod_status
ms_cell_run(const struct hb_opts *o, struct ms_set *s, size_t m)
{
    size_t nt = o->threads < o->repeats ? o->threads : o->repeats;
    pthread_t tid[64];
    struct ms_job jobs[64];
    int created[64] = {0};
    enum hpod_status st = HPOD_OK;

    if (nt > 64)
        nt = 64;
    s->runs[m] = xcalloc(o->repeats, sizeof *s->runs[m]);
    double t0 = hb_now();
    for (size_t t = 0; t < nt; t++)
        jobs[t] = (struct ms_job){o, s, m, t, nt};
    for (size_t t = 1; t < nt; t++)
        created[t] = pthread_create(&tid[t], NULL, ms_thread, &jobs[t]) == 0;
    /* The calling thread does share 0, and the share of a thread that
     * could not start: every run is replayed once, whatever happens. */
    ms_thread(&jobs[0]);
    for (size_t t = 1; t < nt; t++) {
        if (created[t])
            pthread_join(tid[t], NULL);
        else
            ms_thread(&jobs[t]);
    }
    struct ms_cell *c = &s->cell[m];
    c->seconds = hb_now() - t0;
    double nr = (double)o->repeats;
    for (size_t k = 0; k < o->repeats; k++) {
        const struct ms_run *r = &s->runs[m][k];
        if (r->st != HPOD_OK && st == HPOD_OK)
            st = r->st;
        c->steps += (double)r->steps / nr;
        c->full += (double)r->steps_full / nr;
        c->saved +=
            100.0 * (1.0 - (double)r->steps / (double)r->steps_full) / nr;
        c->started += (double)r->started / nr;
        c->rank += (double)r->rank / nr;
        c->rank1 += (r->rank == 1 ? 100.0 : 0.0) / nr;
        c->best_full += (r->best_full ? 100.0 : 0.0) / nr;
        c->best_started += (r->best_started ? 100.0 : 0.0) / nr;
    }
    return st;
}

/*
 * The stage fidelities of a set: stage 0 at a, stage 1 halfway from a to
 * R, stage 2 at R, with a the one whose nominal checkpoints come closest
 * to ASHA's mean on the same draws (ties to the smaller a): the two
 * methods then spend about the same budget, and the comparison is of
 * what they keep for it.
 */
static void
ms_schedule(struct ms_set *s, double asha_steps)
{
    double best = INFINITY;
    size_t R = s->R;
    for (size_t a = 1; a + 2 <= R; a++) {
        size_t st[MS_STAGES] = {a, a + (R - a + 1) / 2, R};
        double d = fabs(ms_nominal(st) - asha_steps);
        if (d < best) {
            best = d;
            memcpy(s->steps, st, sizeof st);
        }
    }
    s->nominal = ms_nominal(s->steps);
}

/* Prepares set i and runs its four methods; 0, or -1 after saying why. */
static int
ms_set_run(const struct hb_opts *o, struct ms_set *s)
{
    lcrun_curves_init(&s->c, s->set);
    s->len_med = s->c.len_med;
    s->R = s->len_med < HB_ASHA_RMAX ? s->len_med : HB_ASHA_RMAX;
    if (s->R < HB_ASHA_R0)
        s->R = HB_ASHA_R0;
    if (ms_space(s) != HPOD_OK) {
        fprintf(stderr, "hpod-bench: %s: no usable hyperparameters\n",
                s->set->name);
        return -1;
    }
    for (size_t m = 0; m < MS_METHODS; m++) {
        enum hpod_status st = ms_cell_run(o, s, m);
        if (st != HPOD_OK) {
            fprintf(stderr, "hpod-bench: %s on %s failed (%s)\n",
                    ms_methods[m].label, s->set->name, hpod_status_str(st));
            return -1;
        }
        if (m == 0)
            ms_schedule(s, s->cell[0].steps);
        fprintf(stderr,
                "bench: %s %s: %.0f checkpoints (%.1f%% saved), rank "
                "%.2f, kept best %.0f%%, best started %.0f%%, %.1f s\n",
                s->set->name, ms_methods[m].label, s->cell[m].steps,
                s->cell[m].saved, s->cell[m].rank, s->cell[m].rank1,
                s->cell[m].best_started, s->cell[m].seconds);
    }
    return 0;
}

/* A set's cells, with every run's rank and whether it started the best
 * (the paired comparisons are made from those). */
static json_t *
ms_set_json(const struct hb_opts *o, const struct ms_set *s)
{
    json_t *j = json_object(), *ms = json_array();
    hb_set(j, "set", json_string(s->set->name));
    hb_set(j, "curves", hb_int(s->set->n));
    hb_set(j, "R", hb_int(s->R));
    hb_set(j, "schedule",
           json_pack("[I,I,I]", (json_int_t)s->steps[0],
                     (json_int_t)s->steps[1], (json_int_t)s->steps[2]));
    hb_set(j, "nominal", hb_real(s->nominal));
    for (size_t m = 0; m < MS_METHODS; m++) {
        const struct ms_cell *c = &s->cell[m];
        json_t *cj = json_object(), *rk = json_array(), *bs = json_array();
        hb_set(cj, "label", json_string(ms_methods[m].label));
        hb_set(cj, "steps", hb_real(c->steps));
        hb_set(cj, "full", hb_real(c->full));
        hb_set(cj, "saved", hb_real(c->saved));
        hb_set(cj, "started", hb_real(c->started));
        hb_set(cj, "rank", hb_real(c->rank));
        hb_set(cj, "rank1", hb_real(c->rank1));
        hb_set(cj, "best_full", hb_real(c->best_full));
        hb_set(cj, "best_started", hb_real(c->best_started));
        hb_set(cj, "seconds", hb_real(c->seconds));
        for (size_t k = 0; k < o->repeats; k++) {
            json_array_append_new(rk, hb_int(s->runs[m][k].rank));
            json_array_append_new(bs, json_integer(s->runs[m][k].best_started));
        }
        hb_set(cj, "run_rank", rk);
        hb_set(cj, "run_best_started", bs);
        json_array_append_new(ms, cj);
    }
    hb_set(j, "methods", ms);
    return j;
}

int
hb_multistage(const struct hb_opts *o)
{
    struct bench_lc_set *all = NULL;
    size_t n_all = 0, n_sets = 0;
    const struct bench_lc_set **picked = NULL;
    struct ms_set *sets = NULL;
    int rc = 1;

    double t0 = hb_now();
    if (hb_curve_sets(o, &all, &n_all, &picked, &n_sets) != 0)
        goto out;
    sets = xcalloc(n_sets, sizeof *sets);
    for (size_t i = 0; i < n_sets; i++) {
        sets[i].set = picked[i];
        if (ms_set_run(o, &sets[i]) != 0)
            goto out;
    }
    double total_s = hb_now() - t0;
    fprintf(stderr, "bench: multistage done in %.1f s\n", total_s);

    json_t *rep = hb_report_new(o, "multistage"), *js = json_array();
    hb_set(rep, "asha", hb_asha_constants());
    hb_set(rep, "trials",
           json_pack("[I,I,I]", (json_int_t)ms_trials[0],
                     (json_int_t)ms_trials[1], (json_int_t)ms_trials[2]));
    hb_set(rep, "k", hb_int(MS_K));
    for (size_t i = 0; i < n_sets; i++)
        json_array_append_new(js, ms_set_json(o, &sets[i]));
    hb_set(rep, "sets", js);
    hb_set(rep, "seconds", hb_real(total_s));
    rc = hb_emit(o, rep) == 0 ? 0 : 1;
out:
    for (size_t i = 0; sets && i < n_sets; i++) {
        lcrun_curves_free(&sets[i].c);
        free(sets[i].feat);
        space_clear(&sets[i].sp);
        for (size_t m = 0; m < MS_METHODS; m++)
            free(sets[i].runs[m]);
    }
    free(sets);
    free(picked);
    tables_lc_free(all, n_all);
    return rc;
}
