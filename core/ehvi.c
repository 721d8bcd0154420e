/*
 * core/ehvi.c - expected hypervolume improvement: exact strip sum in 2-D,
 * Monte Carlo for any number of objectives. Contracts in core/ehvi.h.
 *
 * Everything is computed in "gain" coordinates u_j = ±(y_j − ref_j), the
 * sign making better positive, where the dominated region is a union of
 * boxes [0, u_i] whatever the goals. Pure: no I/O, no globals.
 */
#include "core/ehvi.h"

#include <math.h>
#include <stdlib.h>

#include "common/mem.h"
#include "core/pareto.h"

struct gain_key {
    double a, b;
};

static double gain(double y, double ref, int sense);
static size_t to_gain(const double *front, size_t k, size_t m, const int *sense,
                      const double *ref, double *u);
static double hvi_gain(struct pareto_hv *w, const double *u, size_t k, size_t m,
                       const double *g, double *lim, const int *ones,
                       const double *zeros);
static double expected_excess(double mean, double sd, double t);
static int gain_key_cmp(const void *pa, const void *pb);

static double
gain(double y, double ref, int sense)
{
    return sense < 0 ? ref - y : y - ref;
}

/* Keeps the front points strictly better than ref in every objective. */
static size_t
to_gain(const double *front, size_t k, size_t m, const int *sense,
        const double *ref, double *u)
{
    size_t n = 0;
    for (size_t i = 0; i < k; i++) {
        size_t c = 0;
        for (; c < m; c++) {
            u[n * m + c] = gain(front[i * m + c], ref[c], sense[c]);
            if (!(u[n * m + c] > 0))
                break;
        }
        if (c == m)
            n++;
    }
    return n;
}

/*
 * Improvement of the gain point g over the boxes u: the volume of [0, g]
 * minus the part of it already dominated, which is the hypervolume of the
 * boxes [0, min(g, u_i)] (the limit set of WFG).
 */
static double
hvi_gain(struct pareto_hv *w, const double *u, size_t k, size_t m,
         const double *g, double *lim, const int *ones, const double *zeros)
{
    double box = 1;
    for (size_t c = 0; c < m; c++) {
        if (!(g[c] > 0))
            return 0;
        box *= g[c];
    }
    for (size_t i = 0; i < k; i++)
        for (size_t c = 0; c < m; c++)
            lim[i * m + c] = u[i * m + c] < g[c] ? u[i * m + c] : g[c];
    double hvi = box - pareto_hv_volume(w, lim, k, ones, zeros);
    /* Rounding may leave −ε for a dominated point. */
    return hvi > 0 ? hvi : 0;
}

/*
 * E[(U − t)⁺] for U ~ N(mean, sd²): sd·φ(z) + (mean − t)·Φ(z), z =
 * (mean − t)/sd (the expected-improvement integral, Jones et al. 1998
 * eq. 15); the limit max(mean − t, 0) when sd == 0; 0 for t = +Inf.
 */
static double
expected_excess(double mean, double sd, double t)
{
    double d = mean - t, z, v;
    if (isinf(t) && t > 0)
        return 0;
    if (!(sd > 0))
        return d > 0 ? d : 0;
    z = d / sd;
    /* φ(z) = exp(−z²/2)/√(2π); Φ(z) = erfc(−z/√2)/2, accurate in the tail. */
    v = sd * 0.3989422804014327 * exp(-0.5 * z * z) +
        d * 0.5 * erfc(-z * 0.7071067811865476);
    /* Far in the lower tail the two terms cancel; the integral is >= 0. */
    return v > 0 ? v : 0;
}

/* Descending a, then descending b. */
static int
gain_key_cmp(const void *pa, const void *pb)
{
    const struct gain_key *x = pa, *y = pb;
    if (x->a != y->a)
        return x->a < y->a ? 1 : -1;
    if (x->b != y->b)
        return x->b < y->b ? 1 : -1;
    return 0;
}

double
ehvi_hvi(const double *front, size_t k, size_t m, const int *sense,
         const double *ref, const double *y)
{
    double *u, *lim, *g, *zeros, hvi;
    struct pareto_hv *w;
    int *ones;
    size_t n;

    if (m == 0)
        return 0;
    u = xmalloc((k ? k : 1) * m * sizeof *u);
    lim = xmalloc((k ? k : 1) * m * sizeof *lim);
    g = xmalloc(m * sizeof *g);
    zeros = xcalloc(m, sizeof *zeros);
    ones = xmalloc(m * sizeof *ones);
    for (size_t c = 0; c < m; c++) {
        ones[c] = 1;
        g[c] = gain(y[c], ref[c], sense[c]);
    }
    n = to_gain(front, k, m, sense, ref, u);
    w = pareto_hv_create(m);
    hvi = hvi_gain(w, u, n, m, g, lim, ones, zeros);
    pareto_hv_free(w);
    free(u);
    free(lim);
    free(g);
    free(zeros);
    free(ones);
    return hvi;
}

double
ehvi_2d(const double *front, size_t k, const int *sense, const double *ref,
        const double *mu, const double *sd)
{
    struct gain_key *p = xmalloc((k ? k : 1) * sizeof *p);
    double *u = xmalloc((k ? k : 1) * 2 * sizeof *u);
    double m1 = gain(mu[0], ref[0], sense[0]);
    double m2 = gain(mu[1], ref[1], sense[1]);
    double ehvi = 0, prev_a = 0;
    size_t n = to_gain(front, k, 2, sense, ref, u), s = 0;

    /* Staircase: a descending with b strictly ascending after the sweep. */
    for (size_t i = 0; i < n; i++) {
        p[i].a = u[2 * i];
        p[i].b = u[2 * i + 1];
    }
    qsort(p, n, sizeof *p, gain_key_cmp);
    for (size_t i = 0; i < n; i++)
        if (s == 0 || p[i].b > p[s - 1].b)
            p[s++] = p[i];
    /*
     * Strips from the left: between a_{i-1} and a_i the dominated part
     * reaches b_i (the highest of the points to the right), so the
     * non-dominated part is [a_{i-1}, a_i) × [b_i, ∞); past the last point
     * it is [a_k, ∞) × [0, ∞). ∫ P(U_1 ≥ z) dz over [l, h) is
     * G_1(l) − G_1(h).
     */
    for (size_t t = s; t-- > 0;) {
        double g1 = expected_excess(m1, sd[0], prev_a) -
                    expected_excess(m1, sd[0], p[t].a);
        ehvi += g1 * expected_excess(m2, sd[1], p[t].b);
        prev_a = p[t].a;
    }
    ehvi += expected_excess(m1, sd[0], prev_a) * expected_excess(m2, sd[1], 0);
    free(p);
    free(u);
    return ehvi;
}

double
ehvi_mc(const double *front, size_t k, size_t m, const int *sense,
        const double *ref, const double *mu, const double *sd, size_t samples,
        struct rng *r, double *se)
{
    double *u, *lim, *g, *zeros, mean = 0, m2 = 0;
    struct pareto_hv *w;
    int *ones;
    size_t n;

    if (se != NULL)
        *se = 0;
    if (samples == 0 || m == 0)
        return 0;
    u = xmalloc((k ? k : 1) * m * sizeof *u);
    lim = xmalloc((k ? k : 1) * m * sizeof *lim);
    g = xmalloc(m * sizeof *g);
    zeros = xcalloc(m, sizeof *zeros);
    ones = xmalloc(m * sizeof *ones);
    for (size_t c = 0; c < m; c++)
        ones[c] = 1;
    n = to_gain(front, k, m, sense, ref, u);
    w = pareto_hv_create(m);
    for (size_t s = 0; s < samples; s++) {
        double v, d;
        for (size_t c = 0; c < m; c++)
            g[c] = gain(mu[c] + sd[c] * rng_normal(r), ref[c], sense[c]);
        v = hvi_gain(w, u, n, m, g, lim, ones, zeros);
        /* Welford's running mean and sum of squared deviations. */
        d = v - mean;
        mean += d / (double)(s + 1);
        m2 += d * (v - mean);
    }
    if (se != NULL && samples > 1)
        *se = sqrt(m2 / (double)(samples - 1) / (double)samples);
    pareto_hv_free(w);
    free(u);
    free(lim);
    free(g);
    free(zeros);
    free(ones);
    return mean;
}

void
ehvi_hvs_direction(struct rng *r, size_t m, double *lambda)
{
    double norm = 0;
    do {
        norm = 0;
        for (size_t c = 0; c < m; c++) {
            lambda[c] = fabs(rng_normal(r));
            norm += lambda[c] * lambda[c];
        }
    } while (!(norm > 0));
    norm = sqrt(norm);
    for (size_t c = 0; c < m; c++)
        lambda[c] /= norm;
}

double
ehvi_hvs(const double *y, size_t m, const int *sense, const double *ref,
         const double *lambda)
{
    double t = INFINITY;
    for (size_t c = 0; c < m; c++) {
        double u = gain(y[c], ref[c], sense[c]);
        double q = u > 0 ? u / lambda[c] : 0;
        if (q < t)
            t = q;
    }
    return m > 0 ? pow(t, (double)m) : 0;
}

double
ehvi_hvs_front(const double *front, size_t k, size_t m, const int *sense,
               const double *ref, const double *lambda)
{
    double best = 0;
    for (size_t i = 0; i < k; i++) {
        double s = ehvi_hvs(front + i * m, m, sense, ref, lambda);
        if (s > best)
            best = s;
    }
    return best;
}

double
ehvi_hvs_mc(size_t m, const int *sense, const double *ref, const double *mu,
            const double *sd, const double *lambda, const double *best,
            size_t samples, struct rng *r)
{
    double *y, sum = 0;
    if (samples == 0 || m == 0)
        return 0;
    y = xmalloc(m * sizeof *y);
    for (size_t s = 0; s < samples; s++) {
        for (size_t c = 0; c < m; c++)
            y[c] = mu[c] + sd[c] * rng_normal(r);
        double v = ehvi_hvs(y, m, sense, ref, lambda + s * m) - best[s];
        sum += v > 0 ? v : 0;
    }
    free(y);
    double cm = pow(M_PI, (double)m / 2) /
                (pow(2, (double)m) * tgamma((double)m / 2 + 1));
    return cm * sum / (double)samples;
}
