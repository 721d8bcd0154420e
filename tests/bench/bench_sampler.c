/*
 * tests/bench/bench_sampler.c - core time per suggestion on a real table.
 *
 *   bench_sampler [TSV]   (default ../shared/benchmarks/nmthpo/sw-en.tsv)
 *
 * For 50, 200 and 500 observations (rows drawn at random, seed 0, with their
 * real bleu), times sampler_next for graph/eif, graph/ei (and on an ARD
 * metric), gp/ei and gp/nei
 * with lengthscale_min 0.3 (BO_NEI_M) (with hyperparameter refit): "cold" with
 * a fresh sampler state (a new process: graph build + factorization), "warm"
 * with the state of the previous observation count minus one (the per-process
 * cache after one new label). Then times the full re-solve EIF of the public
 * reference method (graph_eif_bruteforce: one Laplacian solve per candidate)
 * once, at 200 observations, for comparison with the rank-one look-ahead.
 * Medians of repeated runs, CLOCK_MONOTONIC, one BLAS thread.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/graph.h"
#include "core/kernels.h"
#include "core/linalg.h"
#include "common/mem.h"
#include "core/rng.h"
#include "core/sampler.h"
#include "core/space.h"

#define NPARAM 6
static const char *param_cols[NPARAM] = {
    "bpe", "num_layers", "num_embed", "num_hidden", "num_heads", "init_lr"};
static const int param_log[NPARAM] = {1, 0, 1, 1, 1, 1};

static double
now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int
cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double
median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Reads the table: raw params (n×6) and bleu. Returns n, 0 on error. */
static size_t
load(const char *path, double **raw, double **bleu)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    int col[NPARAM], cb = -1;
    size_t n = 0, cap = 0;
    if (!f)
        return 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return 0;
    }
    {
        int c = 0;
        for (char *tok = strtok(line, "\t\n"); tok;
             tok = strtok(NULL, "\t\n"), c++) {
            for (int k = 0; k < NPARAM; k++)
                if (strcmp(tok, param_cols[k]) == 0)
                    col[k] = c;
            if (strcmp(tok, "bleu") == 0)
                cb = c;
        }
    }
    *raw = NULL;
    *bleu = NULL;
    while (fgets(line, sizeof line, f)) {
        double v[32];
        int c = 0;
        for (char *tok = strtok(line, "\t\n"); tok && c < 32;
             tok = strtok(NULL, "\t\n"))
            v[c++] = atof(tok);
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            *raw = xrealloc(*raw, cap * NPARAM * sizeof **raw);
            *bleu = xrealloc(*bleu, cap * sizeof **bleu);
        }
        for (int k = 0; k < NPARAM; k++)
            (*raw)[n * NPARAM + k] = v[col[k]];
        (*bleu)[n] = v[cb];
        n++;
    }
    fclose(f);
    return n;
}

int
main(int argc, char **argv)
{
    const char *path =
        argc > 1 ? argv[1] : "../shared/benchmarks/nmthpo/sw-en.tsv";
    double *raw = NULL, *bleu = NULL;
    size_t n = load(path, &raw, &bleu);
    struct space sp;
    static const size_t counts[] = {50, 200, 500};
    struct {
        const char *name;
        enum sampler_kind kind;
        int acq;
        int reps;
        double ls_min;
    } algos[] = {{"graph/eif", SAMPLER_GRAPH, 1, 7, 0.0},
                 {"graph/ei", SAMPLER_GRAPH, 0, 7, 0.0},
                 {"gp/ei (refit)", SAMPLER_GP, 0, 5, 0.0},
                 {"gp/nei ls0.3", SAMPLER_GP, 3, 5, 0.3}};

    if (n == 0) {
        fprintf(stderr, "bench_sampler: could not read %s\n", path);
        return 1;
    }
    linalg_set_threads(1);
    space_init(&sp);
    for (int k = 0; k < NPARAM; k++) {
        double *v = xmalloc(n * sizeof *v);
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            double x = raw[i * NPARAM + k];
            size_t j;
            for (j = 0; j < m && v[j] != x; j++)
                ;
            if (j == m)
                v[m++] = x;
        }
        space_add_values(&sp, PARAM_FLOAT, v, m, param_log[k]);
        free(v);
    }
    printf("core time per suggestion on %s (%zu rows, dim %zu), median ms\n",
           path, n, sp.dim);
    printf("%-14s %6s %10s %10s\n", "algorithm", "obs", "cold", "warm");

    size_t *order = xmalloc(n * sizeof *order);
    struct rng r;
    rng_seed(&r, 0);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    rng_shuffle(&r, order, n);
    double *obs_raw = xmalloc(n * NPARAM * sizeof *obs_raw);
    double *obs_y = xmalloc(n * sizeof *obs_y);
    unsigned char *used = xcalloc(n, 1);
    for (size_t i = 0; i < n; i++) {
        memcpy(obs_raw + i * NPARAM, raw + order[i] * NPARAM,
               NPARAM * sizeof *raw);
        obs_y[i] = bleu[order[i]];
    }

    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        for (size_t c = 0; c < 3; c++) {
            size_t no = counts[c];
            double cold[9], warm[9];
            memset(used, 0, n);
            for (size_t i = 0; i < no; i++)
                used[order[i]] = 1;
            struct sampler_input in = {.space = &sp,
                                       .kind = algos[a].kind,
                                       .seed = 0,
                                       .seq = (int)no,
                                       .init = 3,
                                       .kernel = KERNEL_MATERN52,
                                       .acquisition = algos[a].acq,
                                       .ls_min = algos[a].ls_min,
                                       .cand_raw = raw,
                                       .cand_used = used,
                                       .n_cand = n,
                                       .obs_raw = obs_raw,
                                       .obs_y = obs_y,
                                       .obs_cand = order,
                                       .n_obs = no};
            for (int rep = 0; rep < algos[a].reps; rep++) {
                double out[NPARAM];
                size_t cand;
                struct sampler_state *st = sampler_state_create();
                in.state = st;
                double t0 = now_ms();
                sampler_next(&in, out, &cand);
                cold[rep] = now_ms() - t0;
                /* Warm: the cache holds the factor of no-1 labels. */
                in.n_obs = no - 1;
                used[order[no - 1]] = 0;
                sampler_next(&in, out, &cand);
                in.n_obs = no;
                used[order[no - 1]] = 1;
                t0 = now_ms();
                sampler_next(&in, out, &cand);
                warm[rep] = now_ms() - t0;
                sampler_state_free(st);
            }
            printf("%-14s %6zu %10.2f %10.2f\n", algos[a].name, no,
                   median(cold, (size_t)algos[a].reps),
                   algos[a].kind == SAMPLER_GRAPH
                       ? median(warm, (size_t)algos[a].reps)
                       : median(cold, (size_t)algos[a].reps));
        }
    }

    /* The re-solve-per-candidate EIF (what the public reference does). */
    {
        struct graph *g = NULL;
        double *u = xmalloc(n * sp.dim * sizeof *u);
        double *score = xmalloc(n * sizeof *score);
        for (size_t i = 0; i < n; i++)
            space_encode(&sp, raw + i * NPARAM, u + i * sp.dim);
        if (graph_create(u, n, sp.dim, NULL, &g) == HPOD_OK) {
            size_t no = 200;
            double t0 = now_ms();
            graph_eif(g, order, obs_y, no, score);
            double fast = now_ms() - t0;
            t0 = now_ms();
            graph_eif_bruteforce(g, order, obs_y, no, score);
            double slow = now_ms() - t0;
            printf("EIF at 200 obs: rank-one look-ahead %.2f ms (cold factor),"
                   " full re-solve per candidate %.0f ms: %.0fx\n",
                   fast, slow, slow / fast);
        }
        graph_free(g);
        free(u);
        free(score);
    }
    free(order);
    free(obs_raw);
    free(obs_y);
    free(used);
    free(raw);
    free(bleu);
    space_clear(&sp);
    return 0;
}
