/*
 * core/kernels.c - Matérn-5/2 and RBF kernels, their matrices and the
 * derivatives the GP needs for its log marginal likelihood gradient (see
 * kernels.h). No allocation, no state.
 */
#include "core/kernels.h"

#include <math.h>

#include "core/space.h"

/*
 * Up to this many dimensions the inverse lengthscales are kept in a stack
 * array, which turns a division per coordinate into a multiplication
 * (kernel matrices dominate the cost of a GP fit after the Cholesky).
 */
#define KERNEL_FAST_DIM 64

static double
r2_inv(const double *x, const double *y, const double *inv, size_t dim,
       const unsigned char *kinds)
{
    double s = 0.0;
    for (size_t d = 0; d < dim; d++) {
        double t = space_diff(kinds, d, x[d], y[d]) * inv[d];
        s += t * t;
    }
    return s;
}

double
kernel_corr(enum kernel_kind kind, double r2)
{
    if (r2 < 0.0)
        r2 = 0.0;
    /* Matérn would give ∞·0 = NaN at r² = ∞; the limit is 0 for both. */
    if (isinf(r2))
        return 0.0;
    if (kind == KERNEL_RBF)
        return exp(-0.5 * r2);
    /* Matérn-5/2: (1 + √5 r + 5r²/3) exp(-√5 r), R&W eq. 4.17. */
    double s = sqrt(5.0 * r2);
    return (1.0 + s + 5.0 * r2 / 3.0) * exp(-s);
}

double
kernel_r2(const double *x, const double *y, const double *ls, size_t dim,
          const unsigned char *kinds)
{
    double s = 0.0;
    for (size_t d = 0; d < dim; d++) {
        double t = space_diff(kinds, d, x[d], y[d]) / ls[d];
        s += t * t;
    }
    return s;
}

double
kernel_dcorr_dr2(enum kernel_kind kind, double r2)
{
    if (r2 < 0.0)
        r2 = 0.0;
    if (isinf(r2))
        return 0.0;
    if (kind == KERNEL_RBF)
        return -0.5 * exp(-0.5 * r2);
    /*
     * With s = √5 r: dc/dr = -(5/3) r (1 + s) e^{-s}, and dr²/dr = 2r, so
     * dc/dr² = -(5/6)(1 + s) e^{-s}, which stays finite at r = 0.
     */
    double s = sqrt(5.0 * r2);
    return -(5.0 / 6.0) * (1.0 + s) * exp(-s);
}

void
kernel_matrix(enum kernel_kind kind, const double *x, size_t n, size_t dim,
              const unsigned char *kinds, const double *ls, double sf2,
              double *out)
{
    double inv[KERNEL_FAST_DIM];
    int fast = dim <= KERNEL_FAST_DIM;

    if (fast)
        for (size_t d = 0; d < dim; d++)
            inv[d] = 1.0 / ls[d];
    for (size_t i = 0; i < n; i++) {
        const double *xi = x + i * dim;
        out[i * n + i] = sf2;
        for (size_t j = 0; j < i; j++) {
            const double *xj = x + j * dim;
            double r2 = fast ? r2_inv(xi, xj, inv, dim, kinds)
                             : kernel_r2(xi, xj, ls, dim, kinds);
            double k = sf2 * kernel_corr(kind, r2);
            out[i * n + j] = k;
            out[j * n + i] = k;
        }
    }
}

void
kernel_cross(enum kernel_kind kind, const double *xq, size_t m, const double *x,
             size_t n, size_t dim, const unsigned char *kinds, const double *ls,
             double sf2, double *out)
{
    double inv[KERNEL_FAST_DIM];
    int fast = dim <= KERNEL_FAST_DIM;

    if (fast)
        for (size_t d = 0; d < dim; d++)
            inv[d] = 1.0 / ls[d];
    for (size_t i = 0; i < m; i++) {
        const double *xi = xq + i * dim;
        for (size_t j = 0; j < n; j++) {
            const double *xj = x + j * dim;
            double r2 = fast ? r2_inv(xi, xj, inv, dim, kinds)
                             : kernel_r2(xi, xj, ls, dim, kinds);
            out[i * n + j] = sf2 * kernel_corr(kind, r2);
        }
    }
}

void
kernel_matrix_dlogls(enum kernel_kind kind, const double *x, size_t n,
                     size_t dim, const unsigned char *kinds, const double *ls,
                     double sf2, size_t d, double *out)
{
    for (size_t i = 0; i < n; i++) {
        out[i * n + i] = 0.0;
        for (size_t j = 0; j < i; j++) {
            const double *xi = x + i * dim, *xj = x + j * dim;
            double t = space_diff(kinds, d, xi[d], xj[d]) / ls[d];
            double v =
                -2.0 * sf2 *
                kernel_dcorr_dr2(kind, kernel_r2(xi, xj, ls, dim, kinds)) * t *
                t;
            out[i * n + j] = v;
            out[j * n + i] = v;
        }
    }
}

/*
 * corr(r²) and q(r²) = -2 corr'(r²), the factor of ∂K/∂log ℓ_d. For RBF
 * q = corr; for Matérn-5/2, with s = √(5r²), q = (5/3)(1 + s) e^{-s}
 * = (5/3)(1 + s) corr / (1 + s + s²/3). When the caller already has the
 * kernel matrix (k != NULL), corr = K_ij/σ_f² and no exp is needed.
 */
static void
corr_and_q(enum kernel_kind kind, double r2, const double *kij, double sf2,
           double *c, double *q)
{
    if (isinf(r2)) {
        *c = 0.0;
        *q = 0.0;
    } else if (kind == KERNEL_RBF) {
        *c = kij ? *kij / sf2 : exp(-0.5 * r2);
        *q = *c;
    } else {
        double s = sqrt(5.0 * r2);
        if (kij) {
            *c = *kij / sf2;
            *q = (5.0 / 3.0) * (1.0 + s) * *c / (1.0 + s + s * s / 3.0);
        } else {
            double e = exp(-s);
            *c = (1.0 + s + s * s / 3.0) * e;
            *q = (5.0 / 3.0) * (1.0 + s) * e;
        }
    }
}

/* kernel_grad_contract for dim > KERNEL_FAST_DIM: no stack arrays. */
static void
slow_contract(enum kernel_kind kind, const double *x, size_t n, size_t dim,
              const unsigned char *kinds, const double *ls, double sf2,
              const double *k, const double *w, double *g)
{
    double gsf = 0.0;

    for (size_t d = 0; d < dim; d++)
        g[d] = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double *xi = x + i * dim;
        gsf += w[i * n + i] * sf2;
        for (size_t j = 0; j < i; j++) {
            const double *xj = x + j * dim;
            double wij = 2.0 * w[i * n + j];
            double c, q;
            corr_and_q(kind, kernel_r2(xi, xj, ls, dim, kinds),
                       k ? k + i * n + j : NULL, sf2, &c, &q);
            gsf += wij * sf2 * c;
            for (size_t d = 0; d < dim; d++) {
                double t = space_diff(kinds, d, xi[d], xj[d]) / ls[d];
                g[d] += wij * sf2 * q * t * t;
            }
        }
    }
    g[dim] = gsf;
}

void
kernel_grad_contract(enum kernel_kind kind, const double *x, size_t n,
                     size_t dim, const unsigned char *kinds, const double *ls,
                     double sf2, const double *k, const double *w, double *g)
{
    double inv[KERNEL_FAST_DIM], t[KERNEL_FAST_DIM];
    double gsf = 0.0;

    if (dim > KERNEL_FAST_DIM) {
        slow_contract(kind, x, n, dim, kinds, ls, sf2, k, w, g);
        return;
    }
    for (size_t d = 0; d < dim; d++) {
        inv[d] = 1.0 / ls[d];
        g[d] = 0.0;
    }
    for (size_t i = 0; i < n; i++) {
        const double *xi = x + i * dim;
        /* Diagonal: r² = 0, so only the σ_f² derivative (= K_ii) is set. */
        gsf += w[i * n + i] * sf2;
        for (size_t j = 0; j < i; j++) {
            const double *xj = x + j * dim;
            double r2 = 0.0;
            for (size_t d = 0; d < dim; d++) {
                t[d] = space_diff(kinds, d, xi[d], xj[d]) * inv[d];
                t[d] *= t[d];
                r2 += t[d];
            }
            /* Off-diagonal pairs count twice because w is symmetric. */
            double wij = 2.0 * w[i * n + j];
            double c, q;
            corr_and_q(kind, r2, k ? k + i * n + j : NULL, sf2, &c, &q);
            gsf += wij * sf2 * c;
            double f = wij * sf2 * q;
            for (size_t d = 0; d < dim; d++)
                g[d] += f * t[d];
        }
    }
    g[dim] = gsf;
}
