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
 * Not a test: nothing is asserted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/acquisition.h"
#include "core/gp.h"
#include "core/linalg.h"
#include "core/rng.h"

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
            gp_destroy(gp);
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
            gp_destroy(gp);
        }
        free(x);
        free(y);
    }
    free(xc);
    free(mean);
    free(var);
    free(score);
    return 0;
}
