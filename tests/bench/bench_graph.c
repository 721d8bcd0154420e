/*
 * tests/bench/bench_graph.c - timing of core/graph.c at the size of the
 * sw-en table: n = 767 random points in [0,1]^6, default options (RBF,
 * k for average degree n/7, automatic lengthscale, paper EIF labels).
 *
 * Prints one line per case with the median wall time in ms:
 *   create               graph_create
 *   eif|predict cold     nl labels, nothing cached (Cholesky + inverse)
 *   eif|predict warm     nl labels after a call with the first nl-1 of
 *                        them (one Schur-complement downdate)
 *   eif reuse            same labeled set as the previous call
 * and the largest difference between warm and cold answers, including after
 * a chain of 450 single-label downdates (nl 50 -> 500).
 * Run with OPENBLAS_NUM_THREADS=1 (the server's setting).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/graph.h"
#include "core/rng.h"

#define N 767
#define DIM 6
#define REPS 9

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int
dbl_cmp(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

static double
median(double *t, size_t m)
{
    qsort(t, m, sizeof *t, dbl_cmp);
    return t[m / 2];
}

static double
max_rel_diff(const double *a, const double *b, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (isinf(a[i]) || isinf(b[i]))
            continue;
        double d = fabs(a[i] - b[i]) / (1.0 + fabs(b[i]));
        if (d > m)
            m = d;
    }
    return m;
}

static void
check(enum hpod_status st, const char *what)
{
    if (st != HPOD_OK) {
        fprintf(stderr, "bench_graph: %s failed: %s\n", what,
                hpod_status_str(st));
        exit(1);
    }
}

int
main(void)
{
    static double x[N * DIM], y[N], score[N], score2[N], mean[N], var[N],
        mean2[N], var2[N];
    static size_t lab[N];
    double t[REPS];
    struct rng r;
    struct graph *g = NULL;
    size_t nls[3] = {50, 200, 500};

    rng_seed(&r, 767);
    for (size_t i = 0; i < N * DIM; i++)
        x[i] = rng_uniform(&r);
    for (size_t i = 0; i < N; i++) {
        lab[i] = i;
        y[i] = 20.0 + 3.0 * rng_normal(&r);
    }
    rng_shuffle(&r, lab, N);

    for (int k = 0; k < 5; k++) {
        double t0 = now_ms();
        graph_free(g);
        g = NULL;
        check(graph_create(x, N, DIM, NULL, &g), "graph_create");
        t[k] = now_ms() - t0;
    }
    printf("graph/create n=%d dim=%d k=%zu avg_degree=%.1f ell=%.4f: "
           "median %.2f ms\n",
           N, DIM, graph_k(g), graph_avg_degree(g), graph_lengthscale(g),
           median(t, 5));

    for (int c = 0; c < 3; c++) {
        size_t nl = nls[c], u = N - nl;
        double diff_eif, diff_mean, diff_var;

        for (int k = 0; k < REPS; k++) {
            graph_forget(g);
            double t0 = now_ms();
            check(graph_eif(g, lab, y, nl, score), "graph_eif cold");
            t[k] = now_ms() - t0;
        }
        printf("graph/eif nl=%zu u=%zu cold: median %.2f ms\n", nl, u,
               median(t, REPS));
        for (int k = 0; k < REPS; k++) {
            graph_forget(g);
            double t0 = now_ms();
            check(graph_predict(g, lab, y, nl, mean, var), "predict cold");
            t[k] = now_ms() - t0;
        }
        printf("graph/predict nl=%zu u=%zu cold: median %.2f ms\n", nl, u,
               median(t, REPS));
        for (int k = 0; k < REPS; k++) {
            graph_forget(g);
            check(graph_eif(g, lab, y, nl - 1, score2), "graph_eif prime");
            double t0 = now_ms();
            check(graph_eif(g, lab, y, nl, score2), "graph_eif warm");
            t[k] = now_ms() - t0;
            if (graph_last_path(g) != GRAPH_PATH_WARM) {
                fprintf(stderr, "bench_graph: warm path not taken\n");
                return 1;
            }
        }
        printf("graph/eif nl=%zu u=%zu warm: median %.2f ms\n", nl, u,
               median(t, REPS));
        for (int k = 0; k < REPS; k++) {
            graph_forget(g);
            check(graph_predict(g, lab, y, nl - 1, mean2, var2), "prime");
            double t0 = now_ms();
            check(graph_predict(g, lab, y, nl, mean2, var2), "predict warm");
            t[k] = now_ms() - t0;
        }
        printf("graph/predict nl=%zu u=%zu warm: median %.2f ms\n", nl, u,
               median(t, REPS));
        for (int k = 0; k < REPS; k++) {
            double t0 = now_ms();
            check(graph_eif(g, lab, y, nl, score2), "graph_eif reuse");
            t[k] = now_ms() - t0;
        }
        printf("graph/eif nl=%zu u=%zu reuse: median %.2f ms\n", nl, u,
               median(t, REPS));
        diff_eif = max_rel_diff(score2, score, N);
        diff_mean = max_rel_diff(mean2, mean, N);
        diff_var = max_rel_diff(var2, var, N);
        printf("graph/warm-vs-cold nl=%zu: max rel diff eif %.2e mean %.2e "
               "var %.2e\n",
               nl, diff_eif, diff_mean, diff_var);
    }

    /* A whole study's worth of single-label downdates. */
    {
        double t0, total;
        int warm = 0;
        graph_forget(g);
        check(graph_eif(g, lab, y, 50, score2), "chain start");
        t0 = now_ms();
        for (size_t nl = 51; nl <= 500; nl++) {
            check(graph_eif(g, lab, y, nl, score2), "chain");
            warm += graph_last_path(g) == GRAPH_PATH_WARM;
        }
        total = now_ms() - t0;
        check(graph_predict(g, lab, y, 500, mean2, var2), "chain predict");
        graph_forget(g);
        check(graph_eif(g, lab, y, 500, score), "chain cold");
        check(graph_predict(g, lab, y, 500, mean, var), "chain cold predict");
        printf("graph/eif chain nl=51..500 (%d/450 warm): mean %.2f ms per "
               "call; max rel diff vs cold eif %.2e mean %.2e var %.2e\n",
               warm, total / 450.0, max_rel_diff(score2, score, N),
               max_rel_diff(mean2, mean, N), max_rel_diff(var2, var, N));
    }
    graph_free(g);
    return 0;
}
