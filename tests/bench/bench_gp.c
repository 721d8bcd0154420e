/*
 * tests/bench/bench_gp.c - time one GP suggestion: gp_create + gp_fit
 * (hyperparameter refit) + gp_predict on 767 candidates + log-EI scoring,
 * for n = 50, 200, 500 observations in dim 6 (the sw-en table's size).
 *
 * Speed goal (issue 3): ≤ 50 ms at n = 200 and ≤ 300 ms at n = 500 on one
 * core; run with OPENBLAS_NUM_THREADS=1. Prints one line per n with the
 * median over REPS repetitions (different rng seeds, same data), split
 * into fit and predict, plus the process CPU time (less sensitive to other
 * jobs on a shared machine) and the optimizer's evaluation counts.
 * Then the warm path (issue 14: ≤ 15 ms per suggestion at 500 over HTTP):
 * sampler_next on a finite study of NCAND candidates as hpod serves it,
 * with the study's kept model and the sampler state, for the WARM_STEPS
 * suggestions that take the history from n - WARM_STEPS to n completed
 * trials (one new observation per suggestion, one trial pending). Its
 * mean includes the refits gp_refit_due schedules (amortized); max is a
 * refit's cost. The cold line is the same suggestion without a kept
 * model (a refit every time, as before).
 * Not a test: nothing is asserted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/acquisition.h"
#include "core/gp.h"
#include "core/linalg.h"
#include "core/rng.h"
#include "core/sampler.h"
#include "core/space.h"

#define DIM 6
#define NCAND 767
#define REPS 7

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* CPU time of the process: less sensitive to other jobs on the machine. */
static double
cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double
median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A smooth BLEU-like response with one irrelevant input and some noise. */
static double
response(const double *x, struct rng *r)
{
    return 20.0 + 3.0 * sin(3.0 * x[0]) - 4.0 * (x[1] - 0.4) * (x[1] - 0.4) +
           1.5 * cos(4.0 * x[2] * x[3]) + 0.5 * x[4] + 0.05 * rng_normal(r);
}

#define WARM_STEPS 60

/* sampler_next over a growing history: mean and max ms per suggestion,
 * and the number of refits, with or without a kept model. */
static void
warm_path(const struct space *sp, const double *cand, size_t n_end, int keep)
{
    size_t n0 = n_end - WARM_STEPS, refits = 0;
    double *obs = malloc((n_end + 1) * DIM * sizeof(double));
    double *y = malloc((n_end + 1) * sizeof(double));
    size_t *oc = malloc((n_end + 1) * sizeof(size_t));
    unsigned char *used = calloc(NCAND, 1);
    double raw[DIM], tsum = 0.0, tmax = 0.0, csum = 0.0;
    struct sampler_state *state = sampler_state_create();
    struct sampler_gp_model model = {0};
    struct rng r;

    rng_seed(&r, 5);
    for (size_t i = 0; i <= n_end; i++) {
        /* Observations: candidates 0..n-1 in order; the next is pending. */
        memcpy(obs + i * DIM, cand + i * DIM, DIM * sizeof(double));
        y[i] = response(cand + i * DIM, &r);
        oc[i] = i;
    }
    /* Warm-up: the model and state as after suggestion n0 - 1. */
    for (size_t n = n0 - 1; n <= n_end; n++) {
        struct sampler_input in = {
            .space = sp,
            .kind = SAMPLER_GP,
            .seed = 3,
            .seq = (int)n + 1,
            .init = 3,
            .kernel = KERNEL_MATERN52,
            .acquisition = 0,
            .cand_raw = cand,
            .cand_used = used,
            .n_cand = NCAND,
            .obs_raw = obs,
            .obs_y = y,
            .obs_cand = oc,
            .n_obs = n,
            .pend_raw = obs + n * DIM,
            .pend_cand = oc + n,
            .n_pend = 1,
            .state = keep ? state : NULL,
            .gp_model = keep ? &model : NULL,
        };
        size_t c;
        for (size_t i = 0; i <= n; i++)
            used[i] = 1;
        double c0 = cpu_ms(), t0 = now_ms();
        if (sampler_next(&in, raw, &c) != HPOD_OK) {
            fprintf(stderr, "bench_gp: sampler_next failed at n=%zu\n", n);
            exit(1);
        }
        double t = now_ms() - t0, ct = cpu_ms() - c0;
        if (n < n0)
            continue;
        refits += model.changed;
        model.changed = 0;
        tsum += t;
        csum += ct;
        tmax = t > tmax ? t : tmax;
    }
    printf("bench_gp %s n=%zu..%zu dim=%d cand=%d suggestions=%d "
           "mean_ms=%.2f cpu_ms=%.2f max_ms=%.1f refits=%zu\n",
           keep ? "warm" : "cold", n0, n_end, DIM, NCAND, WARM_STEPS + 1,
           tsum / (WARM_STEPS + 1), csum / (WARM_STEPS + 1), tmax,
           keep ? refits : (size_t)WARM_STEPS + 1);
    sampler_gp_model_clear(&model);
    sampler_state_free(state);
    free(obs);
    free(y);
    free(oc);
    free(used);
}

static void
warm_paths(void)
{
    static const size_t ends[] = {200, 500};
    struct space sp;
    struct rng r;
    double *cand = malloc(NCAND * DIM * sizeof(double));

    space_init(&sp);
    for (int d = 0; d < DIM; d++)
        space_add_range(&sp, PARAM_FLOAT, 0.0, 1.0, 0);
    rng_seed(&r, 767);
    for (size_t i = 0; i < NCAND * DIM; i++)
        cand[i] = rng_uniform(&r);
    for (size_t k = 0; k < sizeof ends / sizeof ends[0]; k++) {
        warm_path(&sp, cand, ends[k], 1);
        warm_path(&sp, cand, ends[k], 0);
    }
    space_clear(&sp);
    free(cand);
}

int
main(void)
{
    static const size_t sizes[] = {50, 200, 500};
    struct rng r;
    double *xc = malloc(NCAND * DIM * sizeof(double));
    double *mean = malloc(NCAND * sizeof(double));
    double *var = malloc(NCAND * sizeof(double));
    double *score = malloc(NCAND * sizeof(double));

    linalg_set_threads(1);
    rng_seed(&r, 767);
    for (size_t i = 0; i < NCAND * DIM; i++)
        xc[i] = rng_uniform(&r);

    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        double *x = malloc(n * DIM * sizeof(double));
        double *y = malloc(n * sizeof(double));
        double tot[REPS], tfit[REPS], tpred[REPS], tcpu[REPS];
        struct gp_fit_stats st = {0};
        double best = -HUGE_VAL;

        rng_seed(&r, 1000 + n);
        for (size_t i = 0; i < n * DIM; i++)
            x[i] = rng_uniform(&r);
        for (size_t i = 0; i < n; i++) {
            y[i] = response(x + i * DIM, &r);
            if (y[i] > best)
                best = y[i];
        }
        for (int k = 0; k < REPS; k++) {
            struct rng fr;
            rng_seed2(&fr, 7, (uint64_t)k);
            double c0 = cpu_ms();
            double t0 = now_ms();
            struct gp *gp = gp_create(n, DIM, KERNEL_MATERN52);
            if (gp_fit(gp, x, y, n, &fr) != HPOD_OK) {
                fprintf(stderr, "bench_gp: gp_fit failed at n=%zu\n", n);
                return 1;
            }
            double t1 = now_ms();
            if (gp_predict(gp, xc, NCAND, mean, var) != HPOD_OK) {
                fprintf(stderr, "bench_gp: gp_predict failed\n");
                return 1;
            }
            acq_score(ACQ_EI, mean, var, NCAND, best, 0.0, score);
            (void)acq_argmax(score, NCAND, NULL);
            double t2 = now_ms();
            gp_get_fit_stats(gp, &st);
            gp_free(gp);
            double t3 = now_ms();
            tcpu[k] = cpu_ms() - c0;
            tfit[k] = t1 - t0;
            tpred[k] = t2 - t1;
            tot[k] = t3 - t0;
        }
        printf("bench_gp n=%zu dim=%d cand=%d reps=%d median_ms=%.1f "
               "cpu_ms=%.1f fit_ms=%.1f predict_ms=%.1f evals=%zu+%zu "
               "lml=%.2f\n",
               n, DIM, NCAND, REPS, median(tot, REPS), median(tcpu, REPS),
               median(tfit, REPS), median(tpred, REPS), st.n_value_evals,
               st.n_grad_evals, st.lml);
        if (getenv("BENCH_GP_REF")) {
            /* Thorough fit: how much LML the speed budget leaves behind. */
            struct gp_fit_options o;
            struct rng fr;
            struct gp *gp = gp_create(n, DIM, KERNEL_MATERN52);
            gp_fit_options_default(&o);
            o.n_starts = 32;
            o.n_local = 4;
            o.max_eval = 300;
            gp_set_fit_options(gp, &o);
            rng_seed(&fr, 99);
            double t0 = now_ms();
            gp_fit(gp, x, y, n, &fr);
            double t1 = now_ms();
            gp_get_fit_stats(gp, &st);
            printf("bench_gp n=%zu reference fit: %.1f ms evals=%zu+%zu "
                   "lml=%.2f\n",
                   n, t1 - t0, st.n_value_evals, st.n_grad_evals, st.lml);
            gp_free(gp);
        }
        free(x);
        free(y);
    }
    free(xc);
    free(mean);
    free(var);
    free(score);
    warm_paths();
    return 0;
}
