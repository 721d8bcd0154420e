/*
 * tests/unit/test_sampler_graph.c - the graph sampler
 * (core/sampler_graph.h): rank invariance of graph EI, the GP/graph rank
 * mix and the ARD metric against brute-force references.
 */
#include "tests/support/sampler_grid.h"

#include "core/acquisition.h"
#include "core/graph.h"
#include "core/kernels.h"
#include "core/sampler_graph.h"

static void
test_graph_ei_rank_invariant(void **state)
{
    (void)state;
    check_rank_invariant(SAMPLER_GRAPH, KERNEL_RBF);
}

/*
 * SAMPLER_V_MIX against brute force: with five free candidates the
 * explanations of the GP alone and of graph EI alone rank all of them;
 * the mixed choice is the lowest sum of the two ranks (ties to the lower
 * index).
 */
static void
test_gp_graph_mix_reference(void **state)
{
    (void)state;
    enum { NO = 30, FREE = 5 };
    size_t obs_cand[NO];
    double obs_raw[2 * NO], y[NO];
    unsigned char used[G * G] = {0};
    size_t freec[FREE] = {5, 40, 77, 100, 131};
    history(NO, 0, obs_cand, obs_raw, y, used);
    for (size_t i = 0; i < G * G; i++)
        used[i] = 1;
    for (size_t k = 0; k < FREE; k++) {
        for (size_t i = 0; i < NO; i++)
            assert_true(obs_cand[i] != freec[k]);
        used[freec[k]] = 0;
    }
    double rank[2][G * G];
    for (int m = 0; m < 2; m++) {
        struct sampler_explain ex = {0};
        struct sampler_input in = {.space = &sp,
                                   .kind = m ? SAMPLER_GRAPH : SAMPLER_GP,
                                   .seed = 4,
                                   .seq = NO,
                                   .init = 3,
                                   .kernel = KERNEL_MATERN52,
                                   .acquisition = 0,
                                   .cand_raw = cand,
                                   .cand_used = used,
                                   .n_cand = G * G,
                                   .obs_raw = obs_raw,
                                   .obs_y = y,
                                   .obs_cand = obs_cand,
                                   .n_obs = NO,
                                   .explain = &ex};
        double raw[2];
        size_t got;
        assert_int_equal(sampler_next(&in, raw, &got), HPOD_OK);
        assert_int_equal(ex.n_runners, FREE - 1);
        for (size_t j = 0; j < FREE; j++)
            rank[m][j ? ex.runner[j - 1].cand : ex.pick.cand] = (double)j;
        sampler_explain_clear(&ex);
    }
    size_t want = G * G;
    for (size_t i = 0; i < G * G; i++)
        if (!used[i] && (want == G * G || rank[0][i] + rank[1][i] <
                                              rank[0][want] + rank[1][want]))
            want = i;
    struct sampler_input in = {.space = &sp,
                               .kind = SAMPLER_GP,
                               .seed = 4,
                               .seq = NO,
                               .init = 3,
                               .kernel = KERNEL_MATERN52,
                               .acquisition = 0,
                               .variant = SAMPLER_V_MIX,
                               .cand_raw = cand,
                               .cand_used = used,
                               .n_cand = G * G,
                               .obs_raw = obs_raw,
                               .obs_y = y,
                               .obs_cand = obs_cand,
                               .n_obs = NO};
    double raw[2];
    size_t got;
    assert_int_equal(sampler_next(&in, raw, &got), HPOD_OK);
    assert_int_equal(got, want);
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * sampler_graph_ard_scale and the graph on its output against a brute-force
 * ARD build: after scaling, the Euclidean distance of two rows is
 * sqrt(Σ_k ((x_k − y_k)/ℓ_k)²); the kNN graph (k = 4) on the scaled rows
 * has exactly the edges of the brute-force kNN rule on the ARD distance
 * (j among the 4 nearest of i, ties to the lower index, or i among j's),
 * its lengthscale is the median ARD edge length and every weight is
 * kernel_corr(d²/ℓ²). The ARD graph differs from the plain one (a
 * lengthscale of 4 on the first dimension changes neighbours).
 */
static void
test_ard_graph_reference(void **state)
{
    (void)state;
    enum { N = 40, D = 3, K = 4 };
    const double ls[D] = {4.0, 0.5, 1.3};
    double x[N * D], u[N * D], d2[N * N], len[N * N];
    unsigned char edge[N * N] = {0};
    size_t ne = 0, plain_diff = 0;
    struct rng r;
    struct graph *g = NULL, *g0 = NULL;
    struct graph_options o;

    rng_seed(&r, 5);
    for (size_t i = 0; i < N * D; i++)
        x[i] = rng_uniform(&r);
    memcpy(u, x, sizeof u);
    sampler_graph_ard_scale(u, N, D, ls);
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) {
            double s = 0.0, e = 0.0;
            for (size_t k = 0; k < D; k++) {
                double t = (x[i * D + k] - x[j * D + k]) / ls[k];
                double v = u[i * D + k] - u[j * D + k];
                s += t * t;
                e += v * v;
            }
            d2[i * N + j] = s;
            assert_true(fabs(s - e) <= 1e-12 * (1.0 + s));
        }
    /* Brute-force kNN on the ARD distance: rank of j among i's others. */
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) {
            size_t rank = 0;
            if (j == i)
                continue;
            for (size_t m = 0; m < N; m++)
                if (m != i && m != j &&
                    (d2[i * N + m] < d2[i * N + j] ||
                     (d2[i * N + m] == d2[i * N + j] && m < j)))
                    rank++;
            if (rank < K)
                edge[i * N + j] = edge[j * N + i] = 1;
        }
    for (size_t i = 0; i < N; i++)
        for (size_t j = i + 1; j < N; j++)
            if (edge[i * N + j])
                len[ne++] = sqrt(d2[i * N + j]);
    qsort(len, ne, sizeof *len, cmp_double);
    double ell = ne % 2 ? len[ne / 2] : 0.5 * (len[ne / 2 - 1] + len[ne / 2]);

    graph_options_default(&o);
    o.kernel = KERNEL_MATERN52;
    o.k = K;
    assert_int_equal(graph_create(u, N, D, &o, &g), HPOD_OK);
    assert_int_equal(graph_create(x, N, D, &o, &g0), HPOD_OK);
    assert_true(fabs(graph_lengthscale(g) - ell) <= 1e-12 * ell);
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) {
            if (j == i)
                continue;
            double w = graph_weight(g, i, j);
            double want =
                edge[i * N + j]
                    ? kernel_corr(KERNEL_MATERN52, d2[i * N + j] / (ell * ell))
                    : 0.0;
            assert_true(fabs(w - want) <= 1e-12);
            plain_diff += (graph_weight(g0, i, j) > 0.0) != (w > 0.0);
        }
    assert_true(plain_diff > 0);
    graph_destroy(g);
    graph_destroy(g0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_ei_rank_invariant),
        cmocka_unit_test(test_gp_graph_mix_reference),
        cmocka_unit_test(test_ard_graph_reference),
    };
    return cmocka_run_group_tests_name("sampler_graph", tests, setup, teardown);
}
